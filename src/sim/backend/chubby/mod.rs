//! Google Chubby (OSDI '06, sections 2.3-2.9): a session kept alive by a
//! long-polled KeepAlive, a lock whose generation number rises each time it
//! goes from free to held (handed out in a sequencer), a lock-delay after a
//! lock is lost by failure, and a client library that counts its own
//! conservative lease and then a grace period (jeopardy, safe, expired).
//!
//! Every duration keeps its ratio to Chubby's 12 s default lease: the page's
//! TTL setting is that lease, so at the default 5 s TTL the 45 s grace period
//! is 18.75 s and a one-minute lock-delay is 25 s.
//!
//! Simplified on purpose: the five replicas and their Paxos are one master
//! that can fail over (the replicated database keeps sessions, locks and
//! generation numbers); every client opens one session and one handle on
//! one lock node with the same lock-delay; a blocked Acquire is served in
//! arrival order; there is no cache, no events but the session's, and no
//! master lease between replicas.

mod real_client;

use super::{count_up, ms32, HolderView, LibrarySession, LockSystem};
use crate::sim::client::{Belief, ChubbySession};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Command, Config, NodeCommand};
use crate::sim::types::{ClientId, Millis, NodeId, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// Chubby's default session lease: "The default extension is 12s, but an
/// overloaded master may use higher values" (section 2.8). The page's TTL
/// stands for it; every other duration below is scaled by TTL / 12 s.
pub const CHUBBY_LEASE_MS: u64 = 12_000;
/// The client's grace period after jeopardy: "45s by default" (section 2.8).
pub const CHUBBY_GRACE_MS: u64 = 45_000;
/// How long before the lease ends the master answers a held KeepAlive. The
/// paper: it blocks the RPC "until the client's previous lease interval is
/// close to expiring"; systems.md's script answers 1 s before.
const ANSWER_EARLY_MS: u64 = 1_000;
/// "A new master will typically be elected in a few seconds. For example,
/// two recent elections took 6s and 4s" (section 2.3): drawn between them.
pub const CHUBBY_ELECTION_MS_MIN: u64 = 4_000;
pub const CHUBBY_ELECTION_MS_MAX: u64 = 6_000;
/// How often a client in jeopardy tries a KeepAlive again while it looks
/// for a master (assumed: the paper says only that it keeps trying).
const JEOPARDY_RETRY_MS: u64 = 3_000;
/// The client's allowance for the master's clock running faster than its
/// own, in percent of the lease (assumed: the paper bounds the rate by "a
/// known constant factor" without naming it).
const CLOCK_ALLOWANCE_PCT: u64 = 1;
/// Requests a cell without a master keeps for the next one; past this they
/// are dropped, and a client in jeopardy sends its KeepAlive again.
const DEFERRED_MAX: usize = 64;
/// KeepAlives a client remembers sending and not yet answered; the oldest
/// is forgotten past this (its answer, if it comes, is then ignored).
const SENT_MAX: usize = 8;

/// A Chubby duration in the page's time: its ratio to the 12 s lease kept
/// against the page's TTL.
pub fn chubby_scaled_ms(chubby_ms: u64, ttl_ms: u64) -> u64 {
    chubby_ms.saturating_mul(ttl_ms) / CHUBBY_LEASE_MS
}

/// Chubby's requests and answers. KeepAlive sequence numbers and the
/// lease they grant travel in 32 bits (see `count_up` and `ms32`), so that
/// each fits in 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum ChubbyMsg {
    #[serde(rename = "chubby-create-session")]
    CreateSession,
    #[serde(rename = "chubby-session-created")]
    SessionCreated { session: u64, lease_ms: u64 },
    /// The long poll: the master holds it until the lease nearly ends.
    #[serde(rename = "chubby-keep-alive")]
    KeepAlive { session: u64, seq: u32 },
    /// The lease now ends `lease_after_ms` after the KeepAlive reached the
    /// master (the time it was held, plus a whole lease).
    #[serde(rename = "chubby-keep-alive-reply")]
    KeepAliveReply {
        session: u64,
        seq: u32,
        lease_after_ms: u32,
    },
    #[serde(rename = "chubby-session-expired")]
    SessionExpired { session: u64 },
    /// Blocks at the master until the lock is free and past its lock-delay.
    #[serde(rename = "chubby-acquire")]
    Acquire { session: u64 },
    /// The lock is the client's; `generation` goes into its sequencer.
    #[serde(rename = "chubby-acquired")]
    Acquired { session: u64, generation: u64 },
    /// Release the lock, or give up a blocked Acquire.
    #[serde(rename = "chubby-release")]
    Release { session: u64 },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<ChubbyMsg>() <= 24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ChubbyTimer {
    /// The client's own, conservative lease end.
    LocalLease {
        gen: u64,
    },
    /// The end of the grace period after jeopardy.
    Grace {
        gen: u64,
    },
    /// Another KeepAlive while in jeopardy.
    Retry {
        gen: u64,
    },
    /// The master answers a held KeepAlive.
    Answer {
        session: u64,
        seq: u32,
    },
    SessionExpiry {
        session: u64,
    },
    LockDelayOver,
    Elected,
}

/// The lock as the master keeps it, for the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChubbyHolderView {
    pub client: ClientId,
    pub session: u64,
    pub since: Millis,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChubbySessionView {
    pub session: u64,
    pub owner: ClientId,
    pub lease_end: Millis,
    /// A KeepAlive waits at the master for the lease to near its end.
    pub keep_alive_held: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChubbyDetail {
    /// The lock node's generation number: the last one handed out.
    pub generation: u64,
    pub holder: Option<ChubbyHolderView>,
    /// Clients whose Acquire is blocked at the master, first served first.
    pub blocked: Vec<ClientId>,
    /// Freed by a failure: nobody may claim the lock until then.
    pub lock_delay_until: Option<Millis>,
    /// The lock-delay, the lease and the grace period in the page's time.
    pub lock_delay_ms: u64,
    pub lease_ms: u64,
    pub grace_ms: u64,
    pub sessions: Vec<ChubbySessionView>,
    pub master_epoch: u64,
    /// No master until then: a new one is being elected.
    pub electing_until: Option<Millis>,
}

#[derive(Debug, Clone, Copy, Hash)]
struct Held {
    seq: u32,
    arrived: Millis,
}

#[derive(Debug, Clone, Hash)]
struct Session {
    owner: ClientId,
    lease_end: Millis,
    held: Option<Held>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Holding {
    client: ClientId,
    session: u64,
    since: Millis,
}

/// What one client's library knows, on its side of the network.
#[derive(Debug, Clone, Default, Hash)]
struct Side {
    session: Option<u64>,
    opening: bool,
    /// Its clock's reading when it asked for the session.
    open_sent: i64,
    /// Its own lease end, in true time (for the card).
    local_end: Option<Millis>,
    jeopardy: bool,
    /// KeepAlives sent and not answered: (seq, its clock's reading).
    sent: Vec<(u32, i64)>,
    next_seq: u32,
    /// An Acquire asked for while the session opens or calls block.
    pending_acquire: bool,
    lease_gen: u64,
    grace_gen: u64,
    retry_gen: u64,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct Chubby {
    lease_ms: u64,
    grace_ms: u64,
    early_ms: u64,
    retry_ms: u64,
    lock_delay_ms: u64,
    allowance_ms: u64,
    election_ms: (u64, u64),
    sessions: LiteMap<u64, Session>,
    holder: Option<Holding>,
    generation: u64,
    delay_until: Option<Millis>,
    /// Blocked Acquires, (client, session), in arrival order.
    blocked: Vec<(ClientId, u64)>,
    epoch: u64,
    electing_until: Option<Millis>,
    /// Requests that reached a cell with no master, for the next one.
    deferred: Vec<(ClientId, ChubbyMsg)>,
    side: [Side; 4],
    /// Each client library's view of its session; a crash forgets it
    /// with the rest of the client's side.
    library: [Option<ChubbySession>; 4],
    rng: super::ServiceRng,
}

impl LockSystem for Chubby {
    type Msg = ChubbyMsg;
    type Timer = ChubbyTimer;
    type Detail = ChubbyDetail;
    const NAME: &'static str = "Chubby";
    const LEASE_WORD: &'static str = "session lease";
    /// Paxos through the master, as etcd and ZooKeeper: 5-20 ms a round trip.
    const LATENCY_US: (u64, u64) = (2_500, 10_000);
    /// The generation number lives in the replicated database: it only
    /// grows, across master failovers too.
    const MONOTONIC_TOKENS: bool = true;
    const TOKEN_SHORT: &'static str = "lock generation number (sequencer)";
    const HELD_CHECK: Option<&'static str> = Some("CheckSequencer");

    fn new(config: &Config) -> Chubby {
        let ttl = config.ttl_ms;
        let scaled = |ms| chubby_scaled_ms(ms, ttl).max(1);
        Chubby {
            lease_ms: ttl,
            grace_ms: scaled(CHUBBY_GRACE_MS),
            early_ms: scaled(ANSWER_EARLY_MS),
            retry_ms: scaled(JEOPARDY_RETRY_MS),
            lock_delay_ms: chubby_scaled_ms(config.chubby.lock_delay_ms, ttl),
            allowance_ms: ttl * CLOCK_ALLOWANCE_PCT / 100,
            election_ms: (
                scaled(CHUBBY_ELECTION_MS_MIN),
                scaled(CHUBBY_ELECTION_MS_MAX),
            ),
            sessions: LiteMap::new(),
            holder: None,
            generation: 0,
            delay_until: None,
            blocked: Vec::new(),
            epoch: 1,
            electing_until: None,
            deferred: Vec::new(),
            side: Default::default(),
            library: [None; 4],
            rng: super::ServiceRng::new(config.seed),
        }
    }

    fn on_input(&mut self, view: &View, input: Input<ChubbyTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => self.acquire(view, c, out),
            Input::Release(c) => {
                let side = self.side(c);
                side.pending_acquire = false;
                if let Some(session) = side.session {
                    out.ask(c, ChubbyMsg::Release { session });
                }
            }
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            Input::ServiceTimer(timer) => self.on_master_timer(view, timer, out),
            // The paper describes no early end on a closed connection: the
            // session lease runs out either way.
            Input::Crashed(c) | Input::Exited(c) => {
                self.side[c.index()] = Side::default();
                self.library[c.index()] = None;
            }
            Input::Healed(c) => {
                // Back in touch: look for the master now if nothing is on its way.
                let side = &self.side[c.index()];
                if side.jeopardy && side.sent.is_empty() && view.renewal(c) {
                    self.send_keep_alive(view, c, out);
                }
            }
            Input::RenewalOn(c) if self.side[c.index()].session.is_some() => {
                self.send_keep_alive(view, c, out)
            }
            Input::Node(_, NodeCommand::Failover) => self.fail_over(view, out),
            _ => {}
        }
    }

    /// A client's timer of a gone session or an old generation does
    /// nothing (the master's timers are left to run). The rules are stated
    /// here only: `on_client_timer` starts by asking.
    fn timer_moot(&self, _view: &View, c: Option<ClientId>, timer: ChubbyTimer) -> bool {
        let Some(c) = c else { return false };
        let side = &self.side[c.index()];
        side.session.is_none()
            || match timer {
                ChubbyTimer::LocalLease { gen } => gen != side.lease_gen,
                ChubbyTimer::Grace { gen } => gen != side.grace_gen || !side.jeopardy,
                ChubbyTimer::Retry { gen } => gen != side.retry_gen || !side.jeopardy,
                _ => true,
            }
    }

    fn holder(&self, _view: &View) -> Option<HolderView> {
        let h = self.holder?;
        Some(HolderView {
            client: h.client,
            token: Some(Token(self.generation)),
            lease_key: self.generation,
            since: h.since,
            until: self.sessions.get(&h.session).map(|s| s.lease_end),
        })
    }

    fn lease_end(&self, _view: &View, c: ClientId) -> Option<Millis> {
        let session = match self.holder {
            Some(h) if h.client == c => Some(h.session),
            _ => self.side[c.index()].session,
        }?;
        self.sessions
            .get(&session)
            .filter(|s| s.owner == c)
            .map(|s| s.lease_end)
    }

    fn detail(&self, _view: &View) -> ChubbyDetail {
        ChubbyDetail {
            generation: self.generation,
            holder: self.holder.map(|h| ChubbyHolderView {
                client: h.client,
                session: h.session,
                since: h.since,
            }),
            blocked: self.blocked.iter().map(|&(c, _)| c).collect(),
            lock_delay_until: self.delay_until,
            lock_delay_ms: self.lock_delay_ms,
            lease_ms: self.lease_ms,
            grace_ms: self.grace_ms,
            sessions: self
                .sessions
                .iter()
                .map(|(&session, s)| ChubbySessionView {
                    session,
                    owner: s.owner,
                    lease_end: s.lease_end,
                    keep_alive_held: s.held.is_some(),
                })
                .collect(),
            master_epoch: self.epoch,
            electing_until: self.electing_until,
        }
    }

    fn check_node(&self, _node: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Failover if self.electing_until.is_some() => {
                Err(CommandError::MasterElecting)
            }
            NodeCommand::Failover => Ok(()),
            _ => Err(CommandError::Unsupported {
                why: "Chubby's five replicas answer through one master: here a replica cannot be crashed, slowed or have its clock moved, only the master failed over",
            }),
        }
    }

    fn check_command(&self, _c: ClientId, _cmd: Command) -> Result<(), CommandError> {
        // Every card control has a meaning for a Chubby client.
        Ok(())
    }

    /// The paper describes no early end on a closed connection: the session
    /// lease runs out, and a lock lost that way waits out its lock-delay.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let first = if exited {
            "a closed connection ends nothing in Chubby"
        } else {
            "the master hears nothing"
        };
        super::lease_note(
            first,
            "its session lease runs out, then the lock-delay",
            self.lease_end(view, c),
        )
    }

    /// The master answers one more KeepAlive, so the session lasts two
    /// leases, and then keeps the lock for a lock-delay.
    fn silent_holder_ms(config: &Config) -> u64 {
        let ttl = config.ttl_ms;
        2 * chubby_scaled_ms(CHUBBY_LEASE_MS, ttl)
            + chubby_scaled_ms(config.chubby.lock_delay_ms, ttl)
    }

    fn library_session(&self, c: ClientId) -> Option<LibrarySession> {
        self.library[c.index()].map(LibrarySession::Chubby)
    }

    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
        body: ChubbyMsg,
        out: &mut Effects,
    ) {
        if self.electing_until.is_some() {
            // No master answers; the next one will (the client library
            // keeps retrying until it finds it).
            if self.deferred.len() < DEFERRED_MAX {
                self.deferred.push((c, body));
            }
            return;
        }
        match body {
            ChubbyMsg::CreateSession => self.create_session(view, c, out),
            ChubbyMsg::KeepAlive { session, seq } => {
                self.hold_keep_alive(view, c, session, seq, out)
            }
            ChubbyMsg::Acquire { session } => self.request_lock(view, c, session, out),
            ChubbyMsg::Release { session } => self.release_lock(view, session, out),
            _ => {}
        }
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: ChubbyMsg, out: &mut Effects) {
        match body {
            ChubbyMsg::SessionCreated { session, lease_ms } => {
                let side = self.side(c);
                if !side.opening {
                    return;
                }
                side.opening = false;
                side.session = Some(session);
                let reading = side.open_sent + lease_ms as i64 - self.allowance_ms as i64;
                set_library(&mut self.library, c, ChubbySession::Live, out);
                self.set_local_lease(view, c, reading, out);
                if view.renewal(c) {
                    self.send_keep_alive(view, c, out);
                }
            }
            ChubbyMsg::KeepAliveReply {
                session,
                seq,
                lease_after_ms,
            } => self.on_keep_alive_reply(view, c, session, seq, lease_after_ms, out),
            ChubbyMsg::SessionExpired { session }
                if self.side[c.index()].session == Some(session) =>
            {
                self.expire(view, c, LossReason::ServiceSaidGone, out)
            }
            ChubbyMsg::Acquired {
                session,
                generation,
            } if self.side[c.index()].session == Some(session) => {
                if view.belief(c) == Belief::Acquiring {
                    let until = self.side[c.index()].local_end;
                    out.grant(c, Some(Token(generation)), generation, until);
                } else {
                    // Released while the Acquire was blocked: give it back.
                    out.ask(c, ChubbyMsg::Release { session });
                }
            }
            _ => {}
        }
    }

    fn renews(msg: &ChubbyMsg) -> bool {
        matches!(msg, ChubbyMsg::KeepAlive { .. })
    }

    fn releases(msg: &ChubbyMsg) -> bool {
        matches!(msg, ChubbyMsg::Release { .. })
    }

    fn label(msg: &ChubbyMsg) -> String {
        match msg {
            ChubbyMsg::CreateSession => "open session".into(),
            ChubbyMsg::SessionCreated { session, .. } => format!("session {session:x}"),
            ChubbyMsg::KeepAlive { .. } => "KeepAlive".into(),
            ChubbyMsg::KeepAliveReply { .. } => "lease extended".into(),
            ChubbyMsg::SessionExpired { .. } => "session expired".into(),
            ChubbyMsg::Acquire { .. } => "Acquire".into(),
            ChubbyMsg::Acquired { generation, .. } => format!("held, generation {generation}"),
            ChubbyMsg::Release { .. } => "Release".into(),
        }
    }
}

