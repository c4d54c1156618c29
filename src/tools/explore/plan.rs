//! What a visitor asks the explorer: a system, a workload, a pause profile
//! and a grid of cells, each cell a TTL and a variant of the profile.

use super::faults::{nodes_of, Faults, FAULT_MS_MAX};
use super::profile::{PauseProfile, Pauses};
use crate::sim::latency::{LatencyPreset, LATENCY_PRESETS};
use crate::sim::{
    granted_ttl_ms, negotiated_timeout_ms, Backend, Config, FenceMode, Fencing, PgOptions, Seed,
    LATENCY_SCALE_MAX, LATENCY_SCALE_MIN, NETWORK_RTT_MS_MAX, PAUSE_MS_MAX, TTL_MS_MAX, TTL_MS_MIN,
    ZK_TICK_MS_DEFAULT,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The version written into every plan, so a worker can refuse a plan
/// from another build.
pub const PLAN_VERSION: u32 = 1;
pub const CLIENTS_MIN: u8 = 2;
pub const CLIENTS_MAX: u8 = 4;
pub const HOLD_MS_MAX: u64 = 30_000;
pub const THINK_MS_MAX: u64 = 600_000;
/// A client's hold plus think time at least: it bounds the lock cycles of
/// a trial (about 30 per client), and so its cost and its script.
pub const CYCLE_MS_MIN: u64 = 2_000;
/// Production lock rates from one an hour to a million a second.
pub const LOCKS_PER_HOUR_MAX: u64 = 3_600_000_000;
/// Values on each axis of the grid at most.
pub const AXIS_LEN_MAX: usize = 32;
pub const TRIALS_MAX: u32 = 100_000_000;
/// At most one pause a second per client: more would crowd a trial's
/// script (1,000 commands at most).
pub const PER_KILOHOUR_MAX: u64 = 3_600_000;
pub const PAUSE_US_MAX: u64 = PAUSE_MS_MAX * 1_000;

/// Weighted trials a cell's rare-event estimate may run, by default.
pub const RARE_TRIALS_DEFAULT: u32 = 100_000;
/// And at most.
pub const RARE_TRIALS_LIMIT: u32 = 2_000_000;
pub const FLEET_WORKERS_MAX: u64 = 10_000_000;
/// Locks a minute per worker, in thousandths: at most one a millisecond.
pub const FLEET_PER_MINUTE_MILLI_MAX: u64 = 60_000_000;
/// Hours in a (leap) year.
pub const FLEET_HOURS_MAX: u64 = 8_784;

/// The fleet the per-year figures are for: how many workers take the
/// lock, how often each does, and how many hours a year they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fleet {
    pub workers: u64,
    /// Locks a minute per worker, in thousandths.
    pub per_minute_milli: u64,
    pub hours: u64,
}

impl Default for Fleet {
    /// 600 workers locking once a minute all year: ten locks a second, as
    /// the production lock rate's default.
    fn default() -> Self {
        Fleet {
            workers: 600,
            per_minute_milli: 1_000,
            hours: 8_760,
        }
    }
}

impl Fleet {
    /// Lock holds a fleet-year.
    pub fn holds_a_year(&self) -> f64 {
        self.workers as f64 * self.per_minute_milli as f64 / 1_000.0 * 60.0 * self.hours as f64
    }

    fn is_default(&self) -> bool {
        *self == Fleet::default()
    }
}

fn rare_trials_default() -> u32 {
    RARE_TRIALS_DEFAULT
}

fn is_rare_trials_default(n: &u32) -> bool {
    *n == RARE_TRIALS_DEFAULT
}

/// When the application asks its lock library whether it still holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// Once, when the lock is granted: a pause anywhere in the hold strikes
    /// between that check and the write, so the write leaves the instant
    /// the client wakes (the scenario to run first).
    AtAcquire,
    /// Again just before writing: a pause during the work ends, the work
    /// goes on, and the write leaves only if the library still believes
    /// it holds by then.
    BeforeWrite,
}

impl Check {
    pub fn slug(self) -> &'static str {
        match self {
            Check::AtAcquire => "at-acquire",
            Check::BeforeWrite => "before-write",
        }
    }
}

