//! The shortest failure: a search over every sequence of the actions a
//! visitor could take, from given settings, for the fewest moves that break
//! one safety property; or a bound: none within so many moves.
//!
//! A move is a visitor's click (acquire, write, release, a GC pause, a
//! partition or its heal, a crash or a restart, a clock jump, a fault on a
//! node of the lock service) or letting time pass to the next moment that
//! matters for the lock: a client gets it or loses it, or the service lets
//! it go. After each move the run is also left alone for a while: if the
//! property breaks then (a write paused in a GC pause lands when its client
//! wakes), the trace ends there, so the search never spends a move on
//! waiting for the end.
//!
//! The search deepens one move at a time and explores each depth depth-first
//! (iterative deepening): it needs memory for one path, not for a whole
//! depth of runs, and the first failure found is one of the shortest. Runs
//! that reach the same state are explored once (`Sim::fingerprint`). The
//! run's own randomness is seeded, so every sequence of moves is a run that
//! replays exactly. Natively the same search runs on several threads
//! (`parallel`, the command line's default) with the same outcome.
//!
//! Some sequences are left out because they are the same as others, or
//! cannot matter, and the page says so beside the bound:
//! - clients that have done nothing yet are alike: only the first of them
//!   (per renewal setting) is offered, and at most `clients_max` clients;
//! - a GC pause, a partition, a crash or a clock jump strikes only a client
//!   that holds, waits for or asks for the lock;
//! - faults on Redis nodes that look alike (up or down, whose key, same
//!   clock) are tried on the first of them.

pub mod draw;
pub mod form;
#[cfg(not(target_arch = "wasm32"))]
pub mod parallel;
mod visited;

use crate::lesson::properties::{Properties, Property, Violation};
use crate::sim::{
    Action, Backend, Belief, Body, ClientId, Command, Config, Endpoint, Event, Millis, NodeCommand,
    NodeId, PartitionScope, Playback, RedisNodeView, Refusals, ReleaseMode, ResourceMsg, Scenario,
    ScenarioError, ServiceDetail, ServiceEvent, Sim, CLOCK_JUMP_MS_MAX, PAUSE_MS_MAX,
    SCRIPT_TIME_MS_MAX, SLOW_MS_MAX,
};
/// Kept here too for `bin/find.rs`, which names it by this path.
use crate::words::thousands;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt;
use visited::{Meeting, Table, Visited};

/// A search deeper than this is refused: each move multiplies the runs to
/// explore by ten or more.
pub const DEPTH_LIMIT: u32 = 16;
/// Distinct states one search may keep at most (16 to 32 bytes each: a
/// word in a table kept at most half full).
pub const STATES_LIMIT: u64 = 50_000_000;
pub const DEPTH_DEFAULT: u32 = 8;
pub const STATES_DEFAULT: u64 = 1_000_000;
/// Two clients are enough for every property: a stale write, two holders
/// and a release of another's lock each need two.
pub const CLIENTS_DEFAULT: u8 = 2;

/// The runs a search leaves out, in words to print beside its bound.
pub const LEFT_OUT: &str = "Runs left out as the same as others or unable to matter: clients that have done nothing yet are alike, so only the first fresh one is offered (at most the request's number of clients); a GC pause, a partition, a crash or a clock jump strikes only a client that holds, waits for or asks for the lock; Redis nodes that look alike are faulted as one, and a Redlock node is crashed only while it holds a key or a fence counter and its clock jumped only while it holds a key; a client never releases the lock while its write is unacknowledged unless the question allows that client bug.";

/// A kind of move the search may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveKind {
    Acquire,
    Write,
    Release,
    /// GC pauses of half, one and a half and three times the time a silent
    /// holder keeps the lock (`silent_holder_ms`).
    Pause,
    /// A partition from the lock service, and its heal.
    Partition,
    /// A crash of either kind (the process exits, or the host powers
    /// off), and the restart.
    Crash,
    /// The client's clock jumps back or forward by one and a half times
    /// the time a silent holder keeps the lock.
    ClockJump,
    /// A Redis node crashes, and restarts.
    NodeCrash,
    /// A Redis node's wall clock jumps forward.
    NodeClockJump,
    /// The lock service's leader or primary fails over.
    Failover,
    /// A write whose packet spends as long as a long pause in the network.
    DelayedWrite,
    /// Time passes to the next moment that matters for the lock.
    Wait,
    /// Time passes to the next event of any kind (a message arriving, a
    /// timer): finer than `Wait`, and far more moves deep.
    NextEvent,
    /// The client's process exits (its kernel closes its sockets), and
    /// the restart: half of `Crash`, for a question that allows one kind.
    Exit,
    /// The client's host powers off (silence), and the restart: the other half.
    PowerOff,
}

impl MoveKind {
    pub const ALL: [MoveKind; 15] = [
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::Pause,
        MoveKind::Partition,
        MoveKind::Crash,
        MoveKind::ClockJump,
        MoveKind::NodeCrash,
        MoveKind::NodeClockJump,
        MoveKind::Failover,
        MoveKind::DelayedWrite,
        MoveKind::Wait,
        MoveKind::NextEvent,
        MoveKind::Exit,
        MoveKind::PowerOff,
    ];

