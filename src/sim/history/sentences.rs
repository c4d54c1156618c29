//! The history in words: every record, event and reason as the plain
//! sentence the page shows (the event log first), with a lock system's
//! tokens worded as `TokenWords` says. The records in `mod.rs` say what
//! happened; this file only says it, so a sentence can be reworded without
//! touching what a run records.

use super::{
    AcquireFailure, DropReason, Event, LossReason, PgSessionEnd, Record, RejectReason,
    ServiceEvent, Standing,
};
use crate::sim::backend::{rvn_text, Backend};
use crate::sim::client::ChubbySession;
use crate::sim::scenario::{NodeCommand, PartitionScope};
use crate::sim::types::{ClientId, Millis, Persistence, Token};
use std::fmt;

impl fmt::Display for LossReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LossReason::LocalDeadline => "its own clock says the lease ran out",
            LossReason::ServiceSaidGone => "the service answered that its lease is gone",
            LossReason::ExtensionFailed => "its extension did not reach a quorum in time",
            LossReason::SessionLost => "ZooKeeper says its session expired (LOST)",
            LossReason::KeyGone => "its lock key was gone when it checked",
            LossReason::NotMine => {
                "its extension found the key gone or holding another client's value"
            }
            LossReason::GraceExpired => {
                "its Chubby session's grace period ran out with no word from the master (expired)"
            }
            LossReason::ConsulSessionChanged => {
                "Consul's monitor saw the key's Session is no longer its own and closed leaderCh"
            }
            LossReason::ConsulMonitorError => {
                "Consul's monitor got an error from its agent and closed leaderCh"
            }
            LossReason::SessionMonitor => {
                "its session monitor's callback ran: no heartbeat succeeded for the safe time, half its lease (the danger zone)"
            }
            LossReason::ConnectionReset => {
                "its connection to PostgreSQL was reset while it waited in pg_advisory_lock"
            }
        })
    }
}

