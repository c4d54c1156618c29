//! Consul's servers, as one Raft cluster: sessions and their TTL x 2
//! timers, the lock key and its indexes, blocking queries, serf's probes of
//! each client's node, and leader elections with the requests held through
//! them. These are `Consul`'s methods for what reaches the service; the
//! `LockSystem` glue in `mod.rs` calls them, and the state they keep is
//! declared there beside the client library's, in the one value the engine
//! clones.

use super::{
    rpc_hold_ms, scaled, AcquireResult, Blocked, Consul, ConsulMsg, ConsulTimer, ConsulToken,
    GetPurpose, KeyCleanup, KvEntry, Rpc, Session, SERF_CONFIRMATIONS, SERF_ONE_CONFIRMATION_FRAC,
    SERF_POOL, SERF_PROBE_MS, SERF_SUSPICION_MAX_MULT, SERF_SUSPICION_MIN_MS,
    SESSION_TTL_MULTIPLIER,
};
use crate::sim::backend::{count_up, LockSystem};
use crate::sim::effects::{Effects, View};
use crate::sim::history::{Event, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::types::{ClientId, Millis, Token};

/// `DefaultLockWaitTime` (api/lock.go): a waiter's blocking GET lasts this long.
const LOCK_WAIT_MS: u64 = 15_000;
/// A blocking query without a wait time (monitorLock's) lasts 5 minutes
/// (the HTTP API's default); the server adds up to 1/16 of it as jitter.
const MONITOR_WAIT_MS: u64 = 300_000;
const QUERY_JITTER_FRACTION: u64 = 16;

/// How long a blocking GET for `purpose` waits, in real milliseconds.
fn query_wait_ms(purpose: GetPurpose) -> u64 {
    match purpose {
        GetPurpose::Monitor => MONITOR_WAIT_MS,
        GetPurpose::Wait | GetPurpose::Why => LOCK_WAIT_MS,
    }
}

/// hashicorp/raft v1.7.3 raft.go `runFollower`: a follower's heartbeat
/// timer is `randomTimeout(hbTimeout)`, 1x to 2x the heartbeat timeout
/// (line 163, util.go `randomTimeout`), and each time it fires it is armed
/// again (line 217) and the follower stands only once
/// `time.Since(lastContact) >= hbTimeout` (line 221). Consul's default
/// `raft_multiplier` 5 makes that timeout 5 x 1 s. When the leader dies the follower's timer is
/// somewhere in its round: if it fires within 5 s the follower waits one
/// round more, so it stands 5 s to almost 15 s after the last contact.
/// The model draws that for one follower, from the run's seed, and takes
/// the vote as won at once: typical, not a bound (a split vote, or a
/// follower refusing a vote while it still has a leader, takes longer).
pub(super) const RAFT_HEARTBEAT_TIMEOUT_MS: u64 = 5_000;
/// Blocking queries the server holds at most; past it a GET is answered at
/// once, and the client simply polls.
const BLOCKED_MAX: usize = 64;
/// Requests held during a leader election at most; past it one is served at
/// once, as if the election were over.
const DEFERRED_MAX: usize = 256;

/// The server: sessions, the key, blocking queries, the leader.
impl Consul {
    pub(super) fn token_of(&self, entry: &KvEntry) -> Token {
        Token(u64::from(match self.options.token {
            ConsulToken::ModifyIndex => entry.modify_index,
            ConsulToken::LockIndex | ConsulToken::Sequencer => entry.lock_index,
        }))
    }

    /// A grant's identity as writes carry it: with the sequencer, its
    /// Session (the write's token is its LockIndex, so the two make the
    /// docs' tuple); otherwise the ModifyIndex of its acquire.
    pub(super) fn grant_key(&self, session: u64, modify_index: u32) -> u64 {
        match self.options.token {
            ConsulToken::Sequencer => session,
            ConsulToken::ModifyIndex | ConsulToken::LockIndex => u64::from(modify_index),
        }
    }

    fn session_ms(&self) -> u64 {
        self.ttl_ms * SESSION_TTL_MULTIPLIER
    }

    /// No leader: the agent holds the request for `rpc_hold_timeout`, and
    /// a blocking GET for its own wait (and a sixteenth) more, counted
    /// from when it was first sent (`since`): structs.go `HasTimedOut`.
    /// An election that ends within that serves the request then; a longer
    /// one fails it when the hold runs out. False once too many wait: that
    /// one is served at once, as if the election were over.
    pub(super) fn hold(
        &mut self,
        view: &View,
        c: ClientId,
        body: ConsulMsg,
        since: Millis,
        until: Millis,
        out: &mut Effects,
    ) -> bool {
        if self.deferred.len() >= DEFERRED_MAX {
            return false;
        }
        let budget = rpc_hold_ms(self.ttl_ms) + self.blocking_timeout(body);
        let gives_up = since.plus(budget).max(view.now);
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

    /// structs.go `BlockingTimeout`: a GET with an index waits its wait
    /// time and a sixteenth more (the jitter's bound); any other request 0.
    fn blocking_timeout(&self, body: ConsulMsg) -> u64 {
        match body {
            ConsulMsg::KvGet {
                wait_index,
                purpose,
            } if wait_index > 0 => {
                let wait = scaled(query_wait_ms(purpose), self.ttl_ms);
                wait + wait / QUERY_JITTER_FRACTION
            }
            _ => 0,
        }
    }

    pub(super) fn create_session(
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
    pub(super) fn renew(&mut self, view: &View, session: u64, out: &mut Effects) -> bool {
        let after = self.session_ms();
        let Some(s) = self.sessions.get_mut(&session) else {
            return false;
        };
        s.renewed_at = view.now;
        s.expires_at = view.now.plus(after);
        out.service_timer(s.expires_at, ConsulTimer::SessionExpiry { session });
        true
    }

    pub(super) fn get_reply(&self, purpose: GetPurpose) -> ConsulMsg {
        ConsulMsg::KvGetReply {
            purpose,
            session: self.key.and_then(|k| k.session),
            index: self.key_index,
        }
    }

    /// Holds a blocking GET until the key changes or its wait time is up.
    pub(super) fn block(
        &mut self,
        view: &View,
        c: ClientId,
        purpose: GetPurpose,
        out: &mut Effects,
    ) {
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
        let wait = scaled(query_wait_ms(purpose), self.ttl_ms);
        let jitter = self.rng.draw(0, wait / QUERY_JITTER_FRACTION);
        let id = self.next_query;
        self.next_query += 1;
        self.blocked.push(Blocked {
            id,
            client: c,
            purpose,
            since: view.now,
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
    pub(super) fn acquire(
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
    pub(super) fn release(
        &mut self,
        view: &View,
        session: u64,
        delete_key: bool,
        out: &mut Effects,
    ) {
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
    pub(super) fn invalidate(
        &mut self,
        view: &View,
        session: u64,
        why: Invalidation,
        out: &mut Effects,
    ) {
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

    pub(super) fn on_service_timer(&mut self, view: &View, timer: ConsulTimer, out: &mut Effects) {
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
            ConsulTimer::SerfDead { client, since } => self.serf_dead(client, since, view, out),
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
            self.suspect[i] = None;
            if self.node_failed[i] {
                self.node_failed[i] = false;
                out.record(Event::Service(ServiceEvent::ConsulNodeRejoined {
                    client: c,
                }));
            }
        } else if !self.node_failed[i] && self.suspect[i].is_none() {
            let dead_at = view.now.plus(self.suspicion_ms());
            self.suspect[i] = Some((view.now, dead_at));
            out.service_timer(
                dead_at,
                ConsulTimer::SerfDead {
                    client: c,
                    since: view.now,
                },
            );
        }
        let watched = !self.sessions_of(c).is_empty() || !reachable || self.node_failed[i];
        if watched {
            self.arm_probe(view, c, out);
        }
    }

    /// The suspicion's timer has fired: serf declares the node failed,
    /// serfHealth goes critical and its sessions are invalidated. That
    /// takes the leader's reconcile, so during an election it waits for
    /// the new leader.
    fn serf_dead(&mut self, c: ClientId, since: Millis, view: &View, out: &mut Effects) {
        let i = c.index();
        if self.node_failed[i] || self.suspect[i].map(|(s, _)| s) != Some(since) {
            return;
        }
        if let Some(until) = self.electing_until {
            out.service_timer(until, ConsulTimer::SerfDead { client: c, since });
            return;
        }
        self.node_failed[i] = true;
        let owned: Vec<u64> = self.sessions_of(c);
        for session in owned {
            self.invalidate(view, session, Invalidation::NodeFailed, out);
        }
        // Its agent sees the servers fail too (client_serf.go's nodeFail
        // drops them from its router): new requests error. A GET already
        // out waits on its stream (`keepalive_starts`).
        self.agent_gen[i] += 1;
        out.client_timer(
            c,
            0,
            ConsulTimer::AgentError {
                gen: self.agent_gen[i],
            },
        );
    }

    /// How long a suspicion lasts in the model's pool (see `SERF_POOL`):
    /// each of the other members' probes of the node comes somewhere in
    /// its round of n - 1 probe intervals and confirms the suspicion; the
    /// timer starts at `max`, falls with the first confirmation and
    /// reaches `min` with the second, and fires when its time is up.
    fn suspicion_ms(&mut self) -> u64 {
        let min = scaled(SERF_SUSPICION_MIN_MS, self.ttl_ms);
        let round = scaled(SERF_PROBE_MS, self.ttl_ms) * (SERF_POOL - 1);
        let mut confirmed: Vec<u64> = (0..SERF_POOL - 2)
            .map(|_| self.rng.draw(0, round - 1))
            .collect();
        confirmed.sort_unstable();
        suspicion_fires(&confirmed, min)
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
    pub(super) fn failover(&mut self, view: &View, out: &mut Effects) {
        if self.electing_until.is_some() {
            return;
        }
        let until = view.now.plus(self.election_ms());
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
            if !self.hold(view, b.client, again, b.since, until, out) {
                self.blocked.push(b);
            }
        }
    }

    /// How long one follower takes to stand (see `RAFT_HEARTBEAT_TIMEOUT_MS`):
    /// where its timer stands in a round of 1x-2x the heartbeat timeout,
    /// and a round more if it fires too soon after the leader's last word.
    fn election_ms(&mut self) -> u64 {
        let heartbeat = scaled(RAFT_HEARTBEAT_TIMEOUT_MS, self.ttl_ms);
        let round = self.rng.draw(heartbeat, 2 * heartbeat - 1);
        let fires_in = self.rng.draw(1, round);
        if fires_in >= heartbeat {
            fires_in
        } else {
            fires_in + self.rng.draw(heartbeat, 2 * heartbeat - 1)
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

/// When a suspicion's timer fires, from its start, given when the other
/// members' confirmations come (in order): it starts at `max` (6 x `min`),
/// is `max - frac x (max - min)` after one confirmation and `min` after
/// the second (suspicion.go `Confirm` and `remainingSuspicionTime`), and
/// a confirmation after it has fired changes nothing.
fn suspicion_fires(confirmed: &[u64], min: u64) -> u64 {
    let max = min * SERF_SUSPICION_MAX_MULT;
    let mut fires = max;
    for (n, &at) in confirmed.iter().enumerate() {
        if at >= fires {
            break;
        }
        let timeout = if n + 1 >= SERF_CONFIRMATIONS {
            min
        } else {
            max - (max - min) * SERF_ONE_CONFIRMATION_FRAC / 100_000
        };
        fires = timeout.max(at);
    }
    fires
}

/// From a cut to serf's verdict in real Consul, soonest and latest: up to
/// a probe interval to the first failed probe, then the suspicion, 4 s at
/// the soonest and at most a round of the pool's other members' probes.
pub(super) fn serf_detection_ms() -> (u64, u64) {
    (
        SERF_SUSPICION_MIN_MS,
        SERF_PROBE_MS + SERF_PROBE_MS * (SERF_POOL - 1),
    )
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Invalidation {
    Ttl,
    NodeFailed,
    Destroyed,
}

#[cfg(test)]
mod tests {
    use super::suspicion_fires;

    /// hashicorp/memberlist v0.6.0 suspicion.go: `newSuspicion` starts the
    /// timer at `max` when k >= 1 (line 72), and `remainingSuspicionTime`
    /// (lines 89-99) gives `max - ln(n+1)/ln(k+1) x (max - min)`, at least
    /// `min`, after n of k = 2 confirmations; state.go sets min 4 s and max
    /// 24 s for a pool of 4 to 10 (lines 1211-1223). Real milliseconds.
    #[test]
    fn a_suspicion_falls_from_24_s_to_4_s_with_two_confirmations() {
        assert_eq!(suspicion_fires(&[], 4_000), 24_000);
        // One confirmation: 24 - 0.63093 x 20 = 11.38 s.
        assert_eq!(suspicion_fires(&[1_000], 4_000), 11_382);
        assert_eq!(suspicion_fires(&[1_000, 2_000], 4_000), 4_000);
        // The second confirmation after 4 s fires the timer at once.
        assert_eq!(suspicion_fires(&[3_000, 4_500], 4_000), 4_500);
        // After the timer has fired, a confirmation is too late.
        assert_eq!(suspicion_fires(&[1_000, 20_000], 4_000), 11_382);
        assert_eq!(suspicion_fires(&[30_000, 31_000], 4_000), 24_000);
    }
}
