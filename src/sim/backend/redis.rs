//! A single Redis master with one replica, the lock most production code
//! runs (redis-py's `Lock`, Redisson's `RLock`): `SET lock <random> NX PX
//! ttl` and `INCR fence` in one script, one round trip. A taken key means
//! "try again after a short sleep": there is no queue. Release and
//! extension are scripts that check the value first.
//!
//! The replica copies the master asynchronously, a little behind. When the
//! master dies, Sentinel promotes the replica once the master has been
//! down for `down-after-milliseconds`; whatever had not been copied is
//! gone: the lock key (so a second client gets the "same" lock) and the
//! last `INCR`s (so a token repeats or goes back). With `WAIT 1` the
//! client waits for the replica's copy and gives the lock up when none
//! comes: the acquisition fails instead of silently being lost later.
//! As in Redis, `WAIT` blocks until the replica has acknowledged every
//! write made before it, or until its timeout: a replica that is down
//! never acknowledges, so the answer is then 0 at the timeout.
//!
//! The client believes it holds until an extension or release finds its
//! value gone: it has no deadline of its own (neither library sets one).

use super::redis_node::Node;
use super::redlock::{RedisMsg, RedisNodeView};
use super::{renew_every_ms, HolderView, LockSystem, ServiceRng};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Config, NodeCommand, RedisOptions};
use crate::sim::types::{ClientId, Millis, NodeId, Persistence, ReleaseMode, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// The two servers: R1 starts as the master, R2 as its replica.
pub const SERVERS: usize = 2;
/// How far the replica's copy runs behind the master on a healthy LAN.
pub const REPLICATION_LAG_MS: u64 = 20;
/// Sentinel's `down-after-milliseconds` (default 30000 in sentinel.conf;
/// the page's 5 s TTL stands for the 30 s of Redisson's lock watchdog, so
/// 30 s is 5 s here), plus the half second an election and promotion take.
pub const DOWN_AFTER_MS: u64 = 5_000;
pub const PROMOTION_MS: u64 = 500;
/// redis-py's blocking `Lock.acquire` sleeps 0.1 s between tries.
pub const RETRY_MS: u64 = 100;
/// How long the client waits for an answer before it counts the try as
/// failed: a dead master does not answer at all.
pub const REPLY_TIMEOUT_MS: u64 = 500;
/// `WAIT 1 timeout`: how long the master waits for the replica's ack.
pub const WAIT_TIMEOUT_MS: u64 = 100;
/// The most copies waiting to reach the replica; older ones are merged.
const BACKLOG_MAX: usize = 64;

/// The single-Redis protocol: a client's commands to the master (Redis
/// commands as Redlock sends them) and `WAIT 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum SingleRedisMsg {
    #[serde(rename = "redis-command")]
    Command { cmd: RedisMsg },
    #[serde(rename = "redis-answer")]
    Answer { cmd: RedisMsg },
    /// `WAIT 1 timeout` after the lock was set.
    #[serde(rename = "redis-wait")]
    Wait { round: u32 },
    #[serde(rename = "redis-wait-reply")]
    WaitReply { replicas: u8, round: u32 },
}