impl fmt::Display for AcquireFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcquireFailure::NoQuorum { oks } => {
                write!(f, "only {oks} of 5 nodes said OK, a quorum needs 3")
            }
            AcquireFailure::NoValidity { validity_ms } => write!(
                f,
                "a quorum said OK but validity = TTL - elapsed - drift = {validity_ms} ms, not above 0: not acquired"
            ),
            AcquireFailure::LeaseGone => f.write_str("its session or lease was already gone"),
            AcquireFailure::NoSyncedSlaves { tries } => write!(
                f,
                "NoSyncedSlavesException: in each of Redisson's {tries} tries none of the connected replicas acknowledged the key within slavesSyncTimeout (1 s), and each try gave its key back"
            ),
            AcquireFailure::RedissonTimeout => f.write_str(
                "the master never answered Redisson's WAIT: a response timeout, which Redisson does not try again for (only NoSyncedSlavesException) and gives no key back for",
            ),
            AcquireFailure::NoReplicaAck => f.write_str(
                "no replica acknowledged the key in its WAIT (or the master never answered), so a failover could lose it: the key is given back, not acquired",
            ),
            AcquireFailure::NotGranted { waited_ms } => write!(
                f,
                "LockNotGrantedException after {}: within a lease plus additionalTimeToWaitForLock it never saw the lock item free, or its RVN unchanged for a whole lease (there is no queue to wait in)",
                Millis(*waited_ms)
            ),
            AcquireFailure::ConsulNoLeader => f.write_str(
                "Consul had no leader for longer than its agent held Lock()'s request (rpc_hold_timeout, 7 s, and a blocking GET's own wait more), so Lock() returned an error",
            ),
            AcquireFailure::AgentUnreachable => {
                f.write_str("its Consul agent cannot reach the servers, so Lock() returned an error")
            }
            AcquireFailure::TooManyConnections { max } => write!(
                f,
                "PostgreSQL refused its connection: sorry, too many clients already (max_connections {max})"
            ),
        }
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::TokenBelowHighest { token, highest } => {
                write!(f, "token {token} < highest accepted {highest}")
            }
            RejectReason::NoToken => f.write_str("the write carries no token"),
            RejectReason::TokenBelowAnnounced { token, announced } => write!(
                f,
                "token {token} < {announced}, the token its new holder announced"
            ),
            RejectReason::NotOwner {
                writer,
                owner: Some(owner),
            } => write!(f, "the lock item names {owner} as owner, not {writer}"),
            RejectReason::NotOwner { owner: None, .. } => f.write_str("the lock item has no owner"),
            RejectReason::VersionMoved { version, current } => write!(
                f,
                "WHERE version = {} matched 0 rows: the version is {}",
                version.0, current.0
            ),
            RejectReason::NotCurrentSequencer {
                lock_index,
                session,
                current,
            } => {
                let mine = crate::sim::backend::session_words(u64::from(*session));
                match current {
                    Some((index, holder)) => write!(
                        f,
                        "sequencer (LockIndex {lock_index}, Session {mine}) is not the lock holder's: the key holds LockIndex {index} under Session {}",
                        crate::sim::backend::session_words(u64::from(*holder))
                    ),
                    None => write!(
                        f,
                        "sequencer (LockIndex {lock_index}, Session {mine}) is not the lock holder's: the key has no holder"
                    ),
                }
            }
            RejectReason::NotSessionHolder {
                writer,
                holder: Some(holder),
            } => write!(
                f,
                "{writer}'s session does not hold the advisory lock: {holder}'s does"
            ),
            RejectReason::NotSessionHolder {
                writer,
                holder: None,
            } => write!(
                f,
                "{writer}'s session does not hold the advisory lock: no session does"
            ),
            RejectReason::NotLockHolder { token, current } => {
                let mine = crate::words::token(*token);
                match current {
                    Some(held) => write!(
                        f,
                        "the lock no longer holds this writer's grant ({mine}): it holds token {held}"
                    ),
                    None => write!(
                        f,
                        "the lock no longer holds this writer's grant ({mine}): nobody holds it"
                    ),
                }
            }
        }
    }
}

/// " and the key refuses acquires until t" for an invalidation with a lock-delay.
fn lock_delay_words(until: &Option<Millis>) -> String {
    until.map_or(String::new(), |u| {
        format!("; lock-delay: the key refuses every acquire until {u}")
    })
}

