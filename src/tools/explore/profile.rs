//! Pause profiles: how often a client's process stops and for how long,
//! as named presets built from published figures, a custom log-normal, or
//! an empirical histogram; any of them with a longest pause.
//!
//! The longest pause caps draws: a draw above it lasts exactly the
//! longest pause. Capping rather than drawing again puts the tail's
//! weight at the longest pause the visitor allows, the worst case they
//! said can happen, so "is it safe if pauses never exceed 20 s?" is
//! answered on the safe side; it also costs no extra draws, so the
//! random stream and a trial's speed stay as they were.

use super::histogram::Histogram;
use super::sample::{exp_gap, LogNormal};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Microseconds in an hour.
const HOUR_US: u64 = 3_600_000_000;
/// A pause shorter than this is drawn but not injected: the core counts
/// whole milliseconds.
pub const PAUSE_US_MIN: u64 = 1_000;

/// How often a client pauses and how long a pause lasts. Lengths are
/// log-normal through the median and the 99th percentile, or drawn from a
/// histogram (then the median and p99 are the histogram's, for people);
/// pauses arrive at random (exponential gaps between the end of one and
/// the start of the next), each client on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PauseProfile {
    /// Pauses per 1,000 hours of one client's running time: 1,000 is one
    /// an hour, 42 about one a day.
    pub per_kilohour: u64,
    pub median_us: u64,
    pub p99_us: u64,
    /// The longest pause: a longer draw is capped to it. `None`: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_us: Option<u64>,
    /// Observed lengths to draw from instead of the log-normal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Histogram>,
}

impl Default for PauseProfile {
    /// No pauses at all.
    fn default() -> Self {
        PauseProfile {
            per_kilohour: 0,
            median_us: 1,
            p99_us: 1,
            max_us: None,
            histogram: None,
        }
    }
}

impl PauseProfile {
    /// A log-normal profile through `median_us` and `p99_us`, uncapped.
    pub fn log_normal(per_kilohour: u64, median_us: u64, p99_us: u64) -> PauseProfile {
        PauseProfile {
            per_kilohour,
            median_us,
            p99_us,
            ..PauseProfile::default()
        }
    }

    /// An empirical profile: lengths drawn from `histogram`, uncapped.
    pub fn empirical(per_kilohour: u64, histogram: Histogram) -> PauseProfile {
        PauseProfile {
            per_kilohour,
            median_us: histogram.quantile_us(500).max(1),
            p99_us: histogram.quantile_us(990).max(1),
            max_us: None,
            histogram: Some(histogram),
        }
    }

    /// The same profile with another longest pause (`None`: uncapped).
    pub fn with_max_us(self, max_us: Option<u64>) -> PauseProfile {
        PauseProfile { max_us, ..self }
    }

    /// Pauses per hour, for people.
    pub fn per_hour(&self) -> f64 {
        self.per_kilohour as f64 / 1_000.0
    }

    /// The same profile with another 99th percentile; the median follows
    /// it down if it would lie above it.
    pub fn with_p99_us(self, p99_us: u64) -> PauseProfile {
        PauseProfile {
            median_us: self.median_us.min(p99_us),
            p99_us,
            ..self
        }
    }

    pub fn with_per_kilohour(self, per_kilohour: u64) -> PauseProfile {
        PauseProfile {
            per_kilohour,
            ..self
        }
    }

    /// The longest pause a draw can give (µs): the histogram's longest, or
    /// the log-normal's at the end of its tables (z = 6.34), capped at the
    /// longest pause if the profile has one.
    pub fn longest_us(&self) -> u64 {
        let drawn = match self.histogram {
            Some(h) => h.max_us(),
            None => LogNormal::new(
                self.median_us.max(1),
                self.p99_us.max(self.median_us).max(1),
            )
            .max(),
        };
        drawn.min(self.max_us.unwrap_or(u64::MAX))
    }

    /// The mean gap between pauses in microseconds, `None` for no pauses.
    fn mean_gap_us(&self) -> Option<u64> {
        let per_kilohour = self.per_kilohour;
        (per_kilohour > 0).then(|| HOUR_US.saturating_mul(1_000) / per_kilohour)
    }
}

/// Where a sampler's lengths come from. A histogram is held inline (half
/// a kilobyte) so profiles stay `Copy`; a sampler is made once a trial.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lengths {
    LogNormal(LogNormal),
    Histogram(Histogram),
}

/// A profile made ready to draw from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sampler {
    mean_gap_us: Option<u64>,
    lengths: Lengths,
    /// The cap on a length (`u64::MAX` when the profile has none).
    max_us: u64,
    /// False when no draw can reach a millisecond: then nothing is ever
    /// injected, and the arrivals need not be drawn at all.
    injects: bool,
}

impl Sampler {
    pub fn new(profile: &PauseProfile) -> Sampler {
        let (lengths, longest) = match profile.histogram {
            Some(h) => (Lengths::Histogram(h), h.max_us()),
            None => {
                let d = LogNormal::new(profile.median_us, profile.p99_us);
                (Lengths::LogNormal(d), d.max())
            }
        };
        let max_us = profile.max_us.unwrap_or(u64::MAX);
        Sampler {
            mean_gap_us: profile.mean_gap_us(),
            lengths,
            max_us,
            injects: longest.min(max_us) >= PAUSE_US_MIN,
        }
    }

