//! Faults besides pauses: what else strikes a trial, how often, and for
//! how long. Each kind arrives at random (exponential gaps, counted from
//! the end of the one before) at its own rate, per client-hour for what
//! happens to a client and per node-hour for what happens to a Redis
//! node, each client and node with its own seeded stream. A fault's
//! length (a partition, a spell of lost messages, the time a crashed
//! client or node stays down, a clock jump's size) is drawn evenly from
//! 1 ms to the plan's longest fault. Every rate defaults to none, and a
//! trial without faults draws nothing for them: its numbers are the
//! pause-only explorer's.
//!
//! What the core does with each is its own model: a partition cuts the
//! client off from the lock service (not from the resource) and TCP
//! sends what it cut off again with a doubling timeout; lost messages
//! are gone for good (no retransmission); a process exit closes its
//! sockets (FIN), a host death is silence; a restarted Redis node comes
//! back empty and at once (no persistence, no delayed restart: the
//! core's defaults); a node's wall clock jumps forward, expiring its key
//! early. A crashed client restarts after its down time as a fresh
//! process with nothing held, thinks, and asks again.

use super::sample::exp_gap;
use crate::sim::rng::ChaCha8Rng;
use crate::sim::{Backend, Millis};
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// The longest fault a plan may ask for (the core's longest clock jump).
pub const FAULT_MS_MAX: u64 = 600_000;
/// The longest fault when the plan does not say.
pub const FAULT_MS_DEFAULT: u64 = 30_000;
/// Milliseconds in 1,000 hours: rates are per 1,000 client- or node-hours.
const KILOHOUR_MS: u64 = 3_600_000_000;
/// The first ChaCha stream of the faults (the core uses 1 and 2, the
/// workload 16, the pauses 32 to 35).
const STREAM_FAULTS: u64 = 64;

/// How often each fault strikes, per 1,000 client-hours (or node-hours
/// for the nodes'), and the longest one lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Faults {
    /// A client cut off from the lock service (the resource stays reachable).
    pub partitions_per_kilohour: u64,
    /// A client's process exits (its kernel closes its sockets).
    pub exits_per_kilohour: u64,
    /// A client's host dies (silence, no FIN).
    pub host_deaths_per_kilohour: u64,
    /// A spell in which every message to or from a client is lost.
    pub losses_per_kilohour: u64,
    /// A Redis node crashes and restarts empty, per 1,000 node-hours.
    pub node_restarts_per_kilohour: u64,
    /// A Redis node's wall clock jumps forward, per 1,000 node-hours.
    pub node_jumps_per_kilohour: u64,
    /// Fault lengths are drawn evenly from 1 ms to this.
    pub longest_ms: u64,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            partitions_per_kilohour: 0,
            exits_per_kilohour: 0,
            host_deaths_per_kilohour: 0,
            losses_per_kilohour: 0,
            node_restarts_per_kilohour: 0,
            node_jumps_per_kilohour: 0,
            longest_ms: FAULT_MS_DEFAULT,
        }
    }
}

impl Faults {
    /// No fault at all: a plan written before faults existed.
    pub fn is_default(&self) -> bool {
        *self == Faults::default()
    }

    /// Each rate with its kind, clients' first.
    pub fn rates(&self) -> [(Kind, u64); 6] {
        [
            (Kind::Exit, self.exits_per_kilohour),
            (Kind::HostDeath, self.host_deaths_per_kilohour),
            (Kind::Partition, self.partitions_per_kilohour),
            (Kind::Loss, self.losses_per_kilohour),
            (Kind::NodeRestart, self.node_restarts_per_kilohour),
            (Kind::NodeJump, self.node_jumps_per_kilohour),
        ]
    }

    /// Whether a node fault is asked for.
    pub fn on_nodes(&self) -> bool {
        self.node_restarts_per_kilohour > 0 || self.node_jumps_per_kilohour > 0
    }
}

/// A kind of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Exit,
    HostDeath,
    Partition,
    Loss,
    NodeRestart,
    NodeJump,
}

impl Kind {
    /// Its field as a refusal names it.
    pub fn field(self) -> &'static str {
        match self {
            Kind::Exit => "process exits per 1,000 client-hours",
            Kind::HostDeath => "host deaths per 1,000 client-hours",
            Kind::Partition => "partitions per 1,000 client-hours",
            Kind::Loss => "message-loss spells per 1,000 client-hours",
            Kind::NodeRestart => "node restarts per 1,000 node-hours",
            Kind::NodeJump => "node clock jumps per 1,000 node-hours",
        }
    }

    /// Its name, as the form's field begins.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Exit => "Process exits",
            Kind::HostDeath => "Host deaths",
            Kind::Partition => "Partitions from the lock service",
            Kind::Loss => "Spells of lost messages",
            Kind::NodeRestart => "Redis node restarts",
            Kind::NodeJump => "Redis node clock jumps",
        }
    }

    fn on_node(self) -> bool {
        matches!(self, Kind::NodeRestart | Kind::NodeJump)
    }
}

/// The Redis nodes a system has in the core: Redlock's five masters,
/// single Redis's master and replica; the others' servers are not nodes
/// the explorer can fail.
pub fn nodes_of(backend: Backend) -> u8 {
    match backend {
        Backend::Redlock => 5,
        Backend::Redis => 2,
        _ => 0,
    }
}

/// One client's or node's faults of one kind: when the next starts, and
/// while one lasts, when it ends.
#[derive(Debug, Clone)]
pub(super) struct Stream {
    pub kind: Kind,
    /// The client's index (0 is A) or the node's (0 is node 1).
    pub target: u8,
    rng: ChaCha8Rng,
    mean_gap_ms: u64,
    longest_ms: u64,
    pub next_at: Option<Millis>,
    pub ends_at: Option<Millis>,
}

impl Stream {
    /// Every stream a trial needs: none for a rate of 0, none on nodes
    /// the system does not have.
    pub fn all(faults: &Faults, backend: Backend, clients: u8, seed: u64) -> Vec<Stream> {
        let mut streams = Vec::new();
        for (k, (kind, rate)) in faults.rates().into_iter().enumerate() {
            if rate == 0 {
                continue;
            }
            let targets = if kind.on_node() {
                nodes_of(backend)
            } else {
                clients
            };
            for target in 0..targets {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(STREAM_FAULTS + 8 * k as u64 + u64::from(target));
                let mut s = Stream {
                    kind,
                    target,
                    rng,
                    mean_gap_ms: (KILOHOUR_MS / rate).max(1),
                    longest_ms: faults.longest_ms.max(1),
                    next_at: None,
                    ends_at: None,
                };
                s.next_at = Some(s.after(Millis::ZERO));
                streams.push(s);
            }
        }
        // A crash is handled before a partition or a loss ending at the
        // same time, so their ends find the client up again.
        streams.sort_by_key(|s| (s.kind.on_node(), s.target));
        streams
    }

    /// The next start, a random gap after `from`.
    pub fn after(&mut self, from: Millis) -> Millis {
        from.plus(exp_gap(self.mean_gap_ms, &mut self.rng))
    }

    /// A fault's length (or a clock jump's size), evenly from 1 ms to the longest.
    pub fn length_ms(&mut self) -> u64 {
        self.rng.random_range(1..=self.longest_ms)
    }

    /// When the driver must look at it next, if before `horizon` or ending.
    pub fn due(&self, horizon: Millis) -> Option<Millis> {
        self.ends_at.or(self.next_at.filter(|&t| t < horizon))
    }
}
