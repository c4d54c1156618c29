//! Redlock (antirez's algorithm, as node-redlock runs it): five independent
//! Redis nodes, `SET key value NX PX ttl` on each, success on a quorum of 3
//! with time left, value-checked release. Each node expires keys by its own
//! wall clock, which can jump.
//!
//! Requests go to all nodes at once, each with a per-node timeout of a few
//! tens of milliseconds (5-50 ms for a 10 s TTL in the reference; here 5 ms
//! per latency step, so it scales with the latency setting). The client
//! decides as soon as three nodes said OK, or once every node answered or
//! timed out: one slow or partitioned node costs at most the timeout. Time
//! is measured by the client's own clock. The fencing token is an `INCR`
//! counter on node 1, asked for once a quorum is held: growing only while
//! node 1 keeps its data.

mod real_client;

use super::redis_node::{Node, RedisKey};
use super::{renew_every_ms, Grant, HolderView, LockSystem, ServiceRng};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Config, NodeCommand, RedisOptions};
use crate::sim::types::{
    ClientId, ExtendMode, Millis, NodeId, Persistence, ReleaseMode, RestartPolicy, Token,
};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

pub const NODES: usize = 5;
pub const QUORUM: u8 = 3;
/// node-redlock's defaults: 10 attempts, 200 ms +/- 100 ms apart.
pub const ATTEMPTS_MAX: u32 = 10;
pub const RETRY_DELAY_MS: u64 = 200;
pub const RETRY_JITTER_MS: u64 = 100;
/// The per-node timeout for each step of latency scale.
pub const NODE_TIMEOUT_MS_PER_SCALE: u64 = 5;

/// Clock drift allowance: 1% of the TTL plus 2 ms.
pub fn drift_ms(ttl_ms: u64) -> u64 {
    ttl_ms / 100 + 2
}

/// validity = TTL - elapsed - drift; the lock counts only if it is above 0.
pub fn validity_ms(ttl_ms: u64, elapsed_ms: u64) -> i64 {
    ttl_ms as i64 - elapsed_ms as i64 - drift_ms(ttl_ms) as i64
}

/// What a Redis node is asked and answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum RedisMsg {
    /// `SET lock value NX PX ttl`.
    #[serde(rename = "redis-set")]
    Set { value: u64, px_ms: u64, round: u32 },
    #[serde(rename = "redis-set-reply")]
    SetReply { ok: bool, round: u32 },
    /// `SET lock value NX PX ttl` and, if it was set, `INCR fence`, in one
    /// script (single Redis): the token comes back with the key.
    #[serde(rename = "redis-set-fence")]
    SetFence { value: u64, px_ms: u64, round: u32 },
    /// The fence counter, or nil when the key was taken.
    #[serde(rename = "redis-set-fence-reply")]
    SetFenceReply { fence: Option<u64>, round: u32 },
    /// `INCR fence` on node 1, once a quorum is held: the token.
    #[serde(rename = "redis-incr")]
    Incr { round: u32 },
    #[serde(rename = "redis-incr-reply")]
    IncrReply { fence: u64, round: u32 },
    /// Renewal: the checked script (`PEXPIRE` if the value matches) or a blind `SET`.
    #[serde(rename = "redis-extend")]
    Extend {
        value: u64,
        px_ms: u64,
        mode: ExtendMode,
        round: u32,
    },
    #[serde(rename = "redis-extend-reply")]
    ExtendReply { ok: bool, round: u32 },
    /// A node that is down refuses the connection at once.
    #[serde(rename = "redis-refused")]
    Refused { round: u32 },
    /// Release: the checked script or a plain `DEL`.
    #[serde(rename = "redis-unlock")]
    Unlock { value: u64, mode: ReleaseMode },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<RedisMsg>() <= 24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RedlockTimer {
    /// Time to extend the lock.
    Renew { gen: u64 },
    /// The lease end by the client's own clock.
    LeaseDeadline { gen: u64 },
    /// The timeout of one step of a round.
    NodeTimeout { round: u32, step: u8 },
    /// Retry after a random delay.
    Retry { round: u32 },
    /// A node's key reaches its expiry by the node's clock.
    KeyExpiry { node: NodeId },
    /// A delayed restart is over.
    Restart { node: NodeId },
}

