//! Rare events estimated, not waited for: importance sampling of a cell's
//! trials. Pauses are drawn from a proposal that makes the rare ones
//! common (more of them, `Tilt::rate_factor`; lengths shifted towards the
//! shortest that can corrupt, `Tilt::shift`, or a histogram's lengths at
//! or above it, in one draw of `Tilt::mix`), and each trial is weighed by
//! its likelihood ratio w, the product over its draws of the profile's
//! density over the proposal's. Then E_f[corrupted] = E_q[w · corrupted]
//! exactly, and P(corrupted write per hold) is the ratio of the weighted
//! sums of corrupted writes and holds, its 95% interval from the delta
//! method over trials (the trials are independent; the writes within one
//! are not). The effective sample size (Σw)² / Σw² says how many plain
//! trials the weighted ones are worth.
//!
//! The proposal is chosen from the cell: lengths centred on the
//! threshold (`threshold.rs`), and pauses placed where one can corrupt,
//! in bands of the lock cycle just after the ask and before the write
//! (`place`), about one a trial in all; where the profile already
//! reaches the threshold often, no tilt at all, and the estimate is plain
//! sampling. The trials
//! run in batches until the interval's half-width is at most 30% of the
//! estimate (with 30 corrupted writes seen at least) or the trial budget
//! is spent, so a cell's result depends on its seed alone, never on the
//! clock. Weights are summed in trial order with +, *, / and libm's exp
//! and ln, the same bits natively and in wasm32.

use super::estimate::CellResult;
use super::plan::{cell_key, trial_seed, Cell, Fleet, Plan, PlanError};
use super::profile::{PauseProfile, Tilt};
use super::sample::LogNormal;
use super::threshold::{Reach, Threshold};
use super::trial::{self, TRIAL_MS};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;
/// The interval the estimator runs until: half-width over estimate.
pub const RELATIVE_HALF_WIDTH: f64 = 0.3;
/// Corrupted writes seen at least before the interval is trusted.
const EVENTS_MIN: u64 = 30;
/// Trials in a batch, between looks at the interval.
pub const RARE_BATCH: u32 = 500;
/// Mixed into a cell's key so weighted trials never share a plain one's seed.
const RARE_STREAM: u64 = 0x7261_7265_2d65_7374;
/// Fixed-point one of the sampler's tables.
const ONE: i64 = 1 << 24;

/// A cell's weighted trials, summed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RareResult {
    pub cell: u32,
    pub tilt: Tilt,
    pub trials: u32,
    /// Corrupted writes as drawn (unweighted).
    pub corrupted: u64,
    /// Σw, Σw², Σw·c, Σ(w·c)², in trial order.
    pub w: f64,
    pub ww: f64,
    pub y: f64,
    pub yy: f64,
}

/// Holds per trial, from the cell's plain trials (holds are common: no
/// weighting needed): their mean and the variance of that mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoldsPerTrial {
    pub mean: f64,
    pub var: f64,
}

impl HoldsPerTrial {
    /// Exactly `mean` holds a trial.
    pub fn exactly(mean: f64) -> HoldsPerTrial {
        HoldsPerTrial { mean, var: 0.0 }
    }

    /// From a cell's plain counts.
    pub fn of(r: &CellResult) -> HoldsPerTrial {
        let n = f64::from(r.trials.max(1));
        let mean = r.holds as f64 / n;
        let var = if r.trials > 1 {
            (r.sq.holds_holds as f64 - n * mean * mean).max(0.0) / (n - 1.0) / n
        } else {
            0.0
        };
        HoldsPerTrial { mean, var }
    }
}

/// An estimate per hold with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RareEstimate {
    pub p: f64,
    pub low: f64,
    pub high: f64,
    /// Effective sample size: trials the weighted ones are worth.
    pub ess: f64,
    pub trials: u32,
    pub corrupted: u64,
    /// The sampling that ran: plain, or weighted with its proposal.
    pub plain: bool,
}

impl RareEstimate {
    /// Half the interval's width over the estimate (infinite at zero).
    pub fn relative_half_width(&self) -> f64 {
        if self.p > 0.0 {
            (self.high - self.low) / 2.0 / self.p
        } else {
            f64::INFINITY
        }
    }

