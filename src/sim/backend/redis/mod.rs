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
//! last `INCR`s (so a token repeats or goes back).
//!
//! After taking the key a client may `WAIT` for its replica, two ways
//! (`ReplicaWait`). The application's own `WAIT 1 <timeout>` gives the
//! lock up unless the replica acknowledged: the acquisition fails instead
//! of silently being lost later, and with no replica nobody gets the lock.
//! Redisson's rule (`CommandAsyncService.syncedEval`; none at all with a
//! single-server configuration, `isSingleConfig()`) WAITs for the
//! replicas INFO reports as connected (`connected_slaves`), for its
//! `slavesSyncTimeout` of 1 s, and fails only if none acknowledged while
//! some were connected: a master with no replica (one just promoted, or
//! one whose replica is down) grants the lock unreplicated, availability
//! over safety. Redisson asks INFO one round trip before a batch of the
//! script and the `WAIT`; here the master counts its replicas when the
//! `WAIT` arrives, the same two round trips in the other order. A try in
//! which none acknowledged is Redisson's `NoSyncedSlavesException`: it
//! gives the key back (`handleNoSync`) and tries again, four more times
//! at most, each 1 to 2 s later (`ServiceManager.execute`, `retryAttempts`
//! 4, `EqualJitterDelay(1 s, 2 s)`, each delay drawn from the seeded
//! generator); only after the fifth does the caller see the exception. A
//! `WAIT` that gets no answer at all is a timeout, which Redisson neither
//! tries again that way nor gives the key back for.
//! As in Redis, `WAIT` blocks until the replica has acknowledged every
//! write made before it, or until its timeout: a replica that is down
//! never acknowledges, so the answer is then 0 at the timeout.
//!
//! The client believes it holds until an extension or release finds its
//! value gone: it has no deadline of its own (neither library sets one).

mod real_client;

