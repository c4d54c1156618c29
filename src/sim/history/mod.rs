//! The history of a run: typed records of what happened, which
//! `sentences.rs` turns into plain sentences.

pub(super) mod sentences;

use super::client::{ChubbySession, ZkConn};
use super::net::{Body, Endpoint};
use super::scenario::{Command, NodeCommand, PartitionScope};
use super::types::{ClientId, Millis, NodeId, Persistence, Token};
use serde::{Deserialize, Serialize};

/// History keeps at most this many records; past it, records are counted
/// but not stored, and the page says so.
pub const HISTORY_LEN_MAX: usize = 200_000;

/// Why a client stopped believing it holds (or waits for) the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossReason {
    /// Its own clock says the lease is over.
    LocalDeadline,
    /// The service answered that the lease or session is gone.
    ServiceSaidGone,
    /// A Redlock extension did not reach a quorum in time.
    ExtensionFailed,
    /// ZooKeeper told it the session expired (LOST).
    SessionLost,
    /// Its lock key was gone when it re-checked after waiting.
    KeyGone,
    /// Its extension found the key gone or holding another client's value.
    NotMine,
    /// Chubby: the grace period after jeopardy ran out without the master.
    GraceExpired,
    /// Consul's monitorLock saw the key's Session is no longer its own and
    /// closed leaderCh.
    ConsulSessionChanged,
    /// Consul's monitorLock got an error from the agent and closed leaderCh
    /// (MonitorRetries is 0 by default).
    ConsulMonitorError,
    /// PostgreSQL (or the proxy before it) reset the connection its
    /// blocked pg_advisory_lock call was waiting on.
    ConnectionReset,
    /// The DynamoDB lock client's session monitor ran its callback: no
    /// successful heartbeat for `safeTimeWithoutHeartbeat`, the "danger
    /// zone" (`AcquireLockOptions.withSessionMonitor`).
    SessionMonitor,
}

/// Why an acquisition failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum AcquireFailure {
    /// Redlock: fewer than 3 nodes said OK.
    NoQuorum { oks: u8 },
    /// Redlock: a quorum, but the time it took used up the TTL.
    NoValidity { validity_ms: i64 },
    /// The session or lease was gone before the lock key could be created.
    LeaseGone,
    /// Single Redis with the application's `WAIT 1`: no replica
    /// acknowledged the lock key (or the master never answered).
    NoReplicaAck,
    /// Redisson: in each of its `tries` (the first and `retryAttempts`
    /// more), none of the connected replicas acknowledged the key within
    /// `slavesSyncTimeout`: `NoSyncedSlavesException`.
    NoSyncedSlaves { tries: u8 },
    /// Redisson: the master never answered the `WAIT`: a response
    /// timeout, which it does not try again for.
    RedissonTimeout,
    /// DynamoDB: the waiter's time ran out (a lease plus
    /// additionalTimeToWaitForLock) before it saw the lock item free or its
    /// RVN unchanged for a whole lease: LockNotGrantedException.
    NotGranted { waited_ms: u64 },
    /// Consul: the client's agent could not reach the servers, so Lock()
    /// returned an error.
    AgentUnreachable,
    /// Consul: a leader election outlasted the agent's hold of Lock()'s
    /// request (`rpc_hold_timeout`, and a blocking GET's wait), so Lock()
    /// returned an error.
    ConsulNoLeader,
    /// PostgreSQL refused a new connection: max_connections reached.
    TooManyConnections { max: u32 },
}