    pub fn contains(&self, p: f64) -> bool {
        self.low <= p && p <= self.high
    }
}

impl RareResult {
    pub fn empty(cell: u32, tilt: Tilt) -> RareResult {
        RareResult {
            cell,
            tilt,
            trials: 0,
            corrupted: 0,
            w: 0.0,
            ww: 0.0,
            y: 0.0,
            yy: 0.0,
        }
    }

    /// Adds one trial: its corrupted writes and its weight.
    pub fn add(&mut self, corrupted: u64, weight: f64) {
        let y = weight * corrupted as f64;
        self.trials += 1;
        self.corrupted += corrupted;
        self.w += weight;
        self.ww += weight * weight;
        self.y += y;
        self.yy += y * y;
    }

    /// P(corrupted write per hold): the weighted mean of corrupted writes
    /// a trial over the plain mean of holds a trial, with the delta
    /// method's 95% interval (the two means are independent).
    pub fn estimate(&self, holds: HoldsPerTrial) -> RareEstimate {
        let n = f64::from(self.trials);
        let (p, half) = if holds.mean > 0.0 && self.trials > 1 {
            let mean_y = self.y / n;
            let var_y = (self.yy - n * mean_y * mean_y).max(0.0) / (n - 1.0) / n;
            let p = mean_y / holds.mean;
            let rel = var_y / (mean_y * mean_y).max(f64::MIN_POSITIVE)
                + holds.var / (holds.mean * holds.mean);
            (p, Z95 * p * rel.sqrt())
        } else {
            (0.0, 0.0)
        };
        RareEstimate {
            p,
            low: (p - half).max(0.0),
            high: p + half,
            ess: if self.ww > 0.0 {
                self.w * self.w / self.ww
            } else {
                0.0
            },
            trials: self.trials,
            corrupted: self.corrupted,
            plain: self.tilt.is_none(),
        }
    }

    /// Whether the weighted trials say more than that they saw
    /// something: a corrupted write, and an interval that excludes zero
    /// (a half-width under the estimate, about four or more corrupted
    /// writes of like weights).
    pub fn informs(&self, holds: HoldsPerTrial) -> bool {
        self.corrupted > 0 && self.estimate(holds).low > 0.0
    }

    /// Whether the interval is narrow enough to stop.
    pub fn settled(&self, holds: HoldsPerTrial) -> bool {
        self.corrupted >= EVENTS_MIN
            && self.estimate(holds).relative_half_width() <= RELATIVE_HALF_WIDTH
    }
}

/// Pauses per 1,000 hours of one client that make one in a trial's 60 s.
const ONE_A_TRIAL: u64 = 3_600_000 * 1_000 / TRIAL_MS;

/// The length mixture (`Tilt::mix`) for `pauses` a trial under the
/// proposal: one shifted draw in that many, one in two at the most.
fn mix_of(pauses: u64) -> u32 {
    u32::try_from(pauses.max(2)).unwrap_or(u32::MAX)
}

/// The proposal for a cell's profile and threshold: about one pause a
/// trial (all `clients` together), and about one length a trial (one
/// draw in the trial's pauses) centred on the threshold. No tilt where the
/// profile already pauses that often and reaches the threshold at least
/// once in ten pauses: plain sampling is as good there.
pub fn choose_tilt(profile: &PauseProfile, threshold: &Threshold, clients: u8) -> Tilt {
    let Reach::From { pause_ms } = threshold.reach else {
        return Tilt::NONE;
    };
    if profile.per_kilohour == 0 {
        return Tilt::NONE;
    }
    // About one pause a trial, all clients together: a trial with two
    // weighs k times less than one with one, so more would spend trials
    // on weights that barely count.
    let clients = u64::from(clients.max(1));
    let rate_factor = ONE_A_TRIAL
        .div_ceil(profile.per_kilohour.saturating_mul(clients))
        .max(1);
    let target_us = pause_ms * 1_000;
    let (shift, above_us) = match profile.histogram {
        Some(h) => {
            let above: u64 = h
                .bins()
                .iter()
                .filter(|(us, _)| *us >= target_us)
                .map(|(_, n)| u64::from(*n))
                .sum();
            let tilt = above > 0 && above * 10 < h.total();
            (0, if tilt { target_us } else { 0 })
        }
        None => {
            let d = LogNormal::new(profile.median_us, profile.p99_us.max(profile.median_us));
            // Shift where the target lies above z = 1.28 (one in ten).
            let z = d.quantile_of(target_us).unwrap_or(0);
            (if z * 100 > ONE * 128 { z } else { 0 }, 0)
        }
    };
    // About one draw a trial from the long lengths: a trial's pauses
    // under the proposal, all clients together (two at least).
    let pauses = profile
        .per_kilohour
        .saturating_mul(rate_factor)
        .saturating_mul(clients)
        / ONE_A_TRIAL;
    Tilt {
        rate_factor,
        shift,
        above_us,
        mix: mix_of(pauses),
        ..Tilt::NONE
    }
}

