//! The comparison of every lock system: the same scripted stories run on
//! each, with fencing off and on, and what happened read from the runs.
//! Nothing in a cell is typed in: each is a run of the core.

use super::presets;
use crate::sim::{
    Backend, ClientId, Command, Config, Event, Fencing, Millis, NodeCommand, NodeId,
    PartitionScope, Scenario, Sim, Standing,
};

/// One story every system is put through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub id: &'static str,
    pub title: &'static str,
    /// What the column asks, for the header's tooltip.
    pub question: &'static str,
}

pub const COLUMNS: [Column; 6] = [
    Column {
        id: "gc-pause",
        title: "GC pause",
        question: "A holds the lock and freezes for longer than its lease; B takes the lock and writes; A wakes and writes.",
    },
    Column {
        id: "delayed-write",
        title: "Delayed write",
        question: "A writes in time, but the packet lands after A released and B wrote.",
    },
    Column {
        id: "crashed-holder",
        title: "Crashed holder",
        question: "A crashes holding the lock: how long does B wait?",
    },
    Column {
        id: "partitioned-holder",
        title: "Partitioned holder",
        question: "A is cut off from the lock service (not from the data) and keeps writing while it believes it holds.",
    },
    Column {
        id: "clock-jump",
        title: "Clock jump",
        question: "The servers' wall clocks jump 10 s forward while A holds the lock.",
    },
    Column {
        id: "failover",
        title: "Failover",
        question: "The service's leader or primary fails over 10 ms after A took the lock.",
    },
];

/// What happened in one run, in the comparison's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A stale write was accepted: two holders, a corrupted counter.
    Corrupted,
    /// Every stale write was rejected by fencing.
    Rejected,
    /// The holder kept the lock: nobody else was granted it.
    NeverLost,
    /// The lock changed hands and no stale write landed: the old holder
    /// stopped in time.
    Safe,
    /// B got the crashed holder's lock after this long.
    Waited { ms: u64 },
    /// B still had not got it when the run stopped.
    StillWaiting { ms: u64 },
    /// The servers' wall clocks play no part in this system's leases.
    NotAffected,
    /// The fault does not exist in this system; the reason.
    NotApplicable(String),
}

impl Outcome {
    /// The cell's word.
    pub fn word(&self) -> String {
        match self {
            Outcome::Corrupted => "corrupted".into(),
            Outcome::Rejected => "rejected".into(),
            Outcome::NeverLost => "lock kept".into(),
            Outcome::Safe => "stopped in time".into(),
            Outcome::Waited { ms } => format!("waited {}", seconds(*ms)),
            Outcome::StillWaiting { ms } => format!("still waiting at {}", seconds(*ms)),
            Outcome::NotAffected => "not affected".into(),
            Outcome::NotApplicable(_) => "n/a".into(),
        }
    }

    /// Whether the data came to harm.
    pub fn is_corrupted(&self) -> bool {
        matches!(self, Outcome::Corrupted)
    }
}

fn seconds(ms: u64) -> String {
    if ms >= 3_600_000 {
        format!("{} h {} min", ms / 3_600_000, ms % 3_600_000 / 60_000)
    } else if ms >= 120_000 {
        format!("{} min", ms / 60_000)
    } else {
        format!("{}.{} s", ms / 1_000, ms % 1_000 / 100)
    }
}

/// One cell: a run and what it showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub outcome: Outcome,
    /// One sentence on why, from the run.
    pub why: String,
}

/// One system's row: a cell per column, fencing off and on, and the facts
/// measured from its runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub backend: Backend,
    pub cells: Vec<[Cell; 2]>,
    /// A's acquisition in the GC pause run, click to grant, at latency 1x.
    pub acquire_ms: u64,
}

/// How long a crashed holder's lock is waited for before the cell says
/// "still waiting": longer than any lease, shorter than Linux's TCP
/// keepalive (2 h 11 min), so that PostgreSQL's default shows.
const WAIT_CAP_MS: u64 = 10 * 60_000;

const A: ClientId = ClientId::ALL[0];
const B: ClientId = ClientId::ALL[1];

/// The script of one column for one system, or why it does not apply.
pub fn scenario(column: &str, backend: Backend, fencing: Fencing) -> Option<Scenario> {
    let config = Config {
        backend,
        fencing,
        ..Config::default()
    };
    match column {
        "gc-pause" | "delayed-write" | "crashed-holder" => {
            presets::scenario(column, backend, fencing)
        }
        "partitioned-holder" => Some(partitioned_holder(config)),
        "clock-jump" => Some(clock_jump(config)),
        "failover" => Some(failover(config)),
        _ => None,
    }
}