impl Chubby {
    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    // ---- The master ----

    fn create_session(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let session = self.rng.draw(0x1000_0000, 0xffff_ffff);
        let lease_end = view.now.plus(self.lease_ms);
        self.sessions.insert(
            session,
            Session {
                owner: c,
                lease_end,
                held: None,
            },
        );
        out.service_timer(lease_end, ChubbyTimer::SessionExpiry { session });
        out.record(Event::Service(ServiceEvent::ChubbySessionCreated {
            client: c,
            session,
            lease_ms: self.lease_ms,
        }));
        out.answer(
            c,
            ChubbyMsg::SessionCreated {
                session,
                lease_ms: self.lease_ms,
            },
        );
    }

    /// The long poll: held until shortly before the lease ends. A newer
    /// KeepAlive of the same session takes the older one's place.
    fn hold_keep_alive(
        &mut self,
        view: &View,
        c: ClientId,
        session: u64,
        seq: u32,
        out: &mut Effects,
    ) {
        let early = self.early_ms;
        let Some(s) = self.sessions.get_mut(&session) else {
            out.answer(c, ChubbyMsg::SessionExpired { session });
            return;
        };
        s.held = Some(Held {
            seq,
            arrived: view.now,
        });
        let at = Millis(s.lease_end.ms().saturating_sub(early)).max(view.now);
        out.service_timer(at, ChubbyTimer::Answer { session, seq });
    }