/// Bands of the lock cycle the proposal places pauses in: three after an
/// ask, four in the work (the last of them only in a hold over 256 ms).
const BANDS: u64 = 7;
/// The asking band past 16 ms has no width of its own (it lasts as long as
/// the wait for the lock): it is weighed as if it were 240 ms, the band of
/// the work before it.
const ASKING_REST_US: u64 = 240_000;

/// Places the proposal's pauses where a single pause can corrupt: just
/// after the holder asked (its grant on its way) and in its work, most of
/// all the last moments before its write, where a pause holds back a
/// write the holder has already decided to make. Each of the seven bands
/// (`Tilt::asking`, `Tilt::working`) gets about one pause in seven
/// trials, all clients together, from the cell's holds a trial and the
/// bands' widths (1 ms, 15 ms, 240 ms and the rest); elsewhere pauses
/// arrive as the profile has them. Widths on a log scale because how
/// close to the write a pause must start to corrupt differs by system:
/// within the write's millisecond for a client that notices its loss the
/// moment it wakes (Consul, DynamoDB), within its next deadline check for
/// etcd, anywhere in the hold for a client that checks nothing. Without
/// holds there is nothing to place, and `tilt` is left as it is.
///
/// Outside the bands pauses arrive at the profile's own rate, so a trial
/// draws the profile's pauses and about one more, `clients` together:
/// one draw in that many comes from the shifted lengths (`Tilt::mix`).
/// One in two, where the profile pauses many times a trial, shifted
/// dozens of draws a trial; a trial's weight is the product of theirs,
/// and fell towards zero with every one (etcd at 600 pauses an hour per
/// client: the weights' mean 0.003 where it must be one, and an estimate
/// 2,800 times under the plain trials'; Redis without renewal at 3,600:
/// half its trials weighed under 1e-92, and the estimate 2e-58 beside
/// plain trials that saw 3e-4).
pub fn place(
    tilt: Tilt,
    profile: &PauseProfile,
    holds: HoldsPerTrial,
    hold_ms: u64,
    clients: u8,
) -> Tilt {
    if tilt.is_none() || profile.per_kilohour == 0 || holds.mean.is_nan() || holds.mean <= 0.0 {
        return tilt;
    }
    let mean_gap_us = 3_600_000_000_000f64 / profile.per_kilohour as f64;
    let factor = |width_us: u64| -> u64 {
        if width_us == 0 {
            return 1;
        }
        let k = mean_gap_us / (BANDS as f64 * holds.mean * width_us as f64);
        if k >= 1.0 {
            k.ceil().min(1e15) as u64
        } else {
            1
        }
    };
    let [e1, e16, e256] = Tilt::WORK_EDGES_US;
    let rest_us = (hold_ms * 1_000).saturating_sub(e256);
    let pauses = profile
        .per_kilohour
        .saturating_mul(u64::from(clients.max(1)))
        .div_ceil(ONE_A_TRIAL)
        + 1;
    Tilt {
        rate_factor: 1,
        mix: mix_of(pauses),
        asking: [factor(e1), factor(e16 - e1), factor(ASKING_REST_US)],
        working: [
            factor(e1),
            factor(e16 - e1),
            factor(e256 - e16),
            factor(rest_us),
        ],
        ..tilt
    }
}

