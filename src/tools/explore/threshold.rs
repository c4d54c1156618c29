//! The shortest pause that can corrupt, for one system and its settings,
//! found by running the model itself: a holder pauses at every point of
//! its hold and, when it renews, of a whole renewal period (and while its
//! grant is on its way), with a contender waiting
//! for the lock, and the pause's length is narrowed down to the shortest
//! that lets the contender in and the holder's stale write land. Below
//! it, no single pause corrupts, whatever the rest of the run does: the
//! lease outlives the pause (TTL, renewal, the holder's own checks and the
//! latency all taken as the model has them). Where no pause up to the
//! longest the core allows corrupts (PostgreSQL's lock lasts as long as
//! its connection; a resource that checks writes against the lock refuses
//! every stale one), the answer is "never", with its reason.
//!
//! Two pauses back to back, the second starting before the holder's
//! renewal after the first has reached the service (within a round trip
//! of waking), are the one way shorter pauses add up; the explorer's
//! estimate counts them, the threshold does not claim them.

use super::plan::{granted_lease_ms, Check, Plan};
use super::profile::PauseProfile;
use crate::sim::{Backend, ClientId, Command, Config, FenceMode, Millis, Sim, PAUSE_MS_MAX};
use serde::{Deserialize, Serialize};

/// A client waits this long at most for a grant or for its write to land.
const SETTLE_MS: u64 = 30_000;
/// Points of the hold at which a pause starts (besides its last instant).
const OFFSETS: u64 = 24;
/// Renewal phases tried for a holder whose session outlives its holds.
const PHASES: u64 = 6;

/// What a single pause can do to one system at one TTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reach", rename_all = "kebab-case")]
pub enum Reach {
    /// A pause of `pause_ms` or more can corrupt; none shorter can.
    From { pause_ms: u64 },
    /// No pause up to the core's longest (10 minutes) corrupts.
    Never,
}

/// The threshold of one system at one TTL, with what it was found under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threshold {
    pub backend: Backend,
    pub ttl_ms: u64,
    pub reach: Reach,
}

impl Threshold {
    /// Finds the shortest corrupting pause for `backend` at `ttl_ms`, with
    /// the plan's other settings (fencing and its check, renewal, when the
    /// lease is checked, the hold, the latency).
    pub fn find(plan: &Plan, backend: Backend, ttl_ms: u64) -> Threshold {
        let probe = Probe {
            plan,
            backend,
            ttl_ms,
        };
        let mut best: Option<u64> = None;
        for start in probe.starts() {
            let upper = best.map_or(PAUSE_MS_MAX, |b| b - 1);
            if upper == 0 || !probe.corrupts(start, upper) {
                continue;
            }
            // Shortest corrupting length at this start: the search keeps
            // `hi` corrupting and `lo` not.
            let (mut lo, mut hi) = (0, upper);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if probe.corrupts(start, mid) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            best = Some(hi);
        }
        Threshold {
            backend,
            ttl_ms,
            reach: best.map_or(Reach::Never, |pause_ms| Reach::From { pause_ms }),
        }
    }

    /// A threshold of `pause_ms`, as found for etcd at a 10 s TTL (for
    /// the estimator's tests, which need one without a search).
    #[cfg(test)]
    pub fn at(pause_ms: u64) -> Threshold {
        Threshold {
            backend: Backend::Etcd,
            ttl_ms: 10_000,
            reach: Reach::From { pause_ms },
        }
    }

    /// Why, in a sentence: what stops a shorter pause, or every pause.
    pub fn why(&self, plan: &Plan) -> String {
        let name = self.backend.name();
        match self.reach {
            Reach::Never if plan.fencing.is_on() && self.fence(plan) == FenceMode::Check => {
                format!("the resource checks each write against {name}'s lock itself, so it refuses a stale write however long the pause")
            }
            Reach::Never if self.backend == Backend::Postgres => {
                "PostgreSQL's lock lasts as long as the holder's connection, and a pause ends no connection".to_string()
            }
            Reach::Never if plan.check == Check::BeforeWrite => format!(
                "the holder checks its lease just before writing, and after no pause up to {} s did {name}'s client still believe it held a lock another had taken",
                PAUSE_MS_MAX / 1_000
            ),
            Reach::Never => format!(
                "no pause up to {} s let another client take {name}'s lock before the holder's write landed",
                PAUSE_MS_MAX / 1_000
            ),
            Reach::From { pause_ms } => {
                let granted = granted_lease_ms(self.backend, self.ttl_ms);
                let renewal = if plan.renewal {
                    "renewed as its client does"
                } else {
                    "not renewed"
                };
                let check = match plan.check {
                    Check::AtAcquire => "checked once, when granted",
                    Check::BeforeWrite => "checked just before the write",
                };
                format!(
                    "a pause shorter than {} cannot outlive what the holder believes of its lease: {name}'s lease of {} is {renewal} and {check}, and the holder works {} before writing",
                    ms_words(pause_ms),
                    ms_words(granted),
                    ms_words(plan.hold_ms)
                )
            }
        }
    }

    fn fence(&self, plan: &Plan) -> FenceMode {
        let config = Config {
            backend: self.backend,
            ..plan.config(self.ttl_ms, plan.seed)
        };
        self.backend.fence_mode_in(&config)
    }

    /// Whether a profile can draw a pause long enough to corrupt: `false`
    /// proves that no single pause of the profile corrupts.
    pub fn reached_by(&self, profile: &PauseProfile) -> bool {
        match self.reach {
            Reach::Never => false,
            Reach::From { pause_ms } => {
                profile.per_kilohour > 0 && profile.longest_us() > (pause_ms - 1) * 1_000
            }
        }
    }
}