// A Redis command behind a tag of its own: 32 bytes, with room left in
// that tag for `Msg`'s, which keeps `Msg` at 32 bytes too.
const _: () = assert!(size_of::<SingleRedisMsg>() <= 32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RedisTimer {
    /// Time to extend the lock.
    Renew { gen: u64 },
    /// No answer came for this round.
    ReplyTimeout { round: u32 },
    /// Try the `SET` again.
    Retry { round: u32 },
    /// A key reaches its expiry by the server's clock.
    KeyExpiry { node: NodeId },
    /// The replica applies the copies that have reached it.
    Replicate,
    /// A `WAIT`'s timeout: the master answers with the replicas that
    /// acknowledged, none if it is still blocked.
    WaitTimeout { client: ClientId, round: u32 },
    /// Sentinel promotes the replica if the master is still down.
    Promote { epoch: u32 },
}

/// The two servers, their roles and Sentinel, for the panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedisDetail {
    pub servers: Vec<RedisServerView>,
    /// When Sentinel will promote the replica, while the master is down.
    pub promotion_at: Option<Millis>,
    /// Copies the replica has not applied yet.
    pub replica_behind: u32,
    pub wait_replica: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedisServerView {
    pub node: RedisNodeView,
    pub master: bool,
}

/// What the master's data looked like after a write, on its way to the replica.
#[derive(Debug, Clone, Copy, Hash)]
struct Replicated {
    at: Millis,
    /// The master's replication offset after this write.
    offset: u64,
    key: Option<super::redis_node::RedisKey>,
    fence: u64,
}

/// A client blocked in `WAIT 1`: it is answered once the replica has
/// applied the master's writes up to `offset`, or at its timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct BlockedWait {
    client: ClientId,
    round: u32,
    offset: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
enum Phase {
    #[default]
    Idle,
    Setting,
    /// The key is set; waiting for `WAIT 1`'s answer.
    Waiting,
    Extending,
}

/// One client's library state.
#[derive(Debug, Clone, Default, Hash)]
struct Side {
    phase: Phase,
    round: u32,
    value: Option<u64>,
    fence: Option<u64>,
    start_local: i64,
    renew_gen: u64,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct Redis {
    ttl_ms: u64,
    options: RedisOptions,
    servers: [Node; SERVERS],
    master: usize,
    /// Grows with every promotion: answers due from an older master are dropped.
    epoch: u32,
    backlog: Vec<Replicated>,
    /// Redis's `master_repl_offset`, counted in writes: one per copy sent.
    master_offset: u64,
    /// The offset the replica has applied and acknowledged.
    replica_offset: u64,
    /// Clients blocked in `WAIT`, by client: one round each at most.
    blocked: [Option<BlockedWait>; 4],
    promotion_at: Option<Millis>,
    /// Copies that died with the master, told when Sentinel promotes.
    lost_writes: u32,
    side: [Side; 4],
    /// Rounds started so far: each gets the next number.
    rounds: u32,
    fence_of: LiteMap<u64, u64>,
    rng: ServiceRng,
}

impl LockSystem for Redis {
    type Msg = SingleRedisMsg;
    type Timer = RedisTimer;
    type Detail = RedisDetail;
    const NAME: &'static str = "Redis";
    const LEASE_WORD: &'static str = "key TTL";
    /// One round trip to one server: 0.2-1 ms.
    const LATENCY_US: (u64, u64) = (100, 500);
    const MONOTONIC_TOKENS: bool = false;
    const TOKEN_SHORT: &'static str = "INCR counter on the master";
    const TOKEN_LINE: &'static str =
        "the lock value is random (unique, not ordered); token = INCR fence counter on the master, which a failover can repeat";
    const SERVICE_SAYS: &'static str = "the Redis master says";
    const RENEWAL: &'static str = "extends its key if the value is still its own";

    fn new(config: &Config) -> Redis {
        Redis {
            ttl_ms: config.ttl_ms,
            options: config.redis,
            servers: Default::default(),
            master: 0,
            epoch: 0,
            backlog: Vec::new(),
            master_offset: 0,
            replica_offset: 0,
            blocked: [None; 4],
            promotion_at: None,
            lost_writes: 0,
            side: Default::default(),
            rounds: 0,
            fence_of: LiteMap::new(),
            rng: ServiceRng::new(config.seed),
        }
    }

    fn on_input(
        &mut self,
        view: &View,
        input: Input<SingleRedisMsg, RedisTimer>,
        out: &mut Effects,
    ) {
        match input {
            Input::Acquire(c) => self.try_set(view, c, out),
            Input::Release(c) => {
                self.unlock(c, self.options.release, out);
                self.forget(c);
            }
            Input::Message {
                from: Endpoint::Client(c),
                to: Endpoint::Service,
                body,
            } => self.on_server_message(view, c, body, out),
            Input::Message {
                from: Endpoint::Service,
                to: Endpoint::Client(c),
                body,
            } => self.on_answer(view, c, body, out),
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            Input::ServiceTimer(timer) => self.on_service_timer(view, timer, out),
            // The key lives until its TTL whether or not the socket closed.
            Input::Crashed(c) | Input::Exited(c) => self.side[c.index()] = Side::default(),
            Input::RenewalOn(c) if view.belief(c).is_holding() => self.arm_renew(c, out),
            Input::Node(n, cmd) => self.node_command(view, n, cmd, out),
            _ => {}
        }
    }

    fn holder(&self, view: &View) -> Option<HolderView> {
        let master = &self.servers[self.master];
        let key = master.live_key(view.now)?;
        Some(HolderView {
            client: key.owner,
            token: self.fence_of.get(&key.value).map(|&f| Token(f)),
            lease_key: key.value,
            since: key.set_at,
            until: Some(master.expiry_virtual(&key, view.now)),
        })
    }

    fn lease_end(&self, view: &View, c: ClientId) -> Option<Millis> {
        self.holder(view).filter(|h| h.client == c)?.until
    }

    fn detail(&self, view: &View) -> RedisDetail {
        let servers = (0..SERVERS)
            .map(|i| RedisServerView {
                node: self.servers[i].view(server_id(i), view.now),
                master: i == self.master,
            })
            .collect();
        RedisDetail {
            servers,
            promotion_at: self.promotion_at,
            replica_behind: self.backlog.len() as u32,
            wait_replica: self.options.wait_replica,
        }
    }

    fn check_node(&self, n: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        let Some(node) = self.servers.get(n.index()) else {
            return Err(CommandError::Unsupported {
                why: "single Redis has two servers, R1 and R2",
            });
        };
        let replica = &self.servers[1 - self.master];
        match cmd {
            NodeCommand::Failover if n.index() != self.master => Err(CommandError::Unsupported {
                why: "only the master fails over: pick the server marked master",
            }),
            NodeCommand::Failover if node.down || replica.down => Err(CommandError::Unsupported {
                why: "a failover needs a live master and a live replica to promote",
            }),
            _ => node.check(n, cmd),
        }
    }

    /// A closed socket ends nothing in Redis: the key lives until its TTL.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let first = if exited {
            "the socket closed, which ends nothing in Redis"
        } else {
            "Redis hears nothing"
        };
        super::lease_note(
            first,
            "its key lives until its TTL runs out",
            self.lease_end(view, c),
        )
    }

    fn label(msg: &SingleRedisMsg) -> String {
        match msg {
            SingleRedisMsg::Command { cmd } | SingleRedisMsg::Answer { cmd } => {
                super::redlock::Redlock::label(cmd)
            }
            SingleRedisMsg::Wait { .. } => "WAIT 1".into(),
            SingleRedisMsg::WaitReply { replicas, .. } => format!("{replicas} replica acked"),
        }
    }
}