/// Runs weighted trials `trials` of `cell` from `tilt`'s proposal, and
/// hands each trial's corrupted writes (at most its holds) and weight to
/// `each`, in trial order.
pub fn run_weighted(
    plan: &Plan,
    cell: u32,
    tilt: Tilt,
    trials: Range<u32>,
    each: &mut dyn FnMut(u64, f64),
) -> Result<(), PlanError> {
    plan.validate()?;
    let cell = plan.cell(cell)?;
    let key = cell_key(plan, &cell) ^ RARE_STREAM;
    // Each trial runs in the one before, reset in place.
    let mut sim = None;
    for index in trials {
        let seed = trial_seed(plan.seed, key, index);
        let (counts, weight) = trial::run_tilted(plan, &cell, seed, tilt, false, &mut sim);
        each(counts.corrupted.min(counts.holds), weight);
    }
    Ok(())
}

/// A cell's rare-event estimate under way, batch by batch: unless the
/// answer is "cannot happen" or the plain trials are enough, weighted
/// trials run in batches of `RARE_BATCH` until the interval is at most
/// 30% of the estimate (`RareResult::settled`) or the plan's
/// `rare_trials` are spent. `Rare::of` runs the batches one after the
/// other; the page's explorer deals them to its workers and adds what
/// comes back here in trial order, which gives the same sums, and so the
/// same stop, as one after the other.
#[derive(Debug, Clone, PartialEq)]
pub struct RareRun {
    rare: Rare,
    holds: HoldsPerTrial,
    trials_max: u32,
}

impl RareRun {
    /// With the threshold of `plain`'s cell (`Threshold::find` for its
    /// system and TTL), what is left to weigh.
    pub fn start(
        plan: &Plan,
        plain: &CellResult,
        threshold: Threshold,
    ) -> Result<RareRun, PlanError> {
        let cell = plan.cell(plain.cell)?;
        // The threshold proves it of one pause, or two, at a time, run
        // with the plan's seed: trials that saw a corrupted write all the
        // same (draws of the network the probes did not meet, or more
        // pauses than two) disprove it for this cell, and the cell says
        // what they saw.
        let cannot_happen = plan.faults.is_default()
            && !threshold.reached_by(&cell.profile)
            && plain.corrupted == 0;
        let holds = HoldsPerTrial::of(plain);
        let e = plain.corruption();
        let plain_enough = e.successes >= EVENTS_MIN
            && e.p > 0.0
            && (e.high - e.low) / 2.0 / e.p <= RELATIVE_HALF_WIDTH;
        let mut run = RareRun::weighing(plan, plain.cell, threshold, holds, plan.rare_trials)?;
        // Where the proposal would be the profile itself, weighted trials
        // are plain ones: the plain trials are as good, and cost nothing more.
        if cannot_happen || plain_enough || plan.rare_trials == 0 || run.tilt().is_none() {
            run.rare.weighted = None;
        }
        run.rare.cannot_happen = cannot_happen;
        Ok(run)
    }

    /// Weighs `cell`'s trials, to a 30% interval or `trials_max` trials,
    /// whatever its plain trials say; `holds` from them.
    pub fn weighing(
        plan: &Plan,
        cell: u32,
        threshold: Threshold,
        holds: HoldsPerTrial,
        trials_max: u32,
    ) -> Result<RareRun, PlanError> {
        let profile = plan.cell(cell)?.profile;
        let tilt = place(
            choose_tilt(&profile, &threshold, plan.clients),
            &profile,
            holds,
            plan.hold_ms,
            plan.clients,
        );
        Ok(RareRun {
            rare: Rare {
                threshold,
                cannot_happen: false,
                weighted: Some(RareResult::empty(cell, tilt)),
                holds_mean: holds.mean,
                holds_var: holds.var,
            },
            holds,
            trials_max,
        })
    }