/// "9.5 s", "800 ms".
fn ms_words(ms: u64) -> String {
    super::micros_text(ms * 1_000)
}

/// Where a pause starts: after a warm-up hold (so a session that outlives
/// its holds meets the pause at another point of its renewal), then at a
/// point of the hold, or while the grant is on its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Start {
    /// Idle time after a first hold and release, before the hold that pauses.
    warm_ms: Option<u64>,
    /// Into the hold; `None`: at once after asking, before the grant.
    offset_ms: Option<u64>,
}

struct Probe<'a> {
    plan: &'a Plan,
    backend: Backend,
    ttl_ms: u64,
}

impl Probe<'_> {
    /// Where pauses start: through the hold, and for a renewing holder
    /// through a whole renewal period besides (a hold can last longer than
    /// one, or a session renew between holds), with its last instants.
    fn starts(&self) -> Vec<Start> {
        let period = (granted_lease_ms(self.backend, self.ttl_ms) / 3).max(1);
        let span = if self.plan.renewal {
            self.plan.hold_ms.max(period + period / 4)
        } else {
            self.plan.hold_ms
        };
        let mut offsets: Vec<u64> = (0..OFFSETS).map(|k| span * k / OFFSETS).collect();
        offsets.push(span.saturating_sub(1));
        if self.plan.renewal {
            offsets.extend([1, 2, 5, 10, 20, 50, 100].map(|k| period.saturating_sub(k)));
        }
        offsets.sort_unstable();
        offsets.dedup();
        let mut offsets: Vec<Option<u64>> = offsets.into_iter().map(Some).collect();
        offsets.push(None);
        let mut warms = vec![None];
        warms.extend((0..PHASES).map(|k| Some(period * k / PHASES)));
        warms
            .iter()
            .flat_map(|&warm_ms| {
                offsets
                    .iter()
                    .map(move |&offset_ms| Start { warm_ms, offset_ms })
            })
            .collect()
    }

    /// Runs the model: the holder A pauses for `pause_ms` at `start` while
    /// B waits for the lock; whether a corrupted write follows.
    fn corrupts(&self, start: Start, pause_ms: u64) -> bool {
        let config = Config {
            backend: self.backend,
            ..self.plan.config(self.ttl_ms, self.plan.seed)
        };
        let Ok(mut sim) = Sim::new(config) else {
            return false;
        };
        sim.keep_history(false);
        let [a, b, ..] = ClientId::ALL;
        let run = |sim: &mut Sim, command| {
            sim.run_until(sim.now());
            sim.command(a, command).is_ok()
        };
        if let Some(warm_ms) = start.warm_ms {
            if !run(&mut sim, Command::Acquire) || !until_holding(&mut sim, a) {
                return false;
            }
            sim.run_until(sim.now().plus(self.plan.hold_ms));
            run(&mut sim, Command::Release);
            sim.run_until(sim.now().plus(warm_ms.max(1)));
        }
        if !run(&mut sim, Command::Acquire) {
            return false;
        }
        let pause = Command::GcPause { pause_ms };
        let Some(offset_ms) = start.offset_ms else {
            // Paused while the grant is on its way: it wakes holding (or
            // believing so), works the whole hold, checks and writes.
            if !run(&mut sim, pause) {
                return false;
            }
            sim.run_until(sim.now().plus(1));
            let _ = sim.command(b, Command::Acquire);
            sim.run_until(sim.now().plus(pause_ms));
            if !until_holding(&mut sim, a) {
                return false;
            }
            sim.run_until(sim.now().plus(self.plan.hold_ms));
            return self.write_and_see(&mut sim, a);
        };
        if !until_holding(&mut sim, a) {
            return false;
        }
        let _ = sim.command(b, Command::Acquire);
        sim.run_until(sim.now().plus(offset_ms));
        if !sim.belief(a).is_holding() || !run(&mut sim, pause) {
            return false;
        }
        match self.plan.check {
            // The write is on its way out when the pause strikes: it
            // leaves the instant the holder wakes.
            Check::AtAcquire => {
                run(&mut sim, Command::Write);
                self.see(&mut sim)
            }
            Check::BeforeWrite => {
                sim.run_until(sim.now().plus(pause_ms));
                sim.run_until(sim.now().plus(self.plan.hold_ms.saturating_sub(offset_ms)));
                self.write_and_see(&mut sim, a)
            }
        }
    }

    fn write_and_see(&self, sim: &mut Sim, a: ClientId) -> bool {
        sim.run_until(sim.now());
        sim.belief(a).is_holding() && sim.command(a, Command::Write).is_ok() && self.see(sim)
    }

    /// Lets the run go on until the write has landed (and a second more),
    /// then asks the oracle.
    fn see(&self, sim: &mut Sim) -> bool {
        let end = sim.now().plus(SETTLE_MS + PAUSE_MS_MAX);
        let mut landed: Option<Millis> = None;
        while sim.oracle().corruptions() == 0 {
            match sim.next_event_at() {
                Some(t) if t <= end && landed.is_none_or(|l| t <= l) => {
                    sim.step();
                }
                _ => break,
            }
            let written = sim.resource().accepted() + sim.resource().rejected();
            if landed.is_none() && written > 0 {
                landed = Some(sim.now().plus(1_000));
            }
        }
        sim.oracle().corruptions() > 0
    }
}

/// Runs until `c` holds (or believes it does), at most `SETTLE_MS`.
fn until_holding(sim: &mut Sim, c: ClientId) -> bool {
    let end = sim.now().plus(SETTLE_MS);
    while !sim.belief(c).is_holding() {
        match sim.next_event_at() {
            Some(t) if t <= end => {
                sim.step();
            }
            _ => return false,
        }
    }
    true
}
