//! A run as a history other tools read: a Jepsen history (EDN) for Knossos
//! and Elle, Porcupine's operation log (JSON) for Go users, and an ITF
//! trace (Apalache's ADR-015, JSON) for Apalache, Quint and other TLA+
//! tooling. docs/exports.md shows each mapping with an example.
//!
//! Only the worker and the command line (`examples/export.rs`) call this:
//! the page's first load carries none of it. Both read a run from its link
//! and call `from_link`, so they write the same bytes. Every output is a
//! pure function of the run's history: no wall clock, no map with a random
//! order, numbers written by hand.
//!
//! The operations, shared by the two histories:
//! - a client's acquire is invoked when its acquisition starts and
//!   completes when it is granted (`ok`, with its token), refused (`fail`,
//!   with the reason), or when the client stops waiting because its
//!   session or connection is gone (`fail`);
//! - a write is invoked when it leaves the client and completes when the
//!   resource accepts it (`ok`, with the counter's new value) or rejects it
//!   (`fail`). The simulator knows the resource's decision, so the
//!   completion is stamped there, not when the reply reaches the client: a
//!   choice, and it only narrows the window a checker searches;
//! - a release is invoked and completes at once: the simulated client
//!   forgets the lock when it asks (its message still travels);
//! - a call still open when its client crashes or exits, or when the
//!   client gives it up (a release while it waits), or when the run ends,
//!   ends with `info`, as Jepsen ends a call whose outcome is unknown; as
//!   in Jepsen that process never runs again, and the client's next call
//!   gets a fresh process number. A pause ends nothing: the call completes
//!   when its answer comes, after the pause;
//! - a process is a client's index (A = 0 ... D = 3) plus 4 for each earlier
//!   process of that client that was retired or still busy (Jepsen's
//!   `process mod concurrency` gives the client back), so every process is
//!   sequential even when a client has two writes in flight;
//! - faults are `:nemesis` operations, an `info` pair as Jepsen's nemesis
//!   writes them; Porcupine's log has no faults (its operations are the
//!   four clients' calls, `ClientId` 0 to 3).
//!
//! Times are nanoseconds since the run began: the record's millisecond
//! times a million, plus one for each entry already stamped in that
//! millisecond, so the entries' times strictly increase in the history's
//! order (Porcupine orders by time alone).

use super::link;
use crate::sim::{
    AcquireFailure, ClientId, Endpoint, Event, LossReason, NodeCommand, PartitionScope, Record,
    RejectReason, Sim, Token,
};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The three formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// A Jepsen history: one EDN map per operation, a line each.
    Edn,
    /// Porcupine's `[]Operation` as JSON.
    Porcupine,
    /// An Informal Trace Format trace.
    Itf,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Edn, Format::Porcupine, Format::Itf];

    /// Its name on the command line and in the worker's messages.
    pub fn slug(self) -> &'static str {
        match self {
            Format::Edn => "edn",
            Format::Porcupine => "porcupine",
            Format::Itf => "itf",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.slug() == slug)
    }

    /// The file name's ending (ADR-015 asks `.itf.json` of an ITF trace).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Edn => ".edn",
            Format::Porcupine => ".json",
            Format::Itf => ".itf.json",
        }
    }

    /// What the page calls it, on its button and above its text.
    pub fn title(self) -> &'static str {
        match self {
            Format::Edn => "Jepsen history (EDN)",
            Format::Porcupine => "Porcupine log (JSON)",
            Format::Itf => "ITF trace (JSON)",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Edn => "application/edn",
            Format::Porcupine | Format::Itf => "application/json",
        }
    }
}

/// The run a link (a page address, or its fragment with or without `#`)
/// holds, replayed to its end and written in `format`; or why it cannot be.
pub fn from_link(address: &str, format: Format) -> Result<String, String> {
    of_run(&read(address)?, format)
}

/// The run a link holds, replayed to its end.
pub fn read(address: &str) -> Result<Sim, String> {
    let fragment = address.split_once('#').map_or(address, |(_, f)| f);
    link::open_link(fragment)
        .map(|(_, whole)| whole)
        .map_err(|e| e.to_string())
}