    /// Runs the batches left one after the other; `progress` hears the
    /// weighted trials done after each.
    pub fn run(mut self, plan: &Plan, progress: &mut dyn FnMut(u32)) -> Result<Rare, PlanError> {
        let mut k = self.trials() / RARE_BATCH;
        while let Some(trials) = self.batch(k) {
            let (cell, tilt) = (self.rare.weighted.map_or(0, |w| w.cell), self.tilt());
            run_weighted(plan, cell, tilt, trials, &mut |c, w| self.add(c, w))?;
            k += 1;
            progress(self.trials());
        }
        Ok(self.finish())
    }

    /// The proposal the weighted trials are drawn from (none where none
    /// are needed).
    pub fn tilt(&self) -> Tilt {
        self.rare.weighted.map_or(Tilt::NONE, |w| w.tilt)
    }

    /// Weighted trials added so far.
    pub fn trials(&self) -> u32 {
        self.rare.weighted.map_or(0, |w| w.trials)
    }

    /// Whether the estimate is over: nothing to weigh, a narrow enough
    /// interval, or the trials spent.
    pub fn done(&self) -> bool {
        match &self.rare.weighted {
            None => true,
            Some(w) => w.trials >= self.trials_max || w.settled(self.holds),
        }
    }

    /// The trials of batch `k` (the first is 0), if the estimate can
    /// still need it: it lies within the plan's `rare_trials`, and the
    /// estimate is not over with the trials added so far.
    pub fn batch(&self, k: u32) -> Option<Range<u32>> {
        let from = k.checked_mul(RARE_BATCH)?;
        if self.done() || from >= self.trials_max {
            return None;
        }
        Some(from..from.saturating_add(RARE_BATCH).min(self.trials_max))
    }

    /// Adds the next weighted trial: its corrupted writes and its weight.
    pub fn add(&mut self, corrupted: u64, weight: f64) {
        if let Some(w) = &mut self.rare.weighted {
            w.add(corrupted, weight);
        }
    }

    pub fn finish(self) -> Rare {
        self.rare
    }
}

/// What the explorer can say of a cell's rare events: the threshold, and
/// either "cannot happen in this model" or an estimate per hold with its
/// interval, by plain sampling where that is as good, else by importance
/// sampling.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rare {
    pub threshold: Threshold,
    /// No pause of the profile reaches the threshold and there are no
    /// other faults: no corrupted write can happen in this model.
    pub cannot_happen: bool,
    /// The weighted trials; `None` where the cell's plain trials already
    /// gave a 30% interval, or where nothing can happen.
    pub weighted: Option<RareResult>,
    /// Holds per trial from the plain trials: mean and variance of it.
    pub holds_mean: f64,
    pub holds_var: f64,
}

impl Rare {
    /// The same estimate as `cell`'s, a cell that runs as this one's
    /// (`Plan::runs_as`): only its place and its TTL as asked differ.
    pub fn as_cell(&self, cell: &Cell) -> Rare {
        Rare {
            threshold: Threshold {
                ttl_ms: cell.ttl_ms,
                ..self.threshold
            },
            weighted: self.weighted.map(|w| RareResult {
                cell: cell.index,
                ..w
            }),
            ..*self
        }
    }

    /// With the threshold of `plain`'s cell (`Threshold::find` for its
    /// system and TTL), unless the answer is
    /// "cannot happen" or the plain interval is narrow enough, runs the
    /// importance sampler to a 30% interval or the plan's `rare_trials`.
    pub fn of(
        plan: &Plan,
        plain: &CellResult,
        threshold: Threshold,
        progress: &mut dyn FnMut(u32),
    ) -> Result<Rare, PlanError> {
        RareRun::start(plan, plain, threshold)?.run(plan, progress)
    }

    /// Holds per trial, from the plain trials.
    pub fn holds(&self) -> HoldsPerTrial {
        HoldsPerTrial {
            mean: self.holds_mean,
            var: self.holds_var,
        }
    }

    /// The weighted trials, where they ran and say too little to give
    /// (`RareResult::informs`): the cell shows its plain trials' interval.
    pub fn uninformed(&self) -> Option<&RareResult> {
        self.weighted
            .as_ref()
            .filter(|w| w.trials > 0 && !self.cannot_happen && !w.informs(self.holds()))
    }