impl Redis {
    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn new_round(&mut self, c: ClientId) -> u32 {
        let round = super::count_up(&mut self.rounds);
        self.side(c).round = round;
        round
    }

    /// Sends a command to the master and waits a while for its answer.
    fn command(&mut self, c: ClientId, cmd: RedisMsg, out: &mut Effects) {
        let round = self.side[c.index()].round;
        out.ask(c, SingleRedisMsg::Command { cmd });
        out.client_timer(c, REPLY_TIMEOUT_MS, RedisTimer::ReplyTimeout { round });
    }

    fn try_set(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let value = self.rng.draw(0x1000_0000_0000, 0xffff_ffff_ffff);
        let round = self.new_round(c);
        let side = self.side(c);
        side.phase = Phase::Setting;
        side.value = Some(value);
        side.fence = None;
        side.start_local = view.local_now(c);
        let px_ms = self.ttl_ms;
        self.command(
            c,
            RedisMsg::SetFence {
                value,
                px_ms,
                round,
            },
            out,
        );
    }

    fn unlock(&mut self, c: ClientId, mode: ReleaseMode, out: &mut Effects) {
        if let Some(value) = self.side[c.index()].value {
            out.ask(
                c,
                SingleRedisMsg::Command {
                    cmd: RedisMsg::Unlock { value, mode },
                },
            );
        }
    }

