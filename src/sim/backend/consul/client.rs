//! Consul's client library, `api.Lock` as `consul lock` runs it: `Lock()`
//! creates a session and polls the key until it can acquire it,
//! `RenewPeriodic` keeps the session alive, `monitorLock` watches the key
//! and closes `leaderCh` when it is lost, `Unlock()` gives it back; and
//! what the holder's agent does when its connection to the servers is cut.
//! These are `Consul`'s methods for a client's side; the `LockSystem` glue
//! in `mod.rs` calls them, and each client's `Side` is declared there.

use super::{
    lock_delay_ms, scaled, AcquireResult, Consul, ConsulMsg, ConsulPhase, ConsulTimer, ConsulToken,
    GetPurpose, Keepalive, KeyCleanup, Rpc, Side,
};
use crate::sim::effects::{Effects, View};
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::types::{ClientId, Millis, Token};

/// `DefaultLockRetryTime` (api/lock.go): how long `Lock()` sleeps after an
/// acquire refused by a lock-delay.
const LOCK_RETRY_MS: u64 = 5_000;
/// `RenewPeriodic` (api/session.go): after a failed renewal it tries again
/// every second, and gives up once a whole TTL has passed since the last
/// good one.
const RENEW_RETRY_MS: u64 = 1_000;
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

/// agent/pool/pool.go `DefaultDialTimeout`: how long the agent's dial of
/// a new connection to a server may take before it fails.
const DIAL_TIMEOUT_MS: u64 = 10_000;

/// Whether the client's messages reach the servers now.
fn reachable(view: &View, c: ClientId) -> bool {
    let client = &view.clients[c.index()];
    client.partition.is_none() && !client.losing
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

/// The client: `Lock()`, `RenewPeriodic`, `monitorLock` and `Unlock()`.
impl Consul {
    pub(super) fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn agent_down(&self, c: ClientId) -> bool {
        self.node_failed[c.index()]
    }

    /// `Lock()`: a new session (TTL, lock-delay, behaviour), then poll.
    pub(super) fn lock(&mut self, c: ClientId, out: &mut Effects) {
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
    pub(super) fn unlock(&mut self, c: ClientId, out: &mut Effects) {
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
    pub(super) fn on_no_leader(&mut self, view: &View, c: ClientId, rpc: Rpc, out: &mut Effects) {
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
    pub(super) fn keepalive_starts(&mut self, view: &View, c: ClientId, out: &mut Effects) {
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
        let up = reachable(view, c);
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
        self.stream_closed(view, c, out);
    }

    /// The connection closed under monitorLock's GET: the agent's `RPC()`
    /// (agent/consul/client.go) retries a read that met a stream error
    /// (rpc.go `canRetry`: reads on EOF). With no server left in its router
    /// (serf dropped them) the retry fails at once with ErrNoServers; with
    /// servers it can reach, the GET goes again on a new connection; else
    /// the dial waits out pool.go's 10 s `DefaultDialTimeout` and fails.
    /// Either failure is monitorLock's error.
    fn stream_closed(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        if self.agent_down(c) {
            self.monitor_error(c, out);
        } else if reachable(view, c) {
            self.resend_monitor(c, out);
        } else {
            let side = self.side(c);
            side.redial_gen += 1;
            let gen = side.redial_gen;
            let after = scaled(DIAL_TIMEOUT_MS, self.ttl_ms);
            out.client_timer(c, after, ConsulTimer::Redial { gen });
        }
    }

    /// The re-dial's time is up: connected if the servers can be reached
    /// by now, failed if not.
    fn redial_due(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        if self.side[c.index()].phase != ConsulPhase::Held {
            return;
        }
        if reachable(view, c) && !self.agent_down(c) {
            self.resend_monitor(c, out);
        } else {
            self.monitor_error(c, out);
        }
    }

    /// A partition heals while a ping is pending: whether the ping got
    /// through in time is judged when its timeout is up.
    pub(super) fn healed(&mut self, view: &View, c: ClientId) {
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

    pub(super) fn poll(&mut self, c: ClientId, wait_index: u32, out: &mut Effects) {
        self.side(c).phase = ConsulPhase::Polling;
        out.ask(
            c,
            ConsulMsg::KvGet {
                wait_index,
                purpose: GetPurpose::Wait,
            },
        );
    }

    pub(super) fn on_get_reply(
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

    pub(super) fn on_acquire_reply(
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

    pub(super) fn on_client_timer(
        &mut self,
        view: &View,
        c: ClientId,
        timer: ConsulTimer,
        out: &mut Effects,
    ) {
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
            ConsulTimer::Redial { gen } if gen == side.redial_gen => self.redial_due(view, c, out),
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

    pub(super) fn arm_renew(&mut self, c: ClientId, after_ms: u64, out: &mut Effects) {
        let side = self.side(c);
        side.renew_gen += 1;
        let gen = side.renew_gen;
        out.client_timer(c, after_ms.max(1), ConsulTimer::Renew { gen });
    }
}