    /// P(corrupted write per hold) with its 95% interval: the weighted
    /// one, else (none weighted, or too few seen in them: `informs`) the
    /// plain trials';
    /// `None` where nothing can happen.
    pub fn per_hold(&self, plain: &CellResult) -> Option<RareEstimate> {
        if self.cannot_happen {
            return None;
        }
        let holds = self.holds();
        Some(match &self.weighted {
            // Weighted trials bound the chance only with an interval clear
            // of zero. Ones that saw nothing bound nothing; a few corrupted
            // writes of very different weights give an interval that
            // reaches zero, and its upper end then rests on the few weights
            // drawn, not on the chance (such trials of a cell whose trials
            // weighed 1e-90 and less gave 2e-58 where the plain trials saw
            // 3e-4). The plain trials' interval is the one to give.
            Some(w) if w.informs(holds) => w.estimate(holds),
            _ => {
                let e = plain.corruption();
                RareEstimate {
                    p: e.p,
                    low: e.low,
                    high: e.high,
                    ess: f64::from(plain.trials),
                    trials: plain.trials,
                    corrupted: plain.corrupted,
                    plain: true,
                }
            }
        })
    }
}

/// Corrupted writes a fleet-year, with the interval: (expected, low,
/// high).
pub fn per_year(e: &RareEstimate, fleet: &Fleet) -> (f64, f64, f64) {
    let holds = fleet.holds_a_year();
    (e.p * holds, e.low * holds, e.high * holds)
}

#[cfg(test)]
mod tests {
    use super::super::profile::Sampler;
    use super::*;
    use crate::sim::rng::ChaCha8Rng;
    use rand::SeedableRng;

    /// P(X > t) for a standard normal X.
    fn normal_tail(t: f64) -> f64 {
        libm::erfc(t / std::f64::consts::SQRT_2) / 2.0
    }

    /// One pause a "trial", a hold whose remaining lease is `left_us`:
    /// corrupted when the pause outlives it. Weighted by the sampler.
    fn one_pause(profile: &PauseProfile, tilt: Tilt, left_us: u64, n: u32) -> RareEstimate {
        let mut r = RareResult::empty(0, tilt);
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..n {
            let mut s = Sampler::tilted(profile, tilt);
            let corrupted = u64::from(s.length_us(&mut rng) > left_us);
            r.add(corrupted, s.weight());
        }
        r.estimate(HoldsPerTrial::exactly(1.0))
    }

    /// A cell whose longest pause is under its threshold cannot corrupt,
    /// unless its own trials saw a corrupted write: then it says what
    /// they saw, never "cannot happen" beside it.
    #[test]
    fn a_cell_that_saw_a_corrupted_write_never_says_it_cannot_happen() {
        let plan = Plan {
            ttls_ms: vec![10_000],
            axis: super::super::Axis::MaxUs(vec![2_000_000]),
            ..Plan::default()
        };
        let cell = plan.cell(0).expect("one cell");
        let mut plain = CellResult::empty(&cell);
        plain.trials = 1_000;
        plain.holds = 10_000;
        let threshold = Threshold::at(6_000);
        assert!(
            RareRun::start(&plan, &plain, threshold)
                .unwrap()
                .rare
                .cannot_happen
        );
        plain.corrupted = 1;
        plain.corrupted_trials = 1;
        let rare = RareRun::start(&plan, &plain, threshold).unwrap().rare;
        assert!(!rare.cannot_happen);
        assert!(rare.per_hold(&plain).is_some_and(|e| e.p > 0.0));
    }

    #[test]
    fn weighted_log_normal_pauses_contain_the_closed_form_down_to_1e_9() {
        // Median 50 ms, p99 800 ms; the remaining lease at z = 3 ... 6.
        let profile = PauseProfile::log_normal(1_000, 50_000, 800_000);
        let d = LogNormal::new(50_000, 800_000);
        for z in [3.0, 4.0, 5.0, 5.6, 6.0] {
            let x = (z * ONE as f64) as i64;
            let left_us = d.at(x);
            // The exact quantile of the length the sampler gives there.
            let z_exact = d.quantile_of(left_us).unwrap() as f64 / ONE as f64;
            let p = normal_tail(z_exact);
            let tilt = choose_tilt(&profile, &Threshold::at(left_us.div_ceil(1_000)), 1);
            assert!(tilt.shift > 0, "z {z}");
            let e = one_pause(&profile, tilt, left_us, 20_000);
            assert!(e.contains(p), "z {z}: {p:e} not in {e:?}");
            assert!(e.relative_half_width() <= 0.3, "z {z}: {e:?}");
        }
    }