/// One Redis node as the lock-service panel draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedisNodeView {
    pub node: NodeId,
    pub up: bool,
    /// The node's wall clock minus virtual time.
    pub clock_offset_ms: i64,
    pub clock_ms: i64,
    pub slow_ms: u64,
    /// The lock key: owner, value, milliseconds left by the node's clock.
    pub key: Option<RedisKeyView>,
    pub fence: u64,
    /// A delayed restart: down until this time.
    pub restart_at: Option<Millis>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedisKeyView {
    pub owner: ClientId,
    pub value: u64,
    pub ttl_left_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedlockDetail {
    pub nodes: Vec<RedisNodeView>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
enum Phase {
    #[default]
    Idle,
    Acquiring,
    /// A quorum is held; waiting for node 1's `INCR` to get a token.
    Fencing,
    Extending,
}

/// One client's Redlock library state.
#[derive(Debug, Clone, Default, Hash)]
struct Side {
    phase: Phase,
    round: u32,
    value: Option<u64>,
    /// When the attempt or extension started, by the client's own clock.
    start_local: i64,
    replies: u8,
    oks: u8,
    fence: Option<u64>,
    attempt: u32,
    renew_gen: u64,
    deadline_gen: u64,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct Redlock {
    ttl_ms: u64,
    node_timeout_ms: u64,
    options: RedisOptions,
    nodes: [Node; NODES],
    side: [Side; 4],
    /// Rounds started so far: each gets the next number.
    rounds: u32,
    /// The fence value node 1 returned with each lock value.
    fence_of: LiteMap<u64, u64>,
    rng: ServiceRng,
}

impl LockSystem for Redlock {
    type Msg = RedisMsg;
    type Timer = RedlockTimer;
    type Detail = RedlockDetail;
    const NAME: &'static str = "Redlock";
    const LEASE_WORD: &'static str = "key TTL";
    /// A Redis round trip on one LAN: 0.5-2 ms.
    const LATENCY_US: (u64, u64) = (250, 1_000);
    const MONOTONIC_TOKENS: bool = false;
    const TOKEN_SHORT: &'static str = "none: a random value (INCR on node 1 at best)";
    // Five independent nodes and no single place that knows the holder: a
    // transaction cannot check the lock, only a token can be compared.
    const FENCE_MODES: &'static [crate::sim::FenceMode] = &[
        crate::sim::FenceMode::Highest,
        crate::sim::FenceMode::Takeover,
    ];

    fn new(config: &Config) -> Redlock {
        Redlock {
            ttl_ms: config.ttl_ms,
            // A client far from its nodes sets the timeout above the round
            // trip, or no node would ever answer in time.
            node_timeout_ms: NODE_TIMEOUT_MS_PER_SCALE * u64::from(config.latency_scale)
                + u64::from(config.network_rtt_ms),
            options: config.redis,
            nodes: Default::default(),
            side: Default::default(),
            rounds: 0,
            fence_of: LiteMap::new(),
            rng: ServiceRng::new(config.seed),
        }
    }

    fn on_input(&mut self, view: &View, input: Input<RedlockTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => {
                self.side(c).attempt = 0;
                self.start_attempt(view, c, out);
            }
            Input::Release(c) => {
                self.unlock_all(c, self.options.release, out);
                self.forget(c);
            }
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            Input::ServiceTimer(timer) => self.on_service_timer(view, timer, out),
            // Each node's key lives until its TTL whether or not the socket closed.
            Input::Crashed(c) | Input::Exited(c) => self.side[c.index()] = Side::default(),
            Input::RenewalOn(c) if view.belief(c).is_holding() => self.arm_renew(c, out),
            Input::Node(n, cmd) => self.node_command(view, n, cmd, out),
            _ => {}
        }
    }

    fn holder(&self, view: &View) -> Option<HolderView> {
        let key = self.quorum_key(view.now)?;
        let (since, until) = self.quorum_times(&key, view.now);
        let grant = self.grant_of(&key);
        Some(HolderView {
            client: grant.client,
            token: grant.token,
            lease_key: grant.lease_key,
            since,
            until: Some(until),
        })
    }

    /// The quorum's key, without sorting out when the quorum formed and ends.
    fn grant(&self, view: &View) -> Option<Grant> {
        Some(self.grant_of(&self.quorum_key(view.now)?))
    }

    fn lease_end(&self, view: &View, c: ClientId) -> Option<Millis> {
        self.holder(view).filter(|h| h.client == c)?.until
    }

    /// A key that ran out is gone when read at its expiry, not at an event.
    const HOLDER_READS_CLOCK: bool = true;

    fn detail(&self, view: &View) -> RedlockDetail {
        let nodes = NodeId::all()
            .map(|n| self.nodes[n.index()].view(n, view.now))
            .collect();
        RedlockDetail { nodes }
    }

    fn check_node(&self, n: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Failover => Err(CommandError::Unsupported {
                why: "Redlock's five nodes are independent masters with no replicas: nothing fails over (crash and restart a node instead)",
            }),
            _ => self.nodes[n.index()].check(n, cmd),
        }
    }

    fn validity(&self, view: &View, c: ClientId) -> Option<super::Validity> {
        let side = &self.side[c.index()];
        let busy = side.phase != Phase::Idle || view.belief(c).is_holding();
        if side.value.is_none() || !busy {
            return None;
        }
        let elapsed_ms = self.elapsed_ms(view, c);
        Some(super::Validity {
            ttl_ms: self.ttl_ms,
            elapsed_ms,
            drift_ms: drift_ms(self.ttl_ms),
            left_ms: validity_ms(self.ttl_ms, elapsed_ms),
        })
    }

    /// A closed socket ends nothing on a Redis node: each key lives until its TTL.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let first = if exited {
            "the sockets closed, which ends nothing on a Redis node"
        } else {
            "the nodes hear nothing"
        };
        super::lease_note(
            first,
            "its keys live until their TTL runs out",
            self.lease_end(view, c),
        )
    }

    fn is_unlock(msg: &RedisMsg) -> bool {
        matches!(msg, RedisMsg::Unlock { .. })
    }

    /// A client's command at one of the nodes.
    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        at: Endpoint,
        body: RedisMsg,
        out: &mut Effects,
    ) {
        let Endpoint::Node(n) = at else {
            return;
        };
        let node = &mut self.nodes[n.index()];
        let reply_delay = node.slow_ms;
        let handled = node.handle(view.now, n, c, body, out);
        if handled.rearm {
            self.schedule_expiry(view, n, out);
        }
        if let Some(reply) = handled.reply {
            out.send_delayed(Endpoint::Node(n), Endpoint::Client(c), reply, reply_delay);
        }
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: RedisMsg, out: &mut Effects) {
        let (round, ok, fence) = match body {
            RedisMsg::SetReply { ok, round } => (round, ok, None),
            RedisMsg::IncrReply { fence, round } => (round, true, Some(fence)),
            RedisMsg::ExtendReply { ok, round } => (round, ok, None),
            RedisMsg::Refused { round } => (round, false, None),
            _ => return,
        };
        let side = self.side(c);
        if side.round != round || side.phase == Phase::Idle {
            return; // A late answer to a round already decided.
        }
        if side.phase == Phase::Fencing {
            side.fence = fence;
            self.finish_fencing(view, c, out);
            return;
        }
        side.replies += 1;
        side.oks += u8::from(ok);
        if side.oks < QUORUM && usize::from(side.replies) < NODES {
            return;
        }
        match side.phase {
            Phase::Acquiring => self.finish_attempt(view, c, out),
            Phase::Extending => self.finish_extension(view, c, out),
            Phase::Fencing | Phase::Idle => {}
        }
    }

    fn renews(msg: &RedisMsg) -> bool {
        matches!(msg, RedisMsg::Extend { .. })
    }

    fn releases(msg: &RedisMsg) -> bool {
        matches!(msg, RedisMsg::Unlock { .. })
    }

    fn label(msg: &RedisMsg) -> String {
        match msg {
            RedisMsg::Set { .. } => "SET NX PX".into(),
            RedisMsg::SetFence { .. } => "SET NX PX + INCR".into(),
            RedisMsg::SetFenceReply { fence: Some(f), .. } => format!("OK, fence {f}"),
            RedisMsg::SetFenceReply { fence: None, .. } => "nil (taken)".into(),
            RedisMsg::SetReply { ok: true, .. } => "OK".into(),
            RedisMsg::SetReply { ok: false, .. } => "nil (taken)".into(),
            RedisMsg::Incr { .. } => "INCR fence".into(),
            RedisMsg::IncrReply { fence, .. } => format!("fence {fence}"),
            RedisMsg::Extend {
                mode: ExtendMode::CheckValue,
                ..
            } => "extend if mine".into(),
            RedisMsg::Extend {
                mode: ExtendMode::BlindSet,
                ..
            } => "SET PX (blind)".into(),
            RedisMsg::ExtendReply { ok, .. } => if *ok { "extended" } else { "not mine" }.into(),
            RedisMsg::Refused { .. } => "connection refused".into(),
            RedisMsg::Unlock {
                mode: ReleaseMode::CheckValue,
                ..
            } => "DEL if mine".into(),
            RedisMsg::Unlock {
                mode: ReleaseMode::PlainDel,
                ..
            } => "DEL".into(),
        }
    }
}