/// The grid's second axis: the values the profile's p99 or rate takes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "axis", content = "values", rename_all = "kebab-case")]
pub enum Axis {
    /// The profile's 99th percentile, microseconds.
    P99Us(Vec<u64>),
    /// The profile's rate, pauses per 1,000 hours.
    PerKilohour(Vec<u64>),
    /// The longest pause, microseconds: every draw is capped there.
    MaxUs(Vec<u64>),
    /// The system: one row per lock system, the profile as the plan's.
    System(Vec<Backend>),
}

impl Axis {
    pub fn len(&self) -> usize {
        match self {
            Axis::P99Us(v) | Axis::PerKilohour(v) | Axis::MaxUs(v) => v.len(),
            Axis::System(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The profile at this axis position.
    fn apply(&self, profile: PauseProfile, index: usize) -> PauseProfile {
        match self {
            Axis::P99Us(v) => profile.with_p99_us(v[index]),
            Axis::PerKilohour(v) => profile.with_per_kilohour(v[index]),
            Axis::MaxUs(v) => profile.with_max_us(Some(v[index])),
            Axis::System(_) => profile,
        }
    }

    /// The system at this axis position, if the axis names systems.
    fn system(&self, index: usize) -> Option<Backend> {
        match self {
            Axis::System(v) => v.get(index).copied(),
            _ => None,
        }
    }
}

/// Everything the explorer needs, serializable to hand to a worker.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Plan {
    pub version: u32,
    pub backend: Backend,
    pub fencing: Fencing,
    /// How the resource fences with fencing on: each system's documented
    /// mode unless the plan names one; a system that lacks the named mode
    /// fences as documented (`Backend::fence_mode_in`), and the CSV says
    /// which mode each row used. Left out of the JSON while documented.
    #[serde(default, skip_serializing_if = "FenceMode::is_documented")]
    pub fence: FenceMode,
    /// Automatic renewal (keepalive, heartbeat, extension) for every client.
    pub renewal: bool,
    /// Clients contending for the lock, 2 to 4.
    pub clients: u8,
    /// How long a holder works under the lock before it writes.
    pub hold_ms: u64,
    /// The mean time a client waits after releasing before it asks again
    /// (drawn evenly between none and twice this).
    pub think_ms: u64,
    pub check: Check,
    /// Locks taken per hour in production, for "one corrupted write every ...".
    pub locks_per_hour: u64,
    pub pauses: Pauses,
    /// The longest pause in every cell (µs): a longer draw is capped to
    /// it. `None` keeps the profile's own (none for a preset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_max_us: Option<u64>,
    /// The grid's first axis: the TTL of each column.
    pub ttls_ms: Vec<u64>,
    /// The grid's second axis: one row per value.
    pub axis: Axis,
    pub trials: u32,
    pub seed: Seed,
    /// Faults besides pauses; left out of a plan's JSON while there are none.
    #[serde(default, skip_serializing_if = "Faults::is_default")]
    pub faults: Faults,
    /// PostgreSQL's TCP keepalives, which alone end a cut-off client's
    /// session (and free its lock); left out while the OS's defaults.
    #[serde(default, skip_serializing_if = "is_linux_keepalives")]
    pub pg: PgOptions,
    /// The core's latency scale for every trial: 1 is real (one zone),
    /// the default; left out of a plan's JSON while it is.
    #[serde(default = "real_scale", skip_serializing_if = "is_real_scale")]
    pub latency_scale: u32,
    /// A network round trip (ms) added between parties in different zones
    /// or regions (`sim::latency`); left out while none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub network_rtt_ms: u32,
    /// The fleet behind "corrupted writes per fleet-year"; left out while
    /// the default.
    #[serde(default, skip_serializing_if = "Fleet::is_default")]
    pub fleet: Fleet,
    /// Weighted trials a cell's rare-event estimate may run at most (0:
    /// none; the threshold is found all the same); left out while the
    /// default.
    #[serde(
        default = "rare_trials_default",
        skip_serializing_if = "is_rare_trials_default"
    )]
    pub rare_trials: u32,
}

fn is_linux_keepalives(pg: &PgOptions) -> bool {
    *pg == PgOptions::LINUX
}

fn real_scale() -> u32 {
    1
}

fn is_real_scale(scale: &u32) -> bool {
    *scale == 1
}

fn is_zero(ms: &u32) -> bool {
    *ms == 0
}