/// A file name that says which run it holds: its system, fencing and
/// seed (`distlock-etcd-fencing-on-seed-1.edn`).
pub fn file_name(sim: &Sim, format: Format) -> String {
    let config = sim.config();
    format!(
        "distlock-{}-fencing-{}-seed-{}{}",
        config.backend.slug(),
        if config.fencing.is_on() { "on" } else { "off" },
        config.seed,
        format.extension()
    )
}

/// The whole history of `sim` in `format`, or why it cannot be written.
pub fn of_run(sim: &Sim, format: Format) -> Result<String, String> {
    if sim.history_dropped() > 0 {
        return Err(format!(
            "This run is too long to export: {} of its records were not kept.",
            sim.history_dropped()
        ));
    }
    Ok(match format {
        Format::Edn => edn(&operations(sim.history(), sim.now().ms())),
        Format::Porcupine => porcupine(&operations(sim.history(), sim.now().ms())),
        Format::Itf => itf(sim),
    })
}

/// An entry's type, as Jepsen names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Invoke,
    Ok,
    Fail,
    Info,
}

impl Type {
    fn word(self) -> &'static str {
        match self {
            Type::Invoke => "invoke",
            Type::Ok => "ok",
            Type::Fail => "fail",
            Type::Info => "info",
        }
    }
}

/// A client's call: what it asked and, once known, what came of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    pub f: F,
    /// The token granted (acquire) or carried (write).
    pub token: Option<u64>,
    /// The counter's value after an accepted write.
    pub value: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F {
    Acquire,
    Release,
    Write,
}

impl F {
    fn word(self) -> &'static str {
        match self {
            F::Acquire => "acquire",
            F::Release => "release",
            F::Write => "write",
        }
    }
}

/// A fault, for the nemesis: its `:f` and what it struck.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub f: &'static str,
    pub on: Target,
    /// One more fact, as a key and a number or a keyword.
    pub detail: Option<(&'static str, Detail)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Client(ClientId),
    Node(u8),
    Service,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Int(i64),
    Word(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Call(Call),
    Fault(Fault),
}

/// One entry of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub kind: Type,
    /// `None`: the nemesis.
    pub process: Option<u32>,
    pub what: What,
    pub time_ns: u64,
    /// Why a call failed or is unknown.
    pub error: Option<&'static str>,
    /// The operation this entry invokes or completes: an invocation and
    /// its completion share it.
    pub op: usize,
}

/// A call still waiting for its completion.
struct Open {
    op: usize,
    client: ClientId,
    lane: usize,
    call: Call,
    /// A write's message and when it is due at the resource.
    message: Option<(u64, u64)>,
}

/// Each client's processes: busy (a call open) or retired (after `info`).
#[derive(Default, Clone, Copy)]
struct Lane {
    busy: bool,
    retired: bool,
}

#[derive(Default)]
struct Builder {
    entries: Vec<Entry>,
    open: Vec<Open>,
    lanes: [Vec<Lane>; ClientId::COUNT],
    ops: usize,
    /// The millisecond last stamped, and how many entries it has.
    stamped: (u64, u64),
}

/// The history's operations: every entry, in order (see the module's notes).
pub fn operations(history: &[Record], end_ms: u64) -> Vec<Entry> {
    let mut b = Builder::default();
    for record in history {
        b.record(record);
    }
    let end = history.last().map_or(end_ms, |r| r.at.ms().max(end_ms));
    let open: Vec<usize> = (0..b.open.len()).collect();
    b.close(end, open, "run-ended");
    b.entries
}

impl Builder {
    fn stamp(&mut self, ms: u64) -> u64 {
        if self.stamped.0 != ms {
            self.stamped = (ms, 0);
        }
        let ns = ms.saturating_mul(1_000_000).saturating_add(self.stamped.1);
        self.stamped.1 += 1;
        ns
    }

    fn push(&mut self, ms: u64, kind: Type, process: Option<u32>, what: What, op: usize) {
        let time_ns = self.stamp(ms);
        self.entries.push(Entry {
            kind,
            process,
            what,
            time_ns,
            error: None,
            op,
        });
    }

    /// The client's first process that is neither busy nor retired.
    fn invoke(&mut self, ms: u64, client: ClientId, call: Call) {
        let lanes = &mut self.lanes[client.index()];
        let lane = match lanes.iter().position(|l| !l.busy && !l.retired) {
            Some(free) => free,
            None => {
                lanes.push(Lane::default());
                lanes.len() - 1
            }
        };
        lanes[lane].busy = true;
        let op = self.ops;
        self.ops += 1;
        let process = process_of(client, lane);
        self.push(ms, Type::Invoke, Some(process), What::Call(call), op);
        self.open.push(Open {
            op,
            client,
            lane,
            call,
            message: None,
        });
    }