use super::redis_node::Node;
use super::redlock::{RedisMsg, RedisNodeView};
use super::{renew_every_ms, HolderView, LockSystem, ServiceRng};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Config, NodeCommand, RedisOptions, ReplicaWait};
use crate::sim::types::{ClientId, Millis, NodeId, Persistence, ReleaseMode, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// The two servers: R1 starts as the master, R2 as its replica.
pub const SERVERS: usize = 2;
/// How far the replica's copy runs behind the master. On a healthy LAN a
/// copy leaves with the client's reply and lands within a millisecond; 20
/// ms is about a hundred times that, a replica that is behind (busy, or on
/// a congested link). The failover story needs the window: its master
/// dies 10 ms after the write, with the copy still on its way, which a
/// real master does only within that millisecond or while its replica
/// lags. The real-server check (scripts/fidelity) holds the replica's
/// link for the same 20 ms before the crash.
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
/// The application's `WAIT 1 timeout`: how long the master waits for the
/// replica's ack.
pub const WAIT_TIMEOUT_MS: u64 = 100;
/// Redisson's `slavesSyncTimeout` (default 1000 ms), the timeout of its `WAIT`.
pub const REDISSON_SYNC_TIMEOUT_MS: u64 = 1_000;
/// Redisson's `retryAttempts` (BaseConfig, default 4): the tries
/// `ServiceManager.execute` makes after the first when one ends in
/// `NoSyncedSlavesException`.
pub const REDISSON_RETRY_ATTEMPTS: u8 = 4;
/// Redisson's default `retryDelay`, `EqualJitterDelay(1 s, 2 s)`: for every
/// attempt min(1 s x 2^attempt, 2 s) = 2 s, half of it fixed and the other
/// half drawn evenly, so a delay of 1 to 2 s (whole milliseconds).
pub const REDISSON_RETRY_DELAY_MS: (u64, u64) = (1_000, 2_000);
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
    /// `WAIT n timeout` after the lock was set: `n` is 1 (the
    /// application's) or, for Redisson, the replicas INFO reports.
    #[serde(rename = "redis-wait")]
    Wait { round: u32, redisson: bool },
    /// How many replicas acknowledged, of how many were connected.
    #[serde(rename = "redis-wait-reply")]
    WaitReply {
        replicas: u8,
        connected: u8,
        round: u32,
    },
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
    pub wait: ReplicaWait,
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
    /// The replicas connected when it asked: Redisson reads INFO first.
    connected: u8,
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
    /// Redisson: tries after the first that this acquisition has made
    /// because no replica synced.
    no_sync_tries: u8,
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
    const HELD_CHECK: Option<&'static str> = Some("a script reading the lock key's value");

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

    fn on_input(&mut self, view: &View, input: Input<RedisTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => {
                self.side(c).no_sync_tries = 0;
                self.try_set(view, c, out);
            }
            Input::Release(c) => {
                self.unlock(c, self.options.release, out);
                self.forget(c);
            }
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

    /// A key that ran out is gone when read at its expiry, not at an event.
    const HOLDER_READS_CLOCK: bool = true;

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
            wait: self.options.wait,
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

    fn is_unlock(msg: &SingleRedisMsg) -> bool {
        matches!(
            msg,
            SingleRedisMsg::Command {
                cmd: RedisMsg::Unlock { .. }
            }
        )
    }

    /// The master runs a client's command; what it changed is copied to
    /// the replica a little later.
    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
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
            SingleRedisMsg::Wait { round, redisson } => self.wait(view, c, round, redisson, out),
            _ => {}
        }
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
                let (redisson, timeout_ms) = match self.options.wait {
                    ReplicaWait::Off => return self.grant(view, c, out),
                    ReplicaWait::Redisson => (true, REDISSON_SYNC_TIMEOUT_MS),
                    ReplicaWait::AppWait1 => (false, WAIT_TIMEOUT_MS),
                };
                // A round of its own: the SET's reply timeout, still
                // armed, must not cut the WAIT's longer one short.
                let round = self.new_round(c);
                self.side(c).phase = Phase::Waiting;
                out.ask(c, SingleRedisMsg::Wait { round, redisson });
                let wait_ms = timeout_ms + REPLY_TIMEOUT_MS;
                out.client_timer(c, wait_ms, RedisTimer::ReplyTimeout { round });
            }
            (Phase::Setting, _) => self.retry(c, out),
            (
                Phase::Waiting,
                SingleRedisMsg::WaitReply {
                    replicas,
                    connected,
                    ..
                },
            ) if self.synced_enough(replicas, connected) => self.grant(view, c, out),
            (Phase::Waiting, SingleRedisMsg::WaitReply { .. })
                if self.options.wait == ReplicaWait::Redisson =>
            {
                self.no_synced_slaves(c, out)
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

    fn renews(msg: &SingleRedisMsg) -> bool {
        matches!(
            msg,
            SingleRedisMsg::Command {
                cmd: RedisMsg::Extend { .. }
            }
        )
    }

    fn releases(msg: &SingleRedisMsg) -> bool {
        matches!(
            msg,
            SingleRedisMsg::Command {
                cmd: RedisMsg::Unlock { .. }
            }
        )
    }

    fn label(msg: &SingleRedisMsg) -> String {
        match msg {
            SingleRedisMsg::Command { cmd } | SingleRedisMsg::Answer { cmd } => {
                super::redlock::Redlock::label(cmd)
            }
            SingleRedisMsg::Wait {
                redisson: false, ..
            } => "WAIT 1".into(),
            SingleRedisMsg::Wait { redisson: true, .. } => "INFO; WAIT connected_slaves".into(),
            SingleRedisMsg::WaitReply {
                replicas,
                connected,
                ..
            } => format!("{replicas} of {connected} replicas acked"),
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
        // Another tryAcquire later: a fresh `ServiceManager.execute`.
        side.no_sync_tries = 0;
        let round = side.round;
        out.client_timer(c, RETRY_MS, RedisTimer::Retry { round });
    }

    /// Whether a `WAIT`'s answer lets the client keep the key. The
    /// application's `WAIT 1` needs one ack. Redisson fails only when
    /// `res.getSyncedSlaves() == 0 && availableSlaves > 0`
    /// (`CommandAsyncService.syncedEval`): with no replica connected it
    /// grants.
    fn synced_enough(&self, replicas: u8, connected: u8) -> bool {
        match self.options.wait {
            ReplicaWait::Redisson => !(replicas == 0 && connected > 0),
            _ => replicas >= 1,
        }
    }

    /// The `WAIT` did not satisfy the client (or got no answer): give the
    /// key back and fail rather than hold a lock a failover would lose,
    /// as the application's own `WAIT 1` does. For Redisson this is a
    /// `WAIT` that got no answer: a response timeout, not
    /// `NoSyncedSlavesException`, so `handleNoSync` gives nothing back
    /// and `ServiceManager.execute` does not try again (redisson
    /// ServiceManager.java 632-649): the caller sees the timeout, and the
    /// key stays on the master until its TTL.
    fn no_replica(&mut self, c: ClientId, out: &mut Effects) {
        let redisson = self.options.wait == ReplicaWait::Redisson;
        if !redisson {
            self.unlock(c, ReleaseMode::CheckValue, out);
        }
        self.forget(c);
        out.fail(
            c,
            if redisson {
                AcquireFailure::RedissonTimeout
            } else {
                AcquireFailure::NoReplicaAck
            },
        );
    }

    /// Redisson's try ended with none of the connected replicas synced
    /// (`NoSyncedSlavesException`, CommandAsyncService.java 1218-1225):
    /// `handleNoSync` unlocks (RedissonBaseLock.java 281-282), and
    /// `ServiceManager.execute` tries again after `retryDelay` unless
    /// `retryAttempts` tries are spent (ServiceManager.java 628-655); the
    /// caller sees the exception only after the last.
    fn no_synced_slaves(&mut self, c: ClientId, out: &mut Effects) {
        self.unlock(c, ReleaseMode::CheckValue, out);
        let tries = self.side[c.index()].no_sync_tries;
        if tries >= REDISSON_RETRY_ATTEMPTS {
            self.forget(c);
            out.fail(
                c,
                AcquireFailure::NoSyncedSlaves {
                    tries: tries.saturating_add(1),
                },
            );
            return;
        }
        let (lo, hi) = REDISSON_RETRY_DELAY_MS;
        let delay_ms = self.rng.draw(lo, hi);
        let side = self.side(c);
        side.no_sync_tries = tries + 1;
        side.phase = Phase::Idle;
        side.value = None;
        side.fence = None;
        let round = side.round;
        out.record(Event::Service(ServiceEvent::RedissonRetry {
            client: c,
            attempt: tries + 1,
            delay_ms,
        }));
        out.client_timer(c, delay_ms, RedisTimer::Retry { round });
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

    /// `WAIT n timeout`: answers at once if the replica has acknowledged
    /// every write so far (or, for Redisson's `WAIT 0` with no replica
    /// connected, at once with none), else blocks the client until it
    /// has or the timeout passes.
    fn wait(&mut self, view: &View, c: ClientId, round: u32, redisson: bool, out: &mut Effects) {
        let offset = self.master_offset;
        let connected = self.connected_replicas();
        if self.replica_acked(offset) || (redisson && connected == 0) {
            let replicas = u8::from(self.replica_acked(offset));
            let reply = SingleRedisMsg::WaitReply {
                replicas,
                connected,
                round,
            };
            out.answer(c, reply);
            return;
        }
        self.blocked[c.index()] = Some(BlockedWait {
            client: c,
            round,
            offset,
            connected,
        });
        let timeout_ms = if redisson {
            REDISSON_SYNC_TIMEOUT_MS
        } else {
            WAIT_TIMEOUT_MS
        };
        let at = view.now.plus(timeout_ms);
        out.service_timer(at, RedisTimer::WaitTimeout { client: c, round });
    }

    /// INFO's `connected_slaves`: the other server, while it is up and
    /// following this master (after a promotion the old master is down
    /// until it restarts and rejoins).
    fn connected_replicas(&self) -> u8 {
        u8::from(!self.servers[1 - self.master].down)
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
                let reply = SingleRedisMsg::WaitReply {
                    replicas: 1,
                    connected: 1,
                    round,
                };
                out.answer(client, reply);
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
                if let Some(w) = slot.filter(|w| w.round == round) {
                    // Still blocked: the replica did not acknowledge in time.
                    *slot = None;
                    if !self.servers[self.master].down {
                        let connected = w.connected;
                        let reply = SingleRedisMsg::WaitReply {
                            replicas: 0,
                            connected,
                            round,
                        };
                        out.answer(client, reply);
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
