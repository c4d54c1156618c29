//! The results table as CSV: one header line, then one line per cell.
//! The same inputs give the same bytes on every machine, so the CSVs of
//! the shards of a sweep concatenate to the CSV of the whole sweep. The
//! page's download puts the workload in `#` comment lines above the
//! header (`csv_comment`).
//!
//! The intervals (`*_low`, `*_high`) are over trials: Wilson's over
//! holds / `*_design_effect` (see `Estimate::clustered`).
//!
//! Each row states its whole environment (the workload, the pauses with
//! their longest and histogram, the fencing mode it used, each fault's rate and the longest fault,
//! PostgreSQL's keepalives, the latency and the seed), so rows from runs
//! at different settings never look alike, even without the page's `#`
//! lines (the command line prints none).

use super::estimate::CellResult;
use super::plan::Plan;
use super::rare::{per_year, Rare};
use super::threshold::{Reach, Together};
use std::fmt::Write;

/// The column names, in order.
pub const CSV_COLUMNS: [&str; 62] = [
    "cell",
    "backend",
    "fencing",
    "renewal",
    "clients",
    "hold_ms",
    "check",
    "ttl_ms",
    "pauses_per_hour",
    "median_pause_us",
    "p99_pause_us",
    "trials",
    "holds",
    "corrupted",
    "trials_with_corruption",
    "p_corrupted",
    "p_corrupted_low",
    "p_corrupted_high",
    "two_holders",
    "trials_with_two_holders",
    "p_two_holders",
    "p_two_holders_low",
    "p_two_holders_high",
    "saved_by_fencing",
    "writes_without_lease",
    "pauses",
    "corruption_every_s",
    "corruption_every",
    "first_corrupted_trial",
    "first_two_holders_trial",
    "cut_short_trials",
    "max_pause_us",
    "pause_histogram_ms",
    "p_corrupted_design_effect",
    "p_two_holders_design_effect",
    "think_ms",
    "locks_per_hour",
    "seed",
    "latency_scale",
    "network_rtt_ms",
    "pg_keepalives",
    "exits_per_hour",
    "host_deaths_per_hour",
    "partitions_per_hour",
    "losses_per_hour",
    "node_restarts_per_hour",
    "node_jumps_per_hour",
    "longest_fault_ms",
    "fence_mode",
    "threshold_pause_ms",
    "pair_pause_ms",
    "cannot_happen",
    "estimator",
    "p_hold",
    "p_hold_low",
    "p_hold_high",
    "ess",
    "estimator_trials",
    "corrupted_per_fleet_year",
    "corrupted_per_fleet_year_low",
    "corrupted_per_fleet_year_high",
    "years_between_corrupted_writes",
];

/// The header line, with its newline.
pub fn csv_header() -> String {
    let mut line = CSV_COLUMNS.join(",");
    line.push('\n');
    line
}