    fn forget(&mut self, c: ClientId) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        side.value = None;
        side.fence = None;
        side.renew_gen += 1;
    }

    fn arm_renew(&mut self, c: ClientId, out: &mut Effects) {
        let every = renew_every_ms(self.ttl_ms);
        let side = self.side(c);
        side.renew_gen += 1;
        let gen = side.renew_gen;
        out.client_timer(c, every, RedisTimer::Renew { gen });
    }

    /// The key's end as the client reckons it: TTL after it asked, by its
    /// own clock. Only the card shows it; the client keeps believing after.
    fn until(&self, view: &View, c: ClientId) -> Millis {
        view.when_reads(c, self.side[c.index()].start_local + self.ttl_ms as i64)
    }

    fn grant(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        let (value, fence) = (side.value.unwrap_or_default(), side.fence);
        out.grant(c, fence.map(Token), value, Some(self.until(view, c)));
        self.arm_renew(c, out);
    }

    /// A try that did not take the key: sleep, then try again.
    fn retry(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        side.phase = Phase::Idle;
        let round = side.round;
        out.client_timer(c, RETRY_MS, RedisTimer::Retry { round });
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: SingleRedisMsg, out: &mut Effects) {
        let side = &self.side[c.index()];
        let round = match &body {
            SingleRedisMsg::Answer {
                cmd:
                    RedisMsg::SetFenceReply { round, .. }
                    | RedisMsg::ExtendReply { round, .. }
                    | RedisMsg::Refused { round },
            }
            | SingleRedisMsg::WaitReply { round, .. } => *round,
            _ => return,
        };
        if round != side.round || side.phase == Phase::Idle {
            return; // A late answer to a round already decided.
        }
        match (side.phase, body) {
            (
                Phase::Setting,
                SingleRedisMsg::Answer {
                    cmd: RedisMsg::SetFenceReply { fence: Some(f), .. },
                },
            ) => {
                self.side(c).fence = Some(f);
                if self.options.wait_replica {
                    self.side(c).phase = Phase::Waiting;
                    out.ask(c, SingleRedisMsg::Wait { round });
                    out.client_timer(c, REPLY_TIMEOUT_MS, RedisTimer::ReplyTimeout { round });
                } else {
                    self.grant(view, c, out);
                }
            }
            (Phase::Setting, _) => self.retry(c, out),
            (Phase::Waiting, SingleRedisMsg::WaitReply { replicas, .. }) if replicas >= 1 => {
                self.grant(view, c, out);
            }
            (Phase::Waiting, _) => self.no_replica(c, out),
            (
                Phase::Extending,
                SingleRedisMsg::Answer {
                    cmd: RedisMsg::ExtendReply { ok: true, .. },
                },
            ) => {
                self.side(c).phase = Phase::Idle;
                let until = self.until(view, c);
                out.extend(c, Some(until));
                self.arm_renew(c, out);
            }
            (
                Phase::Extending,
                SingleRedisMsg::Answer {
                    cmd: RedisMsg::ExtendReply { ok: false, .. },
                },
            ) if view.belief(c).is_holding() => {
                self.forget(c);
                out.lose(c, LossReason::NotMine);
            }
            // A refused extension (master down) is tried again next period.
            (Phase::Extending, _) => {
                self.side(c).phase = Phase::Idle;
                self.arm_renew(c, out);
            }
            (Phase::Idle, _) => {}
        }
    }

    /// `WAIT 1` found no replica with the key: give the key back and fail,
    /// as Redisson does, rather than hold a lock a failover would lose.
    fn no_replica(&mut self, c: ClientId, out: &mut Effects) {
        self.unlock(c, ReleaseMode::CheckValue, out);
        self.forget(c);
        out.fail(c, AcquireFailure::NoReplicaAck);
    }

    fn on_client_timer(&mut self, view: &View, c: ClientId, timer: RedisTimer, out: &mut Effects) {
        let side = &self.side[c.index()];
        let belief = view.belief(c);
        match timer {
            RedisTimer::ReplyTimeout { round } if round == side.round => match side.phase {
                Phase::Setting => self.retry(c, out),
                Phase::Waiting => self.no_replica(c, out),
                Phase::Extending => {
                    self.side(c).phase = Phase::Idle;
                    self.arm_renew(c, out);
                }
                Phase::Idle => {}
            },
            RedisTimer::Retry { round }
                if round == side.round
                    && side.phase == Phase::Idle
                    && belief == crate::sim::client::Belief::Acquiring =>
            {
                self.try_set(view, c, out);
            }
            RedisTimer::Renew { gen }
                if gen == side.renew_gen && belief.is_holding() && view.renewal(c) =>
            {
                let Some(value) = side.value else {
                    return;
                };
                let round = self.new_round(c);
                let side = self.side(c);
                side.phase = Phase::Extending;
                side.start_local = view.local_now(c);
                let (px_ms, mode) = (self.ttl_ms, self.options.extend);
                self.command(
                    c,
                    RedisMsg::Extend {
                        value,
                        px_ms,
                        mode,
                        round,
                    },
                    out,
                );
            }
            _ => {}
        }
    }

    fn master_id(&self) -> NodeId {
        server_id(self.master)
    }

    /// The master runs a client's command; what it changed is copied to
    /// the replica a little later.
    fn on_server_message(
        &mut self,
        view: &View,
        c: ClientId,
        body: SingleRedisMsg,
        out: &mut Effects,
    ) {
        let n = self.master_id();
        let master = &mut self.servers[self.master];
        if master.down {
            // Nobody answers for a dead master: the client's timeout decides.
            return;
        }
        let delay = master.slow_ms;
        match body {
            SingleRedisMsg::Command { cmd } => {
                let before = (master.key, master.fence);
                let handled = master.handle(view.now, n, c, cmd, out);
                if handled.rearm {
                    self.schedule_expiry(view, self.master, out);
                }
                let master = &self.servers[self.master];
                if before != (master.key, master.fence) {
                    self.copy_to_replica(view, out);
                }
                if let Some(RedisMsg::SetFenceReply { fence: Some(f), .. }) = handled.reply {
                    if let Some(key) = self.servers[self.master].key {
                        self.fence_of.insert(key.value, f);
                    }
                }
                if let Some(cmd) = handled.reply {
                    out.send_delayed(
                        Endpoint::Service,
                        Endpoint::Client(c),
                        SingleRedisMsg::Answer { cmd },
                        delay,
                    );
                }
            }
            SingleRedisMsg::Wait { round } => self.wait(view, c, round, out),
            _ => {}
        }
    }

    /// `WAIT 1 timeout`: answers at once if the replica has acknowledged
    /// every write so far, else blocks the client until it has or the
    /// timeout passes.
    fn wait(&mut self, view: &View, c: ClientId, round: u32, out: &mut Effects) {
        let offset = self.master_offset;
        if self.replica_acked(offset) {
            out.answer(c, SingleRedisMsg::WaitReply { replicas: 1, round });
            return;
        }
        self.blocked[c.index()] = Some(BlockedWait {
            client: c,
            round,
            offset,
        });
        let at = view.now.plus(WAIT_TIMEOUT_MS);
        out.service_timer(at, RedisTimer::WaitTimeout { client: c, round });
    }

    /// Whether a live replica has applied the master's writes up to `offset`.
    fn replica_acked(&self, offset: u64) -> bool {
        !self.servers[1 - self.master].down && self.replica_offset >= offset
    }

    /// The replica's acknowledgement reaches the master: every client it
    /// satisfies is answered.
    fn unblock(&mut self, out: &mut Effects) {
        if self.servers[self.master].down {
            return;
        }
        for slot in &mut self.blocked {
            if let Some(BlockedWait { client, round, .. }) =
                slot.filter(|w| self.replica_offset >= w.offset)
            {
                *slot = None;
                out.answer(client, SingleRedisMsg::WaitReply { replicas: 1, round });
            }
        }
    }

    fn replica_lag_ms(&self) -> u64 {
        REPLICATION_LAG_MS + self.servers[1 - self.master].slow_ms
    }

    fn copy_to_replica(&mut self, view: &View, out: &mut Effects) {
        let master = &self.servers[self.master];
        self.master_offset += 1;
        let copy = Replicated {
            at: view.now.plus(self.replica_lag_ms()),
            offset: self.master_offset,
            key: master.key,
            fence: master.fence,
        };
        if self.backlog.len() >= BACKLOG_MAX {
            self.backlog.remove(0);
        }
        self.backlog.push(copy);
        out.service_timer(copy.at, RedisTimer::Replicate);
    }

    fn schedule_expiry(&self, view: &View, i: usize, out: &mut Effects) {
        let node = &self.servers[i];
        if let Some(key) = node.key {
            let node_id = server_id(i);
            out.service_timer(
                node.expiry_virtual(&key, view.now),
                RedisTimer::KeyExpiry { node: node_id },
            );
        }
    }

    fn on_service_timer(&mut self, view: &View, timer: RedisTimer, out: &mut Effects) {
        match timer {
            RedisTimer::KeyExpiry { node: n } => {
                let i = n.index();
                let node = &self.servers[i];
                // Only the master expires keys; a replica waits for its DEL.
                let due = i == self.master
                    && !node.down
                    && node
                        .key
                        .is_some_and(|k| node.expiry_virtual(&k, view.now) <= view.now);
                if due {
                    self.servers[i].expire(n, out);
                    self.copy_to_replica(view, out);
                }
            }
            RedisTimer::Replicate => self.replicate(view, out),
            RedisTimer::WaitTimeout { client, round } => {
                let slot = &mut self.blocked[client.index()];
                if slot.is_some_and(|w| w.round == round) {
                    // Still blocked: the replica did not acknowledge in time.
                    *slot = None;
                    if !self.servers[self.master].down {
                        out.answer(client, SingleRedisMsg::WaitReply { replicas: 0, round });
                    }
                }
            }
            RedisTimer::Promote { epoch } if epoch == self.epoch => self.promote(view, out),
            _ => {}
        }
    }

    /// The replica applies every copy that has reached it and acknowledges
    /// them. A replica that is down gets nothing: the copies wait in the
    /// backlog until it rejoins and resyncs.
    fn replicate(&mut self, view: &View, out: &mut Effects) {
        let replica = 1 - self.master;
        if self.servers[replica].down {
            return;
        }
        let arrived = self.backlog.iter().take_while(|c| c.at <= view.now).count();
        let Some(copy) = self.backlog.drain(..arrived).next_back() else {
            return;
        };
        let node = &mut self.servers[replica];
        node.key = copy.key;
        node.fence = copy.fence;
        node.resync_expiry(view.now);
        self.replica_offset = copy.offset;
        self.unblock(out);
    }

    /// The master's clients lose their connections: nobody stays blocked.
    fn drop_blocked(&mut self) {
        self.blocked = [None; 4];
    }

    /// Sentinel makes the replica the master; what had not reached it is lost.
    fn promote(&mut self, view: &View, out: &mut Effects) {
        let old = self.master;
        let new = 1 - old;
        if self.servers[new].down {
            return;
        }
        let lost = self.lost_writes + self.backlog.len() as u32;
        self.lost_writes = 0;
        self.backlog.clear();
        self.drop_blocked();
        self.master = new;
        self.epoch += 1;
        self.promotion_at = None;
        let node = server_id(new);
        out.record(Event::Service(ServiceEvent::RedisPromoted {
            node,
            lost_writes: lost,
        }));
        // The new master expires keys by its own clock from now on.
        let promoted = &self.servers[new];
        if promoted.key.is_some() && promoted.live_key(view.now).is_none() {
            self.servers[new].expire(node, out);
        }
        self.schedule_expiry(view, new, out);
    }

    fn node_command(&mut self, view: &View, n: NodeId, cmd: NodeCommand, out: &mut Effects) {
        let i = n.index();
        match cmd {
            NodeCommand::Crash => {
                let node = &mut self.servers[i];
                node.down = true;
                node.crashed_at = Some(view.now);
                out.record(Event::NodeCrashed {
                    node: n,
                    persistence: self.options.persistence,
                });
                if i == self.master {
                    // Copies not yet sent die with the master.
                    self.lost_writes += self.backlog.len() as u32;
                    self.backlog.clear();
                    let at = view.now.plus(DOWN_AFTER_MS + PROMOTION_MS);
                    self.promotion_at = Some(at);
                    let epoch = self.epoch;
                    out.service_timer(at, RedisTimer::Promote { epoch });
                }
            }
            NodeCommand::Restart => self.restart(view, i, out),
            NodeCommand::Failover => {
                // A forced failover: the master steps down at once and the
                // replica takes over with whatever it has copied.
                out.record(Event::NodeCrashed {
                    node: n,
                    persistence: self.options.persistence,
                });
                self.servers[i].down = true;
                self.promote(view, out);
                self.rejoin_as_replica(view, i, out);
            }
            NodeCommand::ClockJump { jump_ms } => {
                self.servers[i].jump_clock(n, view.now, jump_ms, out);
                self.schedule_expiry(view, i, out);
            }
            NodeCommand::Slow { extra_ms } => self.servers[i].set_slow(n, extra_ms, out),
        }
    }

    fn restart(&mut self, view: &View, i: usize, out: &mut Effects) {
        let n = server_id(i);
        if i != self.master {
            self.rejoin_as_replica(view, i, out);
            return;
        }
        // The master came back before Sentinel acted: it stays master, with
        // what its persistence kept.
        self.promotion_at = None;
        self.epoch += 1;
        self.drop_blocked();
        let persistence = self.options.persistence;
        let node = &mut self.servers[i];
        node.down = false;
        node.crashed_at = None;
        if persistence == Persistence::None {
            node.key = None;
            if node.fence > 0 {
                node.fence = 0;
                out.record(Event::Service(ServiceEvent::RedisFenceReset { node: n }));
            }
        }
        out.record(Event::NodeRestarted {
            node: n,
            persistence,
        });
        self.schedule_expiry(view, i, out);
        self.copy_to_replica(view, out);
    }

    /// A server that comes back while another is master resyncs from it:
    /// its own data is replaced by the master's, and the copies it missed
    /// while down are no longer owed.
    fn rejoin_as_replica(&mut self, view: &View, i: usize, out: &mut Effects) {
        let n = server_id(i);
        let master = &self.servers[self.master];
        let (key, fence) = (master.key, master.fence);
        let node = &mut self.servers[i];
        node.down = false;
        node.crashed_at = None;
        node.key = key;
        node.fence = fence;
        node.resync_expiry(view.now);
        self.backlog.clear();
        self.replica_offset = self.master_offset;
        out.record(Event::Service(ServiceEvent::RedisRejoined { node: n }));
        self.unblock(out);
    }
}

/// The node id of server `i` (0: R1, 1: R2).
fn server_id(i: usize) -> NodeId {
    NodeId::new(i as u8 + 1).expect("two servers")
}