    /// Answers the held KeepAlive: the lease runs a whole lease from now.
    fn answer_keep_alive(&mut self, view: &View, session: u64, out: &mut Effects) {
        let lease_ms = self.lease_ms;
        let Some(s) = self.sessions.get_mut(&session) else {
            return;
        };
        let Some(held) = s.held.take() else {
            return;
        };
        s.lease_end = view.now.plus(lease_ms);
        out.service_timer(s.lease_end, ChubbyTimer::SessionExpiry { session });
        out.answer(
            s.owner,
            ChubbyMsg::KeepAliveReply {
                session,
                seq: held.seq,
                lease_after_ms: ms32(held.arrived.until(view.now) + lease_ms),
            },
        );
    }

    fn request_lock(&mut self, view: &View, c: ClientId, session: u64, out: &mut Effects) {
        if !self.sessions.contains_key(&session) {
            out.answer(c, ChubbyMsg::SessionExpired { session });
            return;
        }
        match self.holder {
            Some(h) if h.session == session => {
                // Asked again (a retry): it already holds.
                let generation = self.generation;
                out.answer(
                    c,
                    ChubbyMsg::Acquired {
                        session,
                        generation,
                    },
                );
            }
            None if self.delay_until.is_none() && self.blocked.is_empty() => {
                self.grant(view, c, session, out)
            }
            _ => {
                if !self.blocked.iter().any(|&(_, s)| s == session) {
                    self.blocked.push((c, session));
                }
            }
        }
    }