/// Why the resource rejected a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum RejectReason {
    TokenBelowHighest {
        token: Token,
        highest: Token,
    },
    NoToken,
    /// Below the token a new holder announced as it took over (no write
    /// had shown the resource a token that high).
    TokenBelowAnnounced {
        token: Token,
        announced: Token,
    },
    /// The lock item names someone else (or no one) as the owner.
    NotOwner {
        writer: ClientId,
        owner: Option<ClientId>,
    },
    /// `UPDATE ... WHERE version = n` matched no row: the data moved on.
    VersionMoved {
        version: Token,
        current: Token,
    },
    /// Consul's sequencer (LockIndex, Session) is not the key's: the
    /// request does not belong to the current lock holder.
    /// Both numbers travel in 32 bits, as Consul's messages carry them.
    NotCurrentSequencer {
        lock_index: u32,
        session: u32,
        /// The key's (LockIndex, Session), `None` when nobody holds it.
        current: Option<(u32, u32)>,
    },
    /// The lock no longer holds the writer's grant: the transaction's check
    /// (etcd's compare, ZooKeeper's check op, a Redis script, Chubby's
    /// CheckSequencer, Consul's check-session) failed. `current` is the
    /// holder's token, `None` when nobody holds the lock (every system
    /// with this check grants tokens).
    NotLockHolder {
        token: Option<Token>,
        current: Option<Token>,
    },
    /// A lock that grants no token (PostgreSQL's advisory lock) checked in
    /// the write's own transaction: the write runs on the session that
    /// holds the lock, or takes `pg_advisory_xact_lock` first, and the
    /// writer's session does not hold it. `holder` is the client whose
    /// session does, `None` when no session holds it.
    NotSessionHolder {
        writer: ClientId,
        holder: Option<ClientId>,
    },
}

/// Where a write stood when the resource applied it, as the safety oracle
/// (which sees every grant) judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// From the client the service says holds the lock, under that grant.
    Holder,
    /// From a client whose lease is gone while nobody else has been granted
    /// the lock since: worth showing, but nothing it could corrupt, and
    /// fencing rightly accepts it (its token is still the highest).
    WithoutLease,
    /// From a client after the lock was granted to another since its own
    /// grant: accepted, it corrupts the data; rejected, fencing saved it.
    Stale,
}

impl Standing {
    pub fn is_stale(self) -> bool {
        self == Standing::Stale
    }
}

/// Why a message never arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropReason {
    /// The client loses its messages (the "lose messages" fault).
    Lost,
    /// A partition outlasted TCP's retransmissions and the connection gave up.
    TcpGaveUp,
}

/// Why PostgreSQL ended a client's session (its backend process exited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PgSessionEnd {
    /// Every keepalive probe went unanswered: the host is gone or cut off.
    KeepalivesGaveUp,
    /// A probe was answered with a reset: the client host rebooted and
    /// knows nothing of the connection.
    ConnectionReset,
    /// The client's process exited and its kernel's FIN arrived: the
    /// backend read EOF and exited at once.
    ClientExited,
}