    /// What a visitor can do on the page, and waiting for the next moment.
    pub const DEFAULT: [MoveKind; 11] = [
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::Pause,
        MoveKind::Partition,
        MoveKind::Crash,
        MoveKind::ClockJump,
        MoveKind::NodeCrash,
        MoveKind::NodeClockJump,
        MoveKind::Failover,
        MoveKind::Wait,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            MoveKind::Acquire => "acquire",
            MoveKind::Write => "write",
            MoveKind::Release => "release",
            MoveKind::Pause => "pause",
            MoveKind::Partition => "partition",
            MoveKind::Crash => "crash",
            MoveKind::ClockJump => "clock-jump",
            MoveKind::NodeCrash => "node-crash",
            MoveKind::NodeClockJump => "node-clock-jump",
            MoveKind::Failover => "failover",
            MoveKind::DelayedWrite => "delayed-write",
            MoveKind::Wait => "wait",
            MoveKind::NextEvent => "next-event",
            MoveKind::Exit => "exit",
            MoveKind::PowerOff => "power-off",
        }
    }

    pub fn from_slug(slug: &str) -> Option<MoveKind> {
        MoveKind::ALL.into_iter().find(|k| k.slug() == slug)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// What to search for, from where, and how far. Only the scenario and the
/// property are needed in JSON; the rest have the defaults of `Request::new`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The settings, and a script to play before the search starts.
    pub scenario: Scenario,
    /// Where in the script the search starts (the actions due later are
    /// left out); its last action's time when absent.
    #[serde(default)]
    pub from_ms: Option<u64>,
    pub property: Property,
    /// Moves at most.
    #[serde(default = "depth_default")]
    pub depth_max: u32,
    /// Distinct states at one depth at most.
    #[serde(default = "states_default")]
    pub states_max: u64,
    #[serde(default = "moves_default")]
    pub moves: Vec<MoveKind>,
    /// Clients the search may use at most (1 to 4).
    #[serde(default = "clients_default")]
    pub clients_max: u8,
    /// GC pauses last at most this long ("pauses never exceed 20 s"):
    /// the search tries no longer one. `None`: the lengths it picks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_max_ms: Option<u64>,
    /// Also runs where a client releases the lock while its write is
    /// still unacknowledged. Left out unless asked: that is a bug in the
    /// client, and being the shortest stale write on every system, it
    /// would hide the lock's own failures behind it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub early_release: bool,
}

fn depth_default() -> u32 {
    DEPTH_DEFAULT
}

fn states_default() -> u64 {
    STATES_DEFAULT
}

fn moves_default() -> Vec<MoveKind> {
    MoveKind::DEFAULT.to_vec()
}

fn clients_default() -> u8 {
    CLIENTS_DEFAULT
}

impl Request {
    /// A search from fresh settings, with the default bounds and moves.
    pub fn new(config: Config, property: Property) -> Request {
        Request {
            scenario: Scenario::new(config),
            from_ms: None,
            property,
            depth_max: depth_default(),
            states_max: states_default(),
            moves: moves_default(),
            clients_max: clients_default(),
            pause_max_ms: None,
            early_release: false,
        }
    }
}

/// Why a search cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindError {
    Scenario(ScenarioError),
    DepthOutOfRange { depth: u32 },
    StatesOutOfRange { states: u64 },
    ClientsOutOfRange { clients: u8 },
    PauseOutOfRange { pause_ms: u64 },
}

impl fmt::Display for FindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FindError::Scenario(e) => write!(f, "the starting run cannot be played: {e}"),
            FindError::DepthOutOfRange { depth } => {
                write!(
                    f,
                    "a depth of {depth} is out of range: 1 to {DEPTH_LIMIT} moves"
                )
            }
            FindError::StatesOutOfRange { states } => write!(
                f,
                "a limit of {states} states is out of range: 1 to {STATES_LIMIT}"
            ),
            FindError::ClientsOutOfRange { clients } => {
                write!(f, "{clients} clients is out of range: 1 to 4")
            }
            FindError::PauseOutOfRange { pause_ms } => write!(
                f,
                "a longest pause of {} is out of range: 1 ms to {}",
                Millis(*pause_ms),
                Millis(PAUSE_MS_MAX)
            ),
        }
    }
}

impl std::error::Error for FindError {}

/// How far a search has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The depth being explored.
    pub depth: u32,
    /// Every sequence of up to this many moves has been explored.
    pub depth_done: u32,
    /// Distinct states found at the depth being explored.
    pub states: u64,
    /// States generated in all, counting each depth's search again: what
    /// the time went into.
    pub explored: u64,
    /// Distinct states of every depth's search so far, added up (each
    /// depth's search starts its own count): the figure to divide by the
    /// time taken for distinct states per second.
    #[serde(default)]
    pub distinct: u64,
}

/// One step of a trace, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceStep {
    pub at: Millis,
    /// The visitor's action; `None` when time passes.
    pub action: Option<Action>,
    pub text: String,
}

/// The shortest failure found: a run that replays to the violation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// The settings and the timed script (the starting script included):
    /// `Sim::replay(&scenario, violation.at)` breaks the property.
    pub scenario: Scenario,
    /// As the replayed run's history shows it.
    pub violation: Violation,
    /// The search's moves, in words, and how time passed after the last.
    pub steps: Vec<TraceStep>,
    /// Moves in all, and the visitor's actions among them.
    pub depth: u32,
    pub actions: u32,
    /// Distinct states at the depth where it was found.
    pub states: u64,
    /// The first client in the trace to release the lock while its write
    /// was still unacknowledged: the run needs that client bug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_release: Option<ClientId>,
}

impl Trace {
    /// The run replayed to the violation.
    pub fn replay(&self) -> Result<Sim, ScenarioError> {
        Sim::replay(&self.scenario, self.violation.at)
    }

    /// What the run needs of its clients that no correct client does, in
    /// words: a release before the write was acknowledged.
    pub fn client_bug(&self) -> Option<String> {
        self.early_release.map(|c| format!(
            "This run needs {c} to release the lock before its write was acknowledged: a client bug, not the lock's."
        ))
    }

    /// The steps numbered, one line each.
    pub fn lines(&self) -> Vec<String> {
        self.steps
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {}", i + 1, s.text))
            .collect()
    }
}

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    Found(Box<Trace>),
    /// Every sequence of up to `depth` moves explored: none breaks the property.
    NoneWithin {
        depth: u32,
        states: u64,
    },
    /// The state limit stopped the search at depth `depth + 1`; every
    /// sequence of up to `depth` moves was explored.
    OutOfStates {
        depth: u32,
        states: u64,
    },
    /// Stopped by the caller; every sequence of up to `depth` moves was explored.
    Cancelled {
        depth: u32,
        states: u64,
    },
}

