//! Consul's lock (`api/lock.go`, as `consul lock` runs it): a session with a
//! TTL that the client renews every TTL/2, a KV key acquired with
//! `PUT ?acquire=<session>` (a Raft compare-and-set), waiters that poll with
//! blocking GETs instead of queueing, a lock-delay after an invalidation,
//! and a holder that learns of its loss only through `monitorLock` closing
//! `leaderCh`.
//!
//! Every duration keeps its ratio to Consul's default 15 s session TTL: the
//! page's TTL setting stands for those 15 s, so at the page's 5 s default a
//! 15 s lock-delay is 5 s and `DefaultLockRetryTime` (5 s) is 1.667 s. The
//! server's own minimum TTL (10 s) scales the same way, so it never binds.
//!
//! Simplified on purpose: the servers are one Raft cluster seen as one
//! service; the acquire's answer carries the key's indexes (a real
//! application reads the key once more to learn them); `Unlock` with its
//! release, cleanup and session destroy is one request; serf's failure
//! detection is a probe of the client's node every second and a suspicion
//! whose confirmations are drawn (`SERF_POOL`); an election is one
//! follower's timeout, won at once.
//!
//! What a holder hears, and when: monitorLock's blocking GET rides a yamux
//! stream of its agent's pooled connection to the servers, so a holder cut
//! off from them learns nothing until that connection's keepalive fails
//! (long after serf has had its session invalidated), and then at once if
//! serf has dropped the servers from its agent's router, or after one
//! failed re-dial if not. A leader election holds a blocking GET as long
//! as its own wait and `rpc_hold_timeout` more, so only a non-blocking
//! call (monitorLock's first GET, or a retry) can outlast the hold, fail,
//! and close leaderCh unless `MonitorRetries` lets monitorLock ask again.
//!
//! The files follow the parts: this one holds the options, messages,
//! timers and views, the state the servers and each client's library keep
//! (one `Consul` value, which the engine clones and hashes), and the
//! `LockSystem` glue that hands each input to its side; `server.rs` is what
//! the servers do, `client.rs` the client library (`api.Lock`), and
//! `real_client.rs` what consul/api sends.

mod client;
mod real_client;
mod server;

use super::{HolderView, LockSystem};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::LossReason;
use crate::sim::net::Endpoint;
use crate::sim::resource::FenceRule;
use crate::sim::scenario::{Config, NodeCommand};
use crate::sim::types::{ClientId, Millis, NodeId};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};
use server::Invalidation;

