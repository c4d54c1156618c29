//! The comparison of every lock system: the same scripted stories run on
//! each, with fencing off and on, and what happened read from the runs.
//! Nothing in a cell is typed in: each is a run of the core.
//!
//! A cell has a main run, at the system's real defaults (set here
//! explicitly, in `DEFAULTS`), and a run per common tuned setting that
//! changes its verdict (`VARIANTS`): each a named change to the run's
//! `Config`, with its own outcome and its own run to open.

pub mod address;
pub mod draw;

use crate::lesson::presets::{self, Preset};
use crate::sim::{
    Backend, ClientId, Command, Config, ConsulOptions, Event, Fencing, Millis, NodeCommand, NodeId,
    PartitionScope, PgOptions, ReplicaWait, Scenario, Sim, Standing, CHUBBY_LEASE_MS,
    CONSUL_SESSION_TTL_MS, TTL_MS_DEFAULT,
};
use crate::words::duration;

/// One story every system is put through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub id: &'static str,
    pub title: &'static str,
    /// What the column asks, for the header's tooltip.
    pub question: &'static str,
    /// Whether the story is run with fencing off and on: how long B waits
    /// for a dead holder's lock is the same either way.
    pub fenced: bool,
    /// The page's story whose script the column runs, where it runs one.
    pub story: Option<&'static Preset>,
}

pub const GC_PAUSE: Column = Column {
    id: "gc-pause",
    title: "GC pause",
    question: "A holds the lock and freezes for longer than its lease; B takes the lock and writes; A wakes and writes.",
    fenced: true,
    story: Some(&presets::GC_PAUSE),
};
pub const DELAYED_WRITE: Column = Column {
    id: "delayed-write",
    title: "Delayed write",
    question: "A writes in time, but the packet lands after A released and B wrote.",
    fenced: true,
    story: Some(&presets::DELAYED_WRITE),
};
/// The process exits (an OOM kill, a panic, SIGKILL): its kernel closes
/// its sockets, so the server sees the connection end at once.
pub const PROCESS_EXIT: Column = Column {
    id: "process-exit",
    title: "Crash (process exits)",
    question: "A's process exits holding the lock (an OOM kill, a panic): its kernel closes its connections. How long does B, already asking, wait?",
    fenced: false,
    story: None,
};
/// The host dies or is cut off: nothing more comes from it, not even a FIN.
pub const HOST_DEATH: Column = Column {
    id: "crashed-holder",
    title: "Power off (host dies)",
    question: "A's host dies holding the lock (power off, cut off): nothing more comes from it, not even a FIN. How long does B, already asking, wait?",
    fenced: false,
    story: None,
};
pub const PARTITIONED_HOLDER: Column = Column {
    id: "partitioned-holder",
    title: "Partitioned holder",
    question: "A is cut off from the lock service (not from the data) and keeps writing while it believes it holds.",
    fenced: true,
    story: None,
};
pub const CLOCK_JUMP: Column = Column {
    id: "clock-jump",
    title: "Clock jump",
    question: "The servers' wall clocks jump forward past A's lease (twice the lease: 10 s at a 5 s TTL) while A holds the lock.",
    fenced: true,
    story: None,
};
pub const FAILOVER: Column = Column {
    id: "failover",
    title: "Failover",
    question: "The service's leader or primary fails over 10 ms after A took the lock, on a lease long enough that no renewal falls in the story (30 s; Chubby, Consul and DynamoDB at their own default leases).",
    fenced: true,
    story: None,
};

/// The fault that breaks Redlock's best token: node 1, which keeps the
/// INCR counter, restarts without persistence and counts again from 0.
pub const NODE_RESTART: Column = Column {
    id: "node-restart",
    title: "Node restart (no persistence)",
    question: "Redlock's node 1, which hands out the INCR tokens, restarts without persistence while A is paused; B takes the lock and writes; A wakes and writes.",
    fenced: true,
    story: Some(&presets::REDLOCK_NO_FENCE),
};

/// The columns on show.
pub const COLUMNS: &[Column] = &[
    GC_PAUSE,
    DELAYED_WRITE,
    PROCESS_EXIT,
    HOST_DEATH,
    PARTITIONED_HOLDER,
    CLOCK_JUMP,
    FAILOVER,
    NODE_RESTART,
];

/// The command that kills A in a crash column.
fn crash_command(column: &str) -> Option<Command> {
    match column {
        // The process exiting: its kernel closes its sockets.
        "process-exit" => Some(Command::Exit),
        // A host that dies: silence, no FIN.
        "crashed-holder" => Some(Command::PowerOff),
        _ => None,
    }
}

/// A named setting applied to a run's configuration, in words a reader
/// understands. `column` is a column's id, or `"*"` for every column.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    /// Its word in a cell's address (`&setting=pg-tuned`).
    pub id: &'static str,
    pub column: &'static str,
    pub backend: Backend,
    pub label: &'static str,
    /// The real default a tuned setting stands beside, in words: the main
    /// run's label in a cell that shows it (in `DEFAULTS`, the label).
    pub default: &'static str,
    pub apply: fn(&mut Config),
}

impl Setting {
    fn applies(&self, column: &str, backend: Backend) -> bool {
        self.backend == backend && (self.column == "*" || self.column == column)
    }
}

/// Each system's real defaults, set explicitly so the table says what it
/// ran whatever the model's `Default` becomes. Chubby's paper gives no
/// lock-delay default, only the one-minute bound: the page runs the bound.
pub const DEFAULTS: &[Setting] = &[
    Setting {
        id: "pg-default",
        column: "*",
        backend: Backend::Postgres,
        label: "default keepalives",
        default: "default keepalives",
        // tcp_keepalives_idle = 0: the OS's, 7,200 s then 9 probes 75 s apart on Linux.
        apply: |c| c.pg = PgOptions::LINUX,
    },
    Setting {
        id: "chubby-delay-60",
        column: "*",
        backend: Backend::Chubby,
        label: "lock-delay 60 s",
        default: "lock-delay 60 s",
        apply: |c| c.chubby.lock_delay_ms = 60_000,
    },
    Setting {
        id: "consul-delay-15",
        column: "*",
        backend: Backend::Consul,
        label: "lock-delay 15 s (default)",
        default: "lock-delay 15 s (default)",
        // api.DefaultLockSessionTTL's session gets the server's 15 s lock-delay.
        apply: |c| c.consul.lock_delay_s = 15,
    },
    Setting {
        id: "consul-retries-0",
        column: "*",
        backend: Backend::Consul,
        label: "MonitorRetries 0 (the api's default)",
        default: "MonitorRetries 0 (the api's default)",
        apply: |c| c.consul.monitor_retries = 0,
    },
    Setting {
        id: "dynamo-polls",
        column: "*",
        backend: Backend::DynamoDb,
        // The library only logs a failed heartbeat; whether a holder stops
        // at its deadline is the application's code. The page's polls.
        label: "the application polls isExpired()",
        default: "the application polls isExpired()",
        apply: |c| c.dynamo.app_checks_expiry = true,
    },
    Setting {
        id: "redis-no-wait",
        column: "*",
        backend: Backend::Redis,
        label: "no WAIT (redis-py's Lock)",
        default: "no WAIT (redis-py's Lock)",
        apply: |c| c.redis.wait = ReplicaWait::Off,
    },
];

/// The common tuned settings, each its own run beside the main one; a cell
/// shows one only where it changes the verdict. Adding one is a line here.
pub const VARIANTS: &[Setting] = &[
    Setting {
        id: "pg-tuned",
        column: "crashed-holder",
        backend: Backend::Postgres,
        label: "tuned keepalives 10/5/3 s",
        default: "default keepalives",
        apply: |c| c.pg = PgOptions::TUNED,
    },
    Setting {
        id: "pg-tuned",
        column: "partitioned-holder",
        backend: Backend::Postgres,
        label: "tuned keepalives 10/5/3 s",
        default: "default keepalives",
        apply: |c| c.pg = PgOptions::TUNED,
    },
    Setting {
        id: "chubby-delay-20",
        column: "*",
        backend: Backend::Chubby,
        label: "lock-delay 20 s",
        default: "lock-delay 60 s",
        apply: |c| c.chubby.lock_delay_ms = 20_000,
    },
    Setting {
        id: "chubby-delay-0",
        column: "*",
        backend: Backend::Chubby,
        label: "lock-delay 0 s",
        default: "lock-delay 60 s",
        apply: |c| c.chubby.lock_delay_ms = 0,
    },
    Setting {
        id: "consul-delay-0",
        column: "*",
        backend: Backend::Consul,
        label: "lock-delay 0 s",
        default: "lock-delay 15 s (default)",
        apply: |c| c.consul.lock_delay_s = 0,
    },
    Setting {
        id: "consul-retries-3",
        column: "*",
        backend: Backend::Consul,
        label: "MonitorRetries 3 (consul lock's)",
        default: "MonitorRetries 0 (the api's default)",
        apply: |c| c.consul.monitor_retries = ConsulOptions::CONSUL_LOCK_MONITOR_RETRIES,
    },
    Setting {
        id: "dynamo-never-asks",
        column: "*",
        backend: Backend::DynamoDb,
        label: "the application never asks isExpired()",
        default: "the application polls isExpired()",
        apply: |c| c.dynamo.app_checks_expiry = false,
    },
    Setting {
        id: "redis-redisson-wait",
        column: "failover",
        backend: Backend::Redis,
        label: "Redisson's WAIT rule (its default)",
        default: "no WAIT (redis-py's Lock)",
        apply: |c| c.redis.wait = ReplicaWait::Redisson,
    },
    Setting {
        id: "redis-wait-1",
        column: "failover",
        backend: Backend::Redis,
        label: "the application's WAIT 1",
        default: "no WAIT (redis-py's Lock)",
        apply: |c| c.redis.wait = ReplicaWait::AppWait1,
    },
];