impl Default for Plan {
    fn default() -> Self {
        use super::profile::Preset;
        Plan {
            version: PLAN_VERSION,
            backend: Backend::Etcd,
            fencing: Fencing::Off,
            fence: FenceMode::Documented,
            renewal: true,
            clients: 3,
            hold_ms: 500,
            think_ms: 15_000,
            // The scenario to run first's; the form's default is the
            // check before the write, as every system's Code view does.
            check: Check::AtAcquire,
            locks_per_hour: 36_000,
            pauses: Pauses::Preset {
                preset: Preset::JvmG1,
            },
            pause_max_us: None,
            ttls_ms: vec![1_000, 2_000, 5_000, 10_000, 30_000],
            axis: Axis::P99Us(vec![1_000_000, 2_000_000, 5_000_000, 10_000_000]),
            trials: 1_000,
            seed: Seed(1),
            faults: Faults::default(),
            pg: PgOptions::LINUX,
            latency_scale: 1,
            network_rtt_ms: 0,
            fleet: Fleet::default(),
            rare_trials: RARE_TRIALS_DEFAULT,
        }
    }
}

/// One cell of the grid: a TTL, the profile of its row, and its system
/// (the plan's, or its row's on a system axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cell {
    pub index: u32,
    pub ttl_ms: u64,
    pub profile: PauseProfile,
    pub backend: Backend,
}

impl Plan {
    /// Cells in the grid: one per TTL and axis value, row by row.
    pub fn cells(&self) -> u32 {
        (self.ttls_ms.len() * self.axis.len()) as u32
    }

    /// The cell at `index` (row-major: the TTL varies fastest).
    pub fn cell(&self, index: u32) -> Result<Cell, PlanError> {
        if index >= self.cells() {
            return Err(PlanError::NoSuchCell {
                index,
                cells: self.cells(),
            });
        }
        let columns = self.ttls_ms.len();
        let (row, column) = (index as usize / columns, index as usize % columns);
        Ok(Cell {
            index,
            ttl_ms: self.ttls_ms[column],
            profile: self.axis.apply(self.profile(), row),
            backend: self.axis.system(row).unwrap_or(self.backend),
        })
    }

    /// For each cell of the grid, the earliest cell it runs exactly as, if
    /// it is not itself: the same system and pauses under the same granted
    /// lease.
    /// etcd grants no lease under 2 s and rounds up to whole seconds, so
    /// its 1 s column runs as its 2 s one; ZooKeeper's 1 s to 4 s all run
    /// at 4 s (`granted_lease_ms`, which the drawing's "runs at" says
    /// too). `cell_key` leaves the TTL out, so such cells draw the same
    /// seeds and count the same, trial for trial: their trials need
    /// running once (`CellResult::as_cell` and `Rare::as_cell` give the
    /// other cell's numbers).
    pub fn runs_as(&self) -> Vec<Option<u32>> {
        // Each cell as what its trials depend on, built once: an index
        // per cell, so that the positions below are the cells' indices.
        let runs: Vec<_> = (0..self.cells())
            .map(|index| {
                self.cell(index)
                    .expect("every index under cells() is a cell")
            })
            .map(|c| (c.backend, c.profile, granted_lease_ms(c.backend, c.ttl_ms)))
            .collect();
        runs.iter()
            .enumerate()
            .map(|(index, here)| {
                let earlier = runs[..index].iter().position(|there| there == here);
                earlier.map(|e| e as u32)
            })
            .collect()
    }

    /// The plan's pause profile before the second axis: the pauses'
    /// own, capped at the plan's longest pause if it sets one.
    pub fn profile(&self) -> PauseProfile {
        let profile = self.pauses.profile();
        profile.with_max_us(self.pause_max_us.or(profile.max_us))
    }

    /// The systems the plan runs: the system axis's, else the plan's one.
    pub fn systems(&self) -> Vec<Backend> {
        match &self.axis {
            Axis::System(v) => v.clone(),
            _ => vec![self.backend],
        }
    }

    /// The core's configuration for one trial of `cell`.
    pub fn cell_config(&self, cell: &Cell, seed: Seed) -> Config {
        Config {
            backend: cell.backend,
            pg: self.pg,
            ..self.config(cell.ttl_ms, seed)
        }
    }

    /// The core's configuration for one trial.
    pub fn config(&self, ttl_ms: u64, seed: Seed) -> Config {
        Config {
            backend: self.backend,
            fencing: self.fencing,
            fence: self.fence,
            ttl_ms,
            seed,
            // Real latencies unless the plan says (the page's default
            // slows them tenfold for watching).
            latency_scale: self.latency_scale,
            network_rtt_ms: self.network_rtt_ms,
            renewal: [self.renewal; 4],
            ..Config::default()
        }
    }