/// A is cut off from the service at 1 s, writes at 2 s, is healed at 41 s
/// and writes again at once if it still believes it holds. B asks for the
/// lock every 5 s until it holds (a client that gives up, as Redlock's
/// does, asks again) and writes every 200 ms once it does. A writes only
/// long after B's turn began: a write that lands between the service's
/// grant and B's first write has no higher token to be judged by, a race
/// the GC pause column shows without the noise.
fn partitioned_holder(config: Config) -> Scenario {
    let mut s = Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(
            1_000,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        );
    for t in (500..=40_000).step_by(5_000) {
        s = s.client(t, 'B', Command::Acquire);
    }
    for t in (600..=40_000).step_by(200) {
        s = s.client(t, 'B', Command::Write);
    }
    s = s.client(2_100, 'A', Command::Write);
    let mut s = s
        .client(41_000, 'A', Command::Heal)
        .client(42_100, 'A', Command::Write);
    // Scripts run in time order; same-time actions keep their order.
    s.actions.sort_by_key(|a| a.at);
    s
}

/// The first three servers' wall clocks jump 10 s forward at 1 s (where
/// servers expire keys by wall clock; the others refuse the jump). A does
/// not renew, so its belief lasts what its library allows.
fn clock_jump(mut config: Config) -> Scenario {
    config.renewal[0] = false;
    let mut s = Scenario::new(config).client(0, 'A', Command::Acquire);
    for n in 1..=3 {
        s = s.node(1_000, n, NodeCommand::ClockJump { jump_ms: 10_000 });
    }
    s.client(1_500, 'B', Command::Acquire)
        .client(2_500, 'B', Command::Write)
        .client(3_500, 'B', Command::Write)
        .client(4_000, 'A', Command::Write)
}

/// The leader or primary fails over 10 ms after A asked for the lock; the
/// lease is 30 s (as in the Redis failover story), so no renewal falls
/// inside the story.
fn failover(config: Config) -> Scenario {
    Scenario::new(Config {
        ttl_ms: 30_000,
        ..config
    })
    .client(0, 'A', Command::Acquire)
    .node(10, 1, NodeCommand::Failover)
    .client(1_000, 'B', Command::Acquire)
    .client(1_500, 'B', Command::Write)
    .client(2_000, 'A', Command::Write)
    .client(3_000, 'B', Command::Write)
    .client(4_000, 'A', Command::Write)
}

/// The node command a column's fault is, if it is one.
fn fault(column: &str) -> Option<NodeCommand> {
    match column {
        "clock-jump" => Some(NodeCommand::ClockJump { jump_ms: 10_000 }),
        "failover" => Some(NodeCommand::Failover),
        _ => None,
    }
}

/// When the run has shown what it can: a while after the last scripted
/// action, a pause's end or a delayed write's landing.
fn settle_at(scenario: &Scenario) -> Millis {
    let mut end = scenario.last_at();
    for a in &scenario.actions {
        if let crate::sim::Action::Client { command, .. } = a.action {
            let extra = match command {
                Command::GcPause { pause_ms } => pause_ms,
                Command::WriteDelayed { extra_ms } => extra_ms,
                _ => 0,
            };
            end = end.max(a.at.plus(extra));
        }
    }
    end.plus(5_000)
}

/// One cell's run, played as far as it was judged, or why it has none.
pub fn run(column: &str, backend: Backend, fencing: Fencing) -> Result<Sim, Cell> {
    let not_run = |why: &str| Cell {
        outcome: Outcome::NotApplicable(why.into()),
        why: why.into(),
    };
    let Some(scenario) = scenario(column, backend, fencing) else {
        return Err(not_run("this story does not run on it"));
    };
    if let Some(cmd) = fault(column) {
        let node = NodeId::new(1).expect("node 1 exists");
        let refusal = Sim::new(scenario.config.clone())
            .ok()
            .and_then(|sim| sim.check_node(node, cmd).err());
        if let Some(e) = refusal {
            let why = e.to_string();
            let outcome = if column == "clock-jump" {
                Outcome::NotAffected
            } else {
                Outcome::NotApplicable(why.clone())
            };
            return Err(Cell { outcome, why });
        }
    }
    let end = if column == "crashed-holder" {
        scenario.last_at()
    } else {
        settle_at(&scenario)
    };
    let mut sim = Sim::play(&scenario, end).map_err(|_| not_run("the script does not run"))?;
    if column == "crashed-holder" {
        // On until B holds the crashed holder's lock, and a moment more.
        let cap = crash_at(&scenario).plus(WAIT_CAP_MS);
        while sim.now() < cap && !sim.client_view(B).belief.is_holding() {
            if !sim.step() {
                break;
            }
        }
        let more = sim.now().plus(1_000).min(cap);
        sim.run_until(more);
    }
    Ok(sim)
}