    /// The lock goes from free to held: its generation number rises.
    fn grant(&mut self, view: &View, c: ClientId, session: u64, out: &mut Effects) {
        debug_assert!(self.holder.is_none() && self.delay_until.is_none());
        let before = self.generation;
        self.generation += 1;
        assert!(self.generation > before, "generation numbers only grow");
        self.holder = Some(Holding {
            client: c,
            session,
            since: view.now,
        });
        let generation = self.generation;
        out.record(Event::Service(ServiceEvent::ChubbyLockAcquired {
            client: c,
            generation,
        }));
        out.answer(
            c,
            ChubbyMsg::Acquired {
                session,
                generation,
            },
        );
    }

    /// The first blocked Acquire whose session still lives gets a free lock.
    fn grant_next(&mut self, view: &View, out: &mut Effects) {
        if self.holder.is_some() || self.delay_until.is_some() || self.electing_until.is_some() {
            return;
        }
        self.blocked.retain(|(_, s)| self.sessions.contains_key(s));
        if self.blocked.is_empty() {
            return;
        }
        let (c, session) = self.blocked.remove(0);
        self.grant(view, c, session, out);
    }

    fn release_lock(&mut self, view: &View, session: u64, out: &mut Effects) {
        match self.holder {
            Some(h) if h.session == session => {
                self.holder = None;
                out.record(Event::Service(ServiceEvent::ChubbyLockReleased {
                    client: h.client,
                    generation: self.generation,
                }));
                // A release frees the lock at once: no lock-delay.
                self.grant_next(view, out);
            }
            _ => self.blocked.retain(|&(_, s)| s != session),
        }
    }

