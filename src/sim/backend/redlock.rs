//! Redlock (antirez's algorithm, as node-redlock runs it): five independent
//! Redis nodes, `SET key value NX PX ttl` on each, success on a quorum of 3
//! with time left, value-checked release. Each node expires keys by its own
//! wall clock, which can jump.
//!
//! Simplified on purpose: requests go to all nodes at once and the client
//! waits for every answer (a down node refuses the connection at once) or
//! for a request timeout of twice the TTL, as a client with no per-node
//! timeout does. The fencing token is an `INCR` counter on node 1, asked for
//! once a quorum is held: growing only while node 1 keeps its data.

use super::{extend_belief, fail, grant, lose, renew_every_ms, HolderView, LockService};
use super::{RedisKeyView, RedisNodeView, ServiceDetail};
use crate::sim::client::Belief;
use crate::sim::engine::{ClientTimer, Core, ServiceTimer};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::{Body, Endpoint, Message};
use crate::sim::scenario::{Config, NodeCommand, RedisOptions, CLOCK_JUMP_MS_MAX, SLOW_MS_MAX};
use crate::sim::types::{
    ClientId, ExtendMode, Millis, NodeId, Persistence, ReleaseMode, RestartPolicy, Token,
};
use std::collections::BTreeMap;

pub const NODES: usize = 5;
pub const QUORUM: u8 = 3;
/// node-redlock's defaults: 10 attempts, 200 ms +/- 100 ms apart.
pub const ATTEMPTS_MAX: u32 = 10;
pub const RETRY_DELAY_MS: u64 = 200;
pub const RETRY_JITTER_MS: u64 = 100;

/// Clock drift allowance: 1% of the TTL plus 2 ms.
pub fn drift_ms(ttl_ms: u64) -> u64 {
    ttl_ms / 100 + 2
}

/// validity = TTL - elapsed - drift; the lock counts only if it is above 0.
pub fn validity_ms(ttl_ms: u64, elapsed_ms: u64) -> i64 {
    ttl_ms as i64 - elapsed_ms as i64 - drift_ms(ttl_ms) as i64
}

#[derive(Debug, Clone, Copy)]
struct RedisKey {
    owner: ClientId,
    value: u64,
    /// Expiry time by the node's own wall clock.
    expires_at_clock: i64,
    set_at: Millis,
}

#[derive(Debug, Clone, Default)]
struct Node {
    down: bool,
    clock_offset_ms: i64,
    slow_ms: u64,
    key: Option<RedisKey>,
    fence: u64,
    crashed_at: Option<Millis>,
    restart_at: Option<Millis>,
}

impl Node {
    fn clock(&self, now: Millis) -> i64 {
        now.ms() as i64 + self.clock_offset_ms
    }

    /// The key as a `GET` would see it: expired keys are gone.
    fn live_key(&self, now: Millis) -> Option<RedisKey> {
        self.key
            .filter(|k| !self.down && k.expires_at_clock > self.clock(now))
    }

    /// When, in virtual time, the node's clock reaches the key's expiry.
    fn expiry_virtual(&self, key: &RedisKey) -> Millis {
        Millis((key.expires_at_clock - self.clock_offset_ms).max(0) as u64)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Idle,
    Acquiring,
    /// A quorum is held; waiting for node 1's `INCR` to get a token.
    Fencing,
    Extending,
}

/// One client's Redlock library state.
#[derive(Debug, Clone, Default)]
struct Side {
    phase: Phase,
    round: u64,
    value: Option<u64>,
    start: Millis,
    replies: u8,
    oks: u8,
    fence: Option<u64>,
    attempt: u32,
    renew_gen: u64,
    deadline_gen: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct RedlockService {
    ttl_ms: u64,
    options: RedisOptions,
    nodes: [Node; NODES],
    side: [Side; 4],
    next_round: u64,
    /// The fence value node 1 returned with each lock value.
    fence_of: BTreeMap<u64, u64>,
}

impl RedlockService {
    pub fn new(config: &Config) -> RedlockService {
        RedlockService {
            ttl_ms: config.ttl_ms,
            options: config.redis,
            nodes: Default::default(),
            side: Default::default(),
            next_round: 1,
            fence_of: BTreeMap::new(),
        }
    }

    fn node(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n.index()]
    }

    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn request_timeout_ms(&self) -> u64 {
        self.ttl_ms * 2
    }