/// What happened in one run, in the comparison's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A stale write was accepted: two holders, a corrupted counter.
    Corrupted,
    /// Every stale write was rejected by fencing.
    Rejected,
    /// Every stale write was rejected, by a check that holds only while
    /// something the system does not promise holds: its words say what
    /// ("node 1 keeps its counter").
    RejectedWhile(&'static str),
    /// The holder kept the lock: nobody else was granted it.
    NeverLost,
    /// The lock changed hands and no stale write landed: the old holder
    /// stopped in time.
    Safe,
    /// A stopped believing it held the lock while nobody else was granted
    /// it: not a safety problem, a spurious loss.
    GaveUp,
    /// A believed it held the lock while another client held it, for this
    /// long in the system's own time (see `real_ms`), and no write of A's
    /// fell in that time: safe only by timing.
    TwoHolders { ms: u64 },
    /// A's acquisition failed: it never held the lock to lose (a Redis
    /// client whose WAIT found no replica's ack).
    NotGranted,
    /// B got the dead holder's lock after this long.
    Waited { ms: u64 },
    /// B still had not got it when the run stopped.
    StillWaiting { ms: u64 },
    /// The fault ran and changed nothing.
    NotAffected,
    /// The model cannot do this to this system; the reason.
    NotModelled(String),
    /// The fault does not exist in this system; the reason.
    NotApplicable(String),
}

impl Outcome {
    /// The cell's word.
    pub fn word(&self) -> String {
        match self {
            Outcome::Corrupted => "corrupted".into(),
            Outcome::Rejected => "rejected".into(),
            Outcome::RejectedWhile(holds) => format!("rejected while {holds}"),
            Outcome::NeverLost => "lock kept".into(),
            Outcome::Safe => "stopped in time".into(),
            Outcome::GaveUp => "gave up the lock (spurious)".into(),
            Outcome::TwoHolders { ms } => {
                format!("two holders for {}, no write in it", duration(*ms))
            }
            Outcome::NotGranted => "A never got the lock".into(),
            Outcome::Waited { ms } => format!("waited {}", duration(*ms)),
            Outcome::StillWaiting { ms } => format!("still waiting at {}", duration(*ms)),
            Outcome::NotAffected => "not affected".into(),
            Outcome::NotModelled(_) => "not modelled".into(),
            Outcome::NotApplicable(_) => "n/a".into(),
        }
    }

    /// Whether the data came to harm.
    pub fn is_corrupted(&self) -> bool {
        matches!(self, Outcome::Corrupted)
    }

    /// Whether a run stands behind it.
    pub fn ran(&self) -> bool {
        !matches!(self, Outcome::NotModelled(_) | Outcome::NotApplicable(_))
    }
}

/// A run, as far as it was judged: what opens it in the simulator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    pub scenario: Scenario,
    pub end: Millis,
}

/// One run's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub outcome: Outcome,
    /// One sentence on why, from the run (or the model's refusal).
    pub why: String,
    /// The run itself; `None` where nothing ran. Where A's write was run
    /// at several times, the run that shows the verdict (the first that
    /// corrupted, else the first rejected, else the first).
    pub run: Option<Played>,
    /// Where A's write was run at several times, each time's run, in
    /// order; empty where one run decides.
    pub writes: Vec<Judged>,
}

impl Judged {
    /// The verdict's word: the run's, or, where A's write ran at several
    /// times and they disagree, how many of them gave it ("corrupted at 2
    /// of 5 write times").
    pub fn word(&self) -> String {
        let word = self.outcome.word();
        // Alike in kind: two holders for 15.2 s or 15.3 s are one verdict.
        let kind = |j: &Judged| std::mem::discriminant(&j.outcome);
        if self.writes.windows(2).all(|w| kind(&w[0]) == kind(&w[1])) {
            return word;
        }
        let same = self
            .writes
            .iter()
            .filter(|j| std::mem::discriminant(&j.outcome) == std::mem::discriminant(&self.outcome))
            .count();
        format!("{word} at {same} of {} write times", self.writes.len())
    }
}

/// A tuned setting's own run in a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its word in a cell's address.
    pub id: &'static str,
    pub label: &'static str,
    /// The real default it stands beside.
    pub default: &'static str,
    pub judged: Judged,
}

/// One cell: a column on one system at one fencing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub fencing: Fencing,
    /// The main run's label where tuned runs stand beside it: the real
    /// default they replace ("default keepalives"), or "defaults" where
    /// they replace different ones.
    pub setting: Option<&'static str>,
    /// The run at the system's real defaults.
    pub main: Judged,
    /// The tuned settings that change the verdict, each with its run.
    pub variants: Vec<Variant>,
    /// One short line: what the verdict rests on; `None` where nothing ran.
    pub depends_on: Option<String>,
}

impl Cell {
    /// The cell in words: "waited 4.0 s", or "default keepalives: waited
    /// 2 h 11 min · tuned keepalives 10/5/3 s: waited 25.3 s".
    pub fn words(&self) -> String {
        let main = self.main.word();
        if self.variants.is_empty() {
            return main;
        }
        let mut s = format!("{}: {main}", self.setting.unwrap_or("defaults"));
        for v in &self.variants {
            s.push_str(&format!(" · {}: {}", v.label, v.judged.word()));
        }
        s
    }

    /// Every run with its label: the main one first (`None`), then the variants'.
    pub fn runs(&self) -> impl Iterator<Item = (Option<&'static str>, &Judged)> {
        std::iter::once((self.setting, &self.main))
            .chain(self.variants.iter().map(|v| (Some(v.label), &v.judged)))
    }
}

/// One system's row: the cells of each column (fencing off then on, or one
/// where fencing plays no part), and the facts measured from its runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub backend: Backend,
    pub cells: Vec<Vec<Cell>>,
    /// A's acquisition in the GC pause run, click to grant, at the
    /// default latency (10x real).
    pub acquire_ms: u64,
}

/// How long a dead holder's lock is waited for before the cell says "still
/// waiting": longer than Linux's TCP keepalive (2 h 11 min), so that
/// PostgreSQL's default shows.
const WAIT_CAP_MS: u64 = 3 * 3_600_000;
/// The DynamoDB lock client's default lease (leaseDuration 20 s).
const DYNAMO_LEASE_MS: u64 = 20_000;

const A: ClientId = ClientId::ALL[0];
const B: ClientId = ClientId::ALL[1];

fn is_crash(column: &str) -> bool {
    crash_command(column).is_some()
}

/// The TTL a column runs with on a system. The crash columns measure a
/// wait, and the failover asks what the fault does to a lock well inside
/// its lease, so Chubby, Consul and DynamoDB run at their own default
/// lease there, and their times are real seconds; the failover runs the
/// others at 30 s (`FAILOVER_TTL_MS`). Elsewhere every system runs at
/// the page's 5 s, those three with their times scaled to it.
pub fn ttl_ms(column: &str, backend: Backend) -> u64 {
    ttl_ms_at(TTL_MS_DEFAULT, column, backend)
}

/// `ttl_ms` with the visitor's TTL in place of the page's 5 s.
pub fn ttl_ms_at(ttl_ms: u64, column: &str, backend: Backend) -> u64 {
    let own_lease = is_crash(column) || column == FAILOVER.id;
    match own_lease_ms(backend) {
        Some(own) if own_lease => own,
        _ if column == FAILOVER.id => FAILOVER_TTL_MS,
        _ => ttl_ms,
    }
}