impl fmt::Display for ServiceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ServiceEvent::*;
        match self {
            RedisKeySet { node, client } => write!(f, "Redis {node} set the lock key for {client}"),
            RedisKeyExpired { node, client } => {
                write!(f, "Redis {node} expired {client}'s lock key by its own clock")
            }
            RedisKeyDeleted { node, owner, by } if owner == by => {
                write!(f, "Redis {node} deleted {owner}'s lock key")
            }
            RedisKeyDeleted { node, owner, by } => write!(
                f,
                "Redis {node} deleted {owner}'s lock key on {by}'s plain DEL"
            ),
            RedisPromoted {
                node,
                lost_writes: 0,
            } => write!(f, "Sentinel promoted Redis {node} to master; it had every write"),
            RedisPromoted { node, lost_writes } => write!(
                f,
                "Sentinel promoted Redis {node} to master; {lost_writes} writes had not reached it and are lost"
            ),
            LeaderChanged { renewed } => write!(
                f,
                "a new leader took over: the replicated lock state and its tokens are kept, and {renewed} leases or sessions start a fresh timeout"
            ),
            RedissonRetry {
                client,
                attempt,
                delay_ms,
            } => write!(
                f,
                "{client}'s WAIT: none of the connected replicas acknowledged within slavesSyncTimeout (1 s), NoSyncedSlavesException: Redisson gave the key back and tries again in {} (try {} of {})",
                Millis(*delay_ms),
                u16::from(*attempt) + 1,
                u16::from(crate::sim::backend::REDISSON_RETRY_ATTEMPTS) + 1
            ),
            RedisRejoined { node } => write!(
                f,
                "Redis {node} came back as a replica and copied the master's data over its own"
            ),
            RedisFenceReset { node } => write!(
                f,
                "Redis {node} came back empty: its INCR fence counter restarts from 0"
            ),
            ZkSessionOpened {
                client,
                session,
                timeout_ms,
                requested_ms,
                tick_ms,
            } => {
                write!(
                    f,
                    "ZooKeeper opened session 0x{session:x} for {client}, timeout {}",
                    Millis(*timeout_ms)
                )?;
                if timeout_ms != requested_ms {
                    write!(
                        f,
                        " ({} was asked for: the server clamps to 2-20 x tickTime {})",
                        Millis(*requested_ms),
                        Millis(*tick_ms)
                    )?;
                }
                Ok(())
            }
            ZkSessionExpired { client, session } => write!(
                f,
                "ZooKeeper expired {client}'s session 0x{session:x} and deleted its ephemeral znodes"
            ),
            ZkZnodeCreated { client, seq, zxid } => write!(
                f,
                "ZooKeeper created lock-{seq:010} for {client} (zxid {zxid})"
            ),
            ZkZnodeDeleted { client, seq, zxid } => write!(
                f,
                "ZooKeeper deleted {client}'s lock-{seq:010} (zxid {zxid})"
            ),
            EtcdLeaseGranted { client, lease, ttl_ms } => write!(
                f,
                "etcd granted lease {lease:x} to {client}, TTL {}",
                Millis(*ttl_ms)
            ),
            EtcdLeaseExpired { client, lease } => {
                write!(f, "etcd expired {client}'s lease {lease:x}")
            }
            EtcdKeyPut { client, create_rev } => write!(
                f,
                "etcd put {client}'s lock key at revision {create_rev}"
            ),
            EtcdKeyDeleted {
                client,
                create_rev,
                revision,
            } => write!(
                f,
                "etcd deleted {client}'s lock key (created at {create_rev}) at revision {revision}"
            ),
            ChubbySessionCreated {
                client,
                session,
                lease_ms,
            } => write!(
                f,
                "Chubby's master opened session {session:x} for {client}, lease {}",
                Millis(*lease_ms)
            ),
            ChubbySessionExpired { client, session } => write!(
                f,
                "Chubby's master ended {client}'s session {session:x}: its lease ran out"
            ),
            ChubbyLockAcquired { client, generation } => write!(
                f,
                "Chubby's master gave the lock to {client}: generation number {generation} in its sequencer"
            ),
            ChubbyLockReleased { client, generation } => write!(
                f,
                "{client} released the lock (generation {generation}): free at once, no lock-delay"
            ),
            ChubbyLockFreed {
                client,
                generation,
                delay_until,
            } => write!(
                f,
                "{client}'s session failed, so its lock (generation {generation}) is free, but nobody may claim it until {delay_until}: the lock-delay"
            ),
            ChubbyLockDelayOver => f.write_str("Chubby's lock-delay is over: the lock can be claimed"),
            ChubbyMasterFailed { until } => write!(
                f,
                "Chubby's master died: the replicas elect a new one by {until}; session timers stop meanwhile"
            ),
            ChubbyMasterElected { epoch } => write!(
                f,
                "Chubby's new master (epoch {epoch}) took over: locks and generation numbers came from the replicated database, every session lease was extended"
            ),
            DynamoItemPut {
                client,
                rvn,
                expected: None,
                ..
            } => write!(
                f,
                "DynamoDB put the lock item (if absent): owner {client}, RVN {}",
                rvn_text(*rvn)
            ),
            DynamoItemPut {
                client,
                rvn,
                expected: Some(expected),
                replaced,
            } => {
                write!(f, "DynamoDB put {client}'s lock item")?;
                if let Some(previous) = replaced {
                    write!(f, " over {previous}'s")?;
                }
                write!(
                    f,
                    " (if RVN = {}): owner {client}, RVN {}",
                    rvn_text(*expected),
                    rvn_text(*rvn)
                )
            }
            DynamoPutRefused { client } => write!(
                f,
                "DynamoDB refused {client}'s conditional put: the lock item had changed"
            ),
            DynamoRvnChanged { client, from, to } => write!(
                f,
                "{client}'s heartbeat replaced RVN {} with {}: a new random UUID, not a larger number",
                rvn_text(*from),
                rvn_text(*to)
            ),
            DynamoItemDeleted { client } => {
                write!(f, "DynamoDB deleted {client}'s lock item (release)")
            }
            DynamoHeartbeatRefused { client } => write!(
                f,
                "{client}'s heartbeat failed its condition (the item no longer names {client} with the RVN it knows): the library stops heartbeating and only logs it"
            ),
            DynamoCallTimedOut { client } => write!(
                f,
                "{client}'s call to DynamoDB got no answer within the SDK's read timeout"
            ),
            DynamoExpiredUnasked { client } => write!(
                f,
                "{client}'s lease ran out by its own clock (isExpired() would now say true), but {client}'s application never asks: it goes on believing it holds the lock (the library stops heartbeating an expired lock and only logs it)"
            ),
            ConsulSessionCreated {
                client,
                session,
                ttl_ms,
                invalidate_ms,
            } => write!(
                f,
                "Consul created session {} for {client}, TTL {} (the server waits {} for a renewal)",
                crate::sim::backend::session_words(*session),
                Millis(*ttl_ms),
                Millis(*invalidate_ms)
            ),
            ConsulSessionExpired {
                client,
                session,
                ttl_ms,
                silent_ms,
                lock_delay_until,
            } => write!(
                f,
                "Consul invalidated {client}'s session {} after {} without a renewal (TTL {}: the TTL is only a lower bound){}",
                crate::sim::backend::session_words(*session),
                Millis(*silent_ms),
                Millis(*ttl_ms),
                lock_delay_words(lock_delay_until)
            ),
            ConsulNodeFailed {
                client,
                session,
                lock_delay_until,
            } => write!(
                f,
                "serf declared {client}'s node failed: serfHealth is critical and Consul invalidated its session {}{}",
                crate::sim::backend::session_words(*session),
                lock_delay_words(lock_delay_until)
            ),
            ConsulSessionDestroyed {
                client,
                session,
                lock_delay_until,
            } => write!(
                f,
                "Consul destroyed {client}'s session {}{}",
                crate::sim::backend::session_words(*session),
                lock_delay_words(lock_delay_until)
            ),
            ConsulNodeRejoined { client } => {
                write!(f, "serf hears from {client}'s node again: serfHealth passes")
            }
            ConsulLockDelayRefused { client, until } => write!(
                f,
                "Consul refused {client}'s acquire: the key is under lock-delay until {until}"
            ),
            ConsulKeyAcquired {
                client,
                lock_index,
                modify_index,
                create_index,
            } => write!(
                f,
                "Consul gave the lock key to {client}'s session: LockIndex {lock_index}, ModifyIndex {modify_index}, CreateIndex {create_index}"
            ),
            ConsulKeyReleased {
                client,
                modify_index,
            } => write!(
                f,
                "{client} released the lock key (ModifyIndex {modify_index}), with no lock-delay"
            ),
            ConsulKeyDeleted { by: Some(c), index } => write!(
                f,
                "{c}'s cleanup deleted the free lock key at index {index}: a new key starts again at LockIndex 1"
            ),
            ConsulKeyDeleted { by: None, index } => write!(
                f,
                "Behavior=delete: Consul deleted the lock key with the session at index {index}; a new key starts again at LockIndex 1"
            ),
            ConsulLeaderLost { until } => write!(
                f,
                "Consul's Raft leader is gone; the servers elect another until {until} (a follower stands once its heartbeat timer, 1x-2x the 5 s timeout, fires 5 s after the leader's last word: 5 to almost 15 s), and requests wait: a call that does not block at most rpc_hold_timeout (7 s), a blocking GET its own wait and 7 s more"
            ),
            ConsulLeaderElected {
                index,
                sessions_until,
            } => write!(
                f,
                "Consul has a new leader (index {index}): the KV store and its indexes are kept, and every session timer restarts, to {sessions_until}"
            ),
            ConsulNoLeaderError { client } => write!(
                f,
                "{client}'s agent held its request for as long as it may with no leader (rpc_hold_timeout, 7 s, for a call that does not block; a blocking GET's wait more), and answers with an error (No cluster leader)"
            ),
            ConsulKeepaliveFailed { client } => write!(
                f,
                "{client}'s agent: the keepalive ping on its connection to the servers got no answer (yamux: a ping every 30 s, 10 s to answer), so the connection closes under monitorLock's blocking GET; the agent retries the read on a new connection, which fails at once if serf has dropped the servers and after a 10 s dial if they cannot be reached"
            ),
            ConsulMonitorRetry { client, left } => write!(
                f,
                "{client}'s monitorLock got an error and tries again in 1 s instead of closing leaderCh (MonitorRetries: {left} left)"
            ),
            PgSessionStarted { client, pid } => {
                write!(f, "PostgreSQL started a session for {client} (backend pid {pid})")
            }
            PgLockGranted {
                client,
                pid,
                version,
            } => write!(
                f,
                "PostgreSQL granted advisory lock 42 to {client}'s pid {pid}; it read version {version}"
            ),
            PgLockBlocked {
                client,
                pid,
                holder,
            } => write!(
                f,
                "{client}'s pg_advisory_lock(42) blocks (pid {pid}, granted = false): {holder}'s session holds it"
            ),
            PgLockReleased { client, pid } => {
                write!(f, "{client}'s pid {pid} released advisory lock 42")
            }
            PgProbeUnanswered {
                client,
                pid,
                failed,
                count,
            } => write!(
                f,
                "PostgreSQL's keepalive probe {failed} of {count} to {client} (pid {pid}) went unanswered"
            ),
            PgSessionEnded {
                client,
                pid,
                why,
                freed_lock,
            } => {
                match why {
                    PgSessionEnd::KeepalivesGaveUp => write!(
                        f,
                        "TCP keepalives gave up: PostgreSQL ended {client}'s session (pid {pid})"
                    )?,
                    PgSessionEnd::ConnectionReset => write!(
                        f,
                        "{client}'s host answered a probe with a reset (it knows no such connection): PostgreSQL ended its session (pid {pid})"
                    )?,
                    PgSessionEnd::ClientExited => write!(
                        f,
                        "{client}'s FIN arrived: its backend read EOF and PostgreSQL ended its session (pid {pid}) at once"
                    )?,
                }
                match (freed_lock, why) {
                    (true, PgSessionEnd::ClientExited) => {
                        write!(f, " and freed advisory lock 42")?
                    }
                    (true, _) => write!(f, " and freed advisory lock 42; {client} is not told")?,
                    (false, _) => {}
                }
                Ok(())
            }
            PgFailover {
                timeline,
                dropped: Some(holder),
            } => write!(
                f,
                "PostgreSQL failed over: the standby is promoted (timeline {timeline}); advisory locks are never WAL-logged, so {holder}'s lock 42 is gone and {holder} still believes it holds it"
            ),
            PgFailover {
                timeline,
                dropped: None,
            } => write!(
                f,
                "PostgreSQL failed over: the standby is promoted (timeline {timeline}) with no sessions and no advisory locks"
            ),
        }
    }
}