/// `DefaultLockSessionTTL` = "15s" (api/lock.go): the real lease every
/// other duration is scaled against.
pub const CONSUL_SESSION_TTL_MS: u64 = 15_000;
/// `SessionTTLMultiplier` (agent/structs): the server invalidates a session
/// only after twice its TTL without a renewal; the docs call the TTL "a
/// lower bound for invalidation".
pub const SESSION_TTL_MULTIPLIER: u64 = 2;
/// The lock-delay a session gets unless it asks otherwise: 15 s
/// (agent/session_endpoint.go, docs `automate/session.mdx`).
pub const LOCK_DELAY_S_DEFAULT: u64 = 15;
/// The docs allow a lock-delay from 0 to 60 s.
pub const LOCK_DELAY_S_MAX: u64 = 60;
/// Serf's LAN failure detector (memberlist v0.6.0, config.go
/// `DefaultLANConfig`: ProbeInterval 1 s, SuspicionMult 4,
/// SuspicionMaxTimeoutMult 6). A suspicion's timer (state.go
/// `suspectNode`, lines 1211-1223) runs from `max` = 6 x `min`, where
/// `min` = 4 x log10(n) probe intervals and at least 4 s (util.go
/// `suspicionTimeout`), and falls towards `min` as other members confirm
/// the suspicion: it needs k = SuspicionMult - 2 = 2 independent
/// confirmations (suspicion.go `remainingSuspicionTime`, line 89). Only
/// when the pool has at most 3 members is k 0 and the timer `min` from the
/// start (`if n-2 < k { k = 0 }`; suspicion.go line 72: `timeout := max;
/// if k < 1 { timeout = min }`); above 10 members `min` itself grows.
///
/// The model's LAN pool has `SERF_POOL` members: three servers and the
/// agents of the page's four clients, so a suspicion starts at 24 s and
/// falls to 4 s at the second confirmation. The other members (all but
/// the node and its first prober) each probe the node once in a round of
/// n - 1 probe intervals (state.go `probe` walks every other member), so
/// two of the five have confirmed within 6 s: the node is declared failed
/// 4-6 s after the first failed probe, 4-7 s after the cut.
const SERF_PROBE_MS: u64 = 1_000;
const SERF_SUSPICION_MIN_MS: u64 = 4_000;
const SERF_SUSPICION_MAX_MULT: u64 = 6;
/// Confirmations that bring a suspicion's timer down to its minimum.
const SERF_CONFIRMATIONS: usize = 2;
/// Three servers and the four clients' agents.
pub const SERF_POOL: u64 = 7;
/// After one confirmation of two, the timer is `max - frac x (max - min)`
/// with frac = ln(2)/ln(3) = 0.63093 (suspicion.go line 90), kept here in
/// parts per 100 000 so that every platform computes the same time.
const SERF_ONE_CONFIRMATION_FRAC: u64 = 63_093;
/// `rpc_hold_timeout` (agent/config, default 7 s): how long the agent and
/// servers hold a request while there is no leader; past it the request
/// fails ("No cluster leader", HTTP 500). A blocking query is held longer:
/// agent/structs/structs.go `QueryOptions.HasTimedOut` (since Consul 1.10,
/// PR #10299) is `rpcHoldTimeout + BlockingTimeout`, its wait and a
/// sixteenth more, so only a non-blocking request meets the bare 7 s.
const RPC_HOLD_MS: u64 = 7_000;
/// The most retries a setting may ask for.
pub const MONITOR_RETRIES_MAX: u32 = 10;
/// A new cluster has written its own catalog (its node, the serfHealth
/// check, the consul service) before the first lock, so indexes start
/// above 1. The number itself is arbitrary: tokens only compare.
const RAFT_INDEX_START: u32 = 20;

/// A real Consul duration at the page's scale: the page's TTL stands for
/// Consul's 15 s default.
fn scaled(real_ms: u64, ttl_ms: u64) -> u64 {
    (real_ms.saturating_mul(ttl_ms) / CONSUL_SESSION_TTL_MS).max(1)
}

/// The agent's `rpc_hold_timeout` at the page's scale: the longest a
/// request waits for a leader.
pub fn rpc_hold_ms(ttl_ms: u64) -> u64 {
    scaled(RPC_HOLD_MS, ttl_ms)
}

/// The longest leader election the model draws, at the page's scale: a
/// follower stands before three heartbeat timeouts have passed.
pub fn election_max_ms(ttl_ms: u64) -> u64 {
    3 * scaled(server::RAFT_HEARTBEAT_TIMEOUT_MS, ttl_ms)
}

/// The lock-delay in page milliseconds for a lock-delay in real seconds.
pub fn lock_delay_ms(lock_delay_s: u64, ttl_ms: u64) -> u64 {
    lock_delay_s.saturating_mul(1_000).saturating_mul(ttl_ms) / CONSUL_SESSION_TTL_MS
}

/// Which of the key's indexes the client hands to the resource as its token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsulToken {
    /// The Raft index of the key's last write: it only grows.
    ModifyIndex,
    /// The key's lock counter alone, checked like any token (`>=` the
    /// highest seen): it restarts at 1 when the key is created again.
    LockIndex,
    /// The docs' sequencer, (Key, LockIndex, Session), "used to verify if
    /// the request belongs to the current lock holder": a write passes
    /// only while the key still holds that LockIndex under that Session.
    Sequencer,
}

/// What happens to the lock key when a lock ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyCleanup {
    /// Behavior=release: the key stays, its Session cleared.
    Keep,
    /// Behavior=delete on an invalidation, and `consul lock`'s cleanup
    /// (Lock.Destroy) on an unlock: the key goes.
    Delete,
}