impl fmt::Display for Outcome {
    /// What the search showed, worded as a bound where it found nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Found(t) => write!(
                f,
                "{}: {} in {} moves ({} actions)",
                t.violation.property, t.violation, t.depth, t.actions
            ),
            Outcome::NoneWithin { depth, states } => write!(
                f,
                "no violation within depth {depth} ({} distinct states)",
                thousands(*states)
            ),
            Outcome::OutOfStates { depth, states } => write!(
                f,
                "no violation within depth {depth}; depth {} stopped at the limit of {} distinct states",
                depth + 1,
                thousands(*states)
            ),
            Outcome::Cancelled { depth, states } => write!(
                f,
                "cancelled: no violation within depth {depth}; depth {} had reached {} distinct states",
                depth + 1,
                thousands(*states)
            ),
        }
    }
}

/// A move of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Act(Action),
    Wait,
    NextEvent,
}

/// The request, made ready to search.
#[derive(Debug, Clone)]
struct Plan {
    property: Property,
    kinds: u32,
    clients_max: usize,
    depth_max: u32,
    states_max: u64,
    /// GC pauses, longest-but-one first: the one most stories need.
    pauses_ms: Vec<u64>,
    early_release: bool,
    jump_ms: u64,
    /// How long a wait or the look ahead runs at most.
    horizon_ms: u64,
}

impl Plan {
    fn new(request: &Request) -> Result<Plan, FindError> {
        let depth = request.depth_max;
        if !(1..=DEPTH_LIMIT).contains(&depth) {
            return Err(FindError::DepthOutOfRange { depth });
        }
        let states = request.states_max;
        if !(1..=STATES_LIMIT).contains(&states) {
            return Err(FindError::StatesOutOfRange { states });
        }
        let clients = request.clients_max;
        if !(1..=ClientId::COUNT as u8).contains(&clients) {
            return Err(FindError::ClientsOutOfRange { clients });
        }
        if let Some(pause_ms) = request.pause_max_ms {
            if !(1..=PAUSE_MS_MAX).contains(&pause_ms) {
                return Err(FindError::PauseOutOfRange { pause_ms });
            }
        }
        let config = &request.scenario.config;
        let silent = config.backend.silent_holder_ms(config).max(1);
        Ok(Plan {
            property: request.property,
            kinds: request.moves.iter().fold(0, |bits, k| bits | k.bit()),
            clients_max: usize::from(clients),
            depth_max: depth,
            states_max: states,
            pauses_ms: pauses_ms(silent, request.pause_max_ms),
            early_release: request.early_release,
            jump_ms: (silent * 3 / 2).clamp(1, CLOCK_JUMP_MS_MAX as u64),
            horizon_ms: (silent * 4).min(SCRIPT_TIME_MS_MAX),
        })
    }

    fn allows(&self, kind: MoveKind) -> bool {
        self.kinds & kind.bit() != 0
    }
}

/// The GC pauses a search tries, longest-but-one first: half, one and a
/// half and three times the time a silent holder keeps the lock, each cut
/// to the longest pause allowed (so the bound itself is tried whenever
/// one of them is longer), the same length once.
pub fn pauses_ms(silent_ms: u64, pause_max_ms: Option<u64>) -> Vec<u64> {
    let cap = pause_max_ms.unwrap_or(PAUSE_MS_MAX).min(PAUSE_MS_MAX);
    let mut out: Vec<u64> = Vec::with_capacity(3);
    for (num, den) in [(3, 2), (3, 1), (1, 2)] {
        let ms = (silent_ms * num / den).clamp(1, cap);
        if !out.contains(&ms) {
            out.push(ms);
        }
    }
    out
}

/// The pauses a request's search tries, for its words.
pub fn request_pauses_ms(request: &Request) -> Vec<u64> {
    let config = &request.scenario.config;
    let silent = config.backend.silent_holder_ms(config).max(1);
    pauses_ms(silent, request.pause_max_ms)
}

/// A state on the path being explored, and the moves left to try from it.
#[derive(Debug)]
struct Frame {
    /// Taken by the last move tried from it, which moves the state on
    /// itself rather than a copy.
    sim: Option<Box<Sim>>,
    moves: Vec<Move>,
    next: usize,
    /// The move that led here (none for the start).
    via: Option<Move>,
}

/// A search that can run in slices: a Web Worker runs a budget of states,
/// reports progress and runs the next, until it ends or is cancelled.
#[derive(Debug)]
pub struct Finder {
    plan: Plan,
    root: Sim,
    depth_done: u32,
    walk: Walk,
    /// Every state found at this depth's search, with the fewest moves it was reached in.
    visited: Visited,
    /// Distinct states of the depths searched before this one.
    distinct_before: u64,
    outcome: Option<Outcome>,
}

/// One depth's depth-first walk: the path being explored and what it
/// keeps to make states without allocating. A search has one; a search
/// on several threads (`parallel`) has one a thread, each walking below
/// the states it is handed.
#[derive(Debug, Default)]
struct Walk {
    /// The depth being explored.
    limit: u32,
    /// The depth of the path's first state: 0, the start, but for a walk
    /// below a state handed to a thread.
    base: u32,
    stack: Vec<Frame>,
    explored: u64,
    spares: Spares,
    /// States made from the top of the path ahead of their turn, the
    /// next first (`make_leaf`).
    ahead: VecDeque<Made>,
    /// The move lists of frames left, emptied, to list the next frames'
    /// moves into without allocating.
    move_lists: Vec<Vec<Move>>,
    /// Why the walk stopped before its end, if it did.
    end: Option<End>,
}

/// Why a walk stopped before exploring all it was given.
#[derive(Debug)]
enum End {
    /// The property broke after these moves from the path's first state,
    /// or while the run was left alone after them.
    Found { path: Vec<Move>, then_wait: bool },
    /// The visited states reached the request's limit.
    Full,
}