/// How a lock system's grants are worded wherever the page names them: the
/// client cards, the status strip, the event log and the timeline all ask
/// this, so one grant reads the same everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TokenWords {
    /// The number a client carries is the token the lock service granted.
    #[default]
    Granted,
    /// The lock grants no token (PostgreSQL's advisory lock): the number a
    /// client carries is the row's version it read with the lock, which the
    /// resource checks itself (`UPDATE ... WHERE version = n`).
    RowVersion,
}

impl TokenWords {
    /// The wording of `backend`'s grants: where the resource can fence by
    /// the data's own version, the lock itself grants nothing.
    pub fn of(backend: Backend) -> TokenWords {
        if backend
            .fence_modes()
            .contains(&crate::sim::types::FenceMode::Version)
        {
            TokenWords::RowVersion
        } else {
            TokenWords::Granted
        }
    }

    /// What the grant gave: "token 3", or "no token".
    pub fn grant(self, token: Option<Token>) -> String {
        crate::words::token(token.filter(|_| self == TokenWords::Granted))
    }

    /// The token alone, for a field labelled "token": "3", or "no token".
    pub fn value(self, token: Option<Token>) -> String {
        match (self, token) {
            (TokenWords::Granted, Some(t)) => t.to_string(),
            _ => "no token".to_string(),
        }
    }

