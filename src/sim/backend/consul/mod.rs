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
//! detection is a probe of the client's node and a fixed suspicion time.
//!
//! What a holder hears, and when: monitorLock's blocking GET rides a yamux
//! stream of its agent's pooled connection to the servers, so a holder cut
//! off from them learns nothing until that connection's keepalive fails
//! (long after serf has had its session invalidated); and a leader election
//! longer than the agent's RPC hold fails its GET, which closes leaderCh
//! unless `MonitorRetries` lets monitorLock ask again.

mod real_client;

use super::{count_up, HolderView, LockSystem};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::resource::FenceRule;
use crate::sim::scenario::{Config, NodeCommand};
use crate::sim::types::{ClientId, Millis, NodeId, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

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
/// `DefaultLockRetryTime` (api/lock.go): how long `Lock()` sleeps after an
/// acquire refused by a lock-delay.
const LOCK_RETRY_MS: u64 = 5_000;
/// `DefaultLockWaitTime` (api/lock.go): a waiter's blocking GET lasts this long.
const LOCK_WAIT_MS: u64 = 15_000;
/// A blocking query without a wait time (monitorLock's) lasts 5 minutes
/// (the HTTP API's default); the server adds up to 1/16 of it as jitter.
const MONITOR_WAIT_MS: u64 = 300_000;
const QUERY_JITTER_FRACTION: u64 = 16;
/// `RenewPeriodic` (api/session.go): after a failed renewal it tries again
/// every second, and gives up once a whole TTL has passed since the last
/// good one.
const RENEW_RETRY_MS: u64 = 1_000;
/// Serf's LAN failure detector (memberlist DefaultLANConfig): a probe every
/// second, and a suspect is declared dead after 4 x log10(n) probe
/// intervals (at least 4 s): about 5 s from a cut to serfHealth critical.
/// That is the base: memberlist stretches a suspicion up to
/// `SuspicionMaxTimeoutMult` (6) times it when few other nodes confirm it
/// (config.go, suspicion.go), so a small cluster can take about 24 s. The
/// model keeps the base, the fastest case, and the panel says so.
const SERF_PROBE_MS: u64 = 1_000;
const SERF_SUSPICION_MS: u64 = 4_000;
/// hashicorp/raft: a follower waits `randomTimeout(HeartbeatTimeout)`, 1x
/// to 2x the heartbeat timeout, before it stands for election; Consul's
/// default `raft_multiplier` 5 makes that timeout 5 x 1 s. An election
/// takes 5-10 s, drawn per failover from the run's seed.
const RAFT_HEARTBEAT_TIMEOUT_MS: u64 = 5_000;
/// `rpc_hold_timeout` (agent/config, default 7 s): how long the agent and
/// servers hold a request while there is no leader; past it the request
/// fails ("No cluster leader", HTTP 500).
const RPC_HOLD_MS: u64 = 7_000;
/// hashicorp/yamux `DefaultConfig()` (mux.go; const.go's ErrKeepAliveTimeout),
/// as agent/pool/pool.go opens the agent's connection to the servers: a
/// keepalive ping every 30 s, and a connection whose ping has no answer
/// within the 10 s `ConnectionWriteTimeout` is closed, failing every stream
/// on it. Until then a blocking GET on it simply waits.
const YAMUX_KEEPALIVE_MS: u64 = 30_000;
const YAMUX_WRITE_TIMEOUT_MS: u64 = 10_000;
/// `consul lock` runs monitorLock with MonitorRetries 3 and
/// MonitorRetryTime 1 s (command/lock/lock.go); the api's own default
/// retry time is 2 s, but its default MonitorRetries is 0.
const MONITOR_RETRY_MS: u64 = 1_000;
/// The most retries a setting may ask for.
pub const MONITOR_RETRIES_MAX: u32 = 10;
/// A new cluster has written its own catalog (its node, the serfHealth
/// check, the consul service) before the first lock, so indexes start
/// above 1. The number itself is arbitrary: tokens only compare.
const RAFT_INDEX_START: u32 = 20;
/// Blocking queries the server holds at most; past it a GET is answered at
/// once, and the client simply polls.
const BLOCKED_MAX: usize = 64;
/// Requests held during a leader election at most; past it one is served at
/// once, as if the election were over.
const DEFERRED_MAX: usize = 256;

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
    /// A new Raft leader has been elected.
    ElectionDone,
    /// The agent has held a request for `rpc_hold_timeout` with no leader.
    HoldExpired { client: ClientId, rpc: Rpc },
    /// The keepalive ping sent on the agent's connection after a cut has
    /// had no answer within yamux's write timeout.
    KeepaliveDue { gen: u64 },
    /// monitorLock's sleep (MonitorRetryTime) before it asks again.
    MonitorRetry { gen: u64 },
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
}

