//! The rare-event estimator's figures: per system, the time its
//! importance sampler takes (one core) to a 95% interval within 30% of
//! the estimate at about 1e-6 and about 1e-9 per hold, the trials and the
//! effective sample size per second; and the threshold search's time.
//! `cargo bench --bench rare`.
//!
//! The plan is the design review's: a pause histogram of 50 ms pauses
//! with rare 30 s stalls, one pause an hour per client, TTL 10 s, the
//! lease checked before the write, 3 clients holding 500 ms. A first
//! run measures P for a stall share of 1 in 1,000; the share is then
//! scaled so that P lands near each target (P grows with the share).

use distlock::sim::Backend;
use distlock::tools::explore::{
    run_cell, Axis, Check, Histogram, HoldsPerTrial, PauseProfile, Pauses, Plan, RareRun, Threshold,
};
use std::time::Instant;

const TOTAL: u64 = 1_000_000_000;

fn plan(backend: Backend, stall_share: f64) -> Plan {
    let stalls = ((TOTAL as f64 * stall_share).round() as u64).max(1);
    let h = Histogram::new(&[(50_000, TOTAL - stalls), (30_000_000, stalls)])
        .expect("a valid histogram");
    Plan {
        backend,
        check: Check::BeforeWrite,
        pauses: Pauses::Custom {
            profile: PauseProfile::empirical(1_000, h),
        },
        ttls_ms: vec![10_000],
        axis: Axis::PerKilohour(vec![1_000]),
        trials: 2_000,
        ..Plan::default()
    }
}

/// Runs the estimator to 30% (or its budget): P, its relative
/// half-width, trials, ESS and seconds.
fn measure(plan: &Plan) -> (f64, f64, u32, f64, f64) {
    let plain = run_cell(plan, 0).expect("the plan runs");
    let holds = HoldsPerTrial::of(&plain);
    let threshold = Threshold::find(plan, plan.backend, plan.ttls_ms[0]);
    let started = Instant::now();
    let r = RareRun::weighing(plan, 0, threshold, holds, 1_000_000)
        .and_then(|run| run.run(plan, &mut |_| {}))
        .expect("the plan runs")
        .weighted
        .expect("the estimator weighs");
    let secs = started.elapsed().as_secs_f64();
    let e = r.estimate(holds);
    (e.p, e.relative_half_width(), e.trials, e.ess, secs)
}

fn main() {
    println!("distlock rare-event estimator (one core; 30 s stalls in a histogram, TTL 10 s)");
    for backend in Backend::ALL {
        let base = plan(backend, 1e-3);
        let started = Instant::now();
        let threshold = Threshold::find(&base, backend, 10_000);
        let search_s = started.elapsed().as_secs_f64();
        if !threshold.reached_by(&base.profile()) {
            println!(
                "  {:<10} cannot happen in this model, because {} (threshold search {:.2} s)",
                backend.name(),
                threshold.why(&base),
                search_s
            );
            continue;
        }
        let (p0, ..) = measure(&base);
        if p0 <= 0.0 {
            println!(
                "  {:<10} no corrupted write seen at a stall share of 1e-3",
                backend.name()
            );
            continue;
        }
        for target in [1e-6, 1e-9] {
            let plan = plan(backend, (1e-3 * target / p0).min(0.5));
            let (p, rhw, trials, ess, secs) = measure(&plan);
            println!(
                "  {:<10} target {:.0e}: P {:.2e} (±{:>4.1}%) in {:>6.2} s, {:>7} trials, ESS {:>7.0} ({:>7.0} ESS/s), threshold {:?} found in {:.2} s",
                backend.name(),
                target,
                p,
                rhw * 100.0,
                secs,
                trials,
                ess,
                ess / secs.max(1e-9),
                threshold.reach,
                search_s
            );
        }
    }
}
