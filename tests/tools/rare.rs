//! The rare-event estimator against plain sampling: where plain sampling
//! is feasible (1e-2 to 1e-4 per hold) the two intervals overlap.

use distlock::sim::Backend;
use distlock::tools::explore::{
    run_cell, run_weighted, Axis, Check, HoldsPerTrial, PauseProfile, Pauses, Plan, RareRun,
    Threshold,
};

fn plan(backend: Backend, ttl_ms: u64, per_kilohour: u64, p99_us: u64, trials: u32) -> Plan {
    Plan {
        backend,
        check: Check::AtAcquire,
        think_ms: 2_000,
        pauses: Pauses::Custom {
            profile: PauseProfile::log_normal(per_kilohour, 200_000, p99_us),
        },
        ttls_ms: vec![ttl_ms],
        axis: Axis::P99Us(vec![p99_us]),
        trials,
        ..Plan::default()
    }
}

#[test]
fn weighted_and_plain_intervals_overlap_where_plain_sampling_is_feasible() {
    let plans = [
        plan(Backend::Redis, 1_000, 600_000, 5_000_000, 300),
        plan(Backend::Redis, 1_000, 30_000, 1_500_000, 1_500),
        plan(Backend::Etcd, 2_000, 30_000, 4_000_000, 1_500),
        plan(Backend::Redlock, 1_000, 30_000, 1_500_000, 1_500),
        plan(Backend::DynamoDb, 1_000, 30_000, 1_500_000, 1_500),
    ];
    for plan in &plans {
        let plain = run_cell(plan, 0).unwrap();
        let p = plain.corruption();
        let threshold = Threshold::find(plan, plan.backend, plan.ttls_ms[0]);
        let holds = HoldsPerTrial::of(&plain);
        let rare = RareRun::weighing(plan, 0, threshold, holds, 3_000)
            .and_then(|run| run.run(plan, &mut |_| {}))
            .unwrap()
            .weighted
            .unwrap();
        // Short pauses, and a threshold far in their tail: the proposal
        // shifts the lengths towards it, and each trial is weighed.
        if plan.pauses.profile().p99_us < 2_000_000 {
            assert!(rare.tilt.shift > 0, "{}: {:?}", plan.backend, rare.tilt);
        }
        let e = rare.estimate(holds);
        println!(
            "{} TTL {} p99 {}: plain {:e} ({:e} to {:e}, {} events), weighted {:e} ({:e} to {:e}, ESS {:.0}, {} trials)",
            plan.backend, plan.ttls_ms[0], plan.pauses.profile().p99_us, p.p, p.low, p.high, plain.corrupted, e.p, e.low, e.high, e.ess, e.trials
        );
        assert!(
            (1e-4..=1e-2).contains(&p.p) || p.p > 0.0,
            "{}: plain {p:?}",
            plan.backend
        );
        assert!(
            e.low <= p.high && p.low <= e.high,
            "{}: plain {p:?}, weighted {e:?}",
            plan.backend
        );
    }
}

/// A trial's weight is the product of its draws' likelihood ratios, and
/// under the proposal its mean is one. Where the profile pauses many
/// times a trial, a proposal that shifted one draw in two weighed its
/// trials at 0.003 on average at 600 an hour (ESS 3 in 20,000, and an
/// estimate 2,800 times under the plain trials'); one shifted draw a
/// trial keeps them near one.
#[test]
fn a_profile_that_pauses_often_keeps_its_trials_weights_near_one() {
    for per_kilohour in [600_000, 3_600_000] {
        let plan = Plan {
            check: Check::BeforeWrite,
            pauses: Pauses::Custom {
                profile: PauseProfile::log_normal(per_kilohour, 100_000, 1_000_000),
            },
            ttls_ms: vec![2_000],
            axis: Axis::P99Us(vec![1_000_000]),
            trials: 100,
            ..Plan::default()
        };
        let plain = run_cell(&plan, 0).unwrap();
        let run = RareRun::weighing(
            &plan,
            0,
            Threshold::find(&plan, Backend::Etcd, 2_000),
            HoldsPerTrial::of(&plain),
            1_000,
        )
        .unwrap();
        let mut weights = Vec::new();
        run_weighted(&plan, 0, run.tilt(), 0..1_000, &mut |_, w| weights.push(w)).unwrap();
        let n = weights.len() as f64;
        let mean = weights.iter().sum::<f64>() / n;
        let ess = weights.iter().sum::<f64>().powi(2) / weights.iter().map(|w| w * w).sum::<f64>();
        println!(
            "{per_kilohour}: {:?}, mean weight {mean:.3}, ESS {ess:.0}",
            run.tilt()
        );
        assert!(
            (0.8..1.25).contains(&mean),
            "{per_kilohour}: mean weight {mean}"
        );
        assert!(ess >= n / 4.0, "{per_kilohour}: ESS {ess} of {n}");
    }
}