    fn on_master_timer(&mut self, view: &View, timer: ChubbyTimer, out: &mut Effects) {
        match timer {
            // Without a master no timer of the sessions runs.
            ChubbyTimer::Answer { .. } | ChubbyTimer::SessionExpiry { .. }
                if self.electing_until.is_some() => {}
            ChubbyTimer::Answer { session, seq } => {
                let due = self
                    .sessions
                    .get(&session)
                    .and_then(|s| s.held)
                    .is_some_and(|h| h.seq == seq);
                if due {
                    self.answer_keep_alive(view, session, out);
                }
            }
            ChubbyTimer::SessionExpiry { session } => self.on_session_expiry(view, session, out),
            ChubbyTimer::LockDelayOver if self.delay_until == Some(view.now) => {
                self.delay_until = None;
                out.record(Event::Service(ServiceEvent::ChubbyLockDelayOver));
                self.grant_next(view, out);
            }
            ChubbyTimer::Elected if self.electing_until == Some(view.now) => {
                self.take_over(view, out)
            }
            _ => {}
        }
    }

    /// The lease ran out: the session ends, and a lock it held is free but
    /// out of reach for the lock-delay (it was lost by failure).
    fn on_session_expiry(&mut self, view: &View, session: u64, out: &mut Effects) {
        let Some(s) = self.sessions.get(&session) else {
            return;
        };
        if s.lease_end != view.now {
            return; // A KeepAlive moved the lease on; a later timer handles it.
        }
        let owner = s.owner;
        self.sessions.remove(&session);
        self.blocked.retain(|&(_, s)| s != session);
        out.record(Event::Service(ServiceEvent::ChubbySessionExpired {
            client: owner,
            session,
        }));
        let Some(h) = self.holder.filter(|h| h.session == session) else {
            return;
        };
        self.holder = None;
        let delay_until = view.now.plus(self.lock_delay_ms);
        out.record(Event::Service(ServiceEvent::ChubbyLockFreed {
            client: h.client,
            generation: self.generation,
            delay_until,
        }));
        if self.lock_delay_ms > 0 {
            self.delay_until = Some(delay_until);
            out.service_timer(delay_until, ChubbyTimer::LockDelayOver);
        } else {
            self.grant_next(view, out);
        }
    }