/// Consul's settings, ignored by the other backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsulOptions {
    pub token: ConsulToken,
    pub cleanup: KeyCleanup,
    /// The session's lock-delay in real seconds (0-60), scaled like the TTL.
    pub lock_delay_s: u64,
    /// `LockOptions.MonitorRetries`: how many times monitorLock asks again
    /// (1 s apart) after an error before it closes leaderCh. The api's
    /// default is 0; `consul lock` runs 3. Links and files from before the
    /// setting say nothing of it: 0, as they ran.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub monitor_retries: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl std::hash::Hash for ConsulOptions {
    /// Field by field, leaving out MonitorRetries at its default: runs made
    /// before the setting keep their state's fingerprint.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.token.hash(state);
        self.cleanup.hash(state);
        self.lock_delay_s.hash(state);
        if self.monitor_retries != 0 {
            self.monitor_retries.hash(state);
        }
    }
}

impl Default for ConsulOptions {
    fn default() -> Self {
        ConsulOptions {
            token: ConsulToken::ModifyIndex,
            cleanup: KeyCleanup::Keep,
            lock_delay_s: LOCK_DELAY_S_DEFAULT,
            monitor_retries: 0,
        }
    }
}

impl ConsulOptions {
    /// `consul lock`'s MonitorRetries, the common tuned value.
    pub const CONSUL_LOCK_MONITOR_RETRIES: u32 = 3;

    pub fn validate(&self) -> Result<(), CommandError> {
        if self.lock_delay_s > LOCK_DELAY_S_MAX {
            return Err(CommandError::ConsulLockDelayOutOfRange {
                lock_delay_s: self.lock_delay_s,
            });
        }
        if self.monitor_retries > MONITOR_RETRIES_MAX {
            return Err(CommandError::ConsulMonitorRetriesOutOfRange {
                retries: self.monitor_retries,
            });
        }
        Ok(())
    }

    /// Whether every grant's token is at least the last one: LockIndex
    /// (alone or in the sequencer) restarts at 1 when a deleted key is
    /// created again.
    pub fn monotonic(&self) -> bool {
        self.token == ConsulToken::ModifyIndex || self.cleanup == KeyCleanup::Keep
    }

    /// How the docs fence with this token: the sequencer is checked
    /// against the key, an index by order.
    pub fn documented_fence(&self) -> crate::sim::FenceMode {
        match self.token {
            ConsulToken::Sequencer => crate::sim::FenceMode::Check,
            ConsulToken::ModifyIndex | ConsulToken::LockIndex => crate::sim::FenceMode::Highest,
        }
    }

    /// How a check against the lock key reads it: the sequencer names the
    /// key's (LockIndex, Session); with an index alone it is a Txn whose
    /// `check-session` op asks that the key still holds the writer's session.
    pub fn fence_check(&self) -> FenceRule {
        match self.token {
            ConsulToken::Sequencer => FenceRule::Sequencer,
            ConsulToken::ModifyIndex | ConsulToken::LockIndex => FenceRule::LockHeld,
        }
    }
}

/// Why a client reads the lock key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GetPurpose {
    /// `Lock()` waiting for the key's Session to be empty.
    Wait,
    /// `Lock()` asking why an acquire failed: held, or a lock-delay.
    Why,
    /// `monitorLock` watching that the Session is still its own.
    Monitor,
}

/// A request the agent held through a leader election and then failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "rpc", rename_all = "kebab-case")]
pub enum Rpc {
    SessionCreate,
    SessionRenew,
    KvGet { purpose: GetPurpose },
    KvAcquire,
}

/// The answer to `PUT ?acquire=<session>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum AcquireResult {
    Locked { lock_index: u32, modify_index: u32 },
    NotLocked,
    InvalidSession,
}