    /// Sends one request to every node and starts the round's timeout.
    fn broadcast(&mut self, core: &mut Core, c: ClientId, body: impl Fn(NodeId) -> Body, step: u8) {
        for n in NodeId::all() {
            core.send(Endpoint::Client(c), Endpoint::Node(n), body(n));
        }
        let round = self.side[c.index()].round;
        core.client_timer(
            c,
            self.request_timeout_ms(),
            ClientTimer::RedlockNodeTimeout { round, step },
        );
    }

    fn start_attempt(&mut self, core: &mut Core, c: ClientId) {
        let round = self.next_round;
        self.next_round += 1;
        let value = core.draw(0x1000_0000_0000, 0xffff_ffff_ffff);
        let side = self.side(c);
        *side = Side {
            phase: Phase::Acquiring,
            round,
            value: Some(value),
            start: core.now,
            attempt: side.attempt + 1,
            renew_gen: side.renew_gen + 1,
            deadline_gen: side.deadline_gen + 1,
            ..Side::default()
        };
        let px_ms = self.ttl_ms;
        self.broadcast(
            core,
            c,
            |_| Body::RedisSet {
                value,
                px_ms,
                round,
            },
            0,
        );
    }

    fn start_extension(&mut self, core: &mut Core, c: ClientId) {
        let Some(value) = self.side[c.index()].value else {
            return;
        };
        let round = self.next_round;
        self.next_round += 1;
        let side = self.side(c);
        side.phase = Phase::Extending;
        side.round = round;
        side.start = core.now;
        side.replies = 0;
        side.oks = 0;
        let px_ms = self.ttl_ms;
        let blind = self.options.extend == ExtendMode::BlindSet;
        self.broadcast(
            core,
            c,
            |_| Body::RedisExtend {
                value,
                px_ms,
                blind,
                round,
            },
            1,
        );
    }