    /// The master dies. The replicas elect another; until then session
    /// timers stop, which is the same as extending every lease.
    fn fail_over(&mut self, view: &View, out: &mut Effects) {
        if self.electing_until.is_some() {
            return;
        }
        let (lo, hi) = self.election_ms;
        let until = view.now.plus(self.rng.draw(lo, hi));
        self.electing_until = Some(until);
        out.record(Event::Service(ServiceEvent::ChubbyMasterFailed { until }));
        out.service_timer(until, ChubbyTimer::Elected);
    }

    /// The new master reads sessions, locks and generation numbers from the
    /// replicated database and extends every lease to the most the old
    /// master may have granted; then it answers what waited for it.
    fn take_over(&mut self, view: &View, out: &mut Effects) {
        self.electing_until = None;
        self.epoch += 1;
        out.record(Event::Service(ServiceEvent::ChubbyMasterElected {
            epoch: self.epoch,
        }));
        let lease_end = view.now.plus(self.lease_ms);
        let sessions: Vec<u64> = self.sessions.keys().copied().collect();
        for &session in &sessions {
            if let Some(s) = self.sessions.get_mut(&session) {
                s.lease_end = lease_end;
            }
            out.service_timer(lease_end, ChubbyTimer::SessionExpiry { session });
        }
        // The first KeepAlive a new master sees is answered at once.
        for session in sessions {
            self.answer_keep_alive(view, session, out);
        }
        if self.delay_until.is_some_and(|d| d <= view.now) {
            self.delay_until = None;
            out.record(Event::Service(ServiceEvent::ChubbyLockDelayOver));
        }
        for (c, body) in std::mem::take(&mut self.deferred) {
            self.on_request(view, c, Endpoint::Service, body, out);
        }
        self.grant_next(view, out);
    }

