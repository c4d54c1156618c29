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
use super::sample::{exp_gap, normal_fixed, LogNormal};
use super::trial::TRIAL_MS;
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

/// A proposal the importance sampler draws pauses from instead of the
/// profile: `rate_factor` times as many pauses, and one length in `mix`
/// from the log-normal whose normal quantile is shifted up by `shift`
/// (fixed point, 24 fractional bits), or, for a histogram, from its
/// lengths of `above_us` or more. Every draw then carries its likelihood ratio,
/// the profile's density over the proposal's, into the trial's weight.
///
/// Where a pause starts can be placed too: with `asking` and `working`
/// set, a client's pauses arrive that many times as often in the bands
/// of its lock cycle (`Band`): the first 1, 16 and more milliseconds
/// after it asked for the lock, and the last 1, 16, 256 and more
/// milliseconds of its work under the lock, when a pause is still in
/// time to hold back the write. The rate then depends on what the client
/// is doing, which the trial's past decides, and the likelihood ratio of
/// the arrivals is the product over them of 1/k and e^{(k-1)λ} over the
/// time spent in each band (a Poisson process's, band by band).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tilt {
    pub rate_factor: u64,
    pub shift: i64,
    pub above_us: u64,
    /// One draw in `mix` from the shifted lengths (or the histogram's long
    /// ones), the rest from the profile's: about one a trial.
    pub mix: u32,
    /// Rate factors after asking for the lock: its first 1 ms, the next
    /// 15 ms, the rest of the wait (0: as `rate_factor`).
    #[serde(default)]
    pub asking: [u64; 3],
    /// Rate factors while working under the lock, from its end back: the
    /// last 1 ms, the 15 before, the 240 before, the rest of the work.
    #[serde(default)]
    pub working: [u64; 4],
}

impl Tilt {
    /// No tilt: the profile itself, every weight one.
    pub const NONE: Tilt = Tilt {
        rate_factor: 1,
        shift: 0,
        above_us: 0,
        mix: 2,
        asking: [0; 3],
        working: [0; 4],
    };

    pub fn is_none(&self) -> bool {
        *self == Tilt::NONE
    }

    /// Whether the rate depends on what the client is doing.
    pub fn placed(&self) -> bool {
        self.asking != [0; 3] || self.working != [0; 4]
    }

    /// The band edges of the lock cycle, microseconds from its anchor: the
    /// asking bands' ends after the ask, the working bands' starts before
    /// the work's end.
    pub const EDGES_US: [u64; 2] = [1_000, 16_000];
    pub const WORK_EDGES_US: [u64; 3] = [1_000, 16_000, 256_000];
}

/// What a client is doing, as far as where its pauses arrive goes: the
/// anchor of its bands in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Band {
    /// Thinking, writing, down or done: `rate_factor` throughout.
    Idle,
    /// Asked for the lock at `since`.
    Asking { since: u64 },
    /// Working under the lock until `end`, when its write is due.
    Working { end: u64 },
}

/// A pause rate that changes at set times: from the draw's start, each
/// segment's factor until its end (microseconds, the last one open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Schedule {
    ends: [u64; 5],
    factors: [u64; 5],
    len: usize,
}

impl Schedule {
    fn new(segments: &[(u64, u64)]) -> Schedule {
        let mut s = Schedule {
            ends: [u64::MAX; 5],
            factors: [1; 5],
            len: 0,
        };
        for &(end, k) in segments {
            if s.len > 0 && end <= s.ends[s.len - 1] {
                continue;
            }
            s.ends[s.len] = end;
            s.factors[s.len] = k.max(1);
            s.len += 1;
        }
        s
    }

    fn segments(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ends[..self.len]
            .iter()
            .copied()
            .zip(self.factors[..self.len].iter().copied())
    }

    /// The factor in force at `at_us`.
    fn factor_at(&self, at_us: u64) -> u64 {
        self.segments()
            .find(|&(end, _)| at_us < end)
            .map_or(1, |(_, k)| k)
    }
}