    /// All answers are in, or the timeout fired: count them.
    fn finish_attempt(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        let (oks, start, attempt, round) = (side.oks, side.start, side.attempt, side.round);
        let validity = validity_ms(self.ttl_ms, start.until(core.now));
        if oks >= QUORUM && validity > 0 {
            self.side(c).phase = Phase::Fencing;
            let node1 = Endpoint::Node(NodeId::new(1).expect("node 1 exists"));
            core.send(Endpoint::Client(c), node1, Body::RedisIncr { round });
            core.client_timer(
                c,
                self.request_timeout_ms(),
                ClientTimer::RedlockNodeTimeout { round, step: 2 },
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
        self.unlock_all(core, c, false);
        if attempt >= ATTEMPTS_MAX {
            self.side(c).value = None;
            fail(core, c, failure);
            return;
        }
        let delay = core.draw(
            RETRY_DELAY_MS - RETRY_JITTER_MS,
            RETRY_DELAY_MS + RETRY_JITTER_MS,
        );
        core.record(Event::AcquireRetry {
            client: c,
            failure,
            attempt: attempt + 1,
            retry_at: core.now.plus(delay),
        });
        let round = self.side[c.index()].round;
        core.client_timer(c, delay, ClientTimer::RedlockRetry { round });
    }

    /// The lock is held; the token is whatever node 1 answered, if anything.
    fn finish_fencing(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        let (start, value, fence) = (side.start, side.value.unwrap_or_default(), side.fence);
        let until = start.plus(self.ttl_ms - drift_ms(self.ttl_ms));
        if core.now >= until {
            // The token came back after the lease it was for.
            self.unlock_all(core, c, false);
            self.forget(c);
            let validity_ms = validity_ms(self.ttl_ms, start.until(core.now));
            fail(core, c, AcquireFailure::NoValidity { validity_ms });
            return;
        }
        if let Some(f) = fence {
            self.fence_of.insert(value, f);
        }
        grant(core, c, fence.map(Token), value, Some(until));
        self.arm_renew(core, c);
        self.arm_deadline(core, c, until);
    }

    fn finish_extension(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        let (oks, start) = (side.oks, side.start);
        let validity = validity_ms(self.ttl_ms, start.until(core.now));
        if !core.client(c).belief.is_holding() {
            return;
        }
        if oks >= QUORUM && validity > 0 {
            let until = start.plus(self.ttl_ms - drift_ms(self.ttl_ms));
            extend_belief(core, c, Some(until));
            self.arm_renew(core, c);
            self.arm_deadline(core, c, until);
        } else {
            self.forget(c);
            lose(core, c, LossReason::ExtensionFailed);
        }
    }

    fn unlock_all(&mut self, core: &mut Core, c: ClientId, plain_del: bool) {
        let Some(value) = self.side[c.index()].value else {
            return;
        };
        for n in NodeId::all() {
            core.send(
                Endpoint::Client(c),
                Endpoint::Node(n),
                Body::RedisUnlock { value, plain_del },
            );
        }
    }

    fn arm_renew(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.renew_gen += 1;
        let gen = side.renew_gen;
        core.client_timer(c, renew_every_ms(self.ttl_ms), ClientTimer::Renew { gen });
    }

    fn arm_deadline(&mut self, core: &mut Core, c: ClientId, until: Millis) {
        let side = self.side(c);
        side.deadline_gen += 1;
        let gen = side.deadline_gen;
        core.client_timer(c, core.now.until(until), ClientTimer::LeaseDeadline { gen });
    }

    fn forget(&mut self, c: ClientId) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        side.value = None;
        side.renew_gen += 1;
        side.deadline_gen += 1;
    }

    /// (Re)arms the node's expiry timer for its key.
    fn schedule_expiry(&self, core: &mut Core, n: NodeId) {
        let node = &self.nodes[n.index()];
        if let Some(key) = node.key {
            core.service_timer(
                node.expiry_virtual(&key),
                ServiceTimer::RedisKeyExpiry { node: n },
            );
        }
    }

    fn set_key(&mut self, core: &mut Core, n: NodeId, c: ClientId, value: u64, px_ms: u64) {
        let node = self.node(n);
        let expires_at_clock = node.clock(core.now) + px_ms as i64;
        node.key = Some(RedisKey {
            owner: c,
            value,
            expires_at_clock,
            set_at: core.now,
        });
        self.schedule_expiry(core, n);
        core.record(Event::Service(ServiceEvent::RedisKeySet {
            node: n,
            client: c,
        }));
    }

    fn on_node_message(&mut self, core: &mut Core, c: ClientId, n: NodeId, body: Body) {
        let node = &self.nodes[n.index()];
        let reply_delay = node.slow_ms;
        let down = node.down;
        let live = node.live_key(core.now);
        if node.key.is_some() && live.is_none() && !down {
            self.expire(core, n); // Lazy expiry, as a GET would do.
        }
        let reply = match body {
            Body::RedisSet { round, .. }
            | Body::RedisExtend { round, .. }
            | Body::RedisIncr { round }
                if down =>
            {
                Body::RedisRefused { round }
            }
            Body::RedisSet {
                value,
                px_ms,
                round,
            } => {
                let ok = live.is_none();
                if ok {
                    self.set_key(core, n, c, value, px_ms);
                }
                Body::RedisSetReply { ok, round }
            }
            Body::RedisIncr { round } => {
                let node = self.node(n);
                node.fence += 1;
                Body::RedisIncrReply {
                    fence: node.fence,
                    round,
                }
            }
            Body::RedisExtend {
                value,
                px_ms,
                blind,
                round,
            } => {
                let mine = live.is_some_and(|k| k.value == value);
                // A blind SET takes the key whoever holds it: a renewal that
                // arrives after expiry silently re-acquires.
                let ok = mine || blind;
                if mine {
                    let node = self.node(n);
                    let expires_at_clock = node.clock(core.now) + px_ms as i64;
                    if let Some(key) = node.key.as_mut() {
                        key.expires_at_clock = expires_at_clock;
                    }
                    self.schedule_expiry(core, n);
                } else if ok {
                    self.set_key(core, n, c, value, px_ms);
                }
                Body::RedisExtendReply { ok, round }
            }
            Body::RedisUnlock { value, plain_del } => {
                if let Some(key) = live.filter(|k| plain_del || k.value == value) {
                    self.node(n).key = None;
                    core.record(Event::Service(ServiceEvent::RedisKeyDeleted {
                        node: n,
                        owner: key.owner,
                        by: c,
                    }));
                }
                return;
            }
            _ => return,
        };
        core.send_delayed(Endpoint::Node(n), Endpoint::Client(c), reply, reply_delay);
    }

    fn expire(&mut self, core: &mut Core, n: NodeId) {
        if let Some(key) = self.node(n).key.take() {
            core.record(Event::Service(ServiceEvent::RedisKeyExpired {
                node: n,
                client: key.owner,
            }));
        }
    }

    fn on_reply(&mut self, core: &mut Core, c: ClientId, body: Body) {
        let (round, ok, fence) = match body {
            Body::RedisSetReply { ok, round } => (round, ok, None),
            Body::RedisIncrReply { fence, round } => (round, true, Some(fence)),
            Body::RedisExtendReply { ok, round } => (round, ok, None),
            Body::RedisRefused { round } => (round, false, None),
            _ => return,
        };
        let side = self.side(c);
        if side.round != round || side.phase == Phase::Idle {
            return; // A late answer to a round already decided.
        }
        if side.phase == Phase::Fencing {
            side.fence = fence;
            self.finish_fencing(core, c);
            return;
        }
        side.replies += 1;
        side.oks += u8::from(ok);
        if usize::from(side.replies) < NODES {
            return;
        }
        match side.phase {
            Phase::Acquiring => self.finish_attempt(core, c),
            Phase::Extending => self.finish_extension(core, c),
            Phase::Fencing | Phase::Idle => {}
        }
    }

    fn bring_up(&mut self, core: &mut Core, n: NodeId) {
        let keeps_data = self.options.persistence == Persistence::Fsync;
        let node = self.node(n);
        node.down = false;
        node.restart_at = None;
        node.crashed_at = None;
        if !keeps_data {
            node.key = None;
            let had_fence = node.fence > 0;
            node.fence = 0;
            if had_fence {
                core.record(Event::Service(ServiceEvent::RedisFenceReset { node: n }));
            }
        }
        core.record(Event::NodeRestarted {
            node: n,
            empty: !keeps_data,
        });
        let node = &self.nodes[n.index()];
        if node.key.is_some() && node.live_key(core.now).is_none() {
            self.expire(core, n);
        }
        self.schedule_expiry(core, n);
    }

    /// The lock value held on a quorum of live nodes: the quorum formed when
    /// its third key was set, and lasts until all but two have expired.
    /// Runs after every event, so it allocates nothing.
    fn quorum(&self, now: Millis) -> Option<(RedisKey, Millis, Millis)> {
        let mut live: [Option<(RedisKey, Millis)>; NODES] = [None; NODES];
        for (slot, node) in live.iter_mut().zip(&self.nodes) {
            *slot = node.live_key(now).map(|k| (k, node.expiry_virtual(&k)));
        }
        let first = live.iter().flatten().find(|(k, _)| {
            live.iter()
                .flatten()
                .filter(|(o, _)| o.value == k.value)
                .count()
                >= usize::from(QUORUM)
        })?;
        let value = first.0.value;
        let mut set_at = [Millis(u64::MAX); NODES];
        let mut expiry = [Millis(0); NODES];
        for (i, (k, e)) in live
            .iter()
            .flatten()
            .filter(|(k, _)| k.value == value)
            .enumerate()
        {
            set_at[i] = k.set_at;
            expiry[i] = *e;
        }
        set_at.sort_unstable();
        expiry.sort_unstable_by(|a, b| b.cmp(a));
        let q = usize::from(QUORUM) - 1;
        Some((first.0, set_at[q], expiry[q]))
    }
}

impl LockService for RedlockService {
    fn acquire(&mut self, core: &mut Core, c: ClientId) {
        self.side(c).attempt = 0;
        self.start_attempt(core, c);
    }