impl Redlock {
    fn node(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n.index()]
    }

    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    /// Milliseconds since the client's attempt or extension started, by
    /// its own clock (a clock that jumps back can make this small).
    fn elapsed_ms(&self, view: &View, c: ClientId) -> u64 {
        (view.local_now(c) - self.side[c.index()].start_local).max(0) as u64
    }

    /// The lease end by the client's clock: start + TTL - drift.
    fn lease_until(&self, view: &View, c: ClientId) -> Millis {
        let local = self.side[c.index()].start_local + (self.ttl_ms - drift_ms(self.ttl_ms)) as i64;
        view.when_reads(c, local)
    }

    /// A fresh round number: late answers to older rounds are ignored.
    fn new_round(&mut self, c: ClientId) -> u32 {
        let round = super::count_up(&mut self.rounds);
        self.side(c).round = round;
        round
    }

    /// Sends one request to every node and starts the round's timeout.
    fn broadcast(
        &mut self,
        c: ClientId,
        body: impl Fn(NodeId) -> RedisMsg,
        step: u8,
        out: &mut Effects,
    ) {
        for n in NodeId::all() {
            out.send(Endpoint::Client(c), Endpoint::Node(n), body(n));
        }
        let round = self.side[c.index()].round;
        out.client_timer(
            c,
            self.node_timeout_ms,
            RedlockTimer::NodeTimeout { round, step },
        );
    }

    fn start_attempt(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let round = super::count_up(&mut self.rounds);
        let value = self.rng.draw(0x1000_0000_0000, 0xffff_ffff_ffff);
        let side = self.side(c);
        *side = Side {
            phase: Phase::Acquiring,
            round,
            value: Some(value),
            start_local: view.local_now(c),
            attempt: side.attempt + 1,
            renew_gen: side.renew_gen + 1,
            deadline_gen: side.deadline_gen + 1,
            ..Side::default()
        };
        let px_ms = self.ttl_ms;
        self.broadcast(
            c,
            |_| RedisMsg::Set {
                value,
                px_ms,
                round,
            },
            0,
            out,
        );
    }

    fn start_extension(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let Some(value) = self.side[c.index()].value else {
            return;
        };
        let round = self.new_round(c);
        let start_local = view.local_now(c);
        let side = self.side(c);
        side.phase = Phase::Extending;
        side.start_local = start_local;
        side.replies = 0;
        side.oks = 0;
        let px_ms = self.ttl_ms;
        let mode = self.options.extend;
        self.broadcast(
            c,
            |_| RedisMsg::Extend {
                value,
                px_ms,
                mode,
                round,
            },
            1,
            out,
        );
    }

    /// A quorum said OK, every node answered, or the timeout fired: decide.
    fn finish_attempt(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let validity = validity_ms(self.ttl_ms, self.elapsed_ms(view, c));
        let side = self.side(c);
        side.phase = Phase::Idle;
        let (oks, attempt) = (side.oks, side.attempt);
        if oks >= QUORUM && validity > 0 {
            // The token step gets its own round, so a late SET answer
            // cannot pass for node 1's INCR answer.
            let round = self.new_round(c);
            self.side(c).phase = Phase::Fencing;
            let node1 = Endpoint::Node(NodeId::new(1).expect("node 1 exists"));
            out.send(Endpoint::Client(c), node1, RedisMsg::Incr { round });
            out.client_timer(
                c,
                self.node_timeout_ms,
                RedlockTimer::NodeTimeout { round, step: 2 },
            );
            return;
        }
        let failure = if oks < QUORUM {
            AcquireFailure::NoQuorum { oks }
        } else {
            AcquireFailure::NoValidity {
                validity_ms: validity,
            }
        };
        self.unlock_all(c, ReleaseMode::CheckValue, out);
        if attempt >= ATTEMPTS_MAX {
            self.side(c).value = None;
            out.fail(c, failure);
            return;
        }
        let delay = self.rng.draw(
            RETRY_DELAY_MS - RETRY_JITTER_MS,
            RETRY_DELAY_MS + RETRY_JITTER_MS,
        );
        out.record(Event::AcquireRetry {
            client: c,
            failure,
            attempt: attempt + 1,
            retry_at: view.now.plus(delay),
        });
        let round = self.side[c.index()].round;
        out.client_timer(c, delay, RedlockTimer::Retry { round });
    }

    /// The lock is held; the token is whatever node 1 answered, if anything.
    fn finish_fencing(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let until = self.lease_until(view, c);
        let elapsed_ms = self.elapsed_ms(view, c);
        let side = self.side(c);
        side.phase = Phase::Idle;
        let (value, fence) = (side.value.unwrap_or_default(), side.fence);
        if view.now >= until {
            // The token came back after the lease it was for.
            self.unlock_all(c, ReleaseMode::CheckValue, out);
            self.forget(c);
            let validity_ms = validity_ms(self.ttl_ms, elapsed_ms);
            out.fail(c, AcquireFailure::NoValidity { validity_ms });
            return;
        }
        if let Some(f) = fence {
            self.fence_of.insert(value, f);
        }
        out.grant(c, fence.map(Token), value, Some(until));
        self.arm_renew(c, out);
        self.arm_deadline(view, c, out);
    }

    fn finish_extension(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let validity = validity_ms(self.ttl_ms, self.elapsed_ms(view, c));
        let until = self.lease_until(view, c);
        let side = self.side(c);
        side.phase = Phase::Idle;
        let oks = side.oks;
        if !view.belief(c).is_holding() {
            return;
        }
        if oks >= QUORUM && validity > 0 {
            out.extend(c, Some(until));
            self.arm_renew(c, out);
            self.arm_deadline(view, c, out);
        } else {
            self.forget(c);
            out.lose(c, LossReason::ExtensionFailed);
        }
    }

    fn unlock_all(&mut self, c: ClientId, mode: ReleaseMode, out: &mut Effects) {
        let Some(value) = self.side[c.index()].value else {
            return;
        };
        for n in NodeId::all() {
            out.send(
                Endpoint::Client(c),
                Endpoint::Node(n),
                RedisMsg::Unlock { value, mode },
            );
        }
    }

    fn arm_renew(&mut self, c: ClientId, out: &mut Effects) {
        let every = renew_every_ms(self.ttl_ms);
        let side = self.side(c);
        side.renew_gen += 1;
        out.client_timer(
            c,
            every,
            RedlockTimer::Renew {
                gen: side.renew_gen,
            },
        );
    }

    /// The client's own deadline: TTL - drift after the start, by its clock.
    fn arm_deadline(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let lease_ms = self.ttl_ms - drift_ms(self.ttl_ms);
        let left_ms = lease_ms.saturating_sub(self.elapsed_ms(view, c));
        let side = self.side(c);
        side.deadline_gen += 1;
        let gen = side.deadline_gen;
        out.client_timer(c, left_ms, RedlockTimer::LeaseDeadline { gen });
    }

    fn forget(&mut self, c: ClientId) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        side.value = None;
        side.renew_gen += 1;
        side.deadline_gen += 1;
    }

    /// (Re)arms the node's expiry timer for its key.
    fn schedule_expiry(&self, view: &View, n: NodeId, out: &mut Effects) {
        let node = &self.nodes[n.index()];
        if let Some(key) = node.key {
            out.service_timer(
                node.expiry_virtual(&key, view.now),
                RedlockTimer::KeyExpiry { node: n },
            );
        }
    }

    fn expire(&mut self, n: NodeId, out: &mut Effects) {
        self.nodes[n.index()].expire(n, out);
    }

    fn on_client_timer(
        &mut self,
        view: &View,
        c: ClientId,
        timer: RedlockTimer,
        out: &mut Effects,
    ) {
        let side = &self.side[c.index()];
        let belief = view.belief(c);
        match timer {
            RedlockTimer::NodeTimeout { round, .. } if round == side.round => match side.phase {
                Phase::Acquiring => self.finish_attempt(view, c, out),
                Phase::Fencing => self.finish_fencing(view, c, out),
                Phase::Extending => self.finish_extension(view, c, out),
                Phase::Idle => {}
            },
            RedlockTimer::Retry { round }
                if round == side.round
                    && side.phase == Phase::Idle
                    && belief == crate::sim::client::Belief::Acquiring =>
            {
                self.start_attempt(view, c, out);
            }
            RedlockTimer::Renew { gen }
                if gen == side.renew_gen && belief.is_holding() && view.renewal(c) =>
            {
                self.start_extension(view, c, out);
            }
            RedlockTimer::LeaseDeadline { gen }
                if gen == side.deadline_gen && belief.is_holding() =>
            {
                self.forget(c);
                out.lose(c, LossReason::LocalDeadline);
            }
            _ => {}
        }
    }

    fn on_service_timer(&mut self, view: &View, timer: RedlockTimer, out: &mut Effects) {
        match timer {
            RedlockTimer::KeyExpiry { node: n } => {
                let node = &self.nodes[n.index()];
                let due = node
                    .key
                    .is_some_and(|k| node.expiry_virtual(&k, view.now) <= view.now && !node.down);
                if due {
                    self.expire(n, out);
                }
            }
            RedlockTimer::Restart { node: n }
                if self.nodes[n.index()].restart_at == Some(view.now) =>
            {
                self.bring_up(view, n, out);
            }
            _ => {}
        }
    }

    fn bring_up(&mut self, view: &View, n: NodeId, out: &mut Effects) {
        let persistence = self.options.persistence;
        let node = self.node(n);
        node.down = false;
        node.restart_at = None;
        node.crashed_at = None;
        if persistence == Persistence::None {
            node.key = None;
            let had_fence = node.fence > 0;
            node.fence = 0;
            if had_fence {
                out.record(Event::Service(ServiceEvent::RedisFenceReset { node: n }));
            }
        }
        out.record(Event::NodeRestarted {
            node: n,
            persistence,
        });
        let node = &self.nodes[n.index()];
        if node.key.is_some() && node.live_key(view.now).is_none() {
            self.expire(n, out);
        }
        self.schedule_expiry(view, n, out);
    }

    fn node_command(&mut self, view: &View, n: NodeId, cmd: NodeCommand, out: &mut Effects) {
        let persistence = self.options.persistence;
        match cmd {
            NodeCommand::Crash => {
                let node = self.node(n);
                node.down = true;
                node.crashed_at = Some(view.now);
                node.restart_at = None;
                out.record(Event::NodeCrashed {
                    node: n,
                    persistence,
                });
            }
            NodeCommand::Restart => {
                let crashed_at = self.nodes[n.index()].crashed_at.unwrap_or(view.now);
                // A delayed restart keeps the node down longer than any lease
                // it may have granted.
                let ready = crashed_at.plus(self.ttl_ms);
                if self.options.restart == RestartPolicy::Delayed && view.now < ready {
                    self.node(n).restart_at = Some(ready);
                    out.service_timer(ready, RedlockTimer::Restart { node: n });
                    out.record(Event::NodeRestartDelayed {
                        node: n,
                        until: ready,
                    });
                } else {
                    self.bring_up(view, n, out);
                }
            }
            NodeCommand::ClockJump { jump_ms } => {
                self.node(n).jump_clock(n, view.now, jump_ms, out);
                let node = &self.nodes[n.index()];
                if node.key.is_some() && node.live_key(view.now).is_none() && !node.down {
                    self.expire(n, out);
                }
                self.schedule_expiry(view, n, out);
            }
            NodeCommand::Failover => {}
            NodeCommand::Slow { extra_ms } => self.node(n).set_slow(n, extra_ms, out),
        }
    }

    /// The key of the lock value held on a quorum of live nodes: the first
    /// node's, in node order, whose value at least two others share. Runs
    /// after every event, so it allocates nothing.
    fn quorum_key(&self, now: Millis) -> Option<RedisKey> {
        let values = self
            .nodes
            .each_ref()
            .map(|n| n.live_key(now).map(|k| k.value));
        let on_quorum = |value: u64| {
            values.iter().filter(|&&v| v == Some(value)).count() >= usize::from(QUORUM)
        };
        let first = values.iter().position(|v| v.is_some_and(on_quorum))?;
        self.nodes[first].live_key(now)
    }

    /// When the quorum holding `key`'s value formed (its third key was
    /// set) and when it ends (all but two of its keys have expired).
    fn quorum_times(&self, key: &RedisKey, now: Millis) -> (Millis, Millis) {
        let mut set_at = [Millis(u64::MAX); NODES];
        let mut expiry = [Millis(0); NODES];
        let holding = self.nodes.iter().filter_map(|n| {
            let k = n.live_key(now).filter(|k| k.value == key.value)?;
            Some((k.set_at, n.expiry_virtual(&k, now)))
        });
        for (i, (set, ends)) in holding.enumerate() {
            set_at[i] = set;
            expiry[i] = ends;
        }
        set_at.sort_unstable();
        expiry.sort_unstable_by(|a, b| b.cmp(a));
        let q = usize::from(QUORUM) - 1;
        (set_at[q], expiry[q])
    }

    /// The grant a quorum's key stands for: its value, and node 1's fence
    /// for that value as the token.
    fn grant_of(&self, key: &RedisKey) -> Grant {
        Grant {
            client: key.owner,
            token: self.fence_of.get(&key.value).map(|&f| Token(f)),
            lease_key: key.value,
        }
    }
}
