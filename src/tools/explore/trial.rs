//! One trial: a seeded short run of the workload on the core. Clients
//! think, acquire, work under the lock, write and release, over and over,
//! while pauses drawn from the profile stop them. The driver only issues
//! commands (acquire, write, release, GC pause, and the faults of
//! `faults.rs` on clients and nodes), each after the events due at its
//! time have run, so the commands it issued are a plain script that
//! `Playback` replays to the same history.

use super::faults::{Kind, Stream};
use super::plan::{Cell, Check, Plan};
use super::profile::{Band, Sampler, Schedule, Tilt, PAUSE_US_MIN};
use crate::sim::rng::ChaCha8Rng;
use crate::sim::{
    Belief, Body, ClientId, Command, CommandError, Endpoint, LastWrite, Millis, NodeCommand,
    NodeId, PartitionScope, Scenario, Seed, Sim, PAUSE_MS_MAX, SCRIPT_LEN_MAX,
};
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// Virtual time in which clients take the lock and pauses strike.
pub const TRIAL_MS: u64 = 60_000;
/// After `TRIAL_MS` no client starts anything new; holds under way finish.
/// Past this much more, the trial stops where it is and counts as cut short.
pub const DRAIN_MS_MAX: u64 = PAUSE_MS_MAX + 60_000;
/// Script entries kept free for the drain (a release per client).
const SCRIPT_RESERVE: usize = 8;
/// Script entries kept free besides, when a fault starts, for the ends
/// of the faults under way (three a client, one a node at most).
const FAULT_RESERVE: usize = 20;
/// The ChaCha streams of a trial's seed: the core uses 1 and 2.
const STREAM_WORKLOAD: u64 = 16;
const STREAM_PAUSES: u64 = 32;

/// What one trial counted. Every number is the core's own: grants and
/// findings from its `Oracle`, writes from its resource.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialCounts {
    /// Grants the lock service made.
    pub holds: u64,
    /// Writes accepted from a client after the lock was granted to another.
    pub corrupted: u64,
    /// Stale writes the resource rejected: fencing's saves.
    pub saved: u64,
    /// Stretches in which two or more clients believed they held the lock.
    pub two_holders: u64,
    /// Accepted writes from a client whose lease was gone, with no grant since.
    pub without_lease: u64,
    pub writes: u64,
    /// Pauses injected (a pause under 1 ms is drawn but not injected).
    pub pauses: u64,
    pub events: u64,
    /// When the trial ended: every client idle after `TRIAL_MS`.
    pub end: Millis,
    /// The trial hit a limit (script or drain) before every hold finished.
    pub cut_short: bool,
}

/// What the driver has a client do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Idle until `until`, then it asks for the lock.
    Thinking {
        until: Millis,
    },
    Asking,
    /// Working under the lock: `left_ms` of work from `since` (the grant,
    /// or the end of the pause that stopped the work).
    Working {
        left_ms: u64,
        since: Millis,
    },
    /// The write went (or waits in the paused client); `sent` once the
    /// driver saw it on its way.
    Writing {
        sent: bool,
    },
    /// Crashed: its fault's stream restarts it.
    Down,
    Done,
}

impl Phase {
    /// The client waits on the core (a grant, a write's reply), not on a
    /// time the driver drew.
    fn waits_on_core(self) -> bool {
        matches!(self, Phase::Asking | Phase::Writing { .. })
    }
}

#[derive(Debug, Clone)]
struct Worker {
    id: ClientId,
    phase: Phase,
    rng: ChaCha8Rng,
    /// When the next pause starts, microseconds; `None` for never.
    next_pause_us: Option<u64>,
    /// The same rounded up to the millisecond the driver starts it at.
    next_pause_at: Option<Millis>,
    /// Where the next pause's draw started, and the rates it was drawn
    /// under (what the client was doing then): the importance sampler
    /// draws again when that changes.
    drawn_from_us: u64,
    band: Band,
    schedule: Schedule,
    /// When the current pause ends (in the past while running).
    awake_at: Millis,
    /// When the driver last looked at it (`Driver::step`).
    looked_at: Millis,
    /// When the driver must look at it next without an event to wake it
    /// (see `Driver::due`), kept since the worker's last step.
    due: Option<Millis>,
    /// It has lost messages in this trial: a write still unanswered may
    /// never be.
    lossy: bool,
}