/// Runs one cell and judges it.
pub fn cell(column: &str, backend: Backend, fencing: Fencing) -> Cell {
    match run(column, backend, fencing) {
        Err(cell) => cell,
        Ok(sim) if column == "crashed-holder" => waited(&sim),
        Ok(sim) => judge(&sim),
    }
}

fn judge(sim: &Sim) -> Cell {
    let oracle = sim.oracle();
    let stale = oracle
        .stale_writes()
        .iter()
        .filter(|w| w.standing == Standing::Stale);
    let (mut accepted, mut rejected) = (None, None);
    for w in stale {
        if w.accepted {
            accepted = accepted.or(Some(w));
        } else {
            rejected = rejected.or(Some(w));
        }
    }
    let token =
        |t: Option<crate::sim::Token>| t.map_or("no token".into(), |t| format!("token {t}"));
    if let Some(w) = accepted {
        return Cell {
            outcome: Outcome::Corrupted,
            why: format!(
                "{}'s stale write ({}) was accepted at {} after the lock went to another client.",
                w.client,
                token(w.token),
                w.at
            ),
        };
    }
    if let Some(w) = rejected {
        return Cell {
            outcome: Outcome::Rejected,
            why: format!(
                "{}'s stale write ({}) was rejected at {}.",
                w.client,
                token(w.token),
                w.at
            ),
        };
    }
    // A lock taken from A shows as A's loss; one A gave up by releasing
    // it, or never lost, does not.
    let lost = sim.history().iter().find_map(|r| match &r.event {
        Event::Lost { client, reason } if *client == A => Some((r.at, *reason)),
        _ => None,
    });
    match lost {
        Some((at, reason)) => Cell {
            outcome: Outcome::Safe,
            why: format!(
                "A stopped believing at {at} ({reason}) and no stale write of its landed."
            ),
        },
        None => Cell {
            outcome: Outcome::NeverLost,
            why: "A never lost the lock: nobody was granted it while A believed it held it.".into(),
        },
    }
}

fn crash_at(scenario: &Scenario) -> Millis {
    scenario
        .actions
        .iter()
        .find(|a| {
            matches!(
                a.action,
                crate::sim::Action::Client {
                    command: Command::PowerOff,
                    ..
                }
            )
        })
        .map_or(Millis(0), |a| a.at)
}

/// How long B waited for the crashed holder's lock.
fn waited(sim: &Sim) -> Cell {
    let crashed = crash_at(&sim.scenario());
    let got = sim.history().iter().find_map(|r| match r.event {
        Event::Acquired { client, .. } if client == B => Some(r.at),
        _ => None,
    });
    match got {
        Some(at) => {
            let ms = crashed.until(at);
            Cell {
                outcome: Outcome::Waited { ms },
                why: format!("B got the lock {} after A crashed.", seconds(ms)),
            }
        }
        None => {
            let ms = crashed.until(sim.now());
            Cell {
                outcome: Outcome::StillWaiting { ms },
                why: format!(
                    "B still waited {} after A crashed, when the run stopped.",
                    seconds(ms)
                ),
            }
        }
    }
}

/// A's acquisition time in the GC pause run: click to grant.
fn acquire_ms(backend: Backend) -> u64 {
    let Some(scenario) = presets::scenario("gc-pause", backend, Fencing::Off) else {
        return 0;
    };
    let Ok(sim) = Sim::play(&scenario, Millis(2_000)) else {
        return 0;
    };
    sim.history()
        .iter()
        .find_map(|r| match r.event {
            Event::Acquired { client, .. } if client == A => Some(r.at.ms()),
            _ => None,
        })
        .unwrap_or(0)
}

/// One system's row.
pub fn row(backend: Backend) -> Row {
    let cells = COLUMNS
        .iter()
        .map(|c| {
            [
                cell(c.id, backend, Fencing::Off),
                cell(c.id, backend, Fencing::On),
            ]
        })
        .collect();
    Row {
        backend,
        cells,
        acquire_ms: acquire_ms(backend),
    }
}

/// The whole comparison: a row per system.
pub fn matrix() -> Vec<Row> {
    Backend::ALL.into_iter().map(row).collect()
}