/// A state made by a move from the top of the path, not yet met.
#[derive(Debug)]
struct Made {
    via: Move,
    sim: Box<Sim>,
    /// The first violation of the property the move brought.
    violated: Option<Violation>,
    /// The state's fingerprint; 0 when the move broke the property.
    fingerprint: u64,
}

/// States the search is done with (a duplicate, a frame left), kept to be
/// made into the next move's copy: copying into one reuses its buffers,
/// where a fresh copy allocates every list of the run again. Boxed, as is
/// every state the search holds: a run is over a kilobyte, and handing it
/// from a move to the path and back to the spares would copy it each time.
// Boxed in the list too: a spare moves out of it into a move, to the path
// and back, and a box moves as a pointer.
#[allow(clippy::vec_box)]
#[derive(Debug, Default)]
struct Spares(Vec<Box<Sim>>);

impl Spares {
    /// A search holds one copy per move on its path, a few made ahead
    /// (`Finder::make_leaf`) and the look ahead's; room for that many
    /// keeps them from being dropped and made again.
    const MAX: usize = 64;

    fn copy_of(&mut self, sim: &Sim) -> Box<Sim> {
        match self.0.pop() {
            Some(mut spare) => {
                sim.snapshot_into(&mut spare);
                spare
            }
            None => Box::new(sim.snapshot()),
        }
    }

    fn give(&mut self, sim: Box<Sim>) {
        if self.0.len() < Self::MAX {
            self.0.push(sim);
        }
    }
}

impl Finder {
    pub fn new(request: &Request) -> Result<Finder, FindError> {
        let plan = Plan::new(request)?;
        let scenario = &request.scenario;
        let from = Millis(request.from_ms.unwrap_or(scenario.last_at().ms()));
        let (root, _) =
            Playback::start(scenario, Refusals::Stop, from).map_err(FindError::Scenario)?;
        let mut finder = Finder {
            plan,
            root,
            depth_done: 0,
            walk: Walk::default(),
            visited: Visited::default(),
            distinct_before: 0,
            outcome: None,
        };
        // The starting run may break the property already, or be about to.
        let broken = Properties::of(&finder.root)
            .violation(finder.plan.property)
            .is_some();
        let ahead = look_ahead(&finder.plan, &finder.root, &mut finder.walk.spares);
        if broken || ahead.is_some() {
            let trace = finder.trace(&[], !broken);
            finder.outcome = Some(Outcome::Found(Box::new(trace)));
        }
        Ok(finder)
    }

    pub fn progress(&self) -> Progress {
        Progress {
            depth: self.walk.limit,
            depth_done: self.depth_done,
            states: self.visited.len() as u64,
            explored: self.walk.explored,
            distinct: self.distinct_before + self.visited.len() as u64,
        }
    }

    /// Stops the search: what it showed so far, as a bound.
    pub fn cancel(&self) -> Outcome {
        self.outcome.clone().unwrap_or(Outcome::Cancelled {
            depth: self.depth_done,
            states: self.visited.len() as u64,
        })
    }

    /// Generates up to `budget` more states; the outcome once the search
    /// has ended (and again on every later call).
    pub fn run(&mut self, budget: u64) -> Option<Outcome> {
        let mut spent = 0;
        while self.outcome.is_none() && spent < budget {
            spent += self.advance();
        }
        self.outcome.clone()
    }

    /// One move tried from the state on top of the path; the states it generated (0 or 1).
    fn advance(&mut self) -> u64 {
        if self.walk.stack.is_empty() {
            self.deepen();
            return 0;
        }
        let generated = self.walk.advance(&self.plan, &mut self.visited);
        if let Some(end) = self.walk.end.take() {
            self.outcome = Some(match end {
                End::Found { path, then_wait } => {
                    Outcome::Found(Box::new(self.trace(&path, then_wait)))
                }
                End::Full => Outcome::OutOfStates {
                    depth: self.depth_done,
                    states: self.visited.len() as u64,
                },
            });
        }
        generated
    }

    /// The search of one depth is over: start the next, or stop at the last.
    fn deepen(&mut self) {
        self.depth_done = self.walk.limit;
        if self.walk.limit >= self.plan.depth_max {
            self.outcome = Some(Outcome::NoneWithin {
                depth: self.walk.limit,
                states: self.visited.len() as u64,
            });
            return;
        }
        let limit = self.walk.limit + 1;
        self.distinct_before += self.visited.len() as u64;
        self.visited.clear();
        let start = Box::new(self.root.snapshot());
        self.walk.start(&self.plan, start, 0, limit);
    }

    /// The trace of `path` from the start, told step by step, and checked
    /// by replaying its scenario from the beginning.
    fn trace(&self, path: &[Move], then_wait: bool) -> Trace {
        let plan = &self.plan;
        let mut sim = self.root.snapshot();
        let mut steps = Vec::with_capacity(path.len() + 1);
        let mut early_release = None;
        for &m in path {
            if let Move::Act(Action::Client {
                client,
                command: Command::Release,
            }) = m
            {
                if write_unacknowledged(&sim, client) {
                    early_release = early_release.or(Some(client));
                }
            }
            let text = match m {
                Move::Act(action) => format!("{} (t={})", action_words(&sim, action), sim.now()),
                _ => String::new(),
            };
            let (next, _) =
                apply(plan, &sim, m, &mut Spares::default()).expect("a move of the path replays");
            sim = *next;
            steps.push(match m {
                Move::Act(action) => TraceStep {
                    at: sim.now(),
                    action: Some(action),
                    text,
                },
                _ => wait_step(&sim),
            });
        }
        let last = if then_wait {
            let after =
                look_ahead(plan, &sim, &mut Spares::default()).expect("the look ahead replays");
            steps.push(wait_step(&after));
            *after
        } else {
            sim
        };
        let scenario = last.scenario();
        let seed = scenario.config.seed;
        let at = last.now();
        let replayed = Sim::replay(&scenario, at).expect("the trace's script replays");
        let violation = Properties::of(&replayed)
            .violation(plan.property)
            .cloned()
            .unwrap_or_else(|| {
                panic!("the trace replays without breaking the property (seed {seed})")
            });
        Trace {
            scenario,
            violation,
            steps,
            depth: path.len() as u32,
            actions: path.iter().filter(|m| matches!(m, Move::Act(_))).count() as u32,
            states: self.visited.len() as u64,
            early_release,
        }
    }
}