    // ---- The client library ----

    fn acquire(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let local_now = view.local_now(c);
        let side = self.side(c);
        match side.session {
            Some(session) if !side.jeopardy => out.ask(c, ChubbyMsg::Acquire { session }),
            // In jeopardy calls block until the session is safe or expired.
            Some(_) => side.pending_acquire = true,
            None => {
                side.pending_acquire = true;
                if !side.opening {
                    side.opening = true;
                    side.open_sent = local_now;
                    out.ask(c, ChubbyMsg::CreateSession);
                }
            }
        }
    }

    /// The client's lease is counted from when it *sent* the KeepAlive,
    /// plus what the master says it held it and the new lease, less an
    /// allowance for the master's clock: never later than the master's own
    /// end, however long the answer spent on the way (or waiting for a
    /// paused client to read it).
    fn on_keep_alive_reply(
        &mut self,
        view: &View,
        c: ClientId,
        session: u64,
        seq: u32,
        lease_after_ms: u32,
        out: &mut Effects,
    ) {
        let allowance = self.allowance_ms as i64;
        let side = self.side(c);
        if side.session != Some(session) {
            return;
        }
        let Some(&(_, sent)) = side.sent.iter().find(|&&(s, _)| s == seq) else {
            return;
        };
        side.sent.retain(|&(s, _)| s > seq);
        let reading = sent + i64::from(lease_after_ms) - allowance;
        if reading > view.local_now(c) {
            if side.jeopardy {
                side.jeopardy = false;
                side.grace_gen += 1;
                side.retry_gen += 1;
                set_library(&mut self.library, c, ChubbySession::Safe, out);
            }
            self.set_local_lease(view, c, reading, out);
            let until = self.side[c.index()].local_end;
            match view.belief(c) {
                Belief::Holding { .. } => out.extend(c, until),
                _ => out.record(Event::Renewed { client: c, until }),
            }
        } else {
            // Read too late (the client was frozen): the lease it grants
            // is already over by the client's own clock.
            self.enter_jeopardy(view, c, out);
        }
        if view.renewal(c) {
            self.send_keep_alive(view, c, out);
        }
    }