    /// Checks every range a person can get wrong; the error says which.
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.version != PLAN_VERSION {
            return Err(PlanError::Version {
                found: self.version,
            });
        }
        self.validate_workload()?;
        validate_profile(&self.profile())?;
        self.validate_grid()?;
        self.validate_faults()?;
        self.validate_latency()
    }

    /// The latency within the core's own bounds.
    fn validate_latency(&self) -> Result<(), PlanError> {
        if !(LATENCY_SCALE_MIN..=LATENCY_SCALE_MAX).contains(&self.latency_scale) {
            return Err(PlanError::OutOfRange {
                field: "latency scale",
                value: u64::from(self.latency_scale),
                min: u64::from(LATENCY_SCALE_MIN),
                max: u64::from(LATENCY_SCALE_MAX),
            });
        }
        if self.network_rtt_ms > NETWORK_RTT_MS_MAX {
            return Err(PlanError::OutOfRange {
                field: "network round trip (ms)",
                value: u64::from(self.network_rtt_ms),
                min: 0,
                max: u64::from(NETWORK_RTT_MS_MAX),
            });
        }
        Ok(())
    }

    /// Fault rates and lengths in range, and each fault where it applies.
    fn validate_faults(&self) -> Result<(), PlanError> {
        let faults = &self.faults;
        for (kind, rate) in faults.rates() {
            if rate > PER_KILOHOUR_MAX {
                return Err(PlanError::OutOfRange {
                    field: kind.field(),
                    value: rate,
                    min: 0,
                    max: PER_KILOHOUR_MAX,
                });
            }
        }
        if !(1..=FAULT_MS_MAX).contains(&faults.longest_ms) {
            return Err(PlanError::OutOfRange {
                field: "longest fault (ms)",
                value: faults.longest_ms,
                min: 1,
                max: FAULT_MS_MAX,
            });
        }
        let systems = self.systems();
        if !self.fence.is_documented()
            && !systems
                .iter()
                .any(|b| b.fence_modes().contains(&self.fence))
        {
            return Err(PlanError::NotApplicable {
                field: "fencing check",
                why: "no system the plan runs offers it (docs/fencing.md lists each system's): choose another, or add a system that offers it",
            });
        }
        if faults.on_nodes() && systems.iter().all(|&b| nodes_of(b) == 0) {
            let kind = faults.rates()[4..]
                .iter()
                .find(|(_, rate)| *rate > 0)
                .map_or("Redis node faults", |(kind, _)| kind.name());
            return Err(PlanError::NotApplicable {
                field: kind,
                why: "only Redis and Redlock have nodes the explorer can restart or whose clocks it can move: add one of them to the systems",
            });
        }
        if self.ttls_ms.len() > 1 && systems.contains(&Backend::Postgres) {
            return Err(PlanError::NotApplicable {
                field: "TTL (ms)",
                why: "PostgreSQL's lock has no lease, so a TTL axis means nothing for it: give one TTL, or take PostgreSQL off the system axis",
            });
        }
        Ok(())
    }

    fn validate_workload(&self) -> Result<(), PlanError> {
        let range = |field, value, min, max| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(PlanError::OutOfRange {
                    field,
                    value,
                    min,
                    max,
                })
            }
        };
        range(
            "clients",
            u64::from(self.clients),
            u64::from(CLIENTS_MIN),
            u64::from(CLIENTS_MAX),
        )?;
        range("hold_ms", self.hold_ms, 1, HOLD_MS_MAX)?;
        range("think_ms", self.think_ms, 0, THINK_MS_MAX)?;
        range("locks_per_hour", self.locks_per_hour, 1, LOCKS_PER_HOUR_MAX)?;
        range("trials", u64::from(self.trials), 1, u64::from(TRIALS_MAX))?;
        range(
            "weighted trials",
            u64::from(self.rare_trials),
            0,
            u64::from(RARE_TRIALS_LIMIT),
        )?;
        range("workers", self.fleet.workers, 1, FLEET_WORKERS_MAX)?;
        range(
            "locks per minute per worker (thousandths)",
            self.fleet.per_minute_milli,
            1,
            FLEET_PER_MINUTE_MILLI_MAX,
        )?;
        range("hours a year", self.fleet.hours, 1, FLEET_HOURS_MAX)?;
        if self.hold_ms + self.think_ms < CYCLE_MS_MIN {
            return Err(PlanError::CycleTooShort {
                hold_ms: self.hold_ms,
                think_ms: self.think_ms,
            });
        }
        Ok(())
    }

    fn validate_grid(&self) -> Result<(), PlanError> {
        for (axis, len) in [("TTL", self.ttls_ms.len()), ("second", self.axis.len())] {
            if !(1..=AXIS_LEN_MAX).contains(&len) {
                return Err(PlanError::AxisLength { axis, len });
            }
        }
        for &ttl_ms in &self.ttls_ms {
            if !(TTL_MS_MIN..=TTL_MS_MAX).contains(&ttl_ms) {
                return Err(PlanError::OutOfRange {
                    field: "TTL (ms)",
                    value: ttl_ms,
                    min: TTL_MS_MIN,
                    max: TTL_MS_MAX,
                });
            }
        }
        if matches!(self.axis, Axis::P99Us(_)) && self.pauses.profile().histogram.is_some() {
            return Err(PlanError::P99OfHistogram);
        }
        for row in 0..self.axis.len() {
            validate_profile(&self.axis.apply(self.profile(), row))?;
        }
        Ok(())
    }
}

