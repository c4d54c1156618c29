//! A cell's counts and what they estimate. The counts are integers, summed
//! over trials in any order; floats appear only in the reporting, after the
//! counting, and only through +, -, *, / and sqrt, which IEEE 754 makes
//! exact on every platform.

use super::plan::Cell;
use super::profile::PauseProfile;
use super::trial::TrialCounts;
use crate::words::long_duration;
use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;
const SECONDS_PER_HOUR: f64 = 3_600.0;

/// The counts of one cell, or of a range of its trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellResult {
    pub cell: u32,
    pub ttl_ms: u64,
    pub profile: PauseProfile,
    pub trials: u32,
    pub holds: u64,
    pub corrupted: u64,
    /// Trials with at least one corrupted write.
    pub corrupted_trials: u32,
    pub saved: u64,
    pub two_holders: u64,
    /// Trials in which two clients believed they held at once.
    pub two_holder_trials: u32,
    pub without_lease: u64,
    pub writes: u64,
    pub pauses: u64,
    pub events: u64,
    pub cut_short: u32,
    /// The first trial (by index) with a corrupted write.
    pub first_corrupted: Option<u32>,
    /// The first trial (by index) with two believed holders.
    pub first_two_holders: Option<u32>,
    /// Sums over trials of holds², corrupted², corrupted·holds,
    /// two_holders² and two_holders·holds: with the sums above, what the
    /// interval over trials needs (`Estimate::clustered`). Integers, so
    /// they too add up the same in any order and any split.
    #[serde(default)]
    pub sq: TrialSquares,
}

/// Per-trial products summed over a cell's trials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialSquares {
    pub holds_holds: u64,
    pub corrupted_corrupted: u64,
    pub corrupted_holds: u64,
    pub two_two: u64,
    pub two_holds: u64,
}

impl TrialSquares {
    fn add(&mut self, t: &TrialCounts) {
        let (n, y, w) = (
            t.holds,
            t.corrupted.min(t.holds),
            t.two_holders.min(t.holds),
        );
        self.holds_holds += n * n;
        self.corrupted_corrupted += y * y;
        self.corrupted_holds += y * n;
        self.two_two += w * w;
        self.two_holds += w * n;
    }

    fn merge(&mut self, o: &TrialSquares) {
        self.holds_holds += o.holds_holds;
        self.corrupted_corrupted += o.corrupted_corrupted;
        self.corrupted_holds += o.corrupted_holds;
        self.two_two += o.two_two;
        self.two_holds += o.two_holds;
    }
}

impl CellResult {
    /// The same counts as `cell`'s, a cell that runs as this one's
    /// (`Plan::runs_as`): only its place and its TTL as asked differ.
    pub fn as_cell(&self, cell: &Cell) -> CellResult {
        CellResult {
            cell: cell.index,
            ttl_ms: cell.ttl_ms,
            ..*self
        }
    }

    /// Nothing counted yet.
    pub fn empty(cell: &Cell) -> CellResult {
        CellResult {
            cell: cell.index,
            ttl_ms: cell.ttl_ms,
            profile: cell.profile,
            trials: 0,
            holds: 0,
            corrupted: 0,
            corrupted_trials: 0,
            saved: 0,
            two_holders: 0,
            two_holder_trials: 0,
            without_lease: 0,
            writes: 0,
            pauses: 0,
            events: 0,
            cut_short: 0,
            first_corrupted: None,
            first_two_holders: None,
            sq: TrialSquares::default(),
        }
    }

    /// Adds trial `index`'s counts.
    pub fn add(&mut self, index: u32, t: &TrialCounts) {
        self.trials += 1;
        self.holds += t.holds;
        self.corrupted += t.corrupted;
        self.saved += t.saved;
        self.two_holders += t.two_holders;
        self.without_lease += t.without_lease;
        self.writes += t.writes;
        self.pauses += t.pauses;
        self.events += t.events;
        self.cut_short += u32::from(t.cut_short);
        self.sq.add(t);
        if t.corrupted > 0 {
            self.corrupted_trials += 1;
            self.first_corrupted = min_some(self.first_corrupted, Some(index));
        }
        if t.two_holders > 0 {
            self.two_holder_trials += 1;
            self.first_two_holders = min_some(self.first_two_holders, Some(index));
        }
    }