/// The failover's lease, as in the Redis failover story: long enough that
/// no renewal falls inside the story.
const FAILOVER_TTL_MS: u64 = 30_000;

/// The default lease of a system whose model scales its times to the
/// run's TTL (Chubby's 12 s, Consul's 15 s, DynamoDB's 20 s); `None` for
/// a system whose TTL is its lease.
fn own_lease_ms(backend: Backend) -> Option<u64> {
    match backend {
        Backend::Chubby => Some(CHUBBY_LEASE_MS),
        Backend::Consul => Some(CONSUL_SESSION_TTL_MS),
        Backend::DynamoDb => Some(DYNAMO_LEASE_MS),
        _ => None,
    }
}

/// A span of a run in the system's own seconds: Chubby, Consul and
/// DynamoDB scale every duration by the run's TTL over their default
/// lease, so at the table's 5 s a Consul span is a third of Consul's.
fn real_ms(backend: Backend, ttl_ms: u64, ms: u64) -> u64 {
    match own_lease_ms(backend) {
        Some(own) => ms.saturating_mul(own) / ttl_ms.max(1),
        None => ms,
    }
}

/// The lease each system ran with at the page's 5 s, in words for its row.
pub fn lease_words(backend: Backend) -> String {
    lease_words_at(TTL_MS_DEFAULT, backend)
}