    /// Completes open call `at` (an index into `open`).
    fn complete(
        &mut self,
        ms: u64,
        at: usize,
        kind: Type,
        call: Call,
        error: Option<&'static str>,
    ) {
        let open = self.open.remove(at);
        let lane = &mut self.lanes[open.client.index()][open.lane];
        lane.busy = false;
        lane.retired = kind == Type::Info;
        self.push(
            ms,
            kind,
            Some(process_of(open.client, open.lane)),
            What::Call(call),
            open.op,
        );
        if let Some(last) = self.entries.last_mut() {
            last.error = error;
        }
    }

    /// Ends the open calls at `indices` with `info`, saying `why`.
    fn close(&mut self, ms: u64, indices: Vec<usize>, why: &'static str) {
        // Removing a call shifts the later ones' indices down by one.
        let mut left = indices;
        while let Some(first) = left.first().copied() {
            let call = self.open[first].call;
            self.complete(ms, first, Type::Info, call, Some(why));
            left.remove(0);
            for later in left.iter_mut() {
                *later -= 1;
            }
        }
    }

    /// The client's open calls of kind `f` (all kinds if `None`).
    fn open_of(&self, client: ClientId, f: Option<F>) -> Vec<usize> {
        (0..self.open.len())
            .filter(|&i| {
                self.open[i].client == client && f.is_none_or(|f| self.open[i].call.f == f)
            })
            .collect()
    }

    fn record(&mut self, record: &Record) {
        let ms = record.at.ms();
        // The fault first, then what it did to the calls open.
        if let Some(fault) = fault_of(&record.event) {
            let op = self.ops;
            self.ops += 1;
            self.push(ms, Type::Info, None, What::Fault(fault), op);
            self.push(ms, Type::Info, None, What::Fault(fault), op);
        }
        match &record.event {
            Event::AcquireStarted { client } => self.invoke(ms, *client, call(F::Acquire, None)),
            Event::Acquired { client, token, .. } => {
                if let Some(&at) = self.open_of(*client, Some(F::Acquire)).first() {
                    self.complete(ms, at, Type::Ok, call(F::Acquire, number(*token)), None);
                }
            }
            Event::AcquireFailed { client, failure } => {
                self.fail_acquire(ms, *client, failure_word(failure))
            }
            Event::Lost { client, reason } => self.fail_acquire(ms, *client, loss_word(*reason)),
            Event::Released { client } => {
                // A release while waiting gives the acquire up: its outcome
                // is unknown (the grant may be on its way).
                let waiting = self.open_of(*client, Some(F::Acquire));
                self.close(ms, waiting, "given-up");
                let release = call(F::Release, None);
                self.invoke(ms, *client, release);
                let at = self.open.len() - 1;
                self.complete(ms, at, Type::Ok, release, None);
            }
            Event::WriteSent { client, token, .. } => {
                self.invoke(ms, *client, call(F::Write, number(*token)))
            }
            Event::MessageSent { .. } | Event::MessageRetransmitted { .. } => {
                self.track_write(&record.event)
            }
            Event::WriteAccepted {
                client,
                token,
                value,
                ..
            } => self.write_done(ms, *client, *token, Type::Ok, Some(*value), None),
            Event::WriteRejected {
                client,
                token,
                reason,
                ..
            } => self.write_done(
                ms,
                *client,
                *token,
                Type::Fail,
                None,
                Some(reject_word(reason)),
            ),
            // A pause ends no call: the process is frozen, not gone, and
            // a grant or a write's verdict that comes after it completes
            // the call it answers (an acquire granted after the pause is
            // an `ok` with its token).
            Event::Crashed { client } | Event::Exited { client } => {
                let why = match record.event {
                    Event::Crashed { .. } => "crashed",
                    _ => "exited",
                };
                let open = self.open_of(*client, None);
                self.close(ms, open, why);
            }
            _ => {}
        }
    }