    /// The counts of two disjoint sets of the same cell's trials: the
    /// result does not depend on how the trials were split or ordered.
    pub fn merge(mut self, other: &CellResult) -> CellResult {
        debug_assert_eq!(self.cell, other.cell, "merging two cells");
        self.trials += other.trials;
        self.holds += other.holds;
        self.corrupted += other.corrupted;
        self.corrupted_trials += other.corrupted_trials;
        self.saved += other.saved;
        self.two_holders += other.two_holders;
        self.two_holder_trials += other.two_holder_trials;
        self.without_lease += other.without_lease;
        self.writes += other.writes;
        self.pauses += other.pauses;
        self.events += other.events;
        self.cut_short += other.cut_short;
        self.sq.merge(&other.sq);
        self.first_corrupted = min_some(self.first_corrupted, other.first_corrupted);
        self.first_two_holders = min_some(self.first_two_holders, other.first_two_holders);
        self
    }

    /// P(corrupted write per lock hold), with its 95% interval over
    /// trials (`Estimate::clustered`).
    pub fn corruption(&self) -> Estimate {
        Estimate::clustered(&Clusters {
            trials: u64::from(self.trials),
            n: self.holds,
            y: self.corrupted.min(self.holds),
            yy: self.sq.corrupted_corrupted,
            yn: self.sq.corrupted_holds,
            nn: self.sq.holds_holds,
        })
    }

    /// P(two clients believe they hold, per lock hold), 95% interval over
    /// trials.
    pub fn two_holder(&self) -> Estimate {
        Estimate::clustered(&Clusters {
            trials: u64::from(self.trials),
            n: self.holds,
            y: self.two_holders.min(self.holds),
            yy: self.sq.two_two,
            yn: self.sq.two_holds,
            nn: self.sq.holds_holds,
        })
    }

    /// P(a trial sees at least one corrupted write), 95% Wilson interval.
    pub fn corrupted_trial_share(&self) -> Estimate {
        Estimate::wilson(u64::from(self.corrupted_trials), u64::from(self.trials))
    }

    /// Seconds between corrupted writes at `locks_per_hour`: the point
    /// estimate and the shortest the interval allows. `None` when the
    /// estimate is zero (no corruption seen: only the bound says anything).
    pub fn corruption_every_s(&self, locks_per_hour: u64) -> (Option<f64>, Option<f64>) {
        let e = self.corruption();
        let every = |p: f64| (p > 0.0).then(|| SECONDS_PER_HOUR / (locks_per_hour as f64 * p));
        (every(e.p), every(e.high))
    }

    /// "one corrupted write every 3.2 years", or, when none was seen, the
    /// shortest gap the 95% interval still allows.
    pub fn corruption_every_text(&self, locks_per_hour: u64) -> String {
        match self.corruption_every_s(locks_per_hour) {
            _ if self.holds == 0 => "no lock holds".to_string(),
            (Some(s), _) => format!("one every {}", long_duration(s)),
            (None, Some(s)) => format!("none seen: at most one every {} (95%)", long_duration(s)),
            (None, None) => "none".to_string(),
        }
    }
}

fn min_some(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A proportion and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub successes: u64,
    pub n: u64,
    pub p: f64,
    pub low: f64,
    pub high: f64,
    /// How much wider the variance is than if every hold were independent
    /// (Kish's design effect, at least 1); the interval is Wilson's over
    /// `n / design_effect` holds.
    #[serde(default = "one")]
    pub design_effect: f64,
}

fn one() -> f64 {
    1.0
}