/// What `look` reads of the clients that wait on the core, kept from one
/// look to the next: outside their due times it steps one of them only
/// once the core touched it, its pause ended, or its writes may be lost,
/// so a turn in which none of that happened need not look at all.
#[derive(Debug, Clone, Copy, Default)]
struct Watch {
    /// The waiting clients, a bit each (as `Sim::touched_any` reads them).
    clients: u8,
    /// The earliest end of a waiting client's pause it has not been
    /// looked at since.
    woke: Option<Millis>,
    /// A waiting client has lost messages: it is looked at every turn.
    lossy: bool,
}

/// The earlier of two times, either of which may be missing.
fn earliest(a: Option<Millis>, b: Option<Millis>) -> Option<Millis> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Watch {
    /// Notes client `w`: its due time into `due`, and what to watch of it
    /// if it waits on the core.
    fn add(&mut self, w: &Worker, due: &mut Option<Millis>) {
        if w.phase.waits_on_core() {
            self.clients |= 1 << w.id.index();
            self.lossy |= w.lossy;
            if w.looked_at < w.awake_at {
                self.woke = earliest(self.woke, Some(w.awake_at));
            }
        }
        *due = earliest(*due, w.due);
    }

    /// Whether, with the events up to `next` run, `look` would step a
    /// waiting client that is not due.
    fn wakes(&self, sim: &Sim, next: Millis) -> bool {
        self.clients != 0
            && (self.lossy || self.woke.is_some_and(|t| t <= next) || sim.touched_any(self.clients))
    }
}

/// A trial's driver: the run, its clients, and what it has counted.
struct Driver<'a> {
    sim: &'a mut Sim,
    workers: Vec<Worker>,
    workload: ChaCha8Rng,
    sampler: Sampler,
    plan: &'a Plan,
    pauses: u64,
    cut_short: bool,
    /// The faults' streams; empty when the plan has none.
    faults: Vec<Stream>,
}

/// Runs one trial of `cell` in `sim`, left holding the run so that it
/// can be replayed or shown. A trial that only counts keeps no history.
/// A run already in `sim` (the previous trial's) is reset in place for
/// this one (`Sim::reset`), keeping its buffers; the trial is the same
/// with or without it.
pub(super) fn run(
    plan: &Plan,
    cell: &Cell,
    seed: Seed,
    history: bool,
    sim: &mut Option<Sim>,
) -> TrialCounts {
    run_tilted(plan, cell, seed, Tilt::NONE, history, sim).0
}

/// Runs one trial with its pauses drawn from `tilt`'s proposal, in `sim`
/// as `run` does; returns its counts and its likelihood ratio (one
/// without a tilt).
pub(super) fn run_tilted(
    plan: &Plan,
    cell: &Cell,
    seed: Seed,
    tilt: Tilt,
    history: bool,
    sim: &mut Option<Sim>,
) -> (TrialCounts, f64) {
    let config = plan.cell_config(cell, seed);
    let sim = match sim {
        Some(sim) => {
            sim.reset(config)
                .expect("a valid plan gives a valid config");
            sim
        }
        None => sim.insert(Sim::new(config).expect("a valid plan gives a valid config")),
    };
    sim.keep_history(history);
    let sampler = Sampler::tilted(&cell.profile, tilt);
    let mut workload = ChaCha8Rng::seed_from_u64(seed.0);
    workload.set_stream(STREAM_WORKLOAD);
    let workers = ClientId::ALL[..usize::from(plan.clients)]
        .iter()
        .map(|&id| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed.0);
            rng.set_stream(STREAM_PAUSES + id.index() as u64);
            let schedule = sampler.schedule(Band::Idle);
            let next_pause_us = sampler.draw_start_us(0, &schedule, &mut rng);
            let next_pause_at = next_pause_us.map(us_to_ms);
            // Clients start at staggered times, as after any other idle spell.
            let until = Millis(think(&mut workload, plan.think_ms));
            Worker {
                id,
                phase: Phase::Thinking { until },
                rng,
                next_pause_us,
                next_pause_at,
                drawn_from_us: 0,
                band: Band::Idle,
                schedule,
                awake_at: Millis::ZERO,
                looked_at: Millis::ZERO,
                due: None,
                lossy: false,
            }
        })
        .collect();
    let faults = Stream::all(&plan.faults, cell.backend, plan.clients, seed.0);
    let mut driver = Driver {
        sim,
        workers,
        workload,
        sampler,
        plan,
        pauses: 0,
        cut_short: false,
        faults,
    };
    driver.drive();
    driver.settle_all();
    (driver.counts(), driver.sampler.weight())
}