/// What one client's library knows, on its side of the wire.
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
    /// Serf's view of each client's node.
    suspect_since: [Option<Millis>; 4],
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
            suspect_since: [None; 4],
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
                let suspicion = scaled(SERF_SUSPICION_MS, self.ttl_ms);
                let left = match self.suspect_since[i] {
                    Some(since) => view.now.until(since.plus(suspicion)),
                    None => scaled(SERF_PROBE_MS, self.ttl_ms) + suspicion,
                };
                format!(
                    "the host is silent: serf will mark its node failed in about {} ({} s in real Consul), ending its session, then lock-delay",
                    super::seconds_1(Millis(left.max(100))),
                    (SERF_PROBE_MS + SERF_SUSPICION_MS) / 1_000
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
            if self.hold(view, c, body, until, out) {
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

/// The server: sessions, the key, blocking queries, the leader.
impl Consul {
    fn token_of(&self, entry: &KvEntry) -> Token {
        Token(u64::from(match self.options.token {
            ConsulToken::ModifyIndex => entry.modify_index,
            ConsulToken::LockIndex | ConsulToken::Sequencer => entry.lock_index,
        }))
    }

    /// A grant's identity as writes carry it: with the sequencer, its
    /// Session (the write's token is its LockIndex, so the two make the
    /// docs' tuple); otherwise the ModifyIndex of its acquire.
    fn grant_key(&self, session: u64, modify_index: u32) -> u64 {
        match self.options.token {
            ConsulToken::Sequencer => session,
            ConsulToken::ModifyIndex | ConsulToken::LockIndex => u64::from(modify_index),
        }
    }

    fn session_ms(&self) -> u64 {
        self.ttl_ms * SESSION_TTL_MULTIPLIER
    }

    /// No leader: the agent holds the request for `rpc_hold_timeout`. An
    /// election that ends within it serves the request then; a longer one
    /// fails it when the hold runs out. False once too many wait: that one
    /// is served at once, as if the election were over.
    fn hold(
        &mut self,
        view: &View,
        c: ClientId,
        body: ConsulMsg,
        until: Millis,
        out: &mut Effects,
    ) -> bool {
        if self.deferred.len() >= DEFERRED_MAX {
            return false;
        }
        let gives_up = view.now.plus(rpc_hold_ms(self.ttl_ms));
        if gives_up >= until {
            self.deferred.push((c, body));
            return true;
        }
        let rpc = match body {
            ConsulMsg::SessionCreate { .. } => Some(Rpc::SessionCreate),
            ConsulMsg::SessionRenew { .. } => Some(Rpc::SessionRenew),
            ConsulMsg::KvGet { purpose, .. } => Some(Rpc::KvGet { purpose }),
            ConsulMsg::KvAcquire { .. } => Some(Rpc::KvAcquire),
            // An Unlock or destroy that fails leaves the session to its
            // timer (and the key held until then), as a failed call does.
            _ => None,
        };
        if let Some(rpc) = rpc {
            out.service_timer(gives_up, ConsulTimer::HoldExpired { client: c, rpc });
        }
        true
    }

    fn create_session(
        &mut self,
        view: &View,
        c: ClientId,
        ttl_ms: u64,
        lock_delay_ms: u64,
        cleanup: KeyCleanup,
        out: &mut Effects,
    ) -> ConsulMsg {
        // A UUID in Consul; its first 32 bits are what a person reads.
        let session = self.rng.draw(0x1000_0000, 0xffff_ffff);
        count_up(&mut self.raft_index);
        self.sessions.insert(
            session,
            Session {
                owner: c,
                ttl_ms,
                lock_delay_ms,
                cleanup,
                renewed_at: view.now,
                expires_at: view.now,
            },
        );
        self.renew(view, session, out);
        self.arm_probe(view, c, out);
        out.record(Event::Service(ServiceEvent::ConsulSessionCreated {
            client: c,
            session,
            ttl_ms,
            invalidate_ms: self.session_ms(),
        }));
        ConsulMsg::SessionCreateReply { session }
    }

    /// Resets the session's timer to TTL x 2 from now; false if it is gone.
    fn renew(&mut self, view: &View, session: u64, out: &mut Effects) -> bool {
        let after = self.session_ms();
        let Some(s) = self.sessions.get_mut(&session) else {
            return false;
        };
        s.renewed_at = view.now;
        s.expires_at = view.now.plus(after);
        out.service_timer(s.expires_at, ConsulTimer::SessionExpiry { session });
        true
    }

    fn get_reply(&self, purpose: GetPurpose) -> ConsulMsg {
        ConsulMsg::KvGetReply {
            purpose,
            session: self.key.and_then(|k| k.session),
            index: self.key_index,
        }
    }

    /// Holds a blocking GET until the key changes or its wait time is up.
    fn block(&mut self, view: &View, c: ClientId, purpose: GetPurpose, out: &mut Effects) {
        if purpose == GetPurpose::Monitor {
            // One monitorLock per client: a GET it sent again after a cut
            // healed stands for the one whose answer the cut dropped.
            self.blocked
                .retain(|b| b.client != c || b.purpose != GetPurpose::Monitor);
        }
        if self.blocked.len() >= BLOCKED_MAX {
            out.answer(c, self.get_reply(purpose));
            return;
        }
        let real = match purpose {
            GetPurpose::Monitor => MONITOR_WAIT_MS,
            GetPurpose::Wait | GetPurpose::Why => LOCK_WAIT_MS,
        };
        let wait = scaled(real, self.ttl_ms);
        let jitter = self.rng.draw(0, wait / QUERY_JITTER_FRACTION);
        let id = self.next_query;
        self.next_query += 1;
        self.blocked.push(Blocked {
            id,
            client: c,
            purpose,
        });
        out.service_timer(
            view.now.plus(wait + jitter),
            ConsulTimer::QueryTimeout { id },
        );
    }

    /// The key changed: every blocking GET on it returns.
    fn key_changed(&mut self, index: u32, out: &mut Effects) {
        // Every write to the key is a later Raft entry than the last one.
        assert!(
            index > self.key_index && index <= self.raft_index,
            "the key's index went from {} to {index} (Raft index {})",
            self.key_index,
            self.raft_index
        );
        self.key_index = index;
        for b in std::mem::take(&mut self.blocked) {
            out.answer(b.client, self.get_reply(b.purpose));
        }
    }

    /// `PUT ?acquire=<session>`: refused during a lock-delay (before any
    /// Raft write), then kvsLockTxn.
    fn acquire(
        &mut self,
        view: &View,
        c: ClientId,
        session: u64,
        out: &mut Effects,
    ) -> AcquireResult {
        if view.now < self.lock_delay_until {
            out.record(Event::Service(ServiceEvent::ConsulLockDelayRefused {
                client: c,
                until: self.lock_delay_until,
            }));
            return AcquireResult::NotLocked;
        }
        if !self.sessions.contains_key(&session) {
            return AcquireResult::InvalidSession;
        }
        let (lock_index, create_index) = match self.key {
            Some(k) if k.session == Some(session) => {
                return AcquireResult::Locked {
                    lock_index: k.lock_index,
                    modify_index: k.modify_index,
                }
            }
            Some(k) if k.session.is_some() => return AcquireResult::NotLocked,
            Some(k) => (k.lock_index + 1, k.create_index),
            // A new key: its LockIndex starts at 1.
            None => (1, self.raft_index + 1),
        };
        let modify_index = count_up(&mut self.raft_index);
        self.key = Some(KvEntry {
            session: Some(session),
            lock_index,
            modify_index,
            create_index,
            acquired_at: view.now,
        });
        out.record(Event::Service(ServiceEvent::ConsulKeyAcquired {
            client: c,
            lock_index: u64::from(lock_index),
            modify_index: u64::from(modify_index),
            create_index: u64::from(create_index),
        }));
        self.key_changed(modify_index, out);
        AcquireResult::Locked {
            lock_index,
            modify_index,
        }
    }

    /// Unlock: release (no lock-delay), the cleanup's delete if chosen and
    /// the key is free, then the session's destroy.
    fn release(&mut self, view: &View, session: u64, delete_key: bool, out: &mut Effects) {
        let owner = self.sessions.get(&session).map(|s| s.owner);
        if let (Some(k), Some(client)) = (self.key.as_mut(), owner) {
            if k.session == Some(session) {
                k.session = None;
                k.modify_index = count_up(&mut self.raft_index);
                out.record(Event::Service(ServiceEvent::ConsulKeyReleased {
                    client,
                    modify_index: u64::from(self.raft_index),
                }));
                self.key_changed(self.raft_index, out);
            }
        }
        if delete_key && self.key.is_some_and(|k| k.session.is_none()) {
            let index = count_up(&mut self.raft_index);
            self.delete_key(owner, index, out);
        }
        self.invalidate(view, session, Invalidation::Destroyed, out);
    }

    /// The key goes (a write at `index`); a new one will start at LockIndex 1.
    fn delete_key(&mut self, by: Option<ClientId>, index: u32, out: &mut Effects) {
        self.key = None;
        out.record(Event::Service(ServiceEvent::ConsulKeyDeleted {
            by,
            index: u64::from(index),
        }));
        self.key_changed(index, out);
    }

    /// The session ends (TTL, failed node, destroy): in one Raft write its
    /// key is released or deleted, and a key it held gets the lock-delay.
    fn invalidate(&mut self, view: &View, session: u64, why: Invalidation, out: &mut Effects) {
        let Some(s) = self.sessions.remove(&session) else {
            return;
        };
        let index = count_up(&mut self.raft_index);
        let held = self.key.is_some_and(|k| k.session == Some(session));
        let mut delay_until = None;
        if held && s.lock_delay_ms > 0 {
            let until = view.now.plus(s.lock_delay_ms);
            self.lock_delay_until = self.lock_delay_until.max(until);
            delay_until = Some(self.lock_delay_until);
        }
        let event = match why {
            Invalidation::Ttl => ServiceEvent::ConsulSessionExpired {
                client: s.owner,
                session,
                ttl_ms: s.ttl_ms,
                silent_ms: s.renewed_at.until(view.now),
                lock_delay_until: delay_until,
            },
            Invalidation::NodeFailed => ServiceEvent::ConsulNodeFailed {
                client: s.owner,
                session,
                lock_delay_until: delay_until,
            },
            Invalidation::Destroyed => ServiceEvent::ConsulSessionDestroyed {
                client: s.owner,
                session,
                lock_delay_until: delay_until,
            },
        };
        out.record(Event::Service(event));
        if !held {
            return;
        }
        match s.cleanup {
            KeyCleanup::Keep => {
                if let Some(k) = self.key.as_mut() {
                    k.session = None;
                    k.modify_index = index;
                }
                self.key_changed(index, out);
            }
            KeyCleanup::Delete => self.delete_key(None, index, out),
        }
    }

    fn on_service_timer(&mut self, view: &View, timer: ConsulTimer, out: &mut Effects) {
        match timer {
            ConsulTimer::SessionExpiry { session } => {
                let due = self.sessions.get(&session).map(|s| s.expires_at);
                // A leader election resets every timer; none fires meanwhile.
                if due == Some(view.now) && self.electing_until.is_none() {
                    self.invalidate(view, session, Invalidation::Ttl, out);
                }
            }
            ConsulTimer::QueryTimeout { id } => {
                if let Some(until) = self.electing_until {
                    out.service_timer(until, ConsulTimer::QueryTimeout { id });
                    return;
                }
                if let Some(i) = self.blocked.iter().position(|b| b.id == id) {
                    let b = self.blocked.remove(i);
                    out.answer(b.client, self.get_reply(b.purpose));
                }
            }
            ConsulTimer::SerfProbe { client } => self.probe(view, client, out),
            ConsulTimer::ElectionDone => self.elected(view, out),
            ConsulTimer::HoldExpired { client, rpc } if self.electing_until.is_some() => {
                out.record(Event::Service(ServiceEvent::ConsulNoLeaderError { client }));
                out.answer(client, ConsulMsg::NoLeader { rpc });
            }
            _ => {}
        }
    }

    /// Serf keeps probing a node while it has a session or is suspect.
    fn arm_probe(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        if !self.probing[c.index()] {
            self.probing[c.index()] = true;
            let at = view.now.plus(scaled(SERF_PROBE_MS, self.ttl_ms));
            out.service_timer(at, ConsulTimer::SerfProbe { client: c });
        }
    }

    /// A probe of the client's node: a partition, lost messages or a dead
    /// host make it suspect, and a suspect long enough is declared failed:
    /// serfHealth goes critical and its sessions are invalidated. A process
    /// that exited leaves its agent, on a live host, answering.
    fn probe(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        self.probing[c.index()] = false;
        let client = &view.clients[c.index()];
        let reachable = client.partition.is_none() && !client.losing && !client.host_down();
        let i = c.index();
        if !reachable {
            self.keepalive_starts(view, c, out);
        }
        if reachable {
            self.suspect_since[i] = None;
            if self.node_failed[i] {
                self.node_failed[i] = false;
                out.record(Event::Service(ServiceEvent::ConsulNodeRejoined {
                    client: c,
                }));
            }
        } else if !self.node_failed[i] && self.electing_until.is_none() {
            let since = *self.suspect_since[i].get_or_insert(view.now);
            if since.until(view.now) >= scaled(SERF_SUSPICION_MS, self.ttl_ms) {
                self.node_failed[i] = true;
                let owned: Vec<u64> = self.sessions_of(c);
                for session in owned {
                    self.invalidate(view, session, Invalidation::NodeFailed, out);
                }
                // Its agent sees the servers fail too (client_serf.go's
                // nodeFail drops them from its router): new requests error.
                // A GET already out waits on its stream (`keepalive_starts`).
                self.agent_gen[i] += 1;
                out.client_timer(
                    c,
                    0,
                    ConsulTimer::AgentError {
                        gen: self.agent_gen[i],
                    },
                );
            }
        }
        let watched = !self.sessions_of(c).is_empty() || !reachable || self.node_failed[i];
        if watched {
            self.arm_probe(view, c, out);
        }
    }

    fn sessions_of(&self, c: ClientId) -> Vec<u64> {
        self.sessions
            .iter()
            .filter(|(_, s)| s.owner == c)
            .map(|(&id, _)| id)
            .collect()
    }

    /// The leader dies; the KV store and its indexes are in the Raft log
    /// and survive. Requests wait for the new leader.
    fn failover(&mut self, view: &View, out: &mut Effects) {
        if self.electing_until.is_some() {
            return;
        }
        let heartbeat = scaled(RAFT_HEARTBEAT_TIMEOUT_MS, self.ttl_ms);
        let until = view.now.plus(self.rng.draw(heartbeat, 2 * heartbeat));
        self.electing_until = Some(until);
        out.record(Event::Service(ServiceEvent::ConsulLeaderLost { until }));
        out.service_timer(until, ConsulTimer::ElectionDone);
        // The blocking GETs the dead leader held lose their connection; the
        // agents send them again and hold them like any request.
        let key_index = self.key_index;
        for b in std::mem::take(&mut self.blocked) {
            let again = ConsulMsg::KvGet {
                wait_index: key_index,
                purpose: b.purpose,
            };
            if !self.hold(view, b.client, again, until, out) {
                self.blocked.push(b);
            }
        }
    }

    /// The new leader resets every session's timer to TTL x 2 from now
    /// (initializeSessionTimers), then serves what waited.
    fn elected(&mut self, view: &View, out: &mut Effects) {
        self.electing_until = None;
        count_up(&mut self.raft_index);
        let sessions: Vec<u64> = self.sessions.keys().copied().collect();
        for session in sessions {
            let after = self.session_ms();
            if let Some(s) = self.sessions.get_mut(&session) {
                s.expires_at = view.now.plus(after);
                out.service_timer(s.expires_at, ConsulTimer::SessionExpiry { session });
            }
        }
        out.record(Event::Service(ServiceEvent::ConsulLeaderElected {
            index: u64::from(self.raft_index),
            sessions_until: view.now.plus(self.session_ms()),
        }));
        for (c, msg) in std::mem::take(&mut self.deferred) {
            self.on_request(view, c, Endpoint::Service, msg, out);
        }
    }
}

/// Whether a ping sent at `ping_at` into a partition that heals at
/// `healed` gets through within `timeout`: TCP sends it again after a
/// timeout that doubles from 200 ms (as the page's network does), so it
/// crosses at the first try after the heal.
fn ping_gets_through(ping_at: Millis, healed: Millis, timeout: u64) -> bool {
    let mut at = ping_at;
    let mut rto = crate::sim::TCP_RTO_MS_MIN;
    while at < healed {
        at = at.plus(rto);
        rto = (rto * 2).min(crate::sim::TCP_RTO_MS_MAX);
    }
    ping_at.until(at) <= timeout
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Invalidation {
    Ttl,
    NodeFailed,
    Destroyed,
}

/// The client: `Lock()`, `RenewPeriodic`, `monitorLock` and `Unlock()`.
impl Consul {
    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn agent_down(&self, c: ClientId) -> bool {
        self.node_failed[c.index()]
    }

    /// `Lock()`: a new session (TTL, lock-delay, behaviour), then poll.
    fn lock(&mut self, c: ClientId, out: &mut Effects) {
        if let Some(old) = self.side(c).session.take() {
            out.ask(c, ConsulMsg::SessionDestroy { session: old });
        }
        *self.side(c) = Side::default();
        if self.agent_down(c) {
            out.fail(c, AcquireFailure::AgentUnreachable);
            return;
        }
        self.side(c).phase = ConsulPhase::CreatingSession;
        out.ask(
            c,
            ConsulMsg::SessionCreate {
                ttl_ms: self.ttl_ms,
                lock_delay_ms: lock_delay_ms(self.options.lock_delay_s, self.ttl_ms),
                cleanup: self.options.cleanup,
            },
        );
    }

    /// `Unlock()` while holding; giving up a `Lock()` call destroys the
    /// session it made.
    fn unlock(&mut self, c: ClientId, out: &mut Effects) {
        let side = std::mem::take(self.side(c));
        let Some(session) = side.session else {
            return;
        };
        if self.agent_down(c) {
            return; // The agent fails the request; serf ends the session.
        }
        if side.phase == ConsulPhase::Held {
            let delete_key = self.options.cleanup == KeyCleanup::Delete;
            out.ask(
                c,
                ConsulMsg::Unlock {
                    session,
                    delete_key,
                },
            );
        } else {
            out.ask(c, ConsulMsg::SessionDestroy { session });
        }
    }

    /// The agent failed a request after holding it through too long an
    /// election: monitorLock retries or closes leaderCh, RenewPeriodic
    /// tries again in 1 s, and a Lock() call returns the error, destroying
    /// the session it made.
    fn on_no_leader(&mut self, view: &View, c: ClientId, rpc: Rpc, out: &mut Effects) {
        let side = &self.side[c.index()];
        let phase = side.phase;
        match rpc {
            Rpc::KvGet {
                purpose: GetPurpose::Monitor,
            } if phase == ConsulPhase::Held => self.monitor_error(c, out),
            Rpc::SessionRenew if side.session.is_some() => {
                let silent = view.local_now(c) - side.last_renew_local;
                if silent > side.ttl_ms as i64 {
                    self.side(c).renew_gen += 1; // RenewPeriodic gives up.
                } else {
                    self.arm_renew(c, scaled(RENEW_RETRY_MS, self.ttl_ms), out);
                }
            }
            Rpc::SessionCreate if phase == ConsulPhase::CreatingSession => self.lock_failed(c, out),
            Rpc::KvGet {
                purpose: GetPurpose::Wait,
            } if phase == ConsulPhase::Polling => self.lock_failed(c, out),
            Rpc::KvGet {
                purpose: GetPurpose::Why,
            } if phase == ConsulPhase::Checking => self.lock_failed(c, out),
            Rpc::KvAcquire if phase == ConsulPhase::Acquiring => self.lock_failed(c, out),
            _ => {}
        }
    }

    /// Lock() returns its error; its deferred cleanup destroys the session
    /// it created (closing RenewPeriodic's doneCh).
    fn lock_failed(&mut self, c: ClientId, out: &mut Effects) {
        let side = std::mem::take(self.side(c));
        if let Some(session) = side.session {
            out.ask(c, ConsulMsg::SessionDestroy { session });
        }
        out.fail(c, AcquireFailure::ConsulNoLeader);
    }

    /// monitorLock's GET failed: with MonitorRetries left it sleeps
    /// MonitorRetryTime and asks again (a non-blocking GET), else it
    /// returns and closes leaderCh (api/lock.go).
    fn monitor_error(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        if side.phase != ConsulPhase::Held {
            return;
        }
        if side.retries_left == 0 {
            self.leader_ch_closed(c, LossReason::ConsulMonitorError, out);
            return;
        }
        side.retries_left -= 1;
        side.monitor_gen += 1;
        let (gen, left) = (side.monitor_gen, side.retries_left);
        out.record(Event::Service(ServiceEvent::ConsulMonitorRetry {
            client: c,
            left,
        }));
        let after = scaled(MONITOR_RETRY_MS, self.ttl_ms);
        out.client_timer(c, after, ConsulTimer::MonitorRetry { gen });
    }

    /// The holder's link to the servers is cut (serf's first failed probe
    /// sees it): the next keepalive ping on its agent's connection goes out
    /// somewhere in the next 30 s, and fails 10 s later unless it gets
    /// through first. Where in its 30 s cycle the ping timer stands is
    /// drawn from the run's seed: the connection was opened when the agent
    /// started, long before the run, so the page cannot know its phase.
    fn keepalive_starts(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = &self.side[c.index()];
        if side.phase != ConsulPhase::Held || side.keepalive.is_some() {
            return;
        }
        let interval = scaled(YAMUX_KEEPALIVE_MS, self.ttl_ms);
        let ping_in = self.rng.draw(0, interval - 1);
        let after = ping_in + scaled(YAMUX_WRITE_TIMEOUT_MS, self.ttl_ms);
        self.keepalive_gen += 1;
        let gen = self.keepalive_gen;
        let side = self.side(c);
        side.keepalive = Some(Keepalive {
            gen,
            ping_at: view.now.plus(ping_in),
        });
        side.healed_at = None;
        out.client_timer(c, after, ConsulTimer::KeepaliveDue { gen });
    }

    /// The ping's write timeout is up. Answered, the connection lives on:
    /// after a healed partition TCP delivers what was held (the page's
    /// network sends it again too), and after lost messages the holder's
    /// GET goes again, since the page's lost messages are gone for good.
    /// Unanswered, the connection closes and monitorLock's GET fails.
    fn keepalive_due(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        let (Some(ping), healed_at) = (side.keepalive.take(), side.healed_at.take()) else {
            return;
        };
        let client = &view.clients[c.index()];
        let up = client.partition.is_none() && !client.losing;
        let timeout = scaled(YAMUX_WRITE_TIMEOUT_MS, self.ttl_ms);
        let answered = match healed_at {
            Some(healed) => up && ping_gets_through(ping.ping_at, healed, timeout),
            None => up,
        };
        if answered {
            if healed_at.is_none() {
                self.resend_monitor(c, out);
            }
            return;
        }
        out.record(Event::Service(ServiceEvent::ConsulKeepaliveFailed {
            client: c,
        }));
        self.monitor_error(c, out);
    }

    /// A partition heals while a ping is pending: whether the ping got
    /// through in time is judged when its timeout is up.
    fn healed(&mut self, view: &View, c: ClientId) {
        let side = self.side(c);
        if side.keepalive.is_some() {
            side.healed_at = Some(view.now);
        }
    }

    /// After lost messages: the server's answer to monitorLock is gone, so
    /// its GET goes again (the server keeps one per client) and reads the
    /// key as that answer would have.
    fn resend_monitor(&mut self, c: ClientId, out: &mut Effects) {
        if self.side[c.index()].phase != ConsulPhase::Held {
            return;
        }
        out.ask(
            c,
            ConsulMsg::KvGet {
                wait_index: 0,
                purpose: GetPurpose::Monitor,
            },
        );
    }

    fn poll(&mut self, c: ClientId, wait_index: u32, out: &mut Effects) {
        self.side(c).phase = ConsulPhase::Polling;
        out.ask(
            c,
            ConsulMsg::KvGet {
                wait_index,
                purpose: GetPurpose::Wait,
            },
        );
    }

    fn on_get_reply(
        &mut self,
        c: ClientId,
        purpose: GetPurpose,
        holder: Option<u64>,
        index: u32,
        out: &mut Effects,
    ) {
        let side = &self.side[c.index()];
        let (phase, Some(mine)) = (side.phase, side.session) else {
            return;
        };
        match (purpose, phase) {
            (GetPurpose::Wait, ConsulPhase::Polling) => match holder {
                Some(other) if other != mine => self.poll(c, index, out),
                _ => {
                    self.side(c).phase = ConsulPhase::Acquiring;
                    out.ask(c, ConsulMsg::KvAcquire { session: mine });
                }
            },
            (GetPurpose::Why, ConsulPhase::Checking) => match holder {
                Some(_) => self.poll(c, index, out),
                None => {
                    // Session empty and refused: a lock-delay. Sleep.
                    let side = self.side(c);
                    side.phase = ConsulPhase::Sleeping;
                    side.retry_gen += 1;
                    let gen = side.retry_gen;
                    let after = scaled(LOCK_RETRY_MS, self.ttl_ms);
                    out.client_timer(c, after, ConsulTimer::Retry { gen });
                }
            },
            (GetPurpose::Monitor, ConsulPhase::Held) if holder == Some(mine) => {
                // A good answer: monitorLock's WAIT label resets the retries.
                let retries = self.options.monitor_retries;
                self.side(c).retries_left = retries;
                self.monitor(c, index, out)
            }
            (GetPurpose::Monitor, ConsulPhase::Held) => {
                self.leader_ch_closed(c, LossReason::ConsulSessionChanged, out)
            }
            _ => {}
        }
    }

    fn monitor(&mut self, c: ClientId, wait_index: u32, out: &mut Effects) {
        if self.agent_down(c) {
            // No server in the agent's router: the GET fails at once.
            self.monitor_error(c, out);
            return;
        }
        out.ask(
            c,
            ConsulMsg::KvGet {
                wait_index,
                purpose: GetPurpose::Monitor,
            },
        );
    }

    fn on_acquire_reply(
        &mut self,
        c: ClientId,
        session: u64,
        result: AcquireResult,
        out: &mut Effects,
    ) {
        let side = &self.side[c.index()];
        if side.phase != ConsulPhase::Acquiring || side.session != Some(session) {
            let released = side.session.is_none() && !self.agent_down(c);
            if matches!(result, AcquireResult::Locked { .. }) && released {
                // Released while the PUT was in flight: give it back.
                out.ask(
                    c,
                    ConsulMsg::Unlock {
                        session,
                        delete_key: self.options.cleanup == KeyCleanup::Delete,
                    },
                );
            }
            return;
        }
        match result {
            AcquireResult::Locked {
                lock_index,
                modify_index,
            } => {
                let token = match self.options.token {
                    ConsulToken::ModifyIndex => modify_index,
                    ConsulToken::LockIndex | ConsulToken::Sequencer => lock_index,
                };
                let retries = self.options.monitor_retries;
                let side = self.side(c);
                side.phase = ConsulPhase::Held;
                side.closed = None;
                side.retries_left = retries;
                let token = Token(u64::from(token));
                let key = self.grant_key(session, modify_index);
                out.grant(c, Some(token), key, None);
                // monitorLock's first GET does not block.
                self.monitor(c, 0, out);
            }
            AcquireResult::NotLocked => {
                self.side(c).phase = ConsulPhase::Checking;
                out.ask(
                    c,
                    ConsulMsg::KvGet {
                        wait_index: 0,
                        purpose: GetPurpose::Why,
                    },
                );
            }
            AcquireResult::InvalidSession => {
                *self.side(c) = Side::default();
                out.fail(c, AcquireFailure::LeaseGone);
            }
        }
    }

    /// monitorLock returns and closes leaderCh; the application then calls
    /// Unlock, which destroys the session (RenewPeriodic's doneCh).
    fn leader_ch_closed(&mut self, c: ClientId, why: LossReason, out: &mut Effects) {
        let side = std::mem::take(self.side(c));
        self.side(c).closed = Some(why);
        out.lose(c, why);
        if let (Some(session), false) = (side.session, self.agent_down(c)) {
            out.ask(c, ConsulMsg::SessionDestroy { session });
        }
    }

    fn on_client_timer(&mut self, view: &View, c: ClientId, timer: ConsulTimer, out: &mut Effects) {
        let side = &self.side[c.index()];
        match timer {
            ConsulTimer::Renew { gen } if gen == side.renew_gen => self.renew_tick(view, c, out),
            ConsulTimer::Retry { gen }
                if gen == side.retry_gen && side.phase == ConsulPhase::Sleeping =>
            {
                self.poll(c, 0, out)
            }
            ConsulTimer::AgentError { gen } if gen == self.agent_gen[c.index()] => {
                self.agent_error(c, out)
            }
            ConsulTimer::KeepaliveDue { gen } if side.keepalive.is_some_and(|k| k.gen == gen) => {
                self.keepalive_due(view, c, out)
            }
            ConsulTimer::MonitorRetry { gen }
                if gen == side.monitor_gen && side.phase == ConsulPhase::Held =>
            {
                self.monitor(c, 0, out)
            }
            _ => {}
        }
    }

    /// The agent has dropped the servers from its router: a Lock() call
    /// returns its error. (Its own GET in flight would wait for the
    /// connection's keepalive like the holder's; the model fails it now.)
    /// The holder's monitorLock hears nothing yet: its GET waits on the
    /// connection until the keepalive fails (`keepalive_due`).
    fn agent_error(&mut self, c: ClientId, out: &mut Effects) {
        match self.side[c.index()].phase {
            ConsulPhase::Idle | ConsulPhase::Held => {}
            _ => {
                *self.side(c) = Side::default();
                out.fail(c, AcquireFailure::AgentUnreachable);
            }
        }
    }

    /// RenewPeriodic: every TTL/2; after an error every second, until a
    /// whole TTL has passed since the last good renewal.
    fn renew_tick(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = &self.side[c.index()];
        let Some(session) = side.session else {
            return;
        };
        if !view.renewal(c) {
            return;
        }
        let ttl_ms = side.ttl_ms;
        if !self.agent_down(c) {
            out.ask(c, ConsulMsg::SessionRenew { session });
            self.arm_renew(c, ttl_ms / 2, out);
            return;
        }
        let silent = view.local_now(c) - side.last_renew_local;
        if silent > ttl_ms as i64 {
            self.side(c).renew_gen += 1; // RenewPeriodic gives up.
            return;
        }
        self.arm_renew(c, scaled(RENEW_RETRY_MS, self.ttl_ms), out);
    }

    fn arm_renew(&mut self, c: ClientId, after_ms: u64, out: &mut Effects) {
        let side = self.side(c);
        side.renew_gen += 1;
        let gen = side.renew_gen;
        out.client_timer(c, after_ms.max(1), ConsulTimer::Renew { gen });
    }
}