/// Consul's requests and answers, through the client's local agent.
/// Raft indexes travel in 32 bits (see `count_up`), so that each fits in
/// 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum ConsulMsg {
    #[serde(rename = "consul-session-create")]
    SessionCreate {
        ttl_ms: u64,
        lock_delay_ms: u64,
        cleanup: KeyCleanup,
    },
    #[serde(rename = "consul-session-create-reply")]
    SessionCreateReply { session: u64 },
    #[serde(rename = "consul-session-renew")]
    SessionRenew { session: u64 },
    #[serde(rename = "consul-session-renew-reply")]
    SessionRenewReply { session: u64, found: bool },
    #[serde(rename = "consul-session-destroy")]
    SessionDestroy { session: u64 },
    /// `GET /v1/kv/<key>?index=<wait_index>`: blocking when the index is
    /// above 0 and the key has not changed since.
    #[serde(rename = "consul-kv-get")]
    KvGet {
        wait_index: u32,
        purpose: GetPurpose,
    },
    #[serde(rename = "consul-kv-get-reply")]
    KvGetReply {
        purpose: GetPurpose,
        session: Option<u64>,
        index: u32,
    },
    #[serde(rename = "consul-kv-acquire")]
    KvAcquire { session: u64 },
    #[serde(rename = "consul-kv-acquire-reply")]
    KvAcquireReply { session: u64, result: AcquireResult },
    /// `Unlock()`: release, `consul lock`'s cleanup (delete the key if it
    /// is free) when chosen, and destroy the session.
    #[serde(rename = "consul-unlock")]
    Unlock { session: u64, delete_key: bool },
    /// The agent's answer to a request it held for `rpc_hold_timeout`
    /// with no leader: HTTP 500, "No cluster leader".
    #[serde(rename = "consul-no-leader")]
    NoLeader { rpc: Rpc },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<ConsulMsg>() <= 24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ConsulTimer {
    /// RenewPeriodic's next renewal.
    Renew { gen: u64 },
    /// Lock()'s sleep after an acquire refused by a lock-delay.
    Retry { gen: u64 },
    /// The client's agent lost the servers: its requests fail.
    AgentError { gen: u64 },
    /// The server's session timer (TTL x 2).
    SessionExpiry { session: u64 },
    /// A blocking query's wait time is up.
    QueryTimeout { id: u64 },
    /// Serf probes the client's node.
    SerfProbe { client: ClientId },
    /// The suspicion of the client's node begun at `since` is over.
    SerfDead { client: ClientId, since: Millis },
    /// A new Raft leader has been elected.
    ElectionDone,
    /// The agent has held a request for `rpc_hold_timeout` with no leader.
    HoldExpired { client: ClientId, rpc: Rpc },
    /// The keepalive ping sent on the agent's connection after a cut has
    /// had no answer within yamux's write timeout.
    KeepaliveDue { gen: u64 },
    /// monitorLock's sleep (MonitorRetryTime) before it asks again.
    MonitorRetry { gen: u64 },
    /// The agent's dial of a new connection, after the keepalive closed
    /// the old one, is out of time (pool.go `DefaultDialTimeout`).
    Redial { gen: u64 },
}

/// Where a client's `Lock()` and its lock stand, in a word for its card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsulPhase {
    #[default]
    Idle,
    CreatingSession,
    /// A blocking GET on the key, until its Session is empty.
    Polling,
    Acquiring,
    /// A GET after a refused acquire: held again, or a lock-delay?
    Checking,
    /// Sleeping DefaultLockRetryTime before polling again.
    Sleeping,
    Held,
}

impl ConsulPhase {
    pub fn words(self) -> &'static str {
        match self {
            ConsulPhase::Idle => "no Lock() call",
            ConsulPhase::CreatingSession => "Lock(): creating its session",
            ConsulPhase::Polling => "Lock(): blocking GET until the key's Session is empty",
            ConsulPhase::Acquiring => "Lock(): PUT ?acquire sent",
            ConsulPhase::Checking => "Lock(): acquire refused, reading the key to see why",
            ConsulPhase::Sleeping => "Lock(): lock-delay, sleeping before it tries again",
            ConsulPhase::Held => "holds; monitorLock watches the key (leaderCh open)",
        }
    }
}

