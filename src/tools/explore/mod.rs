//! The hazard explorer: how often does a lock break, with this system,
//! this TTL, this runtime's pauses and this lock rate, and does fencing
//! bring it to zero? It runs many short seeded trials of a workload on the
//! core and counts what the core's oracle finds.
//!
//! Pure and deterministic like the core (no UI, no wall clock, no floats
//! in what is counted), so the same plan gives the same numbers natively
//! and in a Web Worker. A `Plan` is the whole input; its cells are
//! computed independently (`run_cell`, or `run_trials` for a slice of a
//! cell's trials whose results `CellResult::merge` sums), and any trial
//! can be rebuilt alone as a scenario the page replays (`rebuild_trial`).
//! A trial's seed comes from the master seed, the cell's environment
//! (`cell_key`: its pauses and workload, not its place in the grid) and
//! the trial's index, so a cell gives the same numbers in any grid.
//!
//! The workload of a trial: 2 to 4 clients, each thinking (a time drawn
//! evenly from none to twice the plan's think time), acquiring, working
//! under the lock for the hold time, writing once, waiting for the reply
//! and releasing, for 60 s of virtual time; then holds under way finish
//! and nobody starts a new one. Each client pauses at random (exponential
//! gaps of running time, log-normal lengths through the profile's median
//! and p99, or lengths drawn from an observed histogram; any profile can
//! have a longest pause, which caps longer draws). The think time sets how busy the lock is, and so whether a
//! contender is there to take a lease a pause let lapse; it also bounds a
//! trial's cost (about ten holds at the defaults). The production lock
//! rate only turns the probability per hold into "one corrupted write
//! every ...".
//!
//! What counts: the oracle's grants (lock holds), its corrupted writes (a
//! write accepted from a client after the lock was granted to another),
//! its stretches of two believed holders and fencing's saves. Fencing by
//! the highest token seen saves a stale write only once the resource has
//! seen a newer token: a stale write that lands before the new holder's
//! first write is accepted, and counted, with fencing on. A check against
//! the lock item (DynamoDB's) has no such gap.

mod csv;
pub mod draw;
mod estimate;
mod faults;
pub mod form;
mod histogram;
mod odds;
mod plan;
mod profile;
mod rare;
mod sample;
mod tables;
mod threshold;
mod trial;
mod workload;

pub use csv::{csv_header, csv_row, CSV_COLUMNS};
pub use estimate::{CellResult, Clusters, Estimate, TrialSquares};
pub use faults::{nodes_of, Faults, Kind as FaultKind, FAULT_MS_DEFAULT, FAULT_MS_MAX};
pub use histogram::{Histogram, HistogramError, HISTOGRAM_BINS_MAX, HISTOGRAM_TOTAL_MAX};
pub use odds::{chance_text, count_text, one_in, two_figures};
pub use plan::{
    cell_key, granted_lease_ms, latency_of_slug, latency_slug, trial_seed, validate_profile, Axis,
    Cell, Check, Fleet, Plan, PlanError, AXIS_LEN_MAX, CLIENTS_MAX, CLIENTS_MIN, CYCLE_MS_MIN,
    FLEET_HOURS_MAX, FLEET_PER_MINUTE_MILLI_MAX, FLEET_WORKERS_MAX, HOLD_MS_MAX,
    LOCKS_PER_HOUR_MAX, PAUSE_US_MAX, PER_KILOHOUR_MAX, PLAN_VERSION, RARE_TRIALS_DEFAULT,
    RARE_TRIALS_LIMIT, THINK_MS_MAX, TRIALS_MAX,
};
pub use profile::{PauseProfile, Pauses, Preset, Tilt, PAUSE_US_MIN};
pub use rare::{
    choose_tilt, per_year, run_weighted, HoldsPerTrial, Rare, RareEstimate, RareResult, RareRun,
    RARE_BATCH, RELATIVE_HALF_WIDTH,
};
pub use threshold::{Reach, Threshold, Together};
pub use trial::{TrialCounts, TrialRun, DRAIN_MS_MAX, TRIAL_MS};
pub use workload::{
    csv_comment, fencing_text, latency_text, micros_text, pauses_text, rate_text, settings_text,
    systems_text, workload_text,
};

use crate::sim::Sim;
use std::ops::Range;

/// Runs every trial of one cell.
pub fn run_cell(plan: &Plan, cell: u32) -> Result<CellResult, PlanError> {
    run_trials(plan, cell, 0..plan.trials)
}

/// Runs trials `trials` of one cell (a slice of `0..plan.trials`), for a
/// caller that spreads a cell over workers or reports progress within it.
pub fn run_trials(plan: &Plan, cell: u32, trials: Range<u32>) -> Result<CellResult, PlanError> {
    plan.validate()?;
    let cell = plan.cell(cell)?;
    if trials.end > plan.trials {
        return Err(PlanError::NoSuchTrial {
            index: trials.end - 1,
            trials: plan.trials,
        });
    }
    let mut result = CellResult::empty(&cell);
    let key = cell_key(plan, &cell);
    // Each trial runs in the one before, reset in place.
    let mut sim = None;
    for index in trials {
        let seed = trial_seed(plan.seed, key, index);
        let counts = trial::run(plan, &cell, seed, false, &mut sim);
        result.add(index, &counts);
    }
    Ok(result)
}

/// Runs one trial alone, keeping its history: the same counts as in its
/// cell, and the run itself to look at.
pub fn run_trial(plan: &Plan, cell: u32, trial: u32) -> Result<(TrialCounts, Sim), PlanError> {
    plan.validate()?;
    let cell = plan.cell(cell)?;
    if trial >= plan.trials {
        return Err(PlanError::NoSuchTrial {
            index: trial,
            trials: plan.trials,
        });
    }
    let seed = trial_seed(plan.seed, cell_key(plan, &cell), trial);
    let mut sim = None;
    let counts = trial::run(plan, &cell, seed, true, &mut sim);
    Ok((counts, sim.expect("a trial leaves its run")))
}

/// Runs one trial again and returns it as a scenario: the core's
/// configuration with the trial's seed, and every command the driver
/// issued, each at its time. Replayed with `Playback` (or `Sim::replay`)
/// to `end`, it gives the same history as the trial did.
pub fn rebuild_trial(plan: &Plan, cell: u32, trial: u32) -> Result<TrialRun, PlanError> {
    let (counts, sim) = run_trial(plan, cell, trial)?;
    Ok(TrialRun {
        cell,
        trial,
        scenario: sim.scenario(),
        end: counts.end,
        counts,
    })
}