/// The lease `backend` really grants for a TTL of `ttl_ms`: etcd rounds
/// up to whole seconds and refuses less than its minimum (2 s), so its
/// 1 s column runs as its 2 s one; ZooKeeper's server holds a session's
/// timeout to 2-20 ticks (the explorer runs it at its default tick, 2 s:
/// 4 to 40 s); the others grant what they are asked.
pub fn granted_lease_ms(backend: Backend, ttl_ms: u64) -> u64 {
    match backend {
        Backend::Etcd => granted_ttl_ms(ttl_ms),
        Backend::ZooKeeper => negotiated_timeout_ms(ttl_ms, ZK_TICK_MS_DEFAULT),
        _ => ttl_ms,
    }
}

/// A latency preset of the page (`sim::latency::LATENCY_PRESETS`) by the
/// name the explorer's form, links and command line give it: "one-zone"
/// (the explorer's default), "cross-zone", "cross-region", "slowed-10x".
pub fn latency_slug(preset: &LatencyPreset) -> String {
    preset.name.to_lowercase().replace(' ', "-")
}

/// The preset named `slug`, if one is.
pub fn latency_of_slug(slug: &str) -> Option<&'static LatencyPreset> {
    LATENCY_PRESETS
        .iter()
        .find(|p| latency_slug(p).eq_ignore_ascii_case(slug.trim()))
}