/// Service-side happenings that differ per backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum ServiceEvent {
    RedisKeySet {
        node: NodeId,
        client: ClientId,
    },
    /// Sentinel made this server the master; `lost_writes` copies had not
    /// reached it.
    RedisPromoted {
        node: NodeId,
        lost_writes: u32,
    },
    /// A server came back as a replica and took the master's data.
    RedisRejoined {
        node: NodeId,
    },
    /// Redisson's try for `client` ended with no connected replica synced
    /// (`NoSyncedSlavesException`): the key was given back, and try
    /// `attempt + 1` follows after `delay_ms`.
    RedissonRetry {
        client: ClientId,
        attempt: u8,
        delay_ms: u64,
    },
    /// A new leader took over a replicated service: the lock state and its
    /// tokens are kept, and `renewed` leases or sessions start afresh.
    LeaderChanged {
        renewed: u32,
    },
    RedisKeyExpired {
        node: NodeId,
        client: ClientId,
    },
    RedisKeyDeleted {
        node: NodeId,
        owner: ClientId,
        by: ClientId,
    },
    RedisFenceReset {
        node: NodeId,
    },
    ZkSessionOpened {
        client: ClientId,
        session: u64,
        timeout_ms: u64,
        requested_ms: u64,
        tick_ms: u64,
    },
    ZkSessionExpired {
        client: ClientId,
        session: u64,
    },
    ZkZnodeCreated {
        client: ClientId,
        seq: u64,
        zxid: u64,
    },
    ZkZnodeDeleted {
        client: ClientId,
        seq: u64,
        zxid: u64,
    },
    EtcdLeaseGranted {
        client: ClientId,
        lease: u64,
        ttl_ms: u64,
    },
    EtcdLeaseExpired {
        client: ClientId,
        lease: u64,
    },
    EtcdKeyPut {
        client: ClientId,
        create_rev: u64,
    },
    EtcdKeyDeleted {
        client: ClientId,
        create_rev: u64,
        revision: u64,
    },
    ChubbySessionCreated {
        client: ClientId,
        session: u64,
        lease_ms: u64,
    },
    ChubbySessionExpired {
        client: ClientId,
        session: u64,
    },
    ChubbyLockAcquired {
        client: ClientId,
        generation: u64,
    },
    /// Released by its holder: free at once, no lock-delay.
    ChubbyLockReleased {
        client: ClientId,
        generation: u64,
    },
    /// Freed because its holder's session failed: nobody may claim it
    /// until `delay_until` (the lock-delay).
    ChubbyLockFreed {
        client: ClientId,
        generation: u64,
        delay_until: Millis,
    },
    ChubbyLockDelayOver,
    /// The master died; the replicas elect another, which takes over at `until`.
    ChubbyMasterFailed {
        until: Millis,
    },
    ChubbyMasterElected {
        epoch: u64,
    },
    /// DynamoDB took a conditional put: the lock item now names `client`.
    DynamoItemPut {
        client: ClientId,
        rvn: u64,
        /// The RVN the put was conditioned on; `None`: on the item's absence.
        expected: Option<u64>,
        replaced: Option<ClientId>,
    },
    /// DynamoDB refused a conditional put: the item was not as expected.
    DynamoPutRefused {
        client: ClientId,
    },
    /// A heartbeat replaced the item's RVN with a new random one.
    DynamoRvnChanged {
        client: ClientId,
        from: u64,
        to: u64,
    },
    DynamoItemDeleted {
        client: ClientId,
    },
    /// The client library's log: a heartbeat failed its condition and the
    /// library stopped heartbeating, telling the application nothing.
    DynamoHeartbeatRefused {
        client: ClientId,
    },
    /// The client library's log: a call got no answer within the SDK's
    /// read timeout.
    DynamoCallTimedOut {
        client: ClientId,
    },
    /// The holder's lease ran out by its own clock, and its application
    /// never asks `isExpired()`: it goes on believing.
    DynamoExpiredUnasked {
        client: ClientId,
    },
    ConsulSessionCreated {
        client: ClientId,
        session: u64,
        ttl_ms: u64,
        /// How long the server really waits for a renewal: TTL x 2.
        invalidate_ms: u64,
    },
    ConsulSessionExpired {
        client: ClientId,
        session: u64,
        ttl_ms: u64,
        /// How long it went without a renewal.
        silent_ms: u64,
        lock_delay_until: Option<Millis>,
    },
    /// Serf declared the client's node failed: serfHealth critical.
    ConsulNodeFailed {
        client: ClientId,
        session: u64,
        lock_delay_until: Option<Millis>,
    },
    ConsulSessionDestroyed {
        client: ClientId,
        session: u64,
        lock_delay_until: Option<Millis>,
    },
    ConsulNodeRejoined {
        client: ClientId,
    },
    ConsulLockDelayRefused {
        client: ClientId,
        until: Millis,
    },
    ConsulKeyAcquired {
        client: ClientId,
        lock_index: u64,
        modify_index: u64,
        create_index: u64,
    },
    ConsulKeyReleased {
        client: ClientId,
        modify_index: u64,
    },
    ConsulKeyDeleted {
        /// `None` when the session's Behavior=delete removed it.
        by: Option<ClientId>,
        index: u64,
    },
    ConsulLeaderLost {
        until: Millis,
    },
    ConsulLeaderElected {
        index: u64,
        sessions_until: Millis,
    },
    /// The agent held the client's request as long as it may with no
    /// leader (`rpc_hold_timeout`, and a blocking GET's wait), and failed it.
    ConsulNoLeaderError {
        client: ClientId,
    },
    /// The keepalive ping on the client's agent's connection to the servers
    /// got no answer in time: the connection closes under monitorLock's
    /// blocking GET, which the agent retries on a new connection.
    ConsulKeepaliveFailed {
        client: ClientId,
    },
    /// monitorLock got an error and, with MonitorRetries left, sleeps and
    /// asks again instead of closing leaderCh.
    ConsulMonitorRetry {
        client: ClientId,
        left: u32,
    },
    PgSessionStarted {
        client: ClientId,
        pid: u64,
    },
    PgLockGranted {
        client: ClientId,
        pid: u64,
        /// The row's version the client read with the lock.
        version: u64,
    },
    PgLockBlocked {
        client: ClientId,
        pid: u64,
        holder: ClientId,
    },
    PgLockReleased {
        client: ClientId,
        pid: u64,
    },
    PgProbeUnanswered {
        client: ClientId,
        pid: u64,
        failed: u64,
        count: u64,
    },
    PgSessionEnded {
        client: ClientId,
        pid: u64,
        why: PgSessionEnd,
        /// Whether its advisory lock went with it.
        freed_lock: bool,
    },
    PgFailover {
        /// The promoted standby's timeline.
        timeline: u32,
        /// Who held advisory lock 42 on the old primary.
        dropped: Option<ClientId>,
    },
}