/// One cell's line, with its newline. Probabilities in scientific notation
/// (they span many orders of magnitude); an empty field where there is
/// nothing to say.
pub fn csv_row(plan: &Plan, r: &CellResult, rare: Option<&Rare>) -> String {
    let corruption = r.corruption();
    let two = r.two_holder();
    let (every_s, _) = r.corruption_every_s(plan.locks_per_hour);
    let mut line = String::new();
    let _ = write!(
        line,
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4e},{:.4e},{:.4e},{},{},{:.4e},{:.4e},{:.4e},{},{},{},{},\"{}\",{},{},{},{},{},{:.3},{:.3}",
        r.cell,
        plan.cell(r.cell).map_or(plan.backend, |c| c.backend).slug(),
        if plan.fencing.is_on() { "on" } else { "off" },
        if plan.renewal { "on" } else { "off" },
        plan.clients,
        plan.hold_ms,
        plan.check.slug(),
        r.ttl_ms,
        r.profile.per_hour(),
        r.profile.median_us,
        r.profile.p99_us,
        r.trials,
        r.holds,
        r.corrupted,
        r.corrupted_trials,
        corruption.p,
        corruption.low,
        corruption.high,
        r.two_holders,
        r.two_holder_trials,
        two.p,
        two.low,
        two.high,
        r.saved,
        r.without_lease,
        r.pauses,
        every_s.map_or(String::new(), |s| format!("{s:.4e}")),
        r.corruption_every_text(plan.locks_per_hour),
        r.first_corrupted.map_or(String::new(), |t| t.to_string()),
        r.first_two_holders.map_or(String::new(), |t| t.to_string()),
        r.cut_short,
        r.profile.max_us.map_or(String::new(), |us| us.to_string()),
        r.profile.histogram.map_or(String::new(), |h| h.compact()),
        corruption.design_effect,
        two.design_effect,
    );
    environment(&mut line, plan);
    // The mode the row's system fenced with (its documented one when it
    // lacks the plan's), empty with fencing off.
    if let (true, Ok(cell)) = (plan.fencing.is_on(), plan.cell(r.cell)) {
        let config = plan.cell_config(&cell, plan.seed);
        line.push(',');
        line.push_str(cell.backend.fence_mode_in(&config).word());
    } else {
        line.push(',');
    }
    rare_fields(&mut line, plan, r, rare);
    line.push('\n');
    line
}

/// The rare-event columns: the threshold (empty for none), the length
/// under which no two pauses add up where two shorter than the threshold
/// can (empty where none can, 0 where any number add up however short), whether nothing can happen, the estimator and its estimate per hold, its ESS
/// and trials, and per fleet-year (the plan's `Fleet`).
fn rare_fields(line: &mut String, plan: &Plan, r: &CellResult, rare: Option<&Rare>) {
    let Some(rare) = rare else {
        line.push_str(&",".repeat(13));
        return;
    };
    let threshold = match rare.threshold.reach {
        Reach::From { pause_ms } => pause_ms.to_string(),
        Reach::Never => String::new(),
    };
    let pairs = match rare.threshold.together {
        Together::Alone => String::new(),
        Together::Pairs { pause_ms } => pause_ms.to_string(),
        Together::Any => "0".to_string(),
    };
    let _ = write!(line, ",{threshold},{pairs},{}", rare.cannot_happen);
    match rare.per_hold(r) {
        None => line.push_str(",none,0,0,0,,,0,0,0,"),
        Some(e) => {
            let (mid, low, high) = per_year(&e, &plan.fleet);
            let _ = write!(
                line,
                ",{},{:.4e},{:.4e},{:.4e},{:.1},{},{:.4e},{:.4e},{:.4e},{}",
                if e.plain { "plain" } else { "importance" },
                e.p,
                e.low,
                e.high,
                e.ess,
                e.trials,
                mid,
                low,
                high,
                if mid > 0.0 {
                    format!("{:.4e}", 1.0 / mid)
                } else {
                    String::new()
                }
            );
        }
    }
}

/// The row's settings that no cell varies: the workload's pace, the seed,
/// the latency, PostgreSQL's keepalives (idle/interval/probes) and each
/// fault's rate per client- or node-hour with the longest fault.
fn environment(line: &mut String, plan: &Plan) {
    let pg = &plan.pg;
    let _ = write!(
        line,
        ",{},{},{},{},{},{}/{}/{}",
        plan.think_ms,
        plan.locks_per_hour,
        plan.seed.0,
        plan.latency_scale,
        plan.network_rtt_ms,
        pg.keepalives_idle_s,
        pg.keepalives_interval_s,
        pg.keepalives_count,
    );
    // In `Faults::rates`'s order, which the columns follow.
    for (_, per_kilohour) in plan.faults.rates() {
        let _ = write!(line, ",{}", per_kilohour as f64 / 1_000.0);
    }
    let _ = write!(line, ",{}", plan.faults.longest_ms);
}