/// The sums over a cell's trials that a clustered interval needs: trials,
/// holds (n), events (y), and the sums of y², y·n and n² per trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clusters {
    pub trials: u64,
    pub n: u64,
    pub y: u64,
    pub yy: u64,
    pub yn: u64,
    pub nn: u64,
}

impl Clusters {
    /// Σ (y_i·N − Y·n_i)² over trials, exactly: N²Σy² − 2NYΣyn + Y²Σn²,
    /// in 128-bit integers (the sum of squares is never negative, and at
    /// the plan's limits each term stays far below 2^128).
    fn residual_squares(&self) -> u128 {
        let (n, y) = (u128::from(self.n), u128::from(self.y));
        let plus = (n * n)
            .saturating_mul(u128::from(self.yy))
            .saturating_add((y * y).saturating_mul(u128::from(self.nn)));
        let minus = (2 * n * y).saturating_mul(u128::from(self.yn));
        plus.saturating_sub(minus)
    }
}

impl Estimate {
    /// The Wilson score interval: unlike p ± z·sqrt(p(1-p)/n) it stays in
    /// [0, 1] and is not zero-width when nothing (or everything) was seen.
    /// With no trials at all the interval is all of [0, 1].
    pub fn wilson(successes: u64, n: u64) -> Estimate {
        if n == 0 {
            return Estimate {
                successes,
                n,
                p: 0.0,
                low: 0.0,
                high: 1.0,
                design_effect: 1.0,
            };
        }
        Estimate::wilson_over(successes, n, n as f64)
    }

    /// The 95% interval of a rate per hold when holds come in trials, and
    /// events in a trial come together (a long pause corrupts several
    /// writes of one trial, 51 events in 19 trials): the ratio estimator
    /// Y/N with its variance over trials, the linearized ("sandwich")
    /// variance a survey statistician uses for clustered samples,
    ///   var = T/(T−1) · Σ (y_i − p·n_i)² / N²,
    /// turned into a design effect d = var / (p(1−p)/N) and then into
    /// Wilson's interval over N/d holds (Kish's effective sample size), so
    /// the interval keeps Wilson's good manners: inside [0, 1], not zero
    /// wide at the ends. Chosen over a bootstrap over trials because it is
    /// exact integer sums that merge in any order, needs no random draws
    /// and costs nothing per trial. d is at least 1 (never narrower than
    /// Wilson's); with no event, all events, or one trial, there is
    /// nothing to measure the clustering by, and it is Wilson's.
    pub fn clustered(c: &Clusters) -> Estimate {
        let wilson = Estimate::wilson(c.y, c.n);
        if c.y == 0 || c.y >= c.n || c.trials < 2 {
            return wilson;
        }
        let (nf, tf) = (c.n as f64, c.trials as f64);
        let p = wilson.p;
        let var = tf / (tf - 1.0) * (c.residual_squares() as f64) / (nf * nf * nf * nf);
        let binomial = p * (1.0 - p) / nf;
        let design_effect = (var / binomial).max(1.0);
        Estimate::wilson_over(c.y, c.n, nf / design_effect)
    }

    /// Wilson's interval for `successes` in `n` with the variance of
    /// `effective` independent holds (`n` itself when they are).
    fn wilson_over(successes: u64, n: u64, effective: f64) -> Estimate {
        let p = successes as f64 / n as f64;
        let nf = effective;
        let z2 = Z95 * Z95;
        let denominator = 1.0 + z2 / nf;
        let centre = (p + z2 / (2.0 * nf)) / denominator;
        let half = Z95 * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt() / denominator;
        // At the ends the interval touches 0 or 1 exactly.
        let low = if successes == 0 { 0.0 } else { centre - half };
        let high = if successes == n { 1.0 } else { centre + half };
        Estimate {
            successes,
            n,
            p,
            low: low.max(0.0),
            high: high.min(1.0),
            design_effect: n as f64 / effective,
        }
    }

    pub fn contains(&self, p: f64) -> bool {
        self.low <= p && p <= self.high
    }
}