impl Walk {
    /// One move tried from the state on top of the path, which is not
    /// empty; the states it generated (0 or 1). A state is met in `table`.
    fn advance<T: Table>(&mut self, plan: &Plan, table: &mut T) -> u64 {
        let top = self.stack.last().expect("a walk advances from a path");
        if top.next == top.moves.len() {
            if let Some(made) = self.ahead.pop_front() {
                return self.meet(plan, table, made);
            }
            if let Some(frame) = self.stack.pop() {
                if let Some(sim) = frame.sim {
                    self.spares.give(sim);
                }
                self.move_lists.push(frame.moves);
            }
            return 0;
        }
        if self.child_depth() == self.limit {
            return self.make_leaf(plan, table);
        }
        match self.make_next(plan) {
            Some(made) => self.meet(plan, table, made),
            None => 0,
        }
    }

    /// The depth of a state made from the top of the path.
    fn child_depth(&self) -> u32 {
        self.base + self.stack.len() as u32
    }

    /// Starts the path at `sim`, `depth` moves from the start, to explore
    /// every state below it up to `limit`.
    fn start(&mut self, plan: &Plan, sim: Box<Sim>, depth: u32, limit: u32) {
        debug_assert!(self.stack.is_empty() && self.ahead.is_empty());
        self.base = depth;
        self.limit = limit;
        self.push(plan, sim, None);
    }

    /// Puts `sim`, reached by `via`, on top of the path, its moves listed
    /// into a list a frame left.
    fn push(&mut self, plan: &Plan, sim: Box<Sim>, via: Option<Move>) {
        let list = self.move_lists.pop().unwrap_or_default();
        let moves = moves(plan, &sim, list);
        self.stack.push(Frame {
            sim: Some(sim),
            moves,
            next: 0,
            via,
        });
    }

    /// The state of the next move from the top of the path, whose moves
    /// end at this depth's limit, made `LEAVES_AHEAD` states ahead of its
    /// turn: the place of its fingerprint in the visited states is asked
    /// of memory as it is made, so that it has come by the time the state
    /// is looked up (most states a search makes are such leaves, and the
    /// lookup's wait for memory was a sixth of the search's time under
    /// `perf`); then the state made that many before is met. Making a state
    /// reads nothing of the visited states: they are met in the same order.
    /// A state met is given back to the spares at once, and the next copy
    /// of the top is made into it: a sibling, the same state but for the
    /// parts its own move changed, which the copy leaves alone.
    fn make_leaf<T: Table>(&mut self, plan: &Plan, table: &mut T) -> u64 {
        /// Making one state takes a few thousand instructions, longer than
        /// memory takes to answer.
        const LEAVES_AHEAD: usize = 1;
        if let Some(made) = self.make_next(plan) {
            table.prefetch(made.fingerprint);
            self.ahead.push_back(made);
        }
        if self.ahead.len() > LEAVES_AHEAD {
            if let Some(made) = self.ahead.pop_front() {
                return self.meet(plan, table, made);
            }
        }
        0
    }

    /// The state of the next move from the top of the path; `None` when
    /// the move does nothing there.
    fn make_next(&mut self, plan: &Plan) -> Option<Made> {
        let top = self.stack.last_mut().expect("a move is made from the path");
        let m = top.moves[top.next];
        top.next += 1;
        // The last move from a state needs no copy of it: nothing else
        // starts from it.
        let moved = if top.next == top.moves.len() {
            let mut sim = top.sim.take().expect("a state is kept until its last move");
            sim.forget_history();
            let checker = Properties::resuming(&sim);
            apply_to(plan, sim, checker, m, &mut self.spares)
        } else {
            let parent = top
                .sim
                .as_ref()
                .expect("a state is kept until its last move");
            apply(plan, parent, m, &mut self.spares)
        };
        let (sim, violated) = moved?;
        // A state that broke the property ends the search: it is not looked up.
        let fingerprint = if violated.is_some() {
            0
        } else {
            sim.fingerprint()
        };
        Some(Made {
            via: m,
            sim,
            violated,
            fingerprint,
        })
    }

    /// A state made from the top of the path, met: dropped if it was met
    /// before in as few moves, explored further otherwise (or, at the
    /// depth's limit, only left alone for a while).
    fn meet<T: Table>(&mut self, plan: &Plan, table: &mut T, made: Made) -> u64 {
        let Made {
            via: m,
            sim: child,
            violated,
            fingerprint,
        } = made;
        let depth = self.child_depth();
        self.explored += 1;
        if violated.is_some() {
            self.found(m, false);
            return 1;
        }
        match table.meet(fingerprint, depth, plan.states_max) {
            Meeting::Again => {
                self.spares.give(child);
                return 1;
            }
            Meeting::Full => {
                self.end = Some(End::Full);
                return 1;
            }
            Meeting::Closer | Meeting::New => {}
        }
        if depth < self.limit {
            if look_ahead(plan, &child, &mut self.spares).is_some() {
                self.found(m, true);
                return 1;
            }
            self.push(plan, child, Some(m));
        } else if look_ahead_in(plan, child, &mut self.spares).is_some() {
            // The deepest states are not explored further: the run is left
            // alone in place of a copy.
            self.found(m, true);
        }
        1
    }

    /// The property broke at `last` from the top of the path.
    fn found(&mut self, last: Move, then_wait: bool) {
        let mut path: Vec<Move> = self.stack.iter().filter_map(|f| f.via).collect();
        path.push(last);
        self.end = Some(End::Found { path, then_wait });
    }
}