/// Everything that can happen in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    Clicked {
        client: ClientId,
        command: Command,
    },
    Queued {
        client: ClientId,
        command: Command,
    },
    NodeClicked {
        node: NodeId,
        command: NodeCommand,
    },
    AcquireStarted {
        client: ClientId,
    },
    Acquired {
        client: ClientId,
        token: Option<Token>,
        until: Option<Millis>,
    },
    Waiting {
        client: ClientId,
        token: Option<Token>,
    },
    AcquireFailed {
        client: ClientId,
        failure: AcquireFailure,
    },
    AcquireRetry {
        client: ClientId,
        failure: AcquireFailure,
        attempt: u32,
        retry_at: Millis,
    },
    Renewed {
        client: ClientId,
        until: Option<Millis>,
    },
    Released {
        client: ClientId,
    },
    Lost {
        client: ClientId,
        reason: LossReason,
    },
    ZkState {
        client: ClientId,
        state: ZkConn,
    },
    ChubbyState {
        client: ClientId,
        state: ChubbySession,
    },
    /// `value` is what it writes: the counter as it read it, plus one.
    WriteSent {
        client: ClientId,
        token: Option<Token>,
        #[serde(default)]
        value: u32,
    },
    /// `lost`: the increments it overwrote, made after the writer read.
    WriteAccepted {
        client: ClientId,
        token: Option<Token>,
        value: u64,
        standing: Standing,
        #[serde(default)]
        lost: u32,
    },
    WriteRejected {
        client: ClientId,
        token: Option<Token>,
        reason: RejectReason,
        standing: Standing,
    },
    /// A new holder's announcement reached the resource: `seen` is the
    /// highest token it had seen before (in writes or announcements).
    TokenAnnounced {
        client: ClientId,
        token: Token,
        seen: Option<Token>,
    },
    Paused {
        client: ClientId,
        until: Millis,
    },
    Woke {
        client: ClientId,
    },
    Partitioned {
        client: ClientId,
        scope: PartitionScope,
    },
    Healed {
        client: ClientId,
    },
    /// Its host died or was cut off (the power-off).
    Crashed {
        client: ClientId,
    },
    /// Its process exited on a host that stays up.
    Exited {
        client: ClientId,
    },
    Restarted {
        client: ClientId,
    },
    Renewal {
        client: ClientId,
        on: bool,
    },
    ClockJumpedOn {
        client: ClientId,
        jump_ms: i64,
    },
    ClockRate {
        client: ClientId,
        rate_pct: i32,
    },
    Losing {
        client: ClientId,
        on: bool,
    },
    HolderChanged {
        holder: Option<ClientId>,
        token: Option<Token>,
    },
    Service(ServiceEvent),
    NodeCrashed {
        node: NodeId,
        persistence: Persistence,
    },
    NodeRestarted {
        node: NodeId,
        persistence: Persistence,
    },
    NodeRestartDelayed {
        node: NodeId,
        until: Millis,
    },
    ClockJumped {
        node: NodeId,
        jump_ms: i64,
    },
    NodeSlow {
        node: NodeId,
        extra_ms: u64,
    },
    MessageSent {
        id: u64,
        from: Endpoint,
        to: Endpoint,
        body: Body,
        deliver_at: Millis,
    },
    /// Cut off by a partition, the message waits for TCP to send it again.
    MessageRetransmitted {
        id: u64,
        from: Endpoint,
        to: Endpoint,
        /// The next try, if the partition has healed by then.
        deliver_at: Millis,
        attempt: u32,
    },
    MessageDropped {
        id: u64,
        from: Endpoint,
        to: Endpoint,
        reason: DropReason,
    },
    TwoHolders {
        clients: Vec<ClientId>,
    },
    OneHolderAgain,
}