    /// Follows a write's message to the resource: which one it is, and
    /// when it is due there (TCP may send it again later).
    fn track_write(&mut self, event: &Event) {
        match event {
            Event::MessageSent {
                id,
                from: Endpoint::Client(c),
                to: Endpoint::Resource,
                deliver_at,
                ..
            } => {
                let latest = self
                    .open
                    .iter_mut()
                    .rev()
                    .find(|o| o.client == *c && o.call.f == F::Write && o.message.is_none());
                if let Some(open) = latest {
                    open.message = Some((*id, deliver_at.ms()));
                }
            }
            Event::MessageRetransmitted { id, deliver_at, .. } => {
                for open in self.open.iter_mut() {
                    if let Some((m, due)) = open.message.as_mut() {
                        if m == id {
                            *due = deliver_at.ms();
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn fail_acquire(&mut self, ms: u64, client: ClientId, why: &'static str) {
        if let Some(&at) = self.open_of(client, Some(F::Acquire)).first() {
            let asked = self.open[at].call;
            self.complete(ms, at, Type::Fail, asked, Some(why));
        }
    }

    /// The resource decided on one of the client's writes: the one whose
    /// message is due now, else its oldest open write with that token.
    fn write_done(
        &mut self,
        ms: u64,
        client: ClientId,
        token: Option<Token>,
        kind: Type,
        value: Option<u64>,
        error: Option<&'static str>,
    ) {
        let token = number(token);
        let writes: Vec<usize> = self
            .open_of(client, Some(F::Write))
            .into_iter()
            .filter(|&i| self.open[i].call.token == token)
            .collect();
        let due = writes
            .iter()
            .copied()
            .find(|&i| self.open[i].message.is_some_and(|(_, at)| at == ms));
        if let Some(at) = due.or(writes.first().copied()) {
            let done = Call {
                value,
                ..self.open[at].call
            };
            self.complete(ms, at, kind, done, error);
        }
    }
}

fn call(f: F, token: Option<u64>) -> Call {
    Call {
        f,
        token,
        value: None,
    }
}

fn number(token: Option<Token>) -> Option<u64> {
    token.map(|t| t.0)
}

/// Process numbers: the client's index, plus 4 per earlier lane.
fn process_of(client: ClientId, lane: usize) -> u32 {
    let lane = u32::try_from(lane).unwrap_or(u32::MAX / 8);
    (client.index() as u32).saturating_add(lane.saturating_mul(ClientId::COUNT as u32))
}

fn failure_word(failure: &AcquireFailure) -> &'static str {
    match failure {
        AcquireFailure::NoQuorum { .. } => "no-quorum",
        AcquireFailure::NoValidity { .. } => "no-validity",
        AcquireFailure::LeaseGone => "lease-gone",
        AcquireFailure::NoReplicaAck => "no-replica-ack",
        AcquireFailure::NoSyncedSlaves { .. } => "no-synced-slaves",
        AcquireFailure::RedissonTimeout => "redisson-timeout",
        AcquireFailure::NotGranted { .. } => "not-granted",
        AcquireFailure::AgentUnreachable => "agent-unreachable",
        AcquireFailure::ConsulNoLeader => "no-leader",
        AcquireFailure::TooManyConnections { .. } => "too-many-connections",
    }
}

fn loss_word(reason: LossReason) -> &'static str {
    match reason {
        LossReason::LocalDeadline => "local-deadline",
        LossReason::ServiceSaidGone => "service-said-gone",
        LossReason::ExtensionFailed => "extension-failed",
        LossReason::SessionLost => "session-lost",
        LossReason::KeyGone => "key-gone",
        LossReason::NotMine => "not-mine",
        LossReason::GraceExpired => "grace-expired",
        LossReason::ConsulSessionChanged => "session-changed",
        LossReason::ConsulMonitorError => "monitor-error",
        LossReason::ConnectionReset => "connection-reset",
        LossReason::SessionMonitor => "session-monitor",
    }
}

fn reject_word(reason: &RejectReason) -> &'static str {
    match reason {
        RejectReason::TokenBelowHighest { .. } => "token-below-highest",
        RejectReason::NoToken => "no-token",
        RejectReason::TokenBelowAnnounced { .. } => "token-below-announced",
        RejectReason::NotOwner { .. } => "not-owner",
        RejectReason::VersionMoved { .. } => "version-moved",
        RejectReason::NotCurrentSequencer { .. } => "not-current-sequencer",
        RejectReason::NotLockHolder { .. } => "not-lock-holder",
        RejectReason::NotSessionHolder { .. } => "not-session-holder",
    }
}

/// The fault an event is, for the nemesis. The names follow Jepsen's
/// combined nemesis where it has one (`:pause`/`:resume`, `:kill`/`:start`,
/// `:start-partition`/`:stop-partition`, `:bump-clock`); the rest are ours.
fn fault_of(event: &Event) -> Option<Fault> {
    use Detail::{Int, Word};
    let client = |f, c: &ClientId, detail| Fault {
        f,
        on: Target::Client(*c),
        detail,
    };
    let ms = |n: u64| Int(i64::try_from(n).unwrap_or(i64::MAX));
    Some(match event {
        Event::Paused { client: c, until } => {
            client("pause", c, Some(("until-ms", ms(until.ms()))))
        }
        Event::Woke { client: c } => client("resume", c, None),
        Event::Partitioned { client: c, scope } => {
            let scope = match scope {
                PartitionScope::Service => "service",
                PartitionScope::ServiceAndResource => "service-and-resource",
            };
            client("start-partition", c, Some(("from", Word(scope))))
        }
        Event::Healed { client: c } => client("stop-partition", c, None),
        Event::Crashed { client: c } => client("kill", c, Some(("how", Word("power-off")))),
        Event::Exited { client: c } => client("kill", c, Some(("how", Word("exit")))),
        Event::Restarted { client: c } => client("start", c, None),
        Event::ClockJumpedOn { client: c, jump_ms } => {
            client("bump-clock", c, Some(("ms", Int(*jump_ms))))
        }
        Event::ClockRate {
            client: c,
            rate_pct,
        } => client("clock-rate", c, Some(("pct", Int(i64::from(*rate_pct))))),
        Event::Losing { client: c, on } => {
            let f = if *on { "start-loss" } else { "stop-loss" };
            client(f, c, None)
        }
        // A node's faults are read from the clicks, which name them all
        // (a failover has no single event of its own).
        Event::NodeClicked { node, command } => node_fault(node.number(), *command),
        _ => return None,
    })
}

fn node_fault(node: u8, command: NodeCommand) -> Fault {
    let (f, detail) = match command {
        NodeCommand::Crash => ("kill", None),
        NodeCommand::Restart => ("start", None),
        NodeCommand::ClockJump { jump_ms } => ("bump-clock", Some(("ms", Detail::Int(jump_ms)))),
        NodeCommand::Slow { extra_ms } => (
            "slow",
            Some((
                "ms",
                Detail::Int(i64::try_from(extra_ms).unwrap_or(i64::MAX)),
            )),
        ),
        NodeCommand::Failover => {
            return Fault {
                f: "failover",
                on: Target::Service,
                detail: None,
            }
        }
    };
    Fault {
        f,
        on: Target::Node(node),
        detail,
    }
}

// ---- Jepsen: EDN ----

/// One map per line, keys in Jepsen's order (`:type :f :value :process
/// :time :index`, then `:error`). Nothing encloses them: Jepsen's stores
/// write history.edn this way, and a reader takes one form at a time.
pub fn edn(entries: &[Entry]) -> String {
    let mut out = String::with_capacity(entries.len() * 96);
    for (index, e) in entries.iter().enumerate() {
        let (f, value) = match e.what {
            What::Call(c) => (c.f.word(), call_edn(c)),
            What::Fault(fault) => (fault.f, fault_edn(fault)),
        };
        let process = match e.process {
            Some(p) => p.to_string(),
            None => ":nemesis".to_string(),
        };
        let _ = write!(
            out,
            "{{:type :{}, :f :{f}, :value {value}, :process {process}, :time {}, :index {index}",
            e.kind.word(),
            e.time_ns
        );
        if let Some(why) = e.error {
            let _ = write!(out, ", :error :{why}");
        }
        out.push_str("}\n");
    }
    out
}

fn edn_number(n: Option<u64>) -> String {
    n.map_or("nil".to_string(), |n| n.to_string())
}

/// An acquire's value is its token once granted (Knossos's mutex model
/// reads only `:f`); a write's is `{:token t, :value v}`, `:value` nil
/// until the resource accepts it: a choice, since the counter's value is
/// the resource's to give.
fn call_edn(c: Call) -> String {
    match c.f {
        F::Acquire => edn_number(c.token),
        F::Release => "nil".to_string(),
        F::Write => format!(
            "{{:token {}, :value {}}}",
            edn_number(c.token),
            edn_number(c.value)
        ),
    }
}

fn fault_edn(fault: Fault) -> String {
    let mut out = match fault.on {
        Target::Client(c) => format!("{{:client \"{c}\""),
        Target::Node(n) => format!("{{:node {n}"),
        Target::Service => "{:service true".to_string(),
    };
    match fault.detail {
        Some((key, Detail::Int(n))) => {
            let _ = write!(out, ", :{key} {n}");
        }
        Some((key, Detail::Word(w))) => {
            let _ = write!(out, ", :{key} :{w}");
        }
        None => {}
    }
    out.push('}');
    out
}

// ---- Porcupine: JSON ----

/// Porcupine's `Return` for a call whose outcome is unknown: the largest
/// int64, after everything, as Go users of Porcupine mark a call that
/// never returned. A choice: Porcupine has no `info` of its own.
pub const PORCUPINE_NEVER: i64 = i64::MAX;

/// Porcupine's `[]Operation` (ClientId, Input, Call, Output, Return), one
/// a line in a JSON array, the calls in the order they were made. Input is
/// `{"op", "token"}`; Output is `{"status": "ok"|"fail"|"unknown", "token",
/// "value", "error"}`. `ClientId` is the client (A = 0 ... D = 3), not
/// the Jepsen process: Porcupine's clients are the callers, and its
/// visualization draws a lane per `ClientId`. Faults are not operations
/// there, and are left out.
pub fn porcupine(entries: &[Entry]) -> String {
    let mut out = String::from("[");
    let mut first = true;
    for invoke in entries.iter().filter(|e| e.kind == Type::Invoke) {
        let (What::Call(asked), Some(process)) = (invoke.what, invoke.process) else {
            continue;
        };
        let client = process % ClientId::COUNT as u32;
        let done = entries
            .iter()
            .find(|e| e.op == invoke.op && e.kind != Type::Invoke);
        let (status, answer, ret) = match done {
            Some(Entry {
                kind: Type::Ok,
                what: What::Call(c),
                time_ns,
                ..
            }) => ("ok", *c, json_ns(*time_ns)),
            Some(Entry {
                kind: Type::Fail,
                time_ns,
                ..
            }) => ("fail", asked, json_ns(*time_ns)),
            _ => ("unknown", asked, PORCUPINE_NEVER),
        };
        let error = done.and_then(|d| d.error);
        out.push_str(if first { "\n" } else { ",\n" });
        first = false;
        let _ = write!(
            out,
            r#"{{"ClientId":{client},"Input":{{"op":"{}","token":{}}},"Call":{},"Output":{{"status":"{status}","token":{},"value":{},"error":{}}},"Return":{ret}}}"#,
            asked.f.word(),
            json_number(asked.token),
            json_ns(invoke.time_ns),
            json_number(answer.token),
            json_number(answer.value),
            error.map_or("null".to_string(), |e| format!("\"{e}\"")),
        );
    }
    out.push_str("\n]\n");
    out
}

fn json_ns(ns: u64) -> i64 {
    i64::try_from(ns).unwrap_or(i64::MAX - 1)
}

fn json_number(n: Option<u64>) -> String {
    n.map_or("null".to_string(), |n| n.to_string())
}

// ---- ITF: JSON ----

/// ADR-015's link, for the trace's `#meta`.
pub const ITF_DESCRIPTION: &str = "https://apalache-mc.org/docs/adr/015adr-trace.html";

/// What the trace shows of a moment: the clients' beliefs, the token each
/// holder believes it holds, the service's holder, the resource's highest
/// accepted token and its counter.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Moment {
    belief: [&'static str; ClientId::COUNT],
    token: [Option<u64>; ClientId::COUNT],
    holder: Option<ClientId>,
    highest: Option<u64>,
    counter: u64,
}

/// The variables, in the order every state writes them.
pub const ITF_VARS: [&str; 6] = ["t_ms", "belief", "token", "holder", "highest", "counter"];

impl Moment {
    fn start() -> Moment {
        Moment {
            belief: ["idle"; ClientId::COUNT],
            token: [None; ClientId::COUNT],
            holder: None,
            highest: None,
            counter: 0,
        }
    }

    /// The moment after `event`.
    fn after(&self, event: &Event) -> Moment {
        let mut m = self.clone();
        match event {
            Event::AcquireStarted { client } => m.believe(*client, "acquiring", None),
            Event::Waiting { client, .. } => m.believe(*client, "waiting", None),
            Event::Acquired { client, token, .. } => m.believe(*client, "holding", number(*token)),
            Event::AcquireFailed { client, .. }
            | Event::Lost { client, .. }
            | Event::Released { client }
            | Event::Crashed { client }
            | Event::Exited { client }
            | Event::Restarted { client } => m.believe(*client, "idle", None),
            Event::HolderChanged { holder, .. } => m.holder = *holder,
            Event::WriteAccepted { token, value, .. } => {
                m.counter = *value;
                if let Some(t) = number(*token) {
                    m.highest = Some(m.highest.map_or(t, |h| h.max(t)));
                }
            }
            _ => {}
        }
        m
    }

    fn believe(&mut self, client: ClientId, belief: &'static str, token: Option<u64>) {
        self.belief[client.index()] = belief;
        self.token[client.index()] = token;
    }
}

/// An ITF trace: a state at the start and one after each record that
/// changed what it shows. Clients are strings "A".."D"; `belief` maps
/// every client to "idle", "acquiring", "waiting" or "holding"; `token`
/// maps each holder to its token (a TLA+ function whose domain is the
/// holders that carry one); `holder` and `highest` are sets of at most one
/// element, TLA+'s idiom for a value that may be absent: a choice, as ITF
/// has no null. Integers past 2^53 - 1 are written `{"#bigint": "..."}`.
pub fn itf(sim: &Sim) -> String {
    let config = sim.config();
    let description = format!(
        "{}, fencing {}, seed {}: the run's history from 0 to {} ms",
        config.backend.name(),
        if config.fencing.is_on() { "on" } else { "off" },
        config.seed,
        sim.now().ms()
    );
    let mut out = format!(
        r##"{{"#meta":{{"format":"ITF","format-description":"{ITF_DESCRIPTION}","source":"distlock","description":{}}},"vars":["##,
        serde_json::to_string(&description).unwrap_or_default()
    );
    for (i, var) in ITF_VARS.iter().enumerate() {
        let _ = write!(out, "{}\"{var}\"", if i == 0 { "" } else { "," });
    }
    out.push_str("],\"states\":[");
    let mut now = Moment::start();
    let mut index = 0u64;
    itf_state(&mut out, index, 0, &now);
    for record in sim.history() {
        let next = now.after(&record.event);
        if next != now {
            index += 1;
            now = next;
            itf_state(&mut out, index, record.at.ms(), &now);
        }
    }
    out.push_str("\n]}\n");
    out
}

fn itf_state(out: &mut String, index: u64, t_ms: u64, m: &Moment) {
    let _ = write!(
        out,
        "{}\n{{\"#meta\":{{\"index\":{index}}},\"t_ms\":{},\"belief\":{{\"#map\":[",
        if index == 0 { "" } else { "," },
        itf_int(t_ms)
    );
    for (i, c) in ClientId::ALL.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(out, "{sep}[\"{c}\",\"{}\"]", m.belief[i]);
    }
    out.push_str("]},\"token\":{\"#map\":[");
    let mut sep = "";
    for (c, token) in ClientId::ALL.iter().zip(m.token) {
        if let Some(t) = token {
            let _ = write!(out, "{sep}[\"{c}\",{}]", itf_int(t));
            sep = ",";
        }
    }
    let holder = m.holder.map_or(String::new(), |c| format!("\"{c}\""));
    let highest = m.highest.map_or(String::new(), itf_int);
    let _ = write!(
        out,
        "]}},\"holder\":{{\"#set\":[{holder}]}},\"highest\":{{\"#set\":[{highest}]}},\"counter\":{}}}",
        itf_int(m.counter)
    );
}

/// An integer as ITF writes it: a JSON number while any JSON reader keeps
/// it exact (RFC 7159's range), `{"#bigint": "..."}` beyond.
pub fn itf_int(n: u64) -> String {
    const EXACT_MAX: u64 = (1 << 53) - 1;
    if n <= EXACT_MAX {
        n.to_string()
    } else {
        format!("{{\"#bigint\":\"{n}\"}}")
    }
}