/// The lock key as `GET /v1/kv/<key>` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsulKeyView {
    pub session: Option<u64>,
    pub owner: Option<ClientId>,
    pub lock_index: u64,
    pub modify_index: u64,
    pub create_index: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsulSessionView {
    pub session: u64,
    pub owner: ClientId,
    pub ttl_ms: u64,
    pub lock_delay_ms: u64,
    pub renewed_at: Millis,
    /// When the server invalidates it unless renewed: TTL x 2 after the
    /// last renewal (or the election of a new leader).
    pub invalidate_at: Millis,
    /// serfHealth on its node: false once serf declared the node failed.
    pub node_healthy: bool,
}

/// One client's side: its session, its Lock() call, its leaderCh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsulClientView {
    pub client: ClientId,
    pub session: Option<u64>,
    pub phase: ConsulPhase,
    /// Why its leaderCh last closed, if it did since its last grant.
    pub closed: Option<LossReason>,
    /// Its agent cannot reach the servers: every request fails.
    pub agent_down: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsulDetail {
    /// The lock key, `None` before it is created or after it is deleted.
    pub key: Option<ConsulKeyView>,
    pub sessions: Vec<ConsulSessionView>,
    /// The key refuses acquires until then.
    pub lock_delay_until: Option<Millis>,
    pub raft_index: u64,
    /// A leader election is under way until then.
    pub electing_until: Option<Millis>,
    pub clients: Vec<ConsulClientView>,
    pub token: ConsulToken,
}

/// A session id as Consul prints the start of its UUID.
pub fn session_words(session: u64) -> String {
    format!("{session:08x}-…")
}

#[derive(Debug, Clone, Hash)]
struct Session {
    owner: ClientId,
    ttl_ms: u64,
    lock_delay_ms: u64,
    cleanup: KeyCleanup,
    renewed_at: Millis,
    expires_at: Millis,
}

#[derive(Debug, Clone, Copy, Hash)]
struct KvEntry {
    session: Option<u64>,
    lock_index: u32,
    modify_index: u32,
    create_index: u32,
    acquired_at: Millis,
}

#[derive(Debug, Clone, Copy, Hash)]
struct Blocked {
    id: u64,
    client: ClientId,
    purpose: GetPurpose,
    /// When the agent sent it: HasTimedOut counts from there.
    since: Millis,
}

/// What one client's library knows, on its side of the network.
#[derive(Debug, Clone, Default, Hash)]
struct Side {
    session: Option<u64>,
    phase: ConsulPhase,
    /// The TTL RenewPeriodic uses, and its last good renewal by its clock.
    ttl_ms: u64,
    last_renew_local: i64,
    renew_gen: u64,
    retry_gen: u64,
    closed: Option<LossReason>,
    /// MonitorRetries left since monitorLock's last good answer.
    retries_left: u32,
    monitor_gen: u64,
    /// A keepalive ping due on a connection that cannot answer: the stream
    /// carrying monitorLock's GET waits, and fails unless the ping gets
    /// through within its write timeout.
    keepalive: Option<Keepalive>,
    /// When a partition healed while that ping was pending.
    healed_at: Option<Millis>,
    /// Bumped at each re-dial after a closed connection.
    redial_gen: u64,
}

/// The keepalive ping the holder's agent sends after a cut.
#[derive(Debug, Clone, Copy, Hash)]
struct Keepalive {
    gen: u64,
    /// When the ping goes out (by the run's time).
    ping_at: Millis,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct Consul {
    ttl_ms: u64,
    options: ConsulOptions,
    raft_index: u32,
    sessions: LiteMap<u64, Session>,
    key: Option<KvEntry>,
    /// The index a blocking GET on the key compares with: its last write,
    /// a delete included.
    key_index: u32,
    lock_delay_until: Millis,
    blocked: Vec<Blocked>,
    next_query: u64,
    electing_until: Option<Millis>,
    deferred: Vec<(ClientId, ConsulMsg)>,
    /// Bumped at every keepalive armed, so that a stale one does nothing.
    keepalive_gen: u64,
    /// Serf's view of each client's node: a suspicion's start and when
    /// its timer fires.
    suspect: [Option<(Millis, Millis)>; 4],
    node_failed: [bool; 4],
    probing: [bool; 4],
    agent_gen: [u64; 4],
    side: [Side; 4],
    rng: super::ServiceRng,
}

impl LockSystem for Consul {
    type Msg = ConsulMsg;
    type Timer = ConsulTimer;
    type Detail = ConsulDetail;
    const NAME: &'static str = "Consul";
    const LEASE_WORD: &'static str = "session";
    /// etcd's class (a Raft write with fsync, 5-20 ms a round trip) plus a
    /// loopback HTTP hop to the client's local agent, 0.1-0.5 ms each way.
    const LATENCY_US: (u64, u64) = (2_600, 10_500);
    /// ModifyIndex, the default, only grows; `monotonic_tokens_in` says
    /// when the chosen options break it.
    const MONOTONIC_TOKENS: bool = true;
    const TOKEN_SHORT: &'static str = "ModifyIndex (LockIndex restarts on delete)";
    const HELD_CHECK: Option<&'static str> = Some("a Txn with check-session");