/// Runs a whole search, calling `on_progress` between slices of states;
/// it returns false to cancel.
pub fn find(
    request: &Request,
    on_progress: impl FnMut(&Progress) -> bool,
) -> Result<Outcome, FindError> {
    Ok(Finder::new(request)?.finish(on_progress))
}

impl Finder {
    /// Runs the search to its end, calling `on_progress` between slices
    /// of states; it returns false to cancel.
    fn finish(mut self, mut on_progress: impl FnMut(&Progress) -> bool) -> Outcome {
        const SLICE: u64 = 16_384;
        loop {
            if let Some(outcome) = self.run(SLICE) {
                return outcome;
            }
            if !on_progress(&self.progress()) {
                return self.cancel();
            }
        }
    }
}

/// The state after `m`, and the first violation of the property it
/// brought; `None` when the move does nothing here.
fn apply(
    plan: &Plan,
    parent: &Sim,
    m: Move,
    spares: &mut Spares,
) -> Option<(Box<Sim>, Option<Violation>)> {
    let checker = Properties::resuming(parent);
    apply_to(plan, spares.copy_of(parent), checker, m, spares)
}

/// `apply` on `sim` itself, a copy of the parent or the parent, whose
/// check `checker` resumes.
fn apply_to(
    plan: &Plan,
    mut sim: Box<Sim>,
    mut checker: Properties,
    m: Move,
    spares: &mut Spares,
) -> Option<(Box<Sim>, Option<Violation>)> {
    let moved = match m {
        // Listed by `moves` for this very state, which checked it.
        Move::Act(action) => {
            sim.act_checked(action);
            true
        }
        Move::Wait => wait(plan, &mut sim, &mut checker).is_some(),
        Move::NextEvent => sim.step(),
    };
    if !moved {
        spares.give(sim);
        return None;
    }
    // Whatever is due this millisecond runs before the next move, as a
    // replay runs it before the next action.
    let now = sim.now();
    sim.run_until(now);
    checker.watch(sim.history());
    let violated = checker.violation(plan.property).cloned();
    Some((sim, violated))
}

/// Lets time pass to the next moment that matters for the lock, or to the
/// property's violation; `None` if neither comes within the horizon.
fn wait(plan: &Plan, sim: &mut Sim, checker: &mut Properties) -> Option<()> {
    let horizon = sim.now().plus(plan.horizon_ms);
    loop {
        if sim.next_event_at()? > horizon {
            return None;
        }
        let before = sim.history().len();
        sim.step();
        let moment = sim.history()[before..].iter().any(|r| is_moment(&r.event));
        checker.watch(sim.history());
        if moment || checker.violation(plan.property).is_some() {
            return Some(());
        }
    }
}

/// The records a visitor would wait for before acting again: a client gets
/// the lock, fails to, or stops believing it holds it; the service lets it
/// go; a node comes back from a delayed restart.
fn is_moment(event: &Event) -> bool {
    matches!(
        event,
        Event::Acquired { .. }
            | Event::AcquireFailed { .. }
            | Event::Lost { .. }
            | Event::HolderChanged { holder: None, .. }
            | Event::NodeRestarted { .. }
    )
}

/// The run left alone after a move, while something that could still
/// break the property is on its way (a write or a release in flight or
/// waiting in a paused client, two clients in the game); the state where
/// it broke.
/// The copy it runs is made from `spares`, and given back unless it broke.
fn look_ahead(plan: &Plan, sim: &Sim, spares: &mut Spares) -> Option<Box<Sim>> {
    let pending = Pending::of(plan.property, sim);
    if !pending.any(sim) {
        return None;
    }
    run_ahead(plan, spares.copy_of(sim), pending, spares)
}

/// `look_ahead` on `sim` itself, a state the search is done with: given
/// back to `spares` unless it broke. Its history is left behind first, as
/// a copy's would be.
#[inline]
fn look_ahead_in(plan: &Plan, mut sim: Box<Sim>, spares: &mut Spares) -> Option<Box<Sim>> {
    let pending = Pending::of(plan.property, &sim);
    if !pending.any(&sim) {
        spares.give(sim);
        return None;
    }
    sim.forget_history();
    run_ahead(plan, sim, pending, spares)
}

/// The look ahead's run, on `copy`, whose history starts empty.
fn run_ahead(
    plan: &Plan,
    mut copy: Box<Sim>,
    mut pending: Pending,
    spares: &mut Spares,
) -> Option<Box<Sim>> {
    let mut checker = Properties::resuming(&copy);
    let horizon = copy.now().plus(plan.horizon_ms);
    while copy.next_event_at().is_some_and(|t| t <= horizon) {
        let before = copy.history().len();
        copy.step();
        checker.watch(copy.history());
        if checker.violation(plan.property).is_some() {
            let now = copy.now();
            copy.run_until(now);
            return Some(copy);
        }
        for record in &copy.history()[before..] {
            pending.note(&record.event);
        }
        if !pending.any(&copy) {
            break;
        }
    }
    spares.give(copy);
    None
}

/// What could still break the property without another click.
#[derive(Debug, Clone, Copy)]
struct Pending {
    property: Property,
    /// Per client: a write (or release) queued in a paused client, or, for
    /// two holders, the client holds, waits for or asks for the lock.
    client: [bool; ClientId::COUNT],
}

impl Pending {
    fn of(property: Property, sim: &Sim) -> Pending {
        let mut client = [false; ClientId::COUNT];
        for c in ClientId::ALL {
            client[c.index()] = match property {
                Property::OneBeliever => !sim.crashed(c) && sim.belief(c) != Belief::Idle,
                Property::NoForeignRelease => sim.queued(c).contains(&Command::Release),
                _ => sim
                    .queued(c)
                    .iter()
                    .any(|q| matches!(q, Command::Write | Command::WriteDelayed { .. })),
            };
        }
        Pending { property, client }
    }