/// Checks a profile's ranges.
pub fn validate_profile(profile: &PauseProfile) -> Result<(), PlanError> {
    let out = |field, value, min, max| PlanError::OutOfRange {
        field,
        value,
        min,
        max,
    };
    if profile.per_kilohour > PER_KILOHOUR_MAX {
        return Err(out(
            "pauses per 1,000 hours",
            profile.per_kilohour,
            0,
            PER_KILOHOUR_MAX,
        ));
    }
    if let Some(h) = profile.histogram.filter(|h| h.max_us() > PAUSE_US_MAX) {
        return Err(out("histogram pause (µs)", h.max_us(), 0, PAUSE_US_MAX));
    }
    if !(1..=PAUSE_US_MAX).contains(&profile.p99_us) {
        return Err(out("p99 pause (µs)", profile.p99_us, 1, PAUSE_US_MAX));
    }
    if let Some(max_us) = profile.max_us.filter(|us| !(1..=PAUSE_US_MAX).contains(us)) {
        return Err(out("longest pause (µs)", max_us, 1, PAUSE_US_MAX));
    }
    if !(1..=profile.p99_us).contains(&profile.median_us) {
        return Err(PlanError::MedianAboveP99 {
            median_us: profile.median_us,
            p99_us: profile.p99_us,
        });
    }
    Ok(())
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    Version {
        found: u32,
    },
    OutOfRange {
        field: &'static str,
        value: u64,
        min: u64,
        max: u64,
    },
    CycleTooShort {
        hold_ms: u64,
        think_ms: u64,
    },
    MedianAboveP99 {
        median_us: u64,
        p99_us: u64,
    },
    AxisLength {
        axis: &'static str,
        len: usize,
    },
    NoSuchCell {
        index: u32,
        cells: u32,
    },
    NoSuchTrial {
        index: u32,
        trials: u32,
    },
    /// A p99 axis over a histogram, whose lengths are the visitor's own.
    P99OfHistogram,
    /// A setting that does not apply to a system the plan runs.
    NotApplicable {
        field: &'static str,
        why: &'static str,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Version { found } => write!(
                f,
                "the plan has version {found}, this explorer reads version {PLAN_VERSION}"
            ),
            PlanError::OutOfRange {
                field,
                value,
                min,
                max,
            } => write!(f, "{field} is {value}, it must be from {min} to {max}"),
            PlanError::CycleTooShort { hold_ms, think_ms } => write!(
                f,
                "hold ({hold_ms} ms) plus think time ({think_ms} ms) must be at least \
                 {CYCLE_MS_MIN} ms, so a trial stays short"
            ),
            PlanError::MedianAboveP99 { median_us, p99_us } => write!(
                f,
                "the median pause ({median_us} µs) must be at least 1 µs and at most \
                 the p99 ({p99_us} µs)"
            ),
            PlanError::AxisLength { axis, len } => write!(
                f,
                "the {axis} axis has {len} values, it must have 1 to {AXIS_LEN_MAX}"
            ),
            PlanError::NoSuchCell { index, cells } => write!(
                f,
                "there is no cell {index}: the grid has {cells} (0 to {})",
                cells.saturating_sub(1)
            ),
            PlanError::NoSuchTrial { index, trials } => write!(
                f,
                "there is no trial {index}: a cell runs {trials} (0 to {})",
                trials.saturating_sub(1)
            ),
            PlanError::P99OfHistogram => f.write_str(
                "a histogram's pause lengths are the ones it lists, so a p99 axis cannot \
                 replace them: choose pauses per hour or the longest pause for the second axis",
            ),
            PlanError::NotApplicable { field, why } => {
                write!(f, "{field} does not apply here: {why}")
            }
        }
    }
}

impl std::error::Error for PlanError {}

/// The seed of one trial, from the master seed, the cell's content
/// (`cell_key`) and the trial's index: a cell reproduces exactly, in any
/// grid that holds it, and any trial can be run alone.
pub fn trial_seed(master: Seed, cell_key: u64, trial: u32) -> Seed {
    let h = splitmix64(master.0);
    let h = splitmix64(h ^ cell_key);
    Seed(splitmix64(h ^ (u64::from(trial) << 32)))
}

/// What a cell's trials meet, as a number: FNV-1a (64 bits) of the JSON
/// of a one-cell plan holding the cell's environment: its pause profile
/// (as a custom one, so a preset and the same numbers typed in agree),
/// the workload (clients, hold, think time), the faults and any setting a
/// plan gains later. Left out, set to fixed values: what the explorer
/// compares (the system, whether the plan's or its row's on a system
/// axis, and that system's options: fencing and its mode, renewal, the lease check,
/// the TTL, PostgreSQL's keepalives, and the latency it is deployed at),
/// and what changes no trial (the grid, the seed, the trial count, the
/// production lock rate). So the same cell gives the same numbers in any
/// grid and at any place in it, a system axis included; and cells that
/// differ only in what is compared meet the same pauses and faults at the
/// same times, trial by trial (common random numbers: etcd against
/// Redlock, fencing on against off, or one TTL against the next, differ
/// by what the setting does, not by other luck).
pub fn cell_key(plan: &Plan, cell: &Cell) -> u64 {
    let own = Plan {
        backend: Backend::Etcd,
        fencing: Fencing::Off,
        fence: FenceMode::Documented,
        renewal: true,
        check: Check::AtAcquire,
        pg: PgOptions::LINUX,
        latency_scale: 1,
        network_rtt_ms: 0,
        pauses: Pauses::Custom {
            profile: cell.profile,
        },
        pause_max_us: None,
        ttls_ms: Vec::new(),
        axis: Axis::PerKilohour(Vec::new()),
        trials: 1,
        seed: Seed(0),
        locks_per_hour: 1,
        fleet: Fleet::default(),
        rare_trials: RARE_TRIALS_DEFAULT,
        ..plan.clone()
    };
    let json = serde_json::to_vec(&own).unwrap_or_default();
    json.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64's finalizer: a fixed, well-mixed 64-bit hash.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