    fn new(config: &Config) -> Consul {
        Consul {
            ttl_ms: config.ttl_ms,
            options: config.consul,
            raft_index: RAFT_INDEX_START,
            sessions: LiteMap::new(),
            key: None,
            key_index: RAFT_INDEX_START,
            lock_delay_until: Millis::ZERO,
            blocked: Vec::new(),
            next_query: 1,
            electing_until: None,
            deferred: Vec::new(),
            keepalive_gen: 0,
            suspect: [None; 4],
            node_failed: [false; 4],
            probing: [false; 4],
            agent_gen: [0; 4],
            side: Default::default(),
            rng: super::ServiceRng::new(config.seed),
        }
    }

    fn monotonic_tokens_in(config: &Config) -> bool {
        config.consul.monotonic()
    }

    fn documented_fence_in(config: &Config) -> crate::sim::FenceMode {
        config.consul.documented_fence()
    }

    fn fence_check_in(config: &Config) -> FenceRule {
        config.consul.fence_check()
    }

    fn on_input(&mut self, view: &View, input: Input<ConsulTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => self.lock(c, out),
            Input::Release(c) => self.unlock(c, out),
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            Input::ServiceTimer(timer) => self.on_service_timer(view, timer, out),
            // Either way the client forgets. Its agent runs on: after a process
            // exit serf still sees the node alive; after a power-off serf's
            // probes find it gone (`probe`).
            Input::Crashed(c) | Input::Exited(c) => self.side[c.index()] = Side::default(),
            Input::Healed(c) => self.healed(view, c),
            Input::RenewalOn(c) if self.side[c.index()].session.is_some() => {
                self.arm_renew(c, self.side[c.index()].ttl_ms / 2, out)
            }
            Input::Node(_, NodeCommand::Failover) => self.failover(view, out),
            _ => {}
        }
    }

    fn holder(&self, _view: &View) -> Option<HolderView> {
        let entry = self.key?;
        let session = self.sessions.get(&entry.session?);
        // An invalidation clears the key in the same write.
        debug_assert!(session.is_some(), "the key names a session that is gone");
        let session = session?;
        Some(HolderView {
            client: session.owner,
            token: Some(self.token_of(&entry)),
            lease_key: self.grant_key(entry.session?, entry.modify_index),
            since: entry.acquired_at,
            until: Some(session.expires_at),
        })
    }

    fn lease_end(&self, _view: &View, c: ClientId) -> Option<Millis> {
        self.sessions
            .values()
            .filter(|s| s.owner == c)
            .map(|s| s.expires_at)
            .max()
    }

    fn detail(&self, _view: &View) -> ConsulDetail {
        let owner = |s: Option<u64>| s.and_then(|s| self.sessions.get(&s)).map(|s| s.owner);
        ConsulDetail {
            key: self.key.map(|k| ConsulKeyView {
                session: k.session,
                owner: owner(k.session),
                lock_index: u64::from(k.lock_index),
                modify_index: u64::from(k.modify_index),
                create_index: u64::from(k.create_index),
            }),
            sessions: self
                .sessions
                .iter()
                .map(|(&session, s)| ConsulSessionView {
                    session,
                    owner: s.owner,
                    ttl_ms: s.ttl_ms,
                    lock_delay_ms: s.lock_delay_ms,
                    renewed_at: s.renewed_at,
                    invalidate_at: s.expires_at,
                    node_healthy: !self.node_failed[s.owner.index()],
                })
                .collect(),
            lock_delay_until: (self.lock_delay_until > Millis::ZERO)
                .then_some(self.lock_delay_until),
            raft_index: u64::from(self.raft_index),
            electing_until: self.electing_until,
            clients: ClientId::ALL
                .iter()
                .map(|&c| {
                    let side = &self.side[c.index()];
                    ConsulClientView {
                        client: c,
                        session: side.session,
                        phase: side.phase,
                        closed: side.closed,
                        agent_down: self.node_failed[c.index()],
                    }
                })
                .collect(),
            token: self.options.token,
        }
    }