    /// Follows the clients through the records of the run left alone.
    fn note(&mut self, event: &Event) {
        let Some(c) = event.client() else {
            return;
        };
        let slot = &mut self.client[c.index()];
        match (self.property, event) {
            (Property::OneBeliever, Event::AcquireStarted { .. }) => *slot = true,
            (
                Property::OneBeliever,
                Event::Lost { .. }
                | Event::AcquireFailed { .. }
                | Event::Released { .. }
                | Event::Crashed { .. }
                | Event::Exited { .. },
            ) => *slot = false,
            // A paused client runs its queued commands as it wakes.
            (Property::OneBeliever, _) => {}
            (_, Event::Woke { .. } | Event::Crashed { .. } | Event::Exited { .. }) => *slot = false,
            _ => {}
        }
    }

    #[inline]
    fn any(&self, sim: &Sim) -> bool {
        match self.property {
            Property::OneBeliever => self.client.iter().filter(|&&b| b).count() >= 2,
            Property::NoForeignRelease => {
                self.client.contains(&true) || sim.any_in_flight(|m| is_unlock(&m.body))
            }
            _ => {
                self.client.contains(&true)
                    || sim.any_in_flight(|m| {
                        matches!(m.body, Body::Resource(ResourceMsg::Write { .. }))
                    })
            }
        }
    }
}

fn is_unlock(body: &Body) -> bool {
    matches!(body, Body::Lock(m) if m.is_unlock())
}

/// Moves from one state, about as many as two clients with every command
/// and a node's faults have.
const MOVES_ROOM: usize = 48;

/// Every move worth trying from `sim`, in the order they are tried, listed
/// into `out` (emptied first), a list a frame left or a new one.
fn moves(plan: &Plan, sim: &Sim, mut out: Vec<Move>) -> Vec<Move> {
    // Room for them all at once: grown push by push, the list's
    // reallocations were a third of the time spent listing the moves.
    out.clear();
    out.reserve(MOVES_ROOM);
    if sim.next_event_at().is_some() {
        if plan.allows(MoveKind::Wait) {
            out.push(Move::Wait);
        }
        if plan.allows(MoveKind::NextEvent) {
            out.push(Move::NextEvent);
        }
    }
    if sim.now().ms() >= SCRIPT_TIME_MS_MAX {
        return out;
    }
    for c in clients_in_play(plan, sim) {
        client_commands(plan, sim, c, &mut out);
    }
    node_moves(plan, sim, &mut out);
    out
}

/// The clients the search may use, in order: those the script has used,
/// and the first fresh one of each renewal setting while fewer than
/// `clients_max` are in play. A fixed array, as every state the search
/// keeps lists its moves.
fn clients_in_play(plan: &Plan, sim: &Sim) -> impl Iterator<Item = ClientId> {
    let mut used = [false; ClientId::COUNT];
    for timed in sim.script() {
        if let Action::Client { client, .. } = timed.action {
            used[client.index()] = true;
        }
    }
    let mut play = used;
    let mut count = used.iter().filter(|&&u| u).count();
    let renewal = &sim.config().renewal;
    let mut fresh_seen = [false; 2];
    for c in ClientId::ALL {
        let kind = usize::from(renewal[c.index()]);
        if !used[c.index()] && !fresh_seen[kind] && count < plan.clients_max {
            fresh_seen[kind] = true;
            play[c.index()] = true;
            count += 1;
        }
    }
    ClientId::ALL.into_iter().filter(move |c| play[c.index()])
}

/// A client's candidate commands that the run's own checks let through,
/// as moves added to `moves`.
fn client_commands(plan: &Plan, sim: &Sim, c: ClientId, moves: &mut Vec<Move>) {
    let crashed = sim.crashed(c);
    let engaged = sim.belief(c) != Belief::Idle && !crashed;
    let jump = plan.jump_ms as i64;
    let mut offer = |kind: MoveKind, when: bool, command: Command| {
        if when && plan.allows(kind) && sim.check(c, command).is_ok() {
            moves.push(Move::Act(Action::Client { client: c, command }));
        }
    };
    offer(MoveKind::Acquire, true, Command::Acquire);
    offer(MoveKind::Write, true, Command::Write);
    offer(
        MoveKind::DelayedWrite,
        true,
        Command::WriteDelayed {
            extra_ms: plan.jump_ms.min(SLOW_MS_MAX),
        },
    );
    let early = !plan.early_release && write_unacknowledged(sim, c);
    offer(MoveKind::Release, !early, Command::Release);
    for &pause_ms in &plan.pauses_ms {
        offer(MoveKind::Pause, engaged, Command::GcPause { pause_ms });
    }
    let cut = sim.partition(c).is_some();
    let scope = PartitionScope::Service;
    offer(
        MoveKind::Partition,
        engaged && !cut,
        Command::Partition { scope },
    );
    offer(MoveKind::Partition, cut, Command::Heal);
    // `Crash` allows both kinds; the restart follows either.
    let either = |kind: MoveKind| match plan.allows(MoveKind::Crash) {
        true => MoveKind::Crash,
        false => kind,
    };
    let restart = [MoveKind::Exit, MoveKind::PowerOff]
        .into_iter()
        .find(|&k| plan.allows(k))
        .unwrap_or(MoveKind::Crash);
    offer(either(MoveKind::Exit), engaged, Command::Exit);
    offer(either(MoveKind::PowerOff), engaged, Command::PowerOff);
    offer(either(restart), crashed, Command::Restart);
    offer(
        MoveKind::ClockJump,
        engaged,
        Command::ClockJump { jump_ms: -jump },
    );
    offer(
        MoveKind::ClockJump,
        engaged,
        Command::ClockJump { jump_ms: jump },
    );
}

/// Whether `c` has a write it has not heard back about: queued in it while
/// it is paused, on its way to the resource, or the answer on its way back.
/// A release then is the client's bug, whatever the lock does.
pub fn write_unacknowledged(sim: &Sim, c: ClientId) -> bool {
    let queued = sim
        .queued(c)
        .iter()
        .any(|q| matches!(q, Command::Write | Command::WriteDelayed { .. }));
    queued
        || sim.any_in_flight(|m| match m.body {
            Body::Resource(ResourceMsg::Write { .. }) => m.from == Endpoint::Client(c),
            Body::Resource(ResourceMsg::WriteReply { .. }) => m.to == Endpoint::Client(c),
            _ => false,
        })
}