    /// When the next pause starts, `gap` after `from_us`; `None` if never.
    pub fn next_start_us(&self, from_us: u64, rng: &mut impl Rng) -> Option<u64> {
        let mean = self.mean_gap_us.filter(|_| self.injects)?;
        Some(from_us.saturating_add(exp_gap(mean, rng)))
    }

    /// A pause length in microseconds, capped at the longest pause. A
    /// histogram's draw takes one 64-bit word: its high half times the
    /// total picks an observation, evenly to within 2^-32.
    pub fn length_us(&self, rng: &mut impl Rng) -> u64 {
        let length = match &self.lengths {
            Lengths::LogNormal(d) => d.sample(rng),
            Lengths::Histogram(h) => {
                let r = (u128::from(rng.next_u64()) * u128::from(h.total())) >> 64;
                h.at(r as u64)
            }
        };
        length.min(self.max_us)
    }
}

macro_rules! presets {
    ($($variant:ident($slug:literal, $name:literal) = ($per_kh:expr, $median:expr, $p99:expr), $source:literal;)*) => {
        /// A named pause profile built from published figures.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Preset {
            $(#[serde(rename = $slug)] $variant,)*
        }

        impl Preset {
            pub const ALL: [Preset; [$($slug),*].len()] = [$(Preset::$variant),*];

            pub fn slug(self) -> &'static str {
                match self { $(Preset::$variant => $slug,)* }
            }

            pub fn name(self) -> &'static str {
                match self { $(Preset::$variant => $name,)* }
            }

            pub fn profile(self) -> PauseProfile {
                match self {
                    $(Preset::$variant => PauseProfile::log_normal($per_kh, $median, $p99),)*
                }
            }

            /// Where the numbers come from, for a tooltip.
            pub fn source(self) -> &'static str {
                match self { $(Preset::$variant => $source,)* }
            }
        }
    };
}

presets! {
    Go("go", "Go runtime") = (1_800_000, 50, 500),
        "Go's stop-the-world GC pauses: 'usually under 100 microseconds and often \
         as low as 10 microseconds' (Go 1.8 release notes, 2017); two per GC cycle, \
         a cycle every few seconds under load (rate: an estimate). The core counts \
         whole milliseconds and its shortest lease is 1 s: a pause under 1 ms is \
         drawn but not injected, since it cannot outlast any lease.";
    JvmG1("jvm-g1", "JVM, G1 collector") = (120_000, 100_000, 2_000_000),
        "HotSpot G1's pause-time goal, -XX:MaxGCPauseMillis, is 200 ms by default \
         and is a goal, not a bound (DataStax sets 500 ms for Cassandra). \
         Evacuation failures and fall-back full GCs give multi-second tails in \
         production. Median 100 ms, p99 2 s, two pauses a minute (rate: an \
         estimate).";
    JvmCmsFull("jvm-cms-full", "JVM, CMS full GC") = (1_000, 10_000_000, 60_000_000),
        "CMS falls back to a stop-the-world full GC on a concurrent-mode failure or \
         a fragmented old generation; the pause grows with the heap, tens of \
         seconds on large heaps and requests stalled 'over a minute' (T. Lipcon, \
         Avoiding Full GCs in Apache HBase with MemStore-Local Allocation \
         Buffers, Cloudera, 2011). One an hour (rate: an estimate).";
    Swap("swap", "Host swapping or VM live migration") = (42, 3_000_000, 120_000_000),
        "A live-migrated VM stops for tens to hundreds of milliseconds when all \
         goes well (Clark et al., Live Migration of Virtual Machines, NSDI '05); \
         a host thrashing in swap, a suspended VM or SIGSTOP stops a process for \
         seconds to minutes (M. Kleppmann, How to do distributed locking, 2016). \
         About one a day (rate: an estimate).";
    NetworkDelay("network-delay", "Long network delay") = (42, 20_000_000, 90_000_000),
        "GitHub saw packets delayed for about 90 s when its network switches \
         failed (Network problems last Friday, GitHub blog, December 2012; cited \
         by M. Kleppmann, 2016). Modelled as a pause of the client: its renewals \
         and its write are held back for the delay, as the lease and the resource \
         would see them. About one a day (rate: an estimate).";
}

impl Preset {
    pub fn from_slug(slug: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.slug() == slug)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The pause profile a plan uses: a preset, or the visitor's own numbers.
/// A custom profile may hold a histogram inline (half a kilobyte): plans
/// are made once a run, so the size costs nothing worth a `Box`.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Pauses {
    Preset { preset: Preset },
    Custom { profile: PauseProfile },
}

impl Pauses {
    pub fn profile(&self) -> PauseProfile {
        match self {
            Pauses::Preset { preset } => preset.profile(),
            Pauses::Custom { profile } => *profile,
        }
    }

    /// The profile's name: the preset's, "histogram", or "custom".
    pub fn name(&self) -> &'static str {
        match self {
            Pauses::Preset { preset } => preset.name(),
            Pauses::Custom { profile } if profile.histogram.is_some() => "histogram",
            Pauses::Custom { .. } => "custom",
        }
    }
}