    fn check_node(&self, _node: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Failover if self.electing_until.is_some() => Err(CommandError::Unsupported {
                why: "Consul is already electing a new leader: wait until it has one",
            }),
            NodeCommand::Failover => Ok(()),
            NodeCommand::Crash | NodeCommand::Restart => Err(CommandError::Unsupported {
                why: "Consul's servers are one Raft cluster here, and a quorum survives one server: use Failover to kill the leader",
            }),
            NodeCommand::ClockJump { .. } => Err(CommandError::Unsupported {
                why: "Consul's servers time sessions with monotonic timers, not the wall clock, so a clock jump changes nothing",
            }),
            NodeCommand::Slow { .. } => Err(CommandError::Unsupported {
                why: "Consul's servers are one service here: slow down a client's messages with a delayed write or a partition instead",
            }),
        }
    }

    /// A process that exited leaves its agent healthy, so the session lives
    /// until TTL x 2 without renewals; a dead host fails serf's probes and
    /// its session is invalidated then. Either way, a lock-delay follows.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let session_end = self
            .sessions
            .values()
            .filter(|s| s.owner == c)
            .map(|s| s.expires_at)
            .min();
        let i = c.index();
        match (exited, session_end) {
            (true, Some(end)) => format!(
                "the agent is alive: the session lives until 2 x TTL without renewal (at t={}), then lock-delay",
                super::seconds_1(end)
            ),
            (true, None) => "the agent is alive; no session of its is left".into(),
            (false, _) if self.node_failed[i] => {
                "serf marked its node failed: its session was invalidated, then lock-delay".into()
            }
            (false, Some(_)) => {
                let (soonest, latest) = server::serf_detection_ms();
                let left = match self.suspect[i] {
                    Some((_, dead_at)) => view.now.until(dead_at),
                    None => scaled(soonest, self.ttl_ms),
                };
                format!(
                    "the host is silent: serf will mark its node failed in about {} ({}-{} s after a cut in real Consul, its pool of {SERF_POOL} confirming the suspicion), ending its session, then lock-delay",
                    super::seconds_1(Millis(left.max(100))),
                    soonest / 1_000,
                    latest / 1_000
                )
            }
            (false, None) => "the host is silent; no session of its is left".into(),
        }
    }

    /// The server waits twice the TTL, then a lock-delay.
    fn silent_holder_ms(config: &Config) -> u64 {
        let ttl = config.ttl_ms;
        ttl * SESSION_TTL_MULTIPLIER + lock_delay_ms(config.consul.lock_delay_s, ttl)
    }

    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
        body: ConsulMsg,
        out: &mut Effects,
    ) {
        if let Some(until) = self.electing_until {
            if self.hold(view, c, body, view.now, until, out) {
                return;
            }
        }
        let reply = match body {
            ConsulMsg::SessionCreate {
                ttl_ms,
                lock_delay_ms,
                cleanup,
            } => self.create_session(view, c, ttl_ms, lock_delay_ms, cleanup, out),
            ConsulMsg::SessionRenew { session } => ConsulMsg::SessionRenewReply {
                session,
                found: self.renew(view, session, out),
            },
            ConsulMsg::SessionDestroy { session } => {
                self.invalidate(view, session, Invalidation::Destroyed, out);
                return;
            }
            ConsulMsg::KvGet {
                wait_index,
                purpose,
            } => {
                if wait_index > 0 && self.key_index <= wait_index {
                    self.block(view, c, purpose, out);
                    return;
                }
                self.get_reply(purpose)
            }
            ConsulMsg::KvAcquire { session } => ConsulMsg::KvAcquireReply {
                session,
                result: self.acquire(view, c, session, out),
            },
            ConsulMsg::Unlock {
                session,
                delete_key,
            } => {
                self.release(view, session, delete_key, out);
                return;
            }
            _ => return,
        };
        out.answer(c, reply);
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: ConsulMsg, out: &mut Effects) {
        match body {
            ConsulMsg::SessionCreateReply { session } => {
                if self.side[c.index()].phase != ConsulPhase::CreatingSession {
                    // Released meanwhile: Lock()'s cleanup destroys it.
                    out.ask(c, ConsulMsg::SessionDestroy { session });
                    return;
                }
                let ttl_ms = self.ttl_ms;
                let side = self.side(c);
                side.session = Some(session);
                side.ttl_ms = ttl_ms;
                side.last_renew_local = view.local_now(c);
                self.arm_renew(c, ttl_ms / 2, out);
                self.poll(c, 0, out);
            }
            ConsulMsg::SessionRenewReply { session, found } => {
                let side = self.side(c);
                if side.session != Some(session) {
                    return;
                }
                if found {
                    side.last_renew_local = view.local_now(c);
                } else {
                    // ErrSessionExpired: RenewPeriodic returns. Only the
                    // monitor closes leaderCh.
                    side.renew_gen += 1;
                }
            }
            ConsulMsg::KvGetReply {
                purpose,
                session,
                index,
            } => self.on_get_reply(c, purpose, session, index, out),
            ConsulMsg::KvAcquireReply { session, result } => {
                self.on_acquire_reply(c, session, result, out)
            }
            ConsulMsg::NoLeader { rpc } => self.on_no_leader(view, c, rpc, out),
            _ => {}
        }
    }

    fn renews(msg: &ConsulMsg) -> bool {
        matches!(msg, ConsulMsg::SessionRenew { .. })
    }

    fn releases(msg: &ConsulMsg) -> bool {
        matches!(msg, ConsulMsg::Unlock { .. })
    }

    fn label(msg: &ConsulMsg) -> String {
        match msg {
            ConsulMsg::SessionCreate { .. } => "session create".into(),
            ConsulMsg::SessionCreateReply { session } => {
                format!("session {}", session_words(*session))
            }
            ConsulMsg::SessionRenew { .. } => "session renew".into(),
            ConsulMsg::SessionRenewReply { found: true, .. } => "session renewed".into(),
            ConsulMsg::SessionRenewReply { found: false, .. } => "session not found".into(),
            ConsulMsg::SessionDestroy { .. } => "session destroy".into(),
            ConsulMsg::KvGet {
                purpose: GetPurpose::Monitor,
                wait_index,
            } => format!("monitor GET ?index={wait_index}"),
            ConsulMsg::KvGet { wait_index: 0, .. } => "GET lock key".into(),
            ConsulMsg::KvGet { wait_index, .. } => format!("GET ?index={wait_index} (blocking)"),
            ConsulMsg::KvGetReply {
                session: Some(s), ..
            } => format!("Session {}", session_words(*s)),
            ConsulMsg::KvGetReply { session: None, .. } => "Session empty".into(),
            ConsulMsg::KvAcquire { .. } => "PUT ?acquire".into(),
            ConsulMsg::KvAcquireReply { result, .. } => match result {
                AcquireResult::Locked { lock_index, .. } => format!("true, LockIndex {lock_index}"),
                AcquireResult::NotLocked => "false".into(),
                AcquireResult::InvalidSession => "invalid session".into(),
            },
            ConsulMsg::Unlock {
                delete_key: false, ..
            } => "PUT ?release".into(),
            ConsulMsg::Unlock {
                delete_key: true, ..
            } => "PUT ?release, delete".into(),
            ConsulMsg::NoLeader { .. } => "500 No cluster leader".into(),
        }
    }

    fn confirms_session(msg: &ConsulMsg) -> bool {
        matches!(msg, ConsulMsg::SessionRenewReply { found: true, .. })
    }
}