/// A profile made ready to draw from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Sampler {
    mean_gap_us: Option<u64>,
    lengths: Lengths,
    /// The cap on a length (`u64::MAX` when the profile has none).
    max_us: u64,
    /// False when no draw can reach a millisecond: then nothing is ever
    /// injected, and the arrivals need not be drawn at all.
    injects: bool,
    tilt: Tilt,
    /// For a tilted histogram: its count of lengths at or above the
    /// tilt's, and its total.
    above: (u64, u64),
    /// The natural log of the likelihood ratio of every draw so far.
    log_weight: f64,
}

impl Sampler {
    /// A sampler drawing from `tilt`'s proposal, weighing each draw.
    pub fn tilted(profile: &PauseProfile, tilt: Tilt) -> Sampler {
        let (lengths, longest) = match profile.histogram {
            Some(h) => (Lengths::Histogram(h), h.max_us()),
            None => {
                let d = LogNormal::new(profile.median_us, profile.p99_us);
                (Lengths::LogNormal(d), d.max())
            }
        };
        let max_us = profile.max_us.unwrap_or(u64::MAX);
        let above = match profile.histogram {
            Some(h) if tilt.above_us > 0 => {
                let above: u64 = h
                    .bins()
                    .iter()
                    .filter(|(us, _)| *us >= tilt.above_us)
                    .map(|(_, n)| u64::from(*n))
                    .sum();
                (above, h.total())
            }
            _ => (0, 0),
        };
        Sampler {
            mean_gap_us: profile.mean_gap_us(),
            lengths,
            max_us,
            injects: longest.min(max_us) >= PAUSE_US_MIN,
            tilt,
            above,
            log_weight: 0.0,
        }
    }

    /// Whether where a pause arrives depends on what the client is doing.
    pub fn placed(&self) -> bool {
        self.tilt.placed()
    }

    /// The likelihood ratio of every draw so far (one without a tilt).
    pub fn weight(&self) -> f64 {
        libm::exp(self.log_weight)
    }

    /// When the next pause starts, `gap` after `from_us`; `None` if never.
    /// Tilted, the weight is the Poisson process's on the trial's time
    /// (`TRIAL_MS`), where pauses are injected: a gap that ends past it
    /// counts only up to it (the ratio of the two survival functions), so
    /// the weights keep a finite variance.
    #[cfg(test)]
    pub fn next_start_us(&mut self, from_us: u64, rng: &mut impl Rng) -> Option<u64> {
        let schedule = self.schedule(Band::Idle);
        let start = self.draw_start_us(from_us, &schedule, rng)?;
        self.settle(from_us, start, &schedule, true);
        Some(start)
    }

    /// The rates of a client doing `band`, from now on: its bands, then
    /// `rate_factor` once they are over. Untilted, or with no bands, one
    /// segment, so a plain trial draws exactly one gap a pause.
    pub fn schedule(&self, band: Band) -> Schedule {
        let idle = self.tilt.rate_factor.max(1);
        let or_idle = |k: u64| if k == 0 { idle } else { k };
        let [e1, e16] = Tilt::EDGES_US;
        match band {
            _ if !self.tilt.placed() => Schedule::new(&[(u64::MAX, idle)]),
            Band::Idle => Schedule::new(&[(u64::MAX, idle)]),
            Band::Asking { since } => {
                let a = since.saturating_mul(1_000);
                let [k0, k1, k2] = self.tilt.asking.map(or_idle);
                Schedule::new(&[(a + e1, k0), (a + e16, k1), (u64::MAX, k2)])
            }
            Band::Working { end } => {
                // A pause that starts within the write's millisecond holds
                // the write back: (end - 1 ms, end] in microseconds.
                let e = end.saturating_mul(1_000) + 1;
                let [w1, w16, w256] = Tilt::WORK_EDGES_US;
                let [k0, k1, k2, k3] = self.tilt.working.map(or_idle);
                Schedule::new(&[
                    (e.saturating_sub(w256), k3),
                    (e.saturating_sub(w16), k2),
                    (e.saturating_sub(w1), k1),
                    (e, k0),
                    (u64::MAX, idle),
                ])
            }
        }
    }

    /// Draws when the next pause starts after `from_us` under `schedule`,
    /// segment by segment (the process has no memory, so a gap that runs
    /// past a segment's end is drawn again from there at the next rate).
    /// Weighs nothing: `settle` does, once it is known how much of it ran.
    pub fn draw_start_us(
        &self,
        from_us: u64,
        schedule: &Schedule,
        rng: &mut impl Rng,
    ) -> Option<u64> {
        let mean = self.mean_gap_us.filter(|_| self.injects)?;
        let mut t = from_us;
        for (end, k) in schedule.segments() {
            if end <= t {
                continue;
            }
            let at = t.saturating_add(exp_gap((mean / k).max(1), rng));
            if at < end || end == u64::MAX {
                return Some(at);
            }
            t = end;
        }
        None
    }