    fn release(&mut self, core: &mut Core, c: ClientId) {
        let plain_del = self.options.release == ReleaseMode::PlainDel;
        self.unlock_all(core, c, plain_del);
        self.forget(c);
    }

    fn on_message(&mut self, core: &mut Core, msg: Message) {
        match (msg.from, msg.to) {
            (Endpoint::Client(c), Endpoint::Node(n)) => self.on_node_message(core, c, n, msg.body),
            (Endpoint::Node(_), Endpoint::Client(c)) => self.on_reply(core, c, msg.body),
            _ => {}
        }
    }

    fn on_client_timer(&mut self, core: &mut Core, c: ClientId, timer: ClientTimer) {
        let side = &self.side[c.index()];
        match timer {
            ClientTimer::RedlockNodeTimeout { round, .. } if round == side.round => {
                match side.phase {
                    Phase::Acquiring => self.finish_attempt(core, c),
                    Phase::Fencing => self.finish_fencing(core, c),
                    Phase::Extending => self.finish_extension(core, c),
                    Phase::Idle => {}
                }
            }
            ClientTimer::RedlockRetry { round }
                if round == side.round
                    && side.phase == Phase::Idle
                    && core.client(c).belief == Belief::Acquiring =>
            {
                self.start_attempt(core, c);
            }
            ClientTimer::Renew { gen }
                if gen == side.renew_gen
                    && core.client(c).belief.is_holding()
                    && core.client(c).renewal =>
            {
                self.start_extension(core, c);
            }
            ClientTimer::LeaseDeadline { gen }
                if gen == side.deadline_gen && core.client(c).belief.is_holding() =>
            {
                self.forget(c);
                lose(core, c, LossReason::LocalDeadline);
            }
            _ => {}
        }
    }