/// A time in microseconds as the millisecond it falls in, rounded up.
fn us_to_ms(us: u64) -> Millis {
    Millis(us.div_ceil(1_000))
}

/// A think time drawn evenly from none to twice the mean.
fn think(rng: &mut ChaCha8Rng, mean_ms: u64) -> u64 {
    rng.random_range(0..=mean_ms.saturating_mul(2))
}

impl Driver<'_> {
    fn drive(&mut self) {
        let stop = Millis(TRIAL_MS + DRAIN_MS_MAX);
        for i in 0..self.workers.len() {
            self.workers[i].due = self.due(&self.workers[i]);
        }
        // When the driver must look at its clients next without an event,
        // and what of the core it waits on: both change only when it
        // looks, so in between an event is all there is to run.
        let (mut due, mut watch) = self.needs();
        while let Some(next) = earliest(self.sim.next_event_at(), due) {
            if next > stop {
                self.cut_short = true;
                self.sim.run_until(stop);
                return;
            }
            self.sim.run_until(next);
            if due.is_some_and(|t| t <= next) || watch.wakes(self.sim, next) {
                (due, watch) = self.look(next);
            }
            if next.ms() >= TRIAL_MS && self.finished() {
                return;
            }
        }
    }

    /// Runs the faults due at `next` and steps the clients that need it;
    /// returns what `needs` would say after it.
    fn look(&mut self, next: Millis) -> (Option<Millis>, Watch) {
        let faults = self.fault_due().is_some_and(|t| t <= next);
        if faults {
            self.run_faults();
        }
        let (mut soon, mut watch) = (None, Watch::default());
        for i in 0..self.workers.len() {
            // A client waiting for the core (a grant, a reply) is looked at
            // once the core may have changed what the driver reads of it
            // (its belief, its last write: `Sim::take_touched`), its pause
            // ended, a fault ran, or a write of its may be lost; the others
            // when they are due. A look at a waiting client the core did
            // not touch changes nothing and draws nothing, so skipping it
            // keeps every trial the same.
            let w = &self.workers[i];
            let watching = w.phase.waits_on_core();
            let due = w.due.is_some_and(|t| t <= next);
            let woke = w.looked_at < w.awake_at && w.awake_at <= next;
            let (lossy, id) = (w.lossy, w.id);
            if due || (watching && (faults || woke || lossy || self.sim.take_touched(id))) {
                self.workers[i].looked_at = next;
                self.step(i);
                self.replace_pause(i);
                self.workers[i].due = self.due(&self.workers[i]);
            }
            // Later clients' steps leave this one as it is: it is noted now,
            // rather than in a second pass.
            watch.add(&self.workers[i], &mut soon);
        }
        (earliest(soon, self.fault_due()), watch)
    }

    /// The earliest time a client or a fault needs the driver, and what
    /// of the core makes `look` step a client that waits on it.
    fn needs(&self) -> (Option<Millis>, Watch) {
        let mut due = None;
        let mut watch = Watch::default();
        for w in &self.workers {
            watch.add(w, &mut due);
        }
        (earliest(due, self.fault_due()), watch)
    }

    /// The trial is over once the time is up and every client is done: it
    /// released its last hold (a client still in a pause that began after
    /// its release has nothing left to do).
    fn finished(&self) -> bool {
        self.sim.now().ms() >= TRIAL_MS && self.workers.iter().all(|w| w.phase == Phase::Done)
    }

    /// The earliest time a client needs the driver without an event of
    /// the core to wake it: its next pause, the end of its think time or
    /// of its work, the time limit while it waits for the lock.
    fn due(&self, w: &Worker) -> Option<Millis> {
        let horizon = Millis(TRIAL_MS);
        let now = self.sim.now();
        let pause = w.next_pause_at.map(|t| t.max(now)).filter(|&t| t < horizon);
        let phase = match w.phase {
            Phase::Thinking { until } => Some(until.min(horizon)),
            Phase::Asking if now < horizon => Some(horizon),
            Phase::Working { left_ms, since } => Some(since.plus(left_ms)),
            _ => None,
        };
        // While paused the client's own wake is an event of the core.
        let phase = phase.map(|t| t.max(w.awake_at));
        earliest(pause, phase)
    }

    /// What client `i` does now, if anything.
    fn step(&mut self, i: usize) {
        let now = self.sim.now();
        if self.workers[i].phase == Phase::Down {
            self.skip_pause(i);
            return;
        }
        if now < self.workers[i].awake_at {
            return;
        }
        self.maybe_pause(i);
        if now < self.workers[i].awake_at {
            return;
        }
        let w = &self.workers[i];
        let c = w.id;
        let before_horizon = now.ms() < TRIAL_MS;
        let next = match w.phase {
            Phase::Thinking { .. } if !before_horizon => Phase::Done,
            Phase::Thinking { until } if now >= until => self.ask(c),
            Phase::Asking => self.on_asking(c, before_horizon),
            Phase::Working { left_ms, since } if now >= since.plus(left_ms) => self.write(c),
            Phase::Writing { sent } => self.on_writing(c, sent),
            phase => phase,
        };
        self.workers[i].phase = next;
    }

    fn ask(&mut self, c: ClientId) -> Phase {
        if self.sim.script().len() + SCRIPT_RESERVE >= SCRIPT_LEN_MAX {
            self.cut_short = true;
            return Phase::Done;
        }
        match self.command(c, Command::Acquire) {
            Ok(()) => Phase::Asking,
            Err(_) => self.rest(),
        }
    }

    fn on_asking(&mut self, c: ClientId, before_horizon: bool) -> Phase {
        match self.sim.belief(c) {
            Belief::Holding { .. } => Phase::Working {
                left_ms: self.plan.hold_ms,
                since: self.sim.now(),
            },
            // The attempt failed (no quorum, gave up waiting): try later.
            Belief::Idle => self.rest(),
            _ if before_horizon => Phase::Asking,
            // Time is up: give up the place in line; holds under way finish.
            _ => {
                let _ = self.command(c, Command::Release);
                Phase::Done
            }
        }
    }

    /// The work is done: write if the client (still) believes it holds.
    fn write(&mut self, c: ClientId) -> Phase {
        if !self.sim.belief(c).is_holding() {
            return self.rest();
        }
        match self.command(c, Command::Write) {
            Ok(()) => Phase::Writing { sent: true },
            Err(_) => self.rest(),
        }
    }

    /// Waits for the write's reply, then releases.
    fn on_writing(&mut self, c: ClientId, sent: bool) -> Phase {
        match self.sim.last_write(c) {
            // A write or reply lost for good: the request times out.
            Some(LastWrite::InFlight) if self.workers[c.index()].lossy && !self.writing(c) => {
                if self.sim.belief(c) != Belief::Idle {
                    let _ = self.command(c, Command::Release);
                }
                self.rest()
            }
            Some(LastWrite::InFlight) => Phase::Writing { sent: true },
            // Queued in a pause and refused on waking: the belief is gone.
            _ if !sent => self.rest(),
            _ => {
                if self.sim.belief(c) != Belief::Idle {
                    let _ = self.command(c, Command::Release);
                }
                self.rest()
            }
        }
    }

    /// Thinks until the next attempt, or stops once the time is up.
    fn rest(&mut self) -> Phase {
        let now = self.sim.now();
        if now.ms() >= TRIAL_MS {
            return Phase::Done;
        }
        let until = now.plus(think(&mut self.workload, self.plan.think_ms));
        Phase::Thinking { until }
    }

    /// Starts the pause due now, if one is. A pause during the work moves
    /// the work's end; with `Check::AtAcquire` the write is clicked in the
    /// pause and leaves the instant the client wakes.
    fn maybe_pause(&mut self, i: usize) {
        let now = self.sim.now();
        let w = &mut self.workers[i];
        let (Some(start_us), Some(start)) = (w.next_pause_us, w.next_pause_at) else {
            return;
        };
        if now.ms() >= TRIAL_MS || start > now {
            return;
        }
        self.sampler
            .settle(w.drawn_from_us, start_us, &w.schedule, true);
        let length_us = self.sampler.length_us(&mut w.rng);
        let c = w.id;
        if length_us < PAUSE_US_MIN {
            self.draw_pause(i, start_us);
            return;
        }
        let pause_ms = length_us.div_ceil(1_000).min(PAUSE_MS_MAX);
        if self.sim.script().len() + SCRIPT_RESERVE >= SCRIPT_LEN_MAX
            || self.command(c, Command::GcPause { pause_ms }).is_err()
        {
            self.cut_short = true;
            self.workers[i].next_pause_us = None;
            self.workers[i].next_pause_at = None;
            return;
        }
        self.pauses += 1;
        let w = &mut self.workers[i];
        w.awake_at = now.plus(pause_ms);
        let awake_us = w.awake_at.ms() * 1_000;
        if let Phase::Working { left_ms, since } = w.phase {
            let left_ms = left_ms.saturating_sub(since.until(now));
            w.phase = Phase::Working {
                left_ms,
                since: w.awake_at,
            };
            if self.plan.check == Check::AtAcquire {
                // Refused only if the client no longer believes it holds.
                self.workers[i].phase = match self.command(c, Command::Write) {
                    Ok(()) => Phase::Writing { sent: false },
                    Err(_) => self.rest(),
                };
            }
        }
        self.draw_pause(i, awake_us);
    }

    /// What client `i` is doing, for where its pauses arrive: the band it
    /// is in now (an ask keeps the time it began).
    fn band(&self, i: usize) -> Band {
        let w = &self.workers[i];
        match w.phase {
            _ if !self.sampler.placed() => Band::Idle,
            Phase::Asking => match w.band {
                Band::Asking { since } => Band::Asking { since },
                _ => Band::Asking {
                    since: self.sim.now().ms(),
                },
            },
            Phase::Working { left_ms, since } => Band::Working {
                end: since.ms() + left_ms,
            },
            _ => Band::Idle,
        }
    }

    /// Draws client `i`'s next pause from `from_us`, at the rates of what
    /// it is doing now.
    fn draw_pause(&mut self, i: usize, from_us: u64) {
        let band = self.band(i);
        let schedule = self.sampler.schedule(band);
        let w = &mut self.workers[i];
        w.next_pause_us = self.sampler.draw_start_us(from_us, &schedule, &mut w.rng);
        w.next_pause_at = w.next_pause_us.map(us_to_ms);
        w.drawn_from_us = from_us;
        w.band = band;
        w.schedule = schedule;
    }

    /// Once client `i` does something else, while its next pause is still
    /// ahead, that pause is drawn again from now at the new rates; the
    /// stretch it waited is weighed at the old ones. A pause already due
    /// starts first, and a paused client changes nothing until it wakes.
    fn replace_pause(&mut self, i: usize) {
        let now = self.sim.now();
        let w = &self.workers[i];
        if now.ms() >= TRIAL_MS || now < w.awake_at || self.band(i) == w.band {
            return;
        }
        let now_us = now.ms() * 1_000;
        match w.next_pause_us {
            Some(start_us) if start_us > now_us && w.drawn_from_us <= now_us => {
                self.sampler
                    .settle(w.drawn_from_us, now_us, &w.schedule, false);
                self.draw_pause(i, now_us);
            }
            _ => {}
        }
    }

    /// At the trial's end, each client's next pause (due past it) is
    /// weighed for the time it waited.
    fn settle_all(&mut self) {
        for w in &self.workers {
            if let Some(start_us) = w.next_pause_us {
                self.sampler
                    .settle(w.drawn_from_us, start_us, &w.schedule, false);
            }
        }
    }

    /// While a client is down its pauses pass it by: the one due now is
    /// skipped and the next drawn.
    fn skip_pause(&mut self, i: usize) {
        let now = self.sim.now();
        let w = &mut self.workers[i];
        if let (Some(start_us), Some(start)) = (w.next_pause_us, w.next_pause_at) {
            if start <= now && now.ms() < TRIAL_MS {
                self.sampler
                    .settle(w.drawn_from_us, start_us, &w.schedule, true);
                self.draw_pause(i, start_us);
            }
        }
    }

    /// Whether a write of `c`'s, or its reply, is still on its way.
    fn writing(&self, c: ClientId) -> bool {
        let me = Endpoint::Client(c);
        self.sim
            .in_flight()
            .any(|m| matches!(m.body, Body::Resource(_)) && (m.from == me || m.to == me))
    }

    /// The earliest time a fault starts or ends.
    fn fault_due(&self) -> Option<Millis> {
        let horizon = Millis(TRIAL_MS);
        self.faults.iter().filter_map(|s| s.due(horizon)).min()
    }

    /// Starts and ends the faults due now, then looks at every client
    /// again (a crash or a restart changes what it does next).
    fn run_faults(&mut self) {
        let now = self.sim.now();
        for k in 0..self.faults.len() {
            let s = &self.faults[k];
            match (s.ends_at, s.next_at) {
                (Some(end), _) if end <= now => self.end_fault(k),
                (None, Some(start)) if start <= now && now.ms() < TRIAL_MS => self.start_fault(k),
                _ => {}
            }
        }
        for i in 0..self.workers.len() {
            self.replace_pause(i);
            self.workers[i].due = self.due(&self.workers[i]);
        }
    }

    fn start_fault(&mut self, k: usize) {
        let now = self.sim.now();
        let (kind, target) = (self.faults[k].kind, self.faults[k].target);
        let length_ms = self.faults[k].length_ms();
        let i = usize::from(target);
        let full = self.sim.script().len() + SCRIPT_RESERVE + FAULT_RESERVE >= SCRIPT_LEN_MAX;
        let down = kind != Kind::NodeRestart
            && kind != Kind::NodeJump
            && self.workers[i].phase == Phase::Down;
        if full || down {
            // A crashed client has nothing to cut off or crash again.
            self.cut_short |= full;
            let next = self.faults[k].after(now);
            self.faults[k].next_at = Some(next).filter(|_| !full);
            return;
        }
        let c = ClientId::ALL[i % ClientId::ALL.len()];
        let node = || NodeId::new(target + 1).expect("a system has at most five nodes");
        let started = match kind {
            Kind::Partition => self.command(
                c,
                Command::Partition {
                    scope: PartitionScope::Service,
                },
            ),
            Kind::Loss => {
                self.workers[i].lossy = true;
                self.command(c, Command::LoseMessages { on: true })
            }
            Kind::Exit => self.command(c, Command::Exit),
            Kind::HostDeath => self.command(c, Command::PowerOff),
            Kind::NodeRestart => self.node(node(), NodeCommand::Crash),
            Kind::NodeJump => self.node(
                node(),
                NodeCommand::ClockJump {
                    jump_ms: i64::try_from(length_ms).unwrap_or(i64::MAX),
                },
            ),
        };
        let s = &mut self.faults[k];
        match started {
            Err(_) => {
                self.cut_short = true;
                s.next_at = None;
            }
            // A clock jump is over as it happens.
            Ok(()) if kind == Kind::NodeJump => s.next_at = Some(s.after(now)),
            Ok(()) => {
                let end = now.plus(length_ms);
                s.ends_at = Some(end);
                if matches!(kind, Kind::Exit | Kind::HostDeath) {
                    self.crashed(i, end);
                }
            }
        }
    }

    /// Client `i` crashed until `end`: it does nothing until restarted, and
    /// its partition or loss ends no earlier than its restart.
    fn crashed(&mut self, i: usize, end: Millis) {
        self.workers[i].phase = Phase::Down;
        for s in &mut self.faults {
            let client = !matches!(s.kind, Kind::NodeRestart | Kind::NodeJump);
            if client && usize::from(s.target) == i {
                s.ends_at = s.ends_at.map(|t| t.max(end));
            }
        }
    }

    fn end_fault(&mut self, k: usize) {
        let now = self.sim.now();
        let (kind, target) = (self.faults[k].kind, self.faults[k].target);
        let i = usize::from(target);
        let c = ClientId::ALL[i % ClientId::ALL.len()];
        let ended = match kind {
            Kind::Partition => self.command(c, Command::Heal),
            Kind::Loss => self.command(c, Command::LoseMessages { on: false }),
            Kind::Exit | Kind::HostDeath => {
                let restarted = self.command(c, Command::Restart);
                // A fresh process: nothing held, no pause under way.
                self.workers[i].awake_at = now;
                self.workers[i].phase = self.rest();
                restarted
            }
            Kind::NodeRestart => {
                let node = NodeId::new(target + 1).expect("a system has at most five nodes");
                self.node(node, NodeCommand::Restart)
            }
            Kind::NodeJump => Ok(()),
        };
        // A host death already healed its partition: nothing to heal. Only
        // a full script or queue stops a fault from ending.
        if matches!(
            ended,
            Err(CommandError::ScriptFull | CommandError::TooManyEvents)
        ) {
            self.cut_short = true;
        }
        let s = &mut self.faults[k];
        s.ends_at = None;
        s.next_at = Some(s.after(now));
    }

    /// Runs a node command now, as `command` runs a client's.
    fn node(&mut self, node: NodeId, command: NodeCommand) -> Result<(), CommandError> {
        self.sim.run_until(self.sim.now());
        self.sim.node_command(node, command)
    }

    /// Runs a command now, after any event its time still holds, exactly
    /// as `Playback` runs a scripted action.
    fn command(&mut self, c: ClientId, command: Command) -> Result<(), CommandError> {
        self.sim.run_until(self.sim.now());
        self.sim.command(c, command)
    }

    fn counts(&self) -> TrialCounts {
        let oracle = self.sim.oracle();
        let resource = self.sim.resource();
        // A stretch the oracle split because a third client joined it is
        // one stretch of two believed holders.
        let mut two_holders = 0;
        let mut last_to = None;
        for o in oracle.overlaps() {
            if last_to != Some(o.from) {
                two_holders += 1;
            }
            last_to = o.to;
        }
        TrialCounts {
            holds: oracle.grants(),
            corrupted: oracle.corruptions(),
            saved: oracle.saves(),
            two_holders,
            without_lease: oracle.writes_without_lease(),
            writes: resource.accepted() + resource.rejected(),
            pauses: self.pauses,
            events: self.sim.events_run(),
            end: self.sim.now(),
            cut_short: self.cut_short,
        }
    }
}

/// A trial as the page loads it: its scenario (configuration, seed and
/// script), how long to play it, and what it counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialRun {
    pub cell: u32,
    pub trial: u32,
    pub scenario: Scenario,
    /// Play the script to here to see the whole trial.
    pub end: Millis,
    pub counts: TrialCounts,
}