    fn on_client_timer(&mut self, view: &View, c: ClientId, timer: ChubbyTimer, out: &mut Effects) {
        if self.timer_moot(view, Some(c), timer) {
            return;
        }
        match timer {
            ChubbyTimer::LocalLease { .. } => self.enter_jeopardy(view, c, out),
            ChubbyTimer::Grace { .. } => self.expire(view, c, LossReason::GraceExpired, out),
            ChubbyTimer::Retry { gen } => {
                if view.renewal(c) {
                    self.send_keep_alive(view, c, out);
                }
                let every = self.retry_ms;
                out.client_timer(c, every, ChubbyTimer::Retry { gen });
            }
            _ => {}
        }
    }

    /// Its local lease ran out: jeopardy. The application hears it; whether
    /// it stops writing is up to the application.
    fn enter_jeopardy(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let (grace, retry) = (self.grace_ms, self.retry_ms);
        let side = self.side(c);
        if side.jeopardy || side.session.is_none() {
            return;
        }
        side.jeopardy = true;
        side.lease_gen += 1;
        side.grace_gen += 1;
        side.retry_gen += 1;
        let (grace_gen, retry_gen) = (side.grace_gen, side.retry_gen);
        let grace_until = view.after_local(c, grace);
        set_library(
            &mut self.library,
            c,
            ChubbySession::Jeopardy { grace_until },
            out,
        );
        out.client_timer(c, grace, ChubbyTimer::Grace { gen: grace_gen });
        out.client_timer(c, retry, ChubbyTimer::Retry { gen: retry_gen });
    }

    /// The session is over for the client: the lock with it.
    fn expire(&mut self, view: &View, c: ClientId, reason: LossReason, out: &mut Effects) {
        let side = self.side(c);
        let renewal = (
            side.lease_gen,
            side.grace_gen,
            side.retry_gen,
            side.next_seq,
        );
        *side = Side {
            lease_gen: renewal.0 + 1,
            grace_gen: renewal.1 + 1,
            retry_gen: renewal.2 + 1,
            next_seq: renewal.3,
            ..Side::default()
        };
        set_library(&mut self.library, c, ChubbySession::Expired, out);
        match view.belief(c) {
            Belief::Acquiring => out.fail(c, AcquireFailure::LeaseGone),
            Belief::Idle => {}
            _ => out.lose(c, reason),
        }
    }

    fn run_pending_acquire(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        let (pending, session) = (side.pending_acquire, side.session);
        side.pending_acquire = false;
        if let (true, Some(session), Belief::Acquiring) = (pending, session, view.belief(c)) {
            out.ask(c, ChubbyMsg::Acquire { session });
        }
    }

    /// The local lease ends when the client's clock reads `reading`.
    fn set_local_lease(&mut self, view: &View, c: ClientId, reading: i64, out: &mut Effects) {
        let local_now = view.local_now(c);
        let side = self.side(c);
        side.lease_gen += 1;
        let gen = side.lease_gen;
        side.local_end = Some(view.when_reads(c, reading));
        let after = u64::try_from(reading - local_now).unwrap_or(0);
        let unblocked = !side.jeopardy && side.pending_acquire;
        out.client_timer(c, after, ChubbyTimer::LocalLease { gen });
        // Calls blocked while the session opened or was in jeopardy run now.
        if unblocked {
            self.run_pending_acquire(view, c, out);
        }
    }

    fn send_keep_alive(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let local_now = view.local_now(c);
        let side = self.side(c);
        let Some(session) = side.session else {
            return;
        };
        let seq = side.next_seq;
        count_up(&mut side.next_seq);
        side.sent.push((seq, local_now));
        if side.sent.len() > SENT_MAX {
            side.sent.remove(0);
        }
        out.ask(c, ChubbyMsg::KeepAlive { session, seq });
    }
}

/// Sets client `c`'s session as its library sees it, saying so when it
/// changes.
fn set_library(
    library: &mut [Option<ChubbySession>; 4],
    c: ClientId,
    state: ChubbySession,
    out: &mut Effects,
) {
    if library[c.index()] != Some(state) {
        library[c.index()] = Some(state);
        out.record(Event::ChubbyState { client: c, state });
    }
}