    #[test]
    fn weighted_exponential_arrivals_contain_the_closed_form_down_to_1e_9() {
        // A pause (one in 1,000 hours) strikes a window of `window_us`
        // when the first gap is shorter: P = 1 - e^{-window/mean}, from
        // 1.4e-7 for a 500 ms hold down to 1e-9.
        let profile = PauseProfile::log_normal(1, 50_000, 800_000);
        let mean = 3_600_000_000_000f64;
        for window_us in [500_000u64, 36_000, 3_600] {
            let p = -libm::expm1(-(window_us as f64) / mean);
            let tilt = Tilt {
                rate_factor: (mean / window_us as f64) as u64,
                ..Tilt::NONE
            };
            let mut r = RareResult::empty(0, tilt);
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            for _ in 0..20_000 {
                let mut s = Sampler::tilted(&profile, tilt);
                let start = s.next_start_us(0, &mut rng).unwrap();
                r.add(u64::from(start < window_us), s.weight());
            }
            let e = r.estimate(HoldsPerTrial::exactly(1.0));
            assert!(e.contains(p), "{window_us}: {p:e} not in {e:?}");
            assert!(e.relative_half_width() <= 0.3, "{e:?}");
        }
    }

    #[test]
    fn placed_arrivals_contain_the_closed_form_down_to_1e_10() {
        use super::super::profile::Band;
        // One pause in 1,000 hours; a client works under the lock until
        // its write at `end_ms`, and the proposal places pauses in the
        // bands before it. The first pause starts within the write's
        // millisecond, (end - 1 ms, end], with chance
        // e^{-λ (end - 1 ms)} (1 - e^{-λ 1 ms}), 2.8e-10 at 10 s.
        let profile = PauseProfile::log_normal(1, 50_000, 800_000);
        let mean = 3_600_000_000_000f64;
        for end_ms in [300u64, 10_000] {
            let (lo, hi) = ((end_ms - 1) * 1_000, end_ms * 1_000);
            let p = libm::exp(-(lo as f64) / mean) * -libm::expm1(-1_000.0 / mean);
            let tilt = place(
                choose_tilt(&profile, &Threshold::at(1), 1),
                &profile,
                HoldsPerTrial::exactly(1.0),
                end_ms,
                1,
            );
            assert!(tilt.placed(), "{tilt:?}");
            let mut r = RareResult::empty(0, tilt);
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            for _ in 0..20_000 {
                let mut s = Sampler::tilted(&profile, tilt);
                let schedule = s.schedule(Band::Working { end: end_ms });
                let start = s.draw_start_us(0, &schedule, &mut rng).unwrap();
                let hit = start > lo && start <= hi;
                // The weight of what decides the event: the process up to
                // its first arrival, or up to the window's end.
                if start <= hi {
                    s.settle(0, start, &schedule, true);
                } else {
                    s.settle(0, hi, &schedule, false);
                }
                r.add(u64::from(hit), s.weight());
            }
            let e = r.estimate(HoldsPerTrial::exactly(1.0));
            assert!(e.contains(p), "{end_ms}: {p:e} not in {e:?}");
            assert!(e.relative_half_width() <= 0.3, "{end_ms}: {e:?}");
        }
    }

    #[test]
    fn a_histogram_tilt_weighs_its_long_lengths() {
        use super::super::histogram::Histogram;
        let h = Histogram::new(&[(50_000, 999_990), (5_000_000, 10)]).unwrap();
        let profile = PauseProfile::empirical(1_000, h);
        let tilt = choose_tilt(&profile, &Threshold::at(4_000), 1);
        assert_eq!(tilt.above_us, 4_000_000);
        let e = one_pause(&profile, tilt, 4_000_000, 4_000);
        assert!(e.contains(1e-5), "{e:?}");
        assert!(e.relative_half_width() < 0.1, "{e:?}");
    }
}