/// The colour families of the event log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    Command,
    Lock,
    Lease,
    Write,
    Alarm,
    Save,
    Fault,
    Service,
    Message,
}

impl EventKind {
    pub fn slug(self) -> &'static str {
        match self {
            EventKind::Command => "command",
            EventKind::Lock => "lock",
            EventKind::Lease => "lease",
            EventKind::Write => "write",
            EventKind::Alarm => "alarm",
            EventKind::Save => "save",
            EventKind::Fault => "fault",
            EventKind::Service => "service",
            EventKind::Message => "message",
        }
    }
}

impl Event {
    pub fn kind(&self) -> EventKind {
        use Event::*;
        match self {
            Clicked { .. } | Queued { .. } | NodeClicked { .. } | Renewal { .. } => {
                EventKind::Command
            }
            ClockJumpedOn { .. } | ClockRate { .. } | Losing { .. } => EventKind::Fault,
            AcquireStarted { .. } | Acquired { .. } | Waiting { .. } | Released { .. } => {
                EventKind::Lock
            }
            AcquireFailed { .. } | AcquireRetry { .. } | HolderChanged { .. } => EventKind::Lock,
            Renewed { .. } | Lost { .. } | ZkState { .. } | ChubbyState { .. } => EventKind::Lease,
            WriteAccepted {
                standing: Standing::Stale,
                ..
            }
            | TwoHolders { .. } => EventKind::Alarm,
            WriteRejected {
                standing: Standing::Stale,
                ..
            }
            | OneHolderAgain => EventKind::Save,
            WriteSent { .. } | WriteAccepted { .. } | WriteRejected { .. } => EventKind::Write,
            TokenAnnounced { .. } => EventKind::Write,
            Paused { .. } | Woke { .. } | Partitioned { .. } | Healed { .. } => EventKind::Fault,
            Crashed { .. } | Exited { .. } | Restarted { .. } => EventKind::Fault,
            NodeCrashed { .. } | NodeRestarted { .. } => EventKind::Fault,
            NodeRestartDelayed { .. } | ClockJumped { .. } | NodeSlow { .. } => EventKind::Fault,
            Service(_) => EventKind::Service,
            MessageSent { .. } | MessageRetransmitted { .. } | MessageDropped { .. } => {
                EventKind::Message
            }
        }
    }

    /// The client the event is about, for the timeline's lanes.
    pub fn client(&self) -> Option<ClientId> {
        use Event::*;
        match self {
            Clicked { client, .. }
            | Queued { client, .. }
            | AcquireStarted { client }
            | Acquired { client, .. }
            | Waiting { client, .. }
            | AcquireFailed { client, .. }
            | AcquireRetry { client, .. }
            | Renewed { client, .. }
            | Released { client }
            | Lost { client, .. }
            | ZkState { client, .. }
            | ChubbyState { client, .. }
            | WriteSent { client, .. }
            | WriteAccepted { client, .. }
            | WriteRejected { client, .. }
            | TokenAnnounced { client, .. }
            | Paused { client, .. }
            | Woke { client }
            | Partitioned { client, .. }
            | Healed { client }
            | Crashed { client }
            | Exited { client }
            | Restarted { client }
            | Renewal { client, .. }
            | ClockJumpedOn { client, .. }
            | ClockRate { client, .. }
            | Losing { client, .. } => Some(*client),
            _ => None,
        }
    }
}

/// One entry of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub at: Millis,
    #[serde(flatten)]
    pub event: Event,
}

// Pushed for most events: a sent message is the largest common record.
const _: () = assert!(size_of::<Record>() <= 72);