/// Faults on the lock service's nodes: on the first of the nodes that look
/// alike, and one failover.
fn node_moves(plan: &Plan, sim: &Sim, out: &mut Vec<Move>) {
    let backend = sim.config().backend;
    let mut act = |node: NodeId, command: NodeCommand| {
        if sim.check_node(node, command).is_ok() {
            out.push(Move::Act(Action::Node { node, command }));
            true
        } else {
            false
        }
    };
    if plan.allows(MoveKind::Failover) && !matches!(backend, Backend::Redlock) {
        NodeId::all().any(|n| act(n, NodeCommand::Failover));
    }
    let crash = plan.allows(MoveKind::NodeCrash);
    let jump = plan.allows(MoveKind::NodeClockJump);
    if !(crash || jump) || !matches!(backend, Backend::Redis | Backend::Redlock) {
        return;
    }
    let mut seen: Vec<NodeLook> = Vec::new();
    for (node, look) in node_looks(sim) {
        if seen.contains(&look) {
            continue;
        }
        seen.push(look);
        // On Redlock a node with no key and no fence counter loses
        // nothing by crashing, and a clock jump moves only the deadline
        // of a key it holds (a key set later is timed from the jumped
        // clock): the runs without them are the same.
        let redlock = backend == Backend::Redlock;
        let holds = look.owner.is_some();
        if crash && (!redlock || !look.up || holds || look.fence > 0) {
            act(node, NodeCommand::Crash);
            act(node, NodeCommand::Restart);
        }
        if jump && (!redlock || holds) {
            let jump_ms = plan.jump_ms as i64;
            act(node, NodeCommand::ClockJump { jump_ms });
        }
    }
}

/// What tells one Redis node from another for the search: nodes alike in
/// all of it are tried as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NodeLook {
    up: bool,
    master: bool,
    clock_offset_ms: i64,
    slow_ms: u64,
    owner: Option<ClientId>,
    fence: u64,
    restarting: bool,
}

fn node_looks(sim: &Sim) -> Vec<(NodeId, NodeLook)> {
    let look = |n: &RedisNodeView, master: bool| NodeLook {
        up: n.up,
        master,
        clock_offset_ms: n.clock_offset_ms,
        slow_ms: n.slow_ms,
        owner: n.key.map(|k| k.owner),
        fence: n.fence,
        restarting: n.restart_at.is_some(),
    };
    match sim.service_detail() {
        ServiceDetail::Redlock(d) => d.nodes.iter().map(|n| (n.node, look(n, false))).collect(),
        ServiceDetail::Redis(d) => d
            .servers
            .iter()
            .map(|s| (s.node.node, look(&s.node, s.master)))
            .collect(),
        _ => Vec::new(),
    }
}

/// A wait's step in words: where time stopped, and what happened on the
/// way (`sim` is a copy made before the wait, so its history is the wait's).
fn wait_step(sim: &Sim) -> TraceStep {
    let now = sim.now();
    let mut text = format!("Time passes to t={now}");
    let mut last_at = None;
    for r in sim.history().iter().filter(|r| tells(&r.event)) {
        if last_at == Some(r.at) {
            text.push_str("; ");
        } else if r.at == now {
            text.push_str(if last_at.is_none() { ": " } else { "; then " });
        } else {
            let sep = if last_at.is_none() { ": at " } else { "; at " };
            text.push_str(&format!("{sep}{} ", r.at));
        }
        last_at = Some(r.at);
        text.push_str(&r.event.to_string());
    }
    TraceStep {
        at: now,
        action: None,
        text,
    }
}

/// The records worth telling in a wait.
fn tells(event: &Event) -> bool {
    let foreign_delete = matches!(
        event,
        Event::Service(ServiceEvent::RedisKeyDeleted { owner, by, .. }) if owner != by
    );
    foreign_delete
        || is_moment(event)
        || matches!(
            event,
            Event::HolderChanged { .. }
                | Event::WriteAccepted { .. }
                | Event::WriteRejected { .. }
                | Event::TwoHolders { .. }
                | Event::Woke { .. }
        )
}

/// A visitor's action in plain words, as it happens in `sim`.
fn action_words(sim: &Sim, action: Action) -> String {
    let (c, command) = match action {
        Action::Node {
            command: NodeCommand::Failover,
            ..
        } => return "The lock service's leader or primary fails over".into(),
        Action::Node { node, command } => return format!("Redis {node}: {command}"),
        Action::Client { client, command } => (client, command),
    };
    let paused = sim.paused_until(c).is_some();
    let queued = if paused {
        " (it is paused: the command runs the instant it wakes)"
    } else {
        ""
    };
    match command {
        Command::Acquire => format!("{c} asks for the lock{queued}"),
        Command::Write => format!("{c} writes{queued}"),
        Command::WriteDelayed { extra_ms } => format!(
            "{c} writes, and the packet spends {} longer in the network{queued}",
            Millis(extra_ms)
        ),
        Command::Release if sim.config().redis.release == ReleaseMode::PlainDel => {
            format!("{c} releases the lock with a plain DEL{queued}")
        }
        Command::Release => format!("{c} releases the lock{queued}"),
        Command::GcPause { pause_ms } => {
            format!("{c} freezes in a GC pause of {}", Millis(pause_ms))
        }
        Command::Partition { .. } => format!("{c} is cut off from the lock service"),
        Command::Heal => format!("{c}'s partition heals"),
        Command::PowerOff => format!("{c}'s host powers off"),
        Command::Exit => format!("{c}'s process exits"),
        Command::Restart => format!("{c} restarts"),
        other => format!("{c}: {other}"),
    }
}