    /// What a grant or a write carries, for the log: "token 3", "no token",
    /// or "no token, row version 0".
    pub fn carried(self, token: Option<Token>) -> String {
        match (self, token) {
            (TokenWords::RowVersion, Some(v)) => format!("no token, row version {}", v.0),
            _ => self.grant(token),
        }
    }

    /// The few characters a write's mark on the timeline carries: "t3",
    /// "v0" for a row version, or nothing.
    pub fn mark(self, token: Option<Token>) -> Option<String> {
        match (self, token) {
            (TokenWords::Granted, Some(t)) => Some(format!("t{t}")),
            (TokenWords::RowVersion, Some(v)) => Some(format!("v{}", v.0)),
            (_, None) => None,
        }
    }
}

/// An event in a lock system's words (see `TokenWords`).
#[derive(Debug, Clone, Copy)]
pub struct Said<'a> {
    event: &'a Event,
    words: TokenWords,
}

impl Event {
    /// The event as a sentence, its tokens worded as `words` says.
    pub fn said(&self, words: TokenWords) -> Said<'_> {
        Said { event: self, words }
    }
}

impl Record {
    /// "t=1.0 s: ..." with its tokens worded as `words` says.
    pub fn said(&self, words: TokenWords) -> String {
        format!("t={}: {}", self.at, self.event.said(words))
    }
}