    /// Weighs the stretch from `from_us` to `to_us` of a draw made under
    /// `schedule`: e^{(k-1)λ t} for the time t spent at each factor k,
    /// counted only up to the trial's end, and 1/k for the arrival at
    /// `to_us` if it `arrived` (a pause that started, or was skipped).
    pub fn settle(&mut self, from_us: u64, to_us: u64, schedule: &Schedule, arrived: bool) {
        let Some(mean) = self.mean_gap_us.filter(|_| self.injects) else {
            return;
        };
        let horizon = TRIAL_MS * 1_000;
        let to = to_us.min(horizon);
        let mut t = from_us;
        for (end, k) in schedule.segments() {
            if t >= to {
                break;
            }
            let hi = end.min(to);
            if hi > t {
                if k > 1 {
                    // The profile's density over the proposal's:
                    // (1/k) e^{(k-1) g / mean} for a gap g at factor k.
                    let extra = (k - 1) as f64 / mean as f64;
                    self.log_weight += extra * (hi - t) as f64;
                }
                t = hi;
            }
        }
        if arrived && to_us < horizon {
            let k = schedule.factor_at(to_us);
            if k > 1 {
                self.log_weight -= libm::log(k as f64);
            }
        }
    }

    /// A pause length in microseconds, capped at the longest pause. A
    /// histogram's draw takes one 64-bit word: its high half times the
    /// total picks an observation, evenly to within 2^-32. Tilted, one
    /// draw in `mix` comes from the shifted log-normal (or the
    /// histogram's long lengths) and the rest from the profile's (a
    /// defensive mixture: no draw weighs more than mix / (mix - 1)).
    pub fn length_us(&mut self, rng: &mut impl Rng) -> u64 {
        let length = match &self.lengths {
            Lengths::LogNormal(d) if self.tilt.shift != 0 => {
                let mix = u64::from(self.tilt.mix.max(2));
                let shifted = (u64::from(rng.next_u32()) * mix) >> 32 == 0;
                let x = normal_fixed(rng) + if shifted { self.tilt.shift } else { 0 };
                // f / q with q = f (1 - a) + (f shifted by m) a, a = 1 / mix:
                // 1 / (1 - a + a e^{m x - m²/2}).
                let (xf, mf) = (x as f64 / ONE, self.tilt.shift as f64 / ONE);
                let a = 1.0 / mix as f64;
                self.log_weight -= libm::log(1.0 - a + a * libm::exp(mf * xf - mf * mf / 2.0));
                d.at(x)
            }
            Lengths::LogNormal(d) => d.sample(rng),
            Lengths::Histogram(h) => {
                let (above, total) = self.above;
                if above == 0 || above == total {
                    let r = (u128::from(rng.next_u64()) * u128::from(h.total())) >> 64;
                    h.at(r as u64)
                } else {
                    // One draw in `mix` from the long lengths, the rest as
                    // the histogram has them: f / q = 1 / (1 - a + a / share)
                    // for a long one, 1 / (1 - a) for the others.
                    let word = rng.next_u64();
                    let mix = u64::from(self.tilt.mix.max(2));
                    let long = (u128::from(word >> 32) * u128::from(mix)) >> 32 == 0;
                    let (from, count) = if long {
                        (total - above, above)
                    } else {
                        (0, total)
                    };
                    let r = (u128::from(word << 32) * u128::from(count)) >> 64;
                    let picked = h.at(from + r as u64);
                    let a = 1.0 / mix as f64;
                    let share = above as f64 / total as f64;
                    let ratio = if picked >= self.tilt.above_us {
                        1.0 - a + a / share
                    } else {
                        1.0 - a
                    };
                    self.log_weight -= libm::log(ratio);
                    picked
                }
            }
        };
        length.min(self.max_us)
    }
}

/// Fixed-point one, as the sampler's tables count.
const ONE: f64 = (1u64 << 24) as f64;

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