    fn on_service_timer(&mut self, core: &mut Core, timer: ServiceTimer) {
        match timer {
            ServiceTimer::RedisKeyExpiry { node: n } => {
                let node = &self.nodes[n.index()];
                let due = node
                    .key
                    .is_some_and(|k| node.expiry_virtual(&k) <= core.now && !node.down);
                if due {
                    self.expire(core, n);
                }
            }
            ServiceTimer::RedisRestart { node: n }
                if self.nodes[n.index()].restart_at == Some(core.now) =>
            {
                self.bring_up(core, n);
            }
            _ => {}
        }
    }

    fn on_crash(&mut self, _core: &mut Core, c: ClientId) {
        self.side[c.index()] = Side::default();
    }

    fn on_renewal_on(&mut self, core: &mut Core, c: ClientId) {
        if core.client(c).belief.is_holding() {
            self.arm_renew(core, c);
        }
    }

    fn check_node_command(&self, n: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        let node = &self.nodes[n.index()];
        match cmd {
            NodeCommand::Crash if node.down => Err(CommandError::NodeDown { node: n }),
            NodeCommand::Restart if !node.down => Err(CommandError::NodeUp { node: n }),
            NodeCommand::ClockJump { jump_ms } => {
                if jump_ms == 0 || jump_ms.abs() > CLOCK_JUMP_MS_MAX {
                    Err(CommandError::ClockJumpOutOfRange { jump_ms })
                } else {
                    Ok(())
                }
            }
            NodeCommand::Slow { extra_ms } if extra_ms > SLOW_MS_MAX => {
                Err(CommandError::DelayOutOfRange { extra_ms })
            }
            _ => Ok(()),
        }
    }

    fn node_command(&mut self, core: &mut Core, n: NodeId, cmd: NodeCommand) {
        let keeps_data = self.options.persistence == Persistence::Fsync;
        match cmd {
            NodeCommand::Crash => {
                let node = self.node(n);
                node.down = true;
                node.crashed_at = Some(core.now);
                node.restart_at = None;
                core.record(Event::NodeCrashed {
                    node: n,
                    keeps_data,
                });
            }
            NodeCommand::Restart => {
                let crashed_at = self.nodes[n.index()].crashed_at.unwrap_or(core.now);
                // A delayed restart keeps the node down longer than any lease
                // it may have granted.
                let ready = crashed_at.plus(self.ttl_ms);
                if self.options.restart == RestartPolicy::Delayed && core.now < ready {
                    self.node(n).restart_at = Some(ready);
                    core.service_timer(ready, ServiceTimer::RedisRestart { node: n });
                    core.record(Event::NodeRestartDelayed {
                        node: n,
                        until: ready,
                    });
                } else {
                    self.bring_up(core, n);
                }
            }
            NodeCommand::ClockJump { jump_ms } => {
                self.node(n).clock_offset_ms += jump_ms;
                core.record(Event::ClockJumped { node: n, jump_ms });
                let node = &self.nodes[n.index()];
                if node.key.is_some() && node.live_key(core.now).is_none() && !node.down {
                    self.expire(core, n);
                }
                self.schedule_expiry(core, n);
            }
            NodeCommand::Slow { extra_ms } => {
                self.node(n).slow_ms = extra_ms;
                core.record(Event::NodeSlow { node: n, extra_ms });
            }
        }
    }

    fn holder(&self, core: &Core) -> Option<HolderView> {
        let (key, since, until) = self.quorum(core.now)?;
        Some(HolderView {
            client: key.owner,
            token: self.fence_of.get(&key.value).map(|&f| Token(f)),
            lease_key: key.value,
            since,
            until: Some(until),
        })
    }

    fn lease_end(&self, core: &Core, c: ClientId) -> Option<Millis> {
        self.holder(core).filter(|h| h.client == c)?.until
    }

    fn detail(&self, core: &Core) -> ServiceDetail {
        let nodes = NodeId::all()
            .map(|n| {
                let node = &self.nodes[n.index()];
                let clock = node.clock(core.now);
                RedisNodeView {
                    node: n,
                    up: !node.down,
                    clock_offset_ms: node.clock_offset_ms,
                    clock_ms: clock,
                    slow_ms: node.slow_ms,
                    key: node.live_key(core.now).map(|k| RedisKeyView {
                        owner: k.owner,
                        value: k.value,
                        ttl_left_ms: (k.expires_at_clock - clock).max(0) as u64,
                    }),
                    fence: node.fence,
                    restart_at: node.restart_at,
                }
            })
            .collect();
        ServiceDetail::Redlock { nodes }
    }

    fn monotonic_tokens(&self) -> bool {
        false
    }
}