/// Without a lock system to word it for, a number carried is a token.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.said(TokenWords::Granted).fmt(f)
    }
}

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Event::*;
        let token_words = |token: &Option<Token>| self.words.carried(*token);
        match self.event {
            Clicked { client, command } => write!(f, "{client}: {command}"),
            Queued { client, command } => write!(
                f,
                "{client} is paused: its {command} will run the instant it wakes"
            ),
            // A failover is the whole service's, whichever node was clicked.
            NodeClicked {
                command: NodeCommand::Failover,
                ..
            } => f.write_str("the lock service's leader or primary fails over"),
            NodeClicked { node, command } => write!(f, "Redis {node}: {command}"),
            AcquireStarted { client } => write!(f, "{client} asks for the lock"),
            Acquired {
                client,
                token,
                until: Some(until),
            } => write!(
                f,
                "{client} acquired the lock, {}, lease until {until}",
                token_words(token)
            ),
            Acquired {
                client,
                token,
                until: None,
            } => write!(
                f,
                "{client} acquired the lock, {}, for as long as its session lives",
                token_words(token)
            ),
            Waiting { client, token } => write!(
                f,
                "{client} is queued behind the holder, {}",
                token_words(token)
            ),
            AcquireFailed { client, failure } => {
                write!(f, "{client} did not get the lock: {failure}")
            }
            AcquireRetry {
                client,
                failure,
                attempt,
                retry_at,
            } => write!(
                f,
                "{client} did not get the lock ({failure}); it unlocks every node and tries again (attempt {attempt}) at {retry_at}"
            ),
            Renewed {
                client,
                until: Some(until),
            } => write!(f, "{client} renewed its lease until {until}"),
            Renewed { client, until: None } => write!(f, "{client}'s session is alive"),
            Released { client } => write!(f, "{client} released the lock"),
            Lost { client, reason } => {
                write!(f, "{client} no longer believes it holds the lock: {reason}")
            }
            ZkState { client, state } => write!(f, "{client}'s ZooKeeper connection is {state}"),
            ChubbyState { client, state } => chubby_state_words(f, *client, *state),
            WriteSent {
                client,
                token,
                value,
            } => write!(
                f,
                "{client} sends a write, counter = {value} (what it read, plus one), with {}",
                token_words(token)
            ),
            WriteAccepted {
                client,
                token,
                value,
                standing: Standing::Holder,
                ..
            } => write!(
                f,
                "the resource accepted {client}'s write ({}), counter = {value}",
                token_words(token)
            ),
            WriteAccepted {
                client,
                token,
                value,
                standing: Standing::WithoutLease,
                ..
            } => write!(
                f,
                "{client}'s write ({}) was accepted after its lease ran out, but nobody else has had the lock since, so no harm is done; counter = {value}",
                token_words(token)
            ),
            WriteAccepted {
                client,
                token,
                value,
                standing: Standing::Stale,
                lost,
            } => {
                write!(
                    f,
                    "{client}'s late write ({}) was accepted though {client} no longer holds the lock; counter = {value}",
                    token_words(token)
                )?;
                match lost {
                    0 => Ok(()),
                    1 => write!(f, ": the increment made since {client} read the counter is lost"),
                    n => write!(f, ": the {n} increments made since {client} read the counter are lost"),
                }
            }
            WriteRejected {
                client,
                reason,
                standing,
                ..
            } => write!(
                f,
                "the resource rejected {client}'s write: {reason}{}",
                match standing {
                    Standing::Stale => " (a stale write: fencing saved the counter)",
                    Standing::WithoutLease => " (a write without a lease)",
                    Standing::Holder => "",
                }
            ),
            TokenAnnounced {
                client,
                token,
                seen,
            } => match seen.filter(|s| s >= token) {
                Some(seen) => write!(
                    f,
                    "the resource heard {client}'s token {token} as it took over; it had already seen {seen}"
                ),
                None => write!(
                    f,
                    "the resource heard {client}'s token {token} as it took over: from now on it refuses any lower token"
                ),
            },
            Paused { client, until } => write!(f, "{client} is frozen by a GC pause until {until}"),
            Woke { client } => write!(f, "{client} wakes from its pause, beliefs unchanged"),
            Partitioned {
                client,
                scope: PartitionScope::Service,
            } => write!(f, "{client} is cut off from the lock service"),
            Partitioned {
                client,
                scope: PartitionScope::ServiceAndResource,
            } => write!(f, "{client} is cut off from the lock service and the resource"),
            Healed { client } => write!(f, "{client}'s partition heals"),
            Crashed { client } => write!(
                f,
                "{client}'s host died: it forgot everything and sends nothing, not even a FIN"
            ),
            Exited { client } => write!(
                f,
                "{client}'s process exited: it forgot everything; its host's kernel closed its connections"
            ),
            Restarted { client } => write!(f, "{client} restarted with no lock"),
            ClockJumpedOn { client, jump_ms } => write!(
                f,
                "{client}'s clock jumped {} {}",
                if *jump_ms >= 0 { "forward" } else { "back" },
                Millis(jump_ms.unsigned_abs())
            ),
            ClockRate {
                client,
                rate_pct: 0,
            } => write!(f, "{client}'s clock runs true again"),
            ClockRate { client, rate_pct } => write!(
                f,
                "{client}'s clock now runs {}% {}: it judges its lease by it",
                rate_pct.unsigned_abs(),
                if *rate_pct > 0 { "fast" } else { "slow" }
            ),
            Losing { client, on: true } => write!(
                f,
                "every message to or from {client} is now lost (not held for retransmission)"
            ),
            Losing { client, on: false } => write!(f, "{client}'s messages get through again"),
            Renewal { client, on } => write!(
                f,
                "{client} turned automatic renewal {}",
                if *on { "on" } else { "off" }
            ),
            HolderChanged {
                holder: Some(c),
                token,
            } => write!(
                f,
                "the service now says {c} holds the lock ({})",
                token_words(token)
            ),
            HolderChanged { holder: None, .. } => {
                write!(f, "the service now says nobody holds the lock")
            }
            Service(e) => write!(f, "{e}"),
            NodeCrashed { node, persistence } => write!(
                f,
                "Redis {node} crashed{}",
                match persistence {
                    Persistence::Fsync => " (its data is on disk)",
                    Persistence::None => " (no persistence: its keys are gone)",
                }
            ),
            NodeRestarted {
                node,
                persistence: Persistence::None,
            } => write!(f, "Redis {node} restarted empty"),
            NodeRestarted {
                node,
                persistence: Persistence::Fsync,
            } => write!(f, "Redis {node} restarted with its keys"),
            NodeRestartDelayed { node, until } => write!(
                f,
                "Redis {node} stays down until {until} (delayed restart: longer than the TTL)"
            ),
            ClockJumped { node, jump_ms } => write!(
                f,
                "Redis {node}'s wall clock jumped {} {}",
                if *jump_ms >= 0 { "forward" } else { "back" },
                Millis(jump_ms.unsigned_abs())
            ),
            NodeSlow { node, extra_ms: 0 } => write!(f, "Redis {node} answers at normal speed"),
            NodeSlow { node, extra_ms } => {
                write!(f, "Redis {node} now answers {} late", Millis(*extra_ms))
            }
            MessageSent { from, to, body, .. } => {
                write!(f, "{from} sends \"{}\" to {to}", body.label_in(self.words))
            }
            MessageRetransmitted {
                from,
                to,
                deliver_at,
                attempt,
                ..
            } => write!(
                f,
                "a message from {from} to {to} is cut off by the partition: TCP sends it again (try {attempt}) at {deliver_at}"
            ),
            MessageDropped {
                from,
                to,
                reason: DropReason::Lost,
                ..
            } => write!(f, "a message from {from} to {to} was lost"),
            MessageDropped {
                from,
                to,
                reason: DropReason::TcpGaveUp,
                ..
            } => write!(
                f,
                "a message from {from} to {to} was dropped: the partition outlasted TCP's retransmissions"
            ),
            TwoHolders { clients } => {
                let names: Vec<String> = clients.iter().map(|c| c.to_string()).collect();
                let all = if names.len() == 2 { "both" } else { "all" };
                write!(
                    f,
                    "{} {all} believe they hold the lock now",
                    names.join(" and ")
                )
            }
            OneHolderAgain => f.write_str("only one client believes it holds the lock now"),
        }
    }
}

/// A Chubby session's change, in the library's own words.
fn chubby_state_words(
    f: &mut fmt::Formatter<'_>,
    client: ClientId,
    state: ChubbySession,
) -> fmt::Result {
    match state {
        ChubbySession::Live => write!(f, "{client}'s Chubby session is live"),
        ChubbySession::Jeopardy { grace_until } => write!(
            f,
            "{client}'s Chubby session is in jeopardy: its local lease ran out, its cache is flushed and calls block; the grace period runs until {grace_until}"
        ),
        ChubbySession::Safe => write!(
            f,
            "{client}'s Chubby session is safe: a KeepAlive got through within the grace period"
        ),
        ChubbySession::Expired => write!(f, "{client}'s Chubby session expired"),
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}: {}", self.at, self.event)
    }
}