/// The lease each system ran with at TTL `ttl_ms`, in words for its row:
/// where the run scaled a system's times to the TTL, by how much.
pub fn lease_words_at(ttl_ms: u64, backend: Backend) -> String {
    let ttl = whole_seconds(ttl_ms);
    // The ratio, and what it is the ratio of: "5/12 (5 s over 12 s)".
    let scaled = |own: u64| {
        let d = gcd(ttl_ms, own).max(1);
        format!(
            "{}/{} ({ttl} over {})",
            ttl_ms / d,
            own / d,
            whole_seconds(own)
        )
    };
    match backend {
        Backend::ZooKeeper => format!("session timeout {ttl} (the application's choice)"),
        Backend::Chubby => format!(
            "lease 12 s (Chubby's) in the crash and failover columns; elsewhere {ttl}, Chubby's times scaled by {}",
            scaled(CHUBBY_LEASE_MS)
        ),
        Backend::Consul => format!(
            "session TTL 15 s (the api's default) in the crash and failover columns; elsewhere {ttl}, Consul's times scaled by {}",
            scaled(CONSUL_SESSION_TTL_MS)
        ),
        Backend::DynamoDb => format!(
            "lease 20 s (the lock client's default) in the crash and failover columns; elsewhere {ttl}, its times scaled by {}",
            scaled(DYNAMO_LEASE_MS)
        ),
        Backend::Postgres => "no lease: the lock lasts as long as the session".into(),
        // Redis, Redlock, etcd: the TTL is the lease, as a new system's is
        // unless it says otherwise here.
        _ => format!("lease {ttl} (the application's choice)"),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A setting's duration as people write it: "5 s", "2.5 s", "250 ms".
pub fn whole_seconds(ms: u64) -> String {
    if ms % 1_000 == 0 {
        format!("{} s", ms / 1_000)
    } else if ms % 100 == 0 && ms > 1_000 {
        format!("{}.{} s", ms / 1_000, ms % 1_000 / 100)
    } else {
        format!("{ms} ms")
    }
}

/// The settings a comparison ran at, in words for the line above its
/// table: "TTL 30 s, latency 10x real, seed 1. Each system at its real
/// defaults, ...", naming each system's options the visitor set.
pub fn settings_words(base: &Config) -> String {
    let mut s = format!("{}.", settings_line(base));
    let own = own_options_words(base);
    if own.is_empty() {
        s.push_str(" Each system at its real defaults, with the common tuned settings that change a verdict beside them.");
    } else {
        s.push_str(&format!(
            " Your options: {}. Those systems run at them alone; the others at their real defaults, with the common tuned settings that change a verdict beside them.",
            own.join("; ")
        ));
    }
    if !base.fence.is_documented() {
        s.push_str(&format!(
            " With fencing on, the resource's check is: {}, where a system offers it (the others use the one their clients document).",
            base.fence.label()
        ));
    }
    if base.ttl_ms != TTL_MS_DEFAULT {
        s.push_str(&format!(
            " The GC pause, partition and node restart stories, written for a 5 s TTL, are stretched by {} so that A still outlives its lease.",
            stretch_words(base.ttl_ms)
        ));
    }
    s.push_str(
        " Chubby, Consul and DynamoDB run at their own default leases in the crash and failover columns; the failover runs the others at 30 s. The clock jump is twice the TTL.",
    );
    s
}

/// Each system's options the visitor set, in words ("PostgreSQL
/// keepalives 10 s + 3 x 5 s"); Redis's and Redlock's once.
pub fn own_options_words(base: &Config) -> Vec<String> {
    Backend::ALL
        .into_iter()
        .filter(|&b| own_options(base, b) && b != Backend::Redlock)
        .map(|b| options_words(base, b))
        .collect()
}

/// The table's settings in one line, as its first line, its exports and
/// its cells' addresses name them: "TTL 10 s, latency real + 2 ms round
/// trip, seed 1, fencing mode as documented".
pub fn settings_line(base: &Config) -> String {
    format!(
        "TTL {}, latency {}, seed {}, fencing mode {}",
        whole_seconds(base.ttl_ms),
        crate::sim::latency::latency_words(base),
        base.seed.0,
        base.fence.label()
    )
}

/// A column's parameters on a system, read from the script it runs, in
/// the system's own seconds: "A freezes 8 s at 0.5 s, lease 5 s".
/// Chubby, Consul and DynamoDB run with their times scaled to the table's
/// TTL; their parameters are scaled back.
pub fn parameters(base: &Config, column: &str, backend: Backend) -> String {
    use crate::sim::Action;
    let Some(s) = scenario_at(base, column, backend, Fencing::Off) else {
        return "not run on this system".into();
    };
    let own = |ms: u64| short_seconds(real_ms(backend, s.config.ttl_ms, ms));
    let lease = if backend == Backend::Postgres {
        "no lease".to_string()
    } else {
        format!("lease {}", own(s.config.ttl_ms))
    };
    let a = |want: fn(&Command) -> bool| {
        s.actions.iter().filter_map(move |t| match t.action {
            Action::Client { client, command } if client == A && want(&command) => {
                Some((t.at.ms(), command))
            }
            _ => None,
        })
    };
    let writes = |from: u64, to: u64| -> Vec<String> {
        a(|c| matches!(c, Command::Write))
            .filter(|&(at, _)| at >= from && at < to)
            .map(|(at, _)| own(at))
            .collect()
    };
    match column {
        "gc-pause" | "node-restart" => {
            let (at, pause) = a(|c| matches!(c, Command::GcPause { .. }))
                .find_map(|(at, c)| match c {
                    Command::GcPause { pause_ms } => Some((at, pause_ms)),
                    _ => None,
                })
                .unwrap_or_default();
            let restart = if column == "node-restart" {
                s.actions
                    .iter()
                    .find(|t| {
                        matches!(
                            t.action,
                            Action::Node {
                                command: NodeCommand::Restart,
                                ..
                            }
                        )
                    })
                    .map_or(String::new(), |t| {
                        format!("; node 1 restarts empty at {}", own(t.at.ms()))
                    })
            } else {
                String::new()
            };
            format!(
                "A freezes {} at {}{restart}, writes on waking; {lease}",
                own(pause),
                own(at)
            )
        }
        "delayed-write" => {
            let (at, extra) = a(|c| matches!(c, Command::WriteDelayed { .. }))
                .find_map(|(at, c)| match c {
                    Command::WriteDelayed { extra_ms } => Some((at, extra_ms)),
                    _ => None,
                })
                .unwrap_or_default();
            format!(
                "A's write at {} held {} in the network; {lease}",
                own(at),
                own(extra)
            )
        }
        "process-exit" | "crashed-holder" => {
            let died = if column == "process-exit" {
                "A's process exits"
            } else {
                "A's host dies"
            };
            format!("{died} at {}, B asking; {lease}", own(crash_at(&s).ms()))
        }
        "partitioned-holder" => {
            let cut = a(|c| matches!(c, Command::Partition { .. }))
                .next()
                .map_or(0, |(at, _)| at);
            let heal = a(|c| matches!(c, Command::Heal))
                .next()
                .map_or(0, |(at, _)| at);
            format!(
                "A cut off {} to {}; writes at {}, and at {} on healing; {lease}",
                own(cut),
                own(heal),
                write_times_words(column, backend, s.config.ttl_ms),
                writes(heal, u64::MAX).join(", ")
            )
        }
        "clock-jump" => {
            let jump = s.actions.iter().find_map(|t| match t.action {
                Action::Node {
                    command: NodeCommand::ClockJump { jump_ms },
                    ..
                } => Some((t.at.ms(), jump_ms)),
                _ => None,
            });
            let (at, jump) = jump.unwrap_or_default();
            format!(
                "the servers' clocks jump {} forward (twice the lease) at {}; A writes at {}; {lease}",
                short_seconds(u64::try_from(jump).unwrap_or(0)),
                own(at),
                write_times_words(column, backend, s.config.ttl_ms)
            )
        }
        "failover" => format!(
            "leader or primary, 10 ms after A's grant; B asks at 1 s; A writes at {}; {lease}",
            write_times_words(column, backend, s.config.ttl_ms)
        ),
        _ => lease,
    }
}

/// A column's write times on a system whose run has TTL `ttl_ms`, the
/// unit once: "7.7, 14.3, 21, 27.7 or 34.3 s".
fn write_times_words(column: &str, backend: Backend, ttl_ms: u64) -> String {
    // In seconds to a tenth, the unit once: "0.8, 1.2 or 2 s".
    let times: Vec<String> = (0..write_times(column))
        .map(|k| tenths(write_run_ms(column, backend, ttl_ms, k)))
        .collect();
    match times.split_last() {
        Some((last, [])) => format!("{last} s"),
        Some((last, rest)) => format!("{} or {last} s", rest.join(", ")),
        None => String::new(),
    }
}

/// A time in seconds to a tenth, without its unit: "0.8", "21".
fn tenths(ms: u64) -> String {
    let tenths = (ms + 50) / 100;
    match tenths % 10 {
        0 => format!("{}", tenths / 10),
        t => format!("{}.{t}", tenths / 10),
    }
}

/// A time in a column's parameters, to a tenth of a second: "7.7 s",
/// "21 s", "250 ms".
fn short_seconds(ms: u64) -> String {
    if ms < 1_000 {
        return format!("{ms} ms");
    }
    let tenths = (ms + 50) / 100;
    match tenths % 10 {
        0 => format!("{} s", tenths / 10),
        t => format!("{}.{t} s", tenths / 10),
    }
}

/// The system whose times a column's heading gives: etcd's, or, for a
/// story that does not run on etcd, the first system's it runs on.
pub fn heading_system(column: &Column) -> Backend {
    match column.story {
        Some(story) if !story.backends.contains(&Backend::Etcd) => {
            story.backends.first().copied().unwrap_or(Backend::Etcd)
        }
        _ => Backend::Etcd,
    }
}

/// The factor TTL / 5 s in words: "6x", "0.2x".
fn stretch_words(ttl_ms: u64) -> String {
    let tenths = ttl_ms * 10 / TTL_MS_DEFAULT;
    if tenths % 10 == 0 {
        format!("{}x", tenths / 10)
    } else {
        format!("{}.{}x", tenths / 10, tenths % 10)
    }
}

/// A system's options in words, as the visitor set them.
fn options_words(base: &Config, backend: Backend) -> String {
    let name = backend.name();
    let kebab = |v: serde_json::Result<serde_json::Value>| {
        v.ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    match backend {
        Backend::Redis | Backend::Redlock => {
            let r = &base.redis;
            format!(
                "Redis and Redlock release {}, extend {}, persistence {}, restart {}, WAIT {}",
                kebab(serde_json::to_value(r.release)),
                kebab(serde_json::to_value(r.extend)),
                kebab(serde_json::to_value(r.persistence)),
                kebab(serde_json::to_value(r.restart)),
                kebab(serde_json::to_value(r.wait)),
            )
        }
        Backend::ZooKeeper => format!(
            "{name} tick {}, {} client",
            whole_seconds(base.zk.tick_ms),
            kebab(serde_json::to_value(base.zk.client))
        ),
        Backend::Chubby => format!(
            "{name} lock-delay {}",
            whole_seconds(base.chubby.lock_delay_ms)
        ),
        Backend::DynamoDb => {
            let d = &base.dynamo;
            format!(
                "{name} {} heartbeats per lease, {}% extra wait, the application {}",
                d.heartbeats_per_lease,
                d.extra_wait_pct,
                if d.session_monitor {
                    "sets a session monitor (half a lease)"
                } else if d.app_checks_expiry {
                    "polls isExpired()"
                } else {
                    "never asks isExpired()"
                }
            )
        }
        Backend::Consul => {
            let c = &base.consul;
            format!(
                "{name} lock-delay {} s, MonitorRetries {}, token {}, key cleanup {}",
                c.lock_delay_s,
                c.monitor_retries,
                kebab(serde_json::to_value(c.token)),
                kebab(serde_json::to_value(c.cleanup))
            )
        }
        Backend::Postgres => {
            let p = &base.pg;
            format!(
                "{name} keepalives {} s + {} x {} s",
                p.keepalives_idle_s, p.keepalives_count, p.keepalives_interval_s
            )
        }
        // etcd, or a new system, without options of its own.
        _ => String::new(),
    }
}

/// The script of one column for one system at its real defaults, or why it
/// does not apply.
pub fn scenario(column: &str, backend: Backend, fencing: Fencing) -> Option<Scenario> {
    scenario_at(&Config::default(), column, backend, fencing)
}

/// Whether the visitor changed `backend`'s own options from the page's
/// defaults: then the table runs theirs, and none of its own defaults or
/// tuned settings for that system.
pub fn own_options(base: &Config, backend: Backend) -> bool {
    let d = Config::default();
    match backend {
        Backend::Redis | Backend::Redlock => base.redis != d.redis,
        Backend::ZooKeeper => base.zk != d.zk,
        Backend::Chubby => base.chubby != d.chubby,
        Backend::DynamoDb => base.dynamo != d.dynamo,
        Backend::Consul => base.consul != d.consul,
        Backend::Postgres => base.pg != d.pg,
        // etcd, or a new system, without options of its own.
        _ => false,
    }
}

/// `base` with every other system's options at the page's defaults: a
/// run reads only its own system's, and so a cell's address carries only
/// those (Redis and Redlock share theirs).
fn own_only(base: &Config, backend: Backend) -> Config {
    let d = Config::default();
    let mine = |of: &[Backend]| of.contains(&backend);
    Config {
        redis: if mine(&[Backend::Redis, Backend::Redlock]) {
            base.redis
        } else {
            d.redis
        },
        zk: if mine(&[Backend::ZooKeeper]) {
            base.zk
        } else {
            d.zk
        },
        chubby: if mine(&[Backend::Chubby]) {
            base.chubby
        } else {
            d.chubby
        },
        dynamo: if mine(&[Backend::DynamoDb]) {
            base.dynamo
        } else {
            d.dynamo
        },
        consul: if mine(&[Backend::Consul]) {
            base.consul
        } else {
            d.consul
        },
        pg: if mine(&[Backend::Postgres]) {
            base.pg
        } else {
            d.pg
        },
        ..base.clone()
    }
}

/// The script of one column for one system at the settings of `base` (the
/// visitor's page: its TTL, latency, seed and each system's options; its
/// system and fencing are the table's to set), or why it does not apply.
/// A system whose options the visitor left alone runs at its real
/// defaults. The GC pause and partition stories, written for the page's
/// 5 s, are stretched by TTL / 5 s so that A still outlives its lease.
pub fn scenario_at(
    base: &Config,
    column: &str,
    backend: Backend,
    fencing: Fencing,
) -> Option<Scenario> {
    scenario_with_write(base, column, backend, fencing, None)
}

/// `scenario_at` with A's write at time `write` of the column's
/// `write_times` (`None`: the script's own).
fn scenario_with_write(
    base: &Config,
    column: &str,
    backend: Backend,
    fencing: Fencing,
    write: Option<usize>,
) -> Option<Scenario> {
    let mut config = Config {
        backend,
        fencing,
        ttl_ms: ttl_ms_at(base.ttl_ms, column, backend),
        renewal: Config::default().renewal,
        ..own_only(base, backend)
    };
    if !own_options(base, backend) {
        for s in DEFAULTS.iter().filter(|s| s.applies(column, backend)) {
            (s.apply)(&mut config);
        }
    }
    let story = COLUMNS
        .iter()
        .find(|c| c.id == column)
        .and_then(|c| c.story);
    let mut s = match (story, column) {
        (Some(story), _) => story.scenario(backend, fencing)?,
        (None, "partitioned-holder") => partitioned_holder(config.clone(), write),
        (None, "clock-jump") => clock_jump(config.clone(), write),
        (None, "failover") => failover(config.clone(), write),
        (None, _) => crashed(config.clone(), crash_command(column)?),
    };
    // The presets' scripts start from the page's defaults: the table's own
    // settings replace them.
    let ttl_ms = config.ttl_ms;
    s.config = Config {
        renewal: s.config.renewal,
        ..config
    };
    if matches!(column, "gc-pause" | "partitioned-holder" | "node-restart") {
        stretch(&mut s, ttl_ms, TTL_MS_DEFAULT);
    }
    Some(s)
}

/// Multiplies a script's times, and its pauses' and delays' lengths, by
/// `num / den`: a story written for one TTL told at another.
fn stretch(s: &mut Scenario, num: u64, den: u64) {
    if num == den {
        return;
    }
    let by = |ms: u64| ms.saturating_mul(num) / den.max(1);
    for a in &mut s.actions {
        a.at = Millis(by(a.at.ms()));
        if let crate::sim::Action::Client { command, .. } = &mut a.action {
            match command {
                Command::GcPause { pause_ms } => *pause_ms = by(*pause_ms),
                Command::WriteDelayed { extra_ms } => *extra_ms = by(*extra_ms),
                _ => {}
            }
        }
    }
}

/// A holds the lock, B asks for it at 700 ms and waits, A dies at 1 s.
fn crashed(config: Config, kill: Command) -> Scenario {
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(700, 'B', Command::Acquire)
        .client(1_000, 'A', kill)
}

/// A is cut off from the service at 1 s, writes at 2 s, is healed at 41 s
/// and writes again at once if it still believes it holds. B asks for the
/// lock every 5 s until it holds (a client that gives up, as Redlock's
/// does, asks again) and writes every 200 ms once it does. A writes only
/// long after B's turn began: a write that lands between the service's
/// grant and B's first write has no higher token to be judged by, a race
/// the GC pause column shows without the noise.
///
/// At write time `k` of five, A's write while cut off falls at an even
/// step across the partition instead (7.7 s, 14.3 s, 21 s, 27.7 s, 34.3 s
/// at a 5 s TTL): whether one lands while B holds is the timing a single
/// write would leave to chance.
fn partitioned_holder(config: Config, write: Option<usize>) -> Scenario {
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
    s = s.client(
        write.map_or(2_100, |k| write_ms(PARTITIONED_HOLDER.id, 0, k)),
        'A',
        Command::Write,
    );
    let mut s = s
        .client(41_000, 'A', Command::Heal)
        .client(42_100, 'A', Command::Write);
    // Scripts run in time order; same-time actions keep their order.
    s.actions.sort_by_key(|a| a.at);
    s
}

/// When A writes at write time `k` of `WRITE_TIMES`, in the script of a
/// column that runs several (before the script is stretched to the TTL),
/// spread evenly over the window in which its verdict turns: the
/// partitioned holder's partition (1 s to 41 s); from the clock jump (1 s)
/// to the end of A's lease (`ttl_ms`), after which A no longer believes
/// and writes nothing; from B's ask (1 s) to 5 s at a failover, B's first
/// turn on a 30 s lease.
fn write_ms(column: &str, ttl_ms: u64, k: usize) -> u64 {
    let (from, to) = match column {
        "partitioned-holder" => (1_000, 41_000),
        "clock-jump" => (1_000, ttl_ms.max(2_000)),
        _ => (1_000, 5_000),
    };
    from + (to - from) * (k as u64 + 1) / (WRITE_TIMES as u64 + 1)
}

/// Where `write_ms` falls in a run at `ttl_ms`, in the system's own
/// seconds: the partition story, written for 5 s, is stretched to the
/// run's TTL, and Chubby's, Consul's and DynamoDB's times are scaled back.
fn write_run_ms(column: &str, backend: Backend, ttl_ms: u64, k: usize) -> u64 {
    let at = write_ms(column, ttl_ms, k);
    let at = if column == PARTITIONED_HOLDER.id {
        at * ttl_ms / TTL_MS_DEFAULT
    } else {
        at
    };
    real_ms(backend, ttl_ms, at)
}

/// B asks for the lock at `ask` and writes every 200 ms from 100 ms later
/// to `until` (a write while B does not hold is not sent): a stale write
/// of A's that lands after B's grant meets B's higher token at once,
/// rather than in the race before B's first write, which the GC pause
/// column shows without the noise.
fn b_writes(mut s: Scenario, ask: u64, until: u64) -> Scenario {
    s = s.client(ask, 'B', Command::Acquire);
    for t in (ask + 100..=until).step_by(200) {
        s = s.client(t, 'B', Command::Write);
    }
    s
}

/// The first three servers' wall clocks jump forward at 1 s (where
/// servers expire keys by wall clock; the others refuse the jump), by
/// twice the lease (`jump_ms`): past A's lease at any TTL, the fault the
/// column means. A does not renew, so its belief lasts what its library
/// allows. A writes at 4 s, or at write time `k` between the jump and the
/// end of its lease.
fn clock_jump(mut config: Config, write: Option<usize>) -> Scenario {
    config.renewal[0] = false;
    let ttl_ms = config.ttl_ms;
    let mut s = Scenario::new(config).client(0, 'A', Command::Acquire);
    for n in 1..=3 {
        s = s.node(1_000, n, jump(ttl_ms));
    }
    let mut s = match write {
        None => s
            .client(1_500, 'B', Command::Acquire)
            .client(2_500, 'B', Command::Write)
            .client(3_500, 'B', Command::Write)
            .client(4_000, 'A', Command::Write),
        Some(k) => b_writes(s, 1_500, ttl_ms.max(2_000)).client(
            write_ms(CLOCK_JUMP.id, ttl_ms, k),
            'A',
            Command::Write,
        ),
    };
    // Scripts run in time order; same-time actions keep their order.
    s.actions.sort_by_key(|a| a.at);
    s
}

/// The failover column's script before its fault: A asks at 0 and B
/// after it, on the run's lease (`ttl_ms_at`: long enough that no renewal
/// falls inside the story). `after_grant` adds the failover itself.
/// A writes at 2 s and 4 s, or once at write time `k` of B's first turn.
fn failover(config: Config, write: Option<usize>) -> Scenario {
    let s = Scenario::new(config).client(0, 'A', Command::Acquire);
    let mut s = match write {
        None => s
            .client(1_000, 'B', Command::Acquire)
            .client(1_500, 'B', Command::Write)
            .client(2_000, 'A', Command::Write)
            .client(3_000, 'B', Command::Write)
            .client(4_000, 'A', Command::Write),
        Some(k) => b_writes(s, 1_000, 5_000).client(
            write_ms(FAILOVER.id, FAILOVER_TTL_MS, k),
            'A',
            Command::Write,
        ),
    };
    s.actions.sort_by_key(|a| a.at);
    s
}

/// The leader or primary fails over 10 ms after A took the lock, as the
/// column asks: A's grant is found by playing the script with the run's
/// own settings (a Redis client that WAITs for a replica is granted
/// later), so the fault strikes a lock that is held on every system, not
/// an acquisition still under way. If A is never granted, 10 ms after it asked.
fn after_grant(mut scenario: Scenario) -> Scenario {
    let granted = Sim::play(&scenario, Millis(1_000)).ok().and_then(|sim| {
        sim.history().iter().find_map(|r| match r.event {
            Event::Acquired { client, .. } if client == A => Some(r.at),
            _ => None,
        })
    });
    let at = granted.unwrap_or(Millis(0)).plus(10);
    scenario = scenario.node(at.ms(), 1, NodeCommand::Failover);
    // Scripts run in time order; same-time actions keep their order.
    scenario.actions.sort_by_key(|a| a.at);
    scenario
}

/// The clock jump on a lease of `ttl_ms`: twice the lease forward, past
/// it whatever the TTL (10 s at the page's 5 s).
fn jump(ttl_ms: u64) -> NodeCommand {
    NodeCommand::ClockJump {
        jump_ms: i64::try_from(ttl_ms.saturating_mul(2)).unwrap_or(i64::MAX),
    }
}

/// The node command a column's fault is, if it is one, on a lease of `ttl_ms`.
fn fault(column: &str, ttl_ms: u64) -> Option<NodeCommand> {
    match column {
        "clock-jump" => Some(jump(ttl_ms)),
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

fn no_run(outcome: Outcome, why: &str) -> Judged {
    Judged {
        outcome,
        why: why.into(),
        run: None,
        writes: Vec::new(),
    }
}

/// Why a scenario's fault cannot run, as a verdict: a clock jump the model
/// refuses is "not modelled" (the model cannot move those clocks, which
/// says nothing of the system), a failover it refuses does not exist.
fn refused(column: &str, scenario: &Scenario) -> Option<Judged> {
    let cmd = fault(column, scenario.config.ttl_ms)?;
    let node = NodeId::new(1).expect("node 1 exists");
    let e = Sim::new(scenario.config.clone())
        .ok()
        .and_then(|sim| sim.check_node(node, cmd).err())?;
    let why = e.to_string();
    Some(if column == "clock-jump" {
        no_run(Outcome::NotModelled(why.clone()), &why)
    } else {
        no_run(Outcome::NotApplicable(why.clone()), &why)
    })
}

/// Plays a scenario as far as it is judged.
fn play(column: &str, scenario: &Scenario) -> Option<Sim> {
    if is_crash(column) {
        return Some(until_b_holds(scenario));
    }
    Sim::play(
        scenario,
        settle_at(scenario).max(election_over(column, scenario)),
    )
    .ok()
}

/// A failover on Consul is watched until the new leader is certain to be
/// in and whatever the agents held through the election has been
/// answered or failed: an election can outlast the script.
fn election_over(column: &str, scenario: &Scenario) -> Millis {
    let fault_at = scenario.actions.iter().find_map(|a| match a.action {
        crate::sim::Action::Node {
            command: NodeCommand::Failover,
            ..
        } => Some(a.at),
        _ => None,
    });
    match fault_at {
        Some(at) if column == "failover" && scenario.config.backend == Backend::Consul => {
            at.plus(crate::sim::election_max_ms(scenario.config.ttl_ms) + 5_000)
        }
        _ => Millis::ZERO,
    }
}

/// A crash run: on until B holds the dead holder's lock, and a moment
/// more. B asks again a second after its client gives up (Redlock's does
/// after ten tries); the asks are in the run's script, so its link shows them.
fn until_b_holds(scenario: &Scenario) -> Sim {
    let cap = scenario.last_at().plus(WAIT_CAP_MS);
    let mut sim = match Sim::play(scenario, scenario.last_at()) {
        Ok(sim) => sim,
        Err(_) => return Sim::new(scenario.config.clone()).expect("a checked config"),
    };
    let mut ask_at: Option<Millis> = None;
    while sim.now() < cap && !sim.client_view(B).belief.is_holding() {
        if sim.check(B, Command::Acquire).is_ok() {
            let at = *ask_at.get_or_insert(sim.now().plus(1_000));
            if sim.now() >= at {
                let _ = sim.command(B, Command::Acquire);
                ask_at = None;
            } else {
                sim.run_until(at.min(cap));
            }
        } else if !sim.step() {
            break;
        }
    }
    let more = sim.now().plus(1_000).min(cap);
    sim.run_until(more);
    sim
}

/// Runs one scenario of a column and judges it.
pub fn judge_scenario(column: &str, scenario: &Scenario) -> Judged {
    if let Some(j) = refused(column, scenario) {
        return j;
    }
    let Some(sim) = play(column, scenario) else {
        return no_run(
            Outcome::NotApplicable("the script does not run".into()),
            "the script does not run",
        );
    };
    let (outcome, why) = if is_crash(column) {
        waited(column, &sim)
    } else {
        judge(column, &sim)
    };
    Judged {
        outcome,
        why,
        run: Some(Played {
            scenario: sim.scenario(),
            end: sim.now(),
        }),
        writes: Vec::new(),
    }
}

/// Whether the table runs a column on a system at the settings of `base`:
/// not where the story does not run on it or the model cannot make its
/// fault, which the cell says instead.
pub fn runs_on(base: &Config, column: &str, backend: Backend) -> bool {
    scenario_at(base, column, backend, Fencing::Off).is_some_and(|s| refused(column, &s).is_none())
}

/// One run of a column on a system: its real defaults, then `setting`.
pub fn run(column: &str, backend: Backend, fencing: Fencing, setting: Option<&Setting>) -> Judged {
    run_at(&Config::default(), column, backend, fencing, setting, None)
}

/// `run` at the settings of `base` (see `scenario_at`), with A's write at
/// time `write` of the column's `write_times` (`None`: the script's own).
pub fn run_at(
    base: &Config,
    column: &str,
    backend: Backend,
    fencing: Fencing,
    setting: Option<&Setting>,
    write: Option<usize>,
) -> Judged {
    let Some(mut scenario) = scenario_with_write(base, column, backend, fencing, write) else {
        let why = if column == NODE_RESTART.id {
            "Redlock's alone: its best token, INCR on node 1, lives in one node that can restart empty; the others keep theirs in a replicated log, or, for Redis, in the master, whose loss the Failover column shows"
        } else {
            "this story does not run on it"
        };
        return no_run(Outcome::NotApplicable(why.into()), why);
    };
    if let Some(s) = setting {
        (s.apply)(&mut scenario.config);
    }
    if column == "failover" && refused(column, &scenario).is_none() {
        scenario = after_grant(scenario);
    }
    judge_scenario(column, &scenario)
}

/// How many times a column runs A's write at: five where the verdict
/// turns on when A writes, else one. The partitioned holder writes
/// whenever it likes, and whether that falls while another client holds
/// is timing; after a clock jump or a failover, whether A's write falls
/// before B's grant, in the race before B's first write, or after B wrote
/// is timing too. The GC pause, delayed write and node restart write on
/// waking or land when the network delivers, which their story fixes
/// (`tests/tools/compare.rs` moves those writes and finds the same
/// verdicts); the crash columns have no write.
pub const fn write_times(column: &str) -> usize {
    if same(column, PARTITIONED_HOLDER.id)
        || same(column, CLOCK_JUMP.id)
        || same(column, FAILOVER.id)
    {
        WRITE_TIMES
    } else {
        1
    }
}

/// The write times a column that depends on them runs.
const WRITE_TIMES: usize = 5;

/// One setting of a cell judged over the column's write times: the runs
/// at each, and the verdict the cell shows (see `Judged::word`).
fn judge_writes(
    base: &Config,
    column: &str,
    backend: Backend,
    fencing: Fencing,
    setting: Option<&Setting>,
) -> Judged {
    let n = write_times(column);
    if n == 1 {
        return run_at(base, column, backend, fencing, setting, None);
    }
    let first = run_at(base, column, backend, fencing, setting, Some(0));
    // A story the system does not run, or a fault it cannot make, is
    // refused before A writes: one verdict, with no write times.
    if !first.outcome.ran() {
        return first;
    }
    let runs: Vec<Judged> = std::iter::once(first)
        .chain((1..n).map(|k| run_at(base, column, backend, fencing, setting, Some(k))))
        .collect();
    let shown = runs
        .iter()
        .find(|j| j.outcome == Outcome::Corrupted)
        .or_else(|| {
            runs.iter()
                .find(|j| matches!(j.outcome, Outcome::Rejected | Outcome::RejectedWhile(_)))
        })
        .unwrap_or(&runs[0])
        .clone();
    let run_ttl = scenario_with_write(base, column, backend, fencing, Some(0))
        .map_or(base.ttl_ms, |s| s.config.ttl_ms);
    let times: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let at = write_run_ms(column, backend, run_ttl, k);
            format!("at {}: {}", short_seconds(at), j.outcome.word())
        })
        .collect();
    Judged {
        outcome: shown.outcome.clone(),
        why: format!(
            "A's write, run at {n} times: {}. {}",
            times.join("; "),
            shown.why
        ),
        run: shown.run,
        writes: runs,
    }
}

/// Runs one cell: the main run, and each tuned setting that changes its verdict.
pub fn cell(column: &str, backend: Backend, fencing: Fencing) -> Cell {
    cell_at(&Config::default(), column, backend, fencing)
}

/// `cell` at the settings of `base`: a system run at the visitor's own
/// options has no tuned runs beside it.
pub fn cell_at(base: &Config, column: &str, backend: Backend, fencing: Fencing) -> Cell {
    let main = judge_writes(base, column, backend, fencing, None);
    let variants = if main.outcome.ran() && !own_options(base, backend) {
        VARIANTS
            .iter()
            .filter(|s| s.applies(column, backend))
            .map(|s| Variant {
                id: s.id,
                label: s.label,
                default: s.default,
                judged: judge_writes(base, column, backend, fencing, Some(s)),
            })
            .filter(|v| v.judged.word() != main.word())
            .collect()
    } else {
        Vec::new()
    };
    let setting = variants.first().map(|first: &Variant| {
        if variants.iter().all(|v| v.default == first.default) {
            first.default
        } else {
            "defaults"
        }
    });
    let depends_on = main.outcome.ran().then(|| {
        let ttl = whole_seconds(ttl_ms_at(base.ttl_ms, column, backend));
        let run = main.run.as_ref().map(|p| &p.scenario.config);
        let (chubby, consul) = run.map_or((60_000, 15), |c| {
            (c.chubby.lock_delay_ms, c.consul.lock_delay_s)
        });
        let mode = run.map(|c| backend.fence_mode_in(c));
        let said = depends_on(column, backend, fencing, &main.outcome, mode);
        let said = if own_options(base, backend) {
            said.replace(
                " (the page's choice: the paper gives only this bound)",
                " (your setting)",
            )
        } else {
            said
        };
        said.replace("{ttl}", &ttl)
            .replace("{chubby-delay}", &whole_seconds(chubby))
            .replace("{consul-delay}", &whole_seconds(consul * 1_000))
    });
    Cell {
        fencing,
        setting,
        main,
        variants,
        depends_on,
    }
}

/// What a verdict rests on, in one short line.
fn depends_on(
    column: &str,
    backend: Backend,
    fencing: Fencing,
    outcome: &Outcome,
    mode: Option<crate::sim::FenceMode>,
) -> String {
    use Backend::*;
    let on = |s: &str| format!("depends on: {s}");
    let specific = match (column, backend, outcome) {
        ("process-exit", Postgres, _) => {
            Some("the kernel closing A's socket (the server ends the session at EOF)")
        }
        (_, Postgres, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => {
            Some("the server's TCP keepalive settings")
        }
        ("partitioned-holder", Postgres, Outcome::NeverLost) => {
            Some("the server's TCP keepalive settings")
        }
        ("gc-pause", Postgres, Outcome::NeverLost) => Some("A's session staying open (no lease)"),
        (_, Chubby, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => Some(
            "the 12 s lease and lock-delay {chubby-delay} (the page's choice: the paper gives only this bound)",
        ),
        ("partitioned-holder", Consul, Outcome::TwoHolders { .. }) => Some(
            "when A's connection's keepalive fails (yamux: 30 s, then a 10 s write timeout) and the agent, whose serf has dropped the servers, fails the retried GET",
        ),
        ("partitioned-holder", Chubby, Outcome::Safe) => {
            Some("lock-delay {chubby-delay} (the page's choice: the paper gives only this bound)")
        }
        ("process-exit", Consul, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => Some(
            "the session TTL (15 s, doubled by the server; A's agent stays healthy), then lock-delay {consul-delay}",
        ),
        (_, Consul, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => Some(
            "serf's gossip marking A's node failed (4 s once two of its pool of 7 confirm), then lock-delay {consul-delay}",
        ),
        (_, DynamoDb, Outcome::Safe) => Some(
            "the application polling isExpired() (the library only logs a failed heartbeat)",
        ),
        (_, DynamoDb, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => {
            Some("the 20 s lease, judged by B's own clock")
        }
        (_, Redlock, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => {
            Some("the {ttl} lease and how soon B asks again")
        }
        (_, ZooKeeper, Outcome::Waited { .. } | Outcome::StillWaiting { .. }) => {
            Some("the session timeout ({ttl}, as negotiated)")
        }
        (_, Redis, Outcome::Corrupted) if fencing.is_on() && column == "failover" => {
            Some("asynchronous replication: the new master hands the token out again")
        }
        ("failover", Consul, Outcome::NeverLost) => Some(
            "the election ending within the agent's 7 s hold of the watch's first GET, which does not block (a follower stands 5 to almost 15 s after the leader's last word; a blocking GET is held through it)",
        ),
        ("failover", Consul, Outcome::GaveUp) => Some(
            "the watch's first GET, which does not block, meeting an election past the agent's 7 s hold, with MonitorRetries 0 (the api's default); a blocking GET is held through it",
        ),
        ("failover", Redis, Outcome::NeverLost) => {
            Some("the replica having the key before the master died")
        }
        (_, DynamoDb, Outcome::Rejected) => Some("the write's condition on the lock item's owner"),
        (_, Postgres, Outcome::RejectedWhile(_)) => Some(
            "UPDATE ... WHERE version = n: a check that nobody wrote since A read, not of who holds the lock",
        ),
        (_, Redlock, Outcome::RejectedWhile(_)) => Some(
            "an INCR counter on node 1, which a restart without persistence resets (the Node restart column)",
        ),
        (_, Redis, Outcome::RejectedWhile(_)) => Some(
            "the INCR counter on the master, which a failover to a replica that missed it repeats (the Failover column)",
        ),
        (_, Postgres, Outcome::Rejected) => Some("the write on the session that holds the lock"),
        _ => None,
    };
    if let Some(s) = specific {
        return on(s);
    }
    on(match outcome {
        Outcome::Corrupted if fencing.is_on() => "a token the resource cannot order",
        Outcome::Corrupted => "nothing checking a token at the resource",
        // The check the run's fencing mode made, where it is not the token's.
        Outcome::Rejected | Outcome::RejectedWhile(_) => match mode {
            Some(crate::sim::FenceMode::Check) => {
                "the write checked against the lock in the same transaction"
            }
            Some(crate::sim::FenceMode::Takeover) => {
                "the new holder fencing the resource as it takes over"
            }
            _ => "the resource checking the token",
        },
        Outcome::Safe => "A's library learning of the loss before its next write",
        Outcome::GaveUp => "how long A's library retries before it gives up",
        Outcome::NotGranted => "the acquisition failing rather than granting a lock it may lose",
        Outcome::TwoHolders { .. } => "when A writes next: nothing stopped it in time",
        Outcome::NeverLost if column == "failover" => {
            "a quorum committing the grant before A was told"
        }
        Outcome::NeverLost => "nobody else being granted the lock",
        Outcome::Waited { .. } | Outcome::StillWaiting { .. } => "the {ttl} lease",
        Outcome::NotAffected => "leases timed by monotonic clocks",
        Outcome::NotModelled(_) | Outcome::NotApplicable(_) => "nothing: no run",
    })
}

fn judge(column: &str, sim: &Sim) -> (Outcome, String) {
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
    let token = crate::words::token::<crate::sim::Token>;
    if let Some(w) = accepted {
        return (
            Outcome::Corrupted,
            format!(
                "{}'s stale write ({}) was accepted at {} after the lock went to another client.",
                w.client,
                token(w.token),
                w.at
            ),
        );
    }
    if let Some(w) = rejected {
        return (
            rejection(sim.config()),
            format!(
                "{}'s stale write ({}) was rejected at {}.",
                w.client,
                token(w.token),
                w.at
            ),
        );
    }
    lost_or_kept(column, sim)
}

/// What a rejection rests on, where that is more than the system
/// promises: a counter kept in one Redis node, or the data's own version,
/// which refuses a write only if another landed since the writer read.
fn rejection(config: &Config) -> Outcome {
    let mode = config.backend.fence_mode_in(config);
    match (config.backend, mode) {
        (_, crate::sim::FenceMode::Version) => {
            Outcome::RejectedWhile("B wrote after A read the version")
        }
        (Backend::Redlock, crate::sim::FenceMode::Highest | crate::sim::FenceMode::Takeover) => {
            Outcome::RejectedWhile("node 1 keeps its counter")
        }
        (Backend::Redis, crate::sim::FenceMode::Highest | crate::sim::FenceMode::Takeover) => {
            Outcome::RejectedWhile("the master keeps its counter")
        }
        _ => Outcome::Rejected,
    }
}

/// No stale write landed: did two clients believe they held the lock at
/// once, did A lose it to another client, give it up with nobody else
/// granted it, or keep it?
fn lost_or_kept(column: &str, sim: &Sim) -> (Outcome, String) {
    let overlap = sim
        .oracle()
        .overlaps()
        .iter()
        .find(|o| o.clients.contains(&A));
    if let Some(o) = overlap {
        let to = o.to.unwrap_or(sim.now());
        let run_ms = o.from.until(to);
        let config = sim.config();
        let ms = real_ms(config.backend, config.ttl_ms, run_ms);
        let scaled = if ms == run_ms {
            String::new()
        } else {
            format!(
                " ({} of the run, which scales the system's times)",
                duration(run_ms)
            )
        };
        return (
            Outcome::TwoHolders { ms },
            format!(
                "From {} A still believed it held the lock while another client held it, for {} in the system's own time{scaled}; no write of A's fell in that time.",
                o.from,
                duration(ms)
            ),
        );
    }
    let granted_a = sim
        .history()
        .iter()
        .any(|r| matches!(r.event, Event::Acquired { client, .. } if client == A));
    if !granted_a {
        let failed = sim.history().iter().find_map(|r| match &r.event {
            Event::AcquireFailed { client, failure } if *client == A => Some((r.at, *failure)),
            _ => None,
        });
        let why = match failed {
            Some((at, reason)) => format!("A's acquisition failed at {at} ({reason}): it never held the lock, so it had none to lose."),
            None => "A was never granted the lock in this run.".into(),
        };
        return (Outcome::NotGranted, why);
    }
    // A lock taken from A shows as A's loss; one A gave up by releasing
    // it, or never lost, does not.
    let lost = sim.history().iter().find_map(|r| match &r.event {
        Event::Lost { client, reason } if *client == A => Some((r.at, *reason)),
        _ => None,
    });
    let granted_other = sim
        .history()
        .iter()
        .any(|r| matches!(r.event, Event::Acquired { client, .. } if client != A));
    match lost {
        // A failover ends no session: a loss there is the library's own
        // (Consul's monitorLock on an agent's error, MonitorRetries 0).
        Some((at, reason)) if !granted_other || column == "failover" => (
            Outcome::GaveUp,
            format!("A stopped believing at {at} ({reason}) while its lock was still its own: a spurious loss."),
        ),
        Some((at, reason)) => (
            Outcome::Safe,
            format!("A stopped believing at {at} ({reason}) before another client held the lock, and no stale write of its landed."),
        ),
        None if column == "clock-jump" => (
            Outcome::NotAffected,
            "The servers' clocks jumped and A kept the lock: nobody else was granted it.".into(),
        ),
        None => (
            Outcome::NeverLost,
            "A never lost the lock: nobody was granted it while A believed it held it.".into(),
        ),
    }
}

/// Whether a command is one of the crash columns' kills.
fn is_kill(command: Command) -> bool {
    matches!(command, Command::Exit | Command::PowerOff)
}

/// When A was killed in a crash run.
fn crash_at(scenario: &Scenario) -> Millis {
    scenario
        .actions
        .iter()
        .find(|a| {
            matches!(a.action, crate::sim::Action::Client { client, command }
                if client == A && is_kill(command))
        })
        .map_or(Millis(0), |a| a.at)
}

/// How long B waited for the dead holder's lock, and what the service
/// noticed of A's death.
fn waited(column: &str, sim: &Sim) -> (Outcome, String) {
    let crashed = crash_at(&sim.scenario());
    let died = if column == "process-exit" {
        "A's process exited"
    } else {
        "A's host died"
    };
    // What the service made of it at that moment, not at the run's end.
    let noticed = Sim::play(&sim.scenario(), crashed)
        .ok()
        .and_then(|at_death| at_death.crash_note(A))
        .map_or(String::new(), |n| format!(" The service: {n}."));
    let got = sim.history().iter().find_map(|r| match r.event {
        Event::Acquired { client, .. } if client == B => Some(r.at),
        _ => None,
    });
    match got {
        Some(at) => {
            let ms = crashed.until(at);
            (
                Outcome::Waited { ms },
                format!("B got the lock {} after {died}.{noticed}", duration(ms)),
            )
        }
        None => {
            let ms = crashed.until(sim.now());
            (
                Outcome::StillWaiting { ms },
                format!(
                    "B still waited {} after {died}, when the run stopped.{noticed}",
                    duration(ms)
                ),
            )
        }
    }
}

/// A's acquisition time in the GC pause run: click to grant.
fn acquire_ms(base: &Config, backend: Backend) -> u64 {
    let Some(scenario) = scenario_at(base, "gc-pause", backend, Fencing::Off) else {
        return 0;
    };
    // Long enough for a grant at the slowest latency the page allows.
    let Ok(sim) = Sim::play(&scenario, Millis(20_000)) else {
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

/// The fencing sides a column is run with.
pub fn sides(column: &Column) -> &'static [Fencing] {
    if column.fenced {
        &[Fencing::Off, Fencing::On]
    } else {
        &[Fencing::Off]
    }
}

/// One system's row.
pub fn row(backend: Backend) -> Row {
    row_at(&Config::default(), backend)
}

/// One system's row at the settings of `base` (see `scenario_at`).
pub fn row_at(base: &Config, backend: Backend) -> Row {
    let cells = COLUMNS
        .iter()
        .map(|c| {
            sides(c)
                .iter()
                .map(|&f| cell_at(base, c.id, backend, f))
                .collect()
        })
        .collect();
    Row {
        backend,
        cells,
        acquire_ms: acquire_ms(base, backend),
    }
}

/// The whole comparison: a row per system.
pub fn matrix() -> Vec<Row> {
    Backend::ALL.into_iter().map(row).collect()
}

/// The comparison as a Markdown table, as docs/systems.md shows it and
/// `examples/compare.rs` prints it: a fenced column's cell says "off / on"
/// where the two differ, and what the fenced run depends on.
pub fn markdown() -> String {
    let rows = matrix();
    let fastest = rows.iter().map(|r| r.acquire_ms).min().unwrap_or(1).max(1);
    let base = Config::default();
    let fastest_name = rows
        .iter()
        .find(|r| r.acquire_ms.max(1) == fastest)
        .map_or("", |r| r.backend.name());
    let mut s = format!(
        "| System | Lease | Token | Monotonic | Acquire (A's, click to grant, latency {}; x the fastest, {fastest_name}'s {fastest} ms) |",
        crate::sim::latency::latency_words(&base)
    );
    // Each heading gives its story's times as etcd runs them (Redlock's
    // own story as Redlock does), in its own seconds.
    for c in COLUMNS {
        let sides = if c.fenced { ", off / on" } else { "" };
        s.push_str(&format!(
            " {} ({}{sides}) |",
            c.title,
            parameters(&base, c.id, heading_system(c))
        ));
    }
    s.push_str("\n|---|---|---|---|---|");
    s.push_str(&"---|".repeat(COLUMNS.len()));
    s.push('\n');
    for row in rows {
        let b = row.backend;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} ms, {}x the fastest |",
            b.name(),
            lease_words(b),
            b.token_short(),
            if b.monotonic_tokens() { "yes" } else { "no" },
            row.acquire_ms,
            (row.acquire_ms + fastest / 2) / fastest
        ));
        for cells in &row.cells {
            s.push_str(&format!(" {} |", markdown_cell(cells)));
        }
        s.push('\n');
    }
    s
}

fn markdown_cell(cells: &[Cell]) -> String {
    let mut s = sides_words(cells);
    let last = cells.last().expect("a column has a side");
    let note = last.depends_on.as_deref().unwrap_or_else(|| &last.main.why);
    s.push_str(&format!("<br><sub>{note}</sub>"));
    s
}

/// A column's cells (fencing off, then on) in words, one setting at a
/// time: "default keepalives: lock kept · tuned keepalives 10/5/3 s:
/// corrupted / rejected". A side that has no run of a setting, because
/// it came out as its main run, reads as its main run.
pub fn sides_words(cells: &[Cell]) -> String {
    let mut labels: Vec<&'static str> = Vec::new();
    for v in cells.iter().flat_map(|c| &c.variants) {
        if !labels.contains(&v.label) {
            labels.push(v.label);
        }
    }
    let both = |word: &dyn Fn(&Cell) -> String| {
        let words: Vec<String> = cells.iter().map(word).collect();
        if words.windows(2).all(|w| w[0] == w[1]) {
            words[0].clone()
        } else {
            words.join(" / ")
        }
    };
    let main = both(&|c: &Cell| c.main.word());
    if labels.is_empty() {
        return main;
    }
    let setting = cells.iter().find_map(|c| c.setting).unwrap_or("defaults");
    let mut s = format!("{setting}: {main}");
    for label in labels {
        let word = both(&|c: &Cell| {
            c.variants
                .iter()
                .find(|v| v.label == label)
                .map_or_else(|| c.main.word(), |v| v.judged.word())
        });
        s.push_str(&format!(" · {label}: {word}"));
    }
    s
}

/// Whether two strings are equal, in a constant.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The runs the whole comparison makes at most (every side of every cell,
/// at each of its write times, with each tuned setting that applies to
/// it), for the page's button: a cell the model cannot run makes none.
pub const RUNS: usize = {
    let mut total = 0;
    let mut c = 0;
    while c < COLUMNS.len() {
        let column = &COLUMNS[c];
        let sides = if column.fenced { 2 } else { 1 };
        let sides = sides * write_times(column.id);
        total += sides * Backend::ALL.len();
        let mut v = 0;
        while v < VARIANTS.len() {
            if same(VARIANTS[v].column, "*") || same(VARIANTS[v].column, column.id) {
                total += sides;
            }
            v += 1;
        }
        c += 1;
    }
    total
};
