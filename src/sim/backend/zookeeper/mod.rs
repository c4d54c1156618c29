//! ZooKeeper's lock recipe (Curator InterProcessMutex): a session kept
//! alive by pings, an EPHEMERAL_SEQUENTIAL znode per contender, the lowest
//! sequence holds, each waiter watches the znode just before its own.
//!
//! Simplified on purpose: the ensemble is one server whose ZAB is not
//! modelled message by message; a leader election (`NodeCommand::Failover`)
//! keeps the replicated state and gives every session a fresh timeout, as
//! ZooKeeper's new leader does. Each client opens one session and keeps it.

mod real_client;

use super::queue::{Contenders, Entry, Recheck};
use super::{count_up, Grant, HolderView, LibrarySession, LockSystem};
use crate::sim::client::{Belief, ZkConn};
use crate::sim::effects::{Effects, Input, View};
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Config, NodeCommand};
use crate::sim::types::{ClientId, Millis, Token, ZkClient};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// The timeout the server negotiates for a requested one: clamped to
/// 2-20 ticks (minSessionTimeout and maxSessionTimeout's defaults).
pub fn negotiated_timeout_ms(requested_ms: u64, tick_ms: u64) -> u64 {
    requested_ms.clamp(2 * tick_ms, 20 * tick_ms)
}

/// Sessions expire in tick-sized buckets: a little after the timeout.
fn expiry_bucket(at_ms: u64, tick_ms: u64) -> Millis {
    Millis((at_ms / tick_ms + 1) * tick_ms)
}

/// ZooKeeper's requests and answers. Sequence numbers travel in 32 bits,
/// as ZooKeeper's own do, so that each fits in 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum ZkMsg {
    #[serde(rename = "zk-connect")]
    Connect { timeout_ms: u64 },
    #[serde(rename = "zk-connect-reply")]
    ConnectReply { session: u64, timeout_ms: u64 },
    /// `create -e -s` under the lock directory.
    #[serde(rename = "zk-create")]
    Create { session: u64 },
    #[serde(rename = "zk-create-reply")]
    CreateReply {
        seq: Option<u32>,
        predecessor: Option<u32>,
    },
    #[serde(rename = "zk-ping")]
    Ping { session: u64 },
    #[serde(rename = "zk-ping-reply")]
    PingReply { alive: bool },
    #[serde(rename = "zk-delete")]
    Delete { seq: u32 },
    #[serde(rename = "zk-watch-fired")]
    WatchFired { deleted: u32 },
    #[serde(rename = "zk-get-children")]
    GetChildren { seq: u32 },
    #[serde(rename = "zk-children-reply")]
    ChildrenReply {
        exists: bool,
        predecessor: Option<u32>,
    },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<ZkMsg>() <= 24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ZkTimer {
    /// Time to send the next ping.
    Ping { gen: u64 },
    /// No reply for two thirds of the session timeout.
    ReadTimeout { gen: u64 },
    /// Curator: a whole session timeout SUSPENDED means LOST.
    SuspendedTooLong { gen: u64 },
    /// The server's session expiry.
    SessionExpiry { session: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZnodeView {
    pub seq: u64,
    pub owner: ClientId,
    pub session: u64,
    pub czxid: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionView {
    pub session: u64,
    pub owner: ClientId,
    pub timeout_ms: u64,
    /// When the server will expire it, counting in tick-sized buckets.
    pub expires_at: Millis,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZkDetail {
    /// The lock directory's children, lowest sequence (the holder) first.
    pub znodes: Vec<ZnodeView>,
    pub sessions: Vec<SessionView>,
    pub zxid: u64,
    pub tick_ms: u64,
}

#[derive(Debug, Clone, Hash)]
struct Session {
    owner: ClientId,
    timeout_ms: u64,
    expires_at: Millis,
}

/// What one client knows, on its side of the network.
#[derive(Debug, Clone, Default, Hash)]
struct Side {
    session: Option<u64>,
    timeout_ms: u64,
    /// The client's own znode sequence number.
    seq: Option<u32>,
    /// Waiting for the connect reply before creating the znode.
    connecting: bool,
    ping_gen: u64,
    read_gen: u64,
    suspended_gen: u64,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct ZooKeeper {
    requested_ms: u64,
    tick_ms: u64,
    client: ZkClient,
    zxid: u64,
    /// The lock directory's sequence counter: a sequential child is named
    /// after it, and only creations advance it.
    cversion: u32,
    next_session: u64,
    sessions: LiteMap<u64, Session>,
    /// The lock directory's children by sequence number.
    znodes: Contenders,
    side: [Side; 4],
    /// Each client's connection state as its library reports it; a crash
    /// forgets it with the rest of the client's side.
    conn: [Option<ZkConn>; 4],
}

impl LockSystem for ZooKeeper {
    type Msg = ZkMsg;
    type Timer = ZkTimer;
    type Detail = ZkDetail;
    const NAME: &'static str = "ZooKeeper";
    const LEASE_WORD: &'static str = "session";
    /// A quorum write with fsync: 5-20 ms a round trip.
    const LATENCY_US: (u64, u64) = (2_500, 10_000);
    const MONOTONIC_TOKENS: bool = true;
    const TOKEN_SHORT: &'static str = "znode sequence number";
    const HELD_CHECK: Option<&'static str> = Some("a multi() with a check op on the lock node");
    const LEADER_FAILOVER: bool = true;

    /// The first znode: only requests at the ensemble and its session
    /// expiry checks create or delete znodes; the clients' connections
    /// and sessions (`Side`, `conn`) are apart.
    const GRANT_IN_SERVICE_BOOKS: bool = true;

    fn expiry_checks_ms(config: &Config) -> Option<u64> {
        Some(config.zk.tick_ms)
    }

    fn new(config: &Config) -> ZooKeeper {
        ZooKeeper {
            requested_ms: config.ttl_ms,
            tick_ms: config.zk.tick_ms,
            client: config.zk.client,
            zxid: 0,
            cversion: 0,
            next_session: 0x1000,
            sessions: LiteMap::new(),
            znodes: Contenders::default(),
            side: Default::default(),
            conn: [None; 4],
        }
    }

    fn on_input(&mut self, view: &View, input: Input<ZkTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => self.acquire(c, out),
            Input::Release(c) => {
                if let Some(seq) = self.side(c).seq.take() {
                    out.ask(c, ZkMsg::Delete { seq });
                }
            }
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            Input::ServiceTimer(ZkTimer::SessionExpiry { session }) => {
                self.on_session_expiry(view, session, out)
            }
            // A closed TCP connection is not a session close: the session
            // expires at its timeout either way (ZooKeeper programmer's guide).
            Input::Crashed(c) | Input::Exited(c) => {
                self.side[c.index()] = Side::default();
                self.conn[c.index()] = None;
            }
            Input::Node(_, NodeCommand::Failover) => self.leader_change(view, out),
            Input::Healed(c) => {
                // Reconnecting: the server answers whether the session still lives.
                self.ping(c, out);
                if let (Belief::Waiting { .. }, Some(seq)) =
                    (view.belief(c), self.side[c.index()].seq)
                {
                    out.ask(c, ZkMsg::GetChildren { seq });
                }
            }
            Input::RenewalOn(c) if self.side[c.index()].session.is_some() => self.arm_ping(c, out),
            _ => {}
        }
    }

    /// A ping or read timer of an old generation or a gone session, a
    /// session expiry the session outlived or came after, do nothing. The
    /// rules are stated here only: `on_client_timer` and
    /// `on_session_expiry` start by asking.
    fn timer_moot(&self, view: &View, c: Option<ClientId>, timer: ZkTimer) -> bool {
        match (timer, c) {
            (ZkTimer::Ping { gen }, Some(c)) => {
                let side = &self.side[c.index()];
                gen != side.ping_gen || side.session.is_none() || !view.renewal(c)
            }
            (ZkTimer::ReadTimeout { gen }, Some(c)) => {
                let side = &self.side[c.index()];
                gen != side.read_gen || side.session.is_none()
            }
            (ZkTimer::SuspendedTooLong { gen }, Some(c)) => {
                let side = &self.side[c.index()];
                gen != side.read_gen || gen != side.suspended_gen || side.session.is_none()
            }
            (ZkTimer::SessionExpiry { session }, None) => self
                .sessions
                .get(&session)
                .is_none_or(|s| s.expires_at != view.now),
            _ => false,
        }
    }

    fn holder(&self, _view: &View) -> Option<HolderView> {
        self.znodes.holder(|session| self.session_expiry(session))
    }

    /// The first znode's, without looking up when its session ends.
    fn grant(&self, _view: &View) -> Option<Grant> {
        self.znodes.grant()
    }

    fn lease_end(&self, _view: &View, c: ClientId) -> Option<Millis> {
        self.znodes
            .lease_end(c, |session| self.session_expiry(session))
    }

    fn detail(&self, _view: &View) -> ZkDetail {
        ZkDetail {
            znodes: self
                .znodes
                .iter()
                .map(|(seq, z)| ZnodeView {
                    seq: u64::from(seq),
                    owner: z.owner,
                    session: z.session,
                    czxid: z.stamp,
                })
                .collect(),
            sessions: self
                .sessions
                .iter()
                .map(|(&session, s)| SessionView {
                    session,
                    owner: s.owner,
                    timeout_ms: s.timeout_ms,
                    expires_at: s.expires_at,
                })
                .collect(),
            zxid: self.zxid,
            tick_ms: self.tick_ms,
        }
    }

    /// A closed TCP connection is not a session close (only an explicit
    /// close ends a session early): the session expires at its timeout.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let first = if exited {
            "a closed connection is not a session close"
        } else {
            "the ensemble hears nothing"
        };
        super::lease_note(
            first,
            "its session expires at its timeout",
            self.lease_end(view, c),
        )
    }

    /// The negotiated session timeout, and the tick the server's expiry
    /// check may wait past it.
    fn silent_holder_ms(config: &Config) -> u64 {
        negotiated_timeout_ms(config.ttl_ms, config.zk.tick_ms).saturating_add(config.zk.tick_ms)
    }

    fn library_session(&self, c: ClientId) -> Option<LibrarySession> {
        self.conn[c.index()].map(LibrarySession::Zk)
    }

    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
        body: ZkMsg,
        out: &mut Effects,
    ) {
        let reply = match body {
            ZkMsg::Connect { timeout_ms } => self.connect(view, c, timeout_ms, out),
            ZkMsg::Create { session } => self.create(view, c, session, out),
            ZkMsg::Ping { session } => ZkMsg::PingReply {
                alive: self.touch(view, session, out),
            },
            ZkMsg::Delete { seq } => {
                if let Some(z) = self.znodes.get(seq).filter(|z| z.owner == c) {
                    let session = z.session;
                    self.touch(view, session, out);
                    self.delete_znode(seq, out);
                }
                return;
            }
            ZkMsg::GetChildren { seq } => {
                let (exists, predecessor) = self.znodes.look(seq, c);
                ZkMsg::ChildrenReply {
                    exists,
                    predecessor,
                }
            }
            _ => return,
        };
        out.answer(c, reply);
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: ZkMsg, out: &mut Effects) {
        // Any reply proves the connection works: the read timeout restarts.
        self.arm_read_timeout(c, out);
        match body {
            ZkMsg::ConnectReply {
                session,
                timeout_ms,
            } => {
                let side = self.side(c);
                side.session = Some(session);
                side.timeout_ms = timeout_ms;
                side.connecting = false;
                set_conn(&mut self.conn, c, ZkConn::Connected, out);
                self.arm_ping(c, out);
                self.arm_read_timeout(c, out);
                if view.belief(c) == Belief::Acquiring {
                    out.ask(c, ZkMsg::Create { session });
                }
            }
            ZkMsg::CreateReply { seq, predecessor } => {
                self.on_created(view, c, seq, predecessor, out)
            }
            ZkMsg::PingReply { alive: true } => set_conn(&mut self.conn, c, ZkConn::Connected, out),
            ZkMsg::PingReply { alive: false } => self.session_lost(c, out),
            ZkMsg::WatchFired { .. } => {
                if let (Belief::Waiting { .. }, Some(seq)) =
                    (view.belief(c), self.side[c.index()].seq)
                {
                    out.ask(c, ZkMsg::GetChildren { seq });
                }
            }
            ZkMsg::ChildrenReply {
                exists,
                predecessor,
            } => {
                let (Belief::Waiting { .. }, Some(seq)) =
                    (view.belief(c), self.side[c.index()].seq)
                else {
                    return;
                };
                match Recheck::of(exists, predecessor) {
                    Recheck::Gone => {
                        self.side(c).seq = None;
                        out.lose(c, LossReason::KeyGone);
                    }
                    Recheck::Holds => {
                        let seq = u64::from(seq);
                        out.grant(c, Some(Token(seq)), seq, None);
                    }
                    Recheck::Waits => {}
                }
            }
            _ => {}
        }
    }

    fn renews(msg: &ZkMsg) -> bool {
        matches!(msg, ZkMsg::Ping { .. })
    }

    fn releases(msg: &ZkMsg) -> bool {
        matches!(msg, ZkMsg::Delete { .. })
    }

    fn label(msg: &ZkMsg) -> String {
        match msg {
            ZkMsg::Connect { .. } => "connect".into(),
            ZkMsg::ConnectReply { session, .. } => format!("session 0x{session:x}"),
            ZkMsg::Create { .. } => "create -e -s".into(),
            ZkMsg::CreateReply { seq: Some(s), .. } => format!("lock-{s:010}"),
            ZkMsg::CreateReply { seq: None, .. } => "session expired".into(),
            ZkMsg::Ping { .. } => "ping".into(),
            ZkMsg::PingReply { alive: true } => "pong".into(),
            ZkMsg::PingReply { alive: false } => "session expired".into(),
            ZkMsg::Delete { .. } => "delete".into(),
            ZkMsg::WatchFired { .. } => "watch: deleted".into(),
            ZkMsg::GetChildren { .. } => "getChildren".into(),
            ZkMsg::ChildrenReply { .. } => "children".into(),
        }
    }

    fn confirms_session(msg: &ZkMsg) -> bool {
        *msg == ZkMsg::PingReply { alive: true }
    }
}

impl ZooKeeper {
    fn session_expiry(&self, session: u64) -> Option<Millis> {
        self.sessions.get(&session).map(|s| s.expires_at)
    }

    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn acquire(&mut self, c: ClientId, out: &mut Effects) {
        let requested_ms = self.requested_ms;
        let side = self.side(c);
        side.seq = None;
        match side.session {
            Some(session) => out.ask(c, ZkMsg::Create { session }),
            None if side.connecting => {}
            None => {
                side.connecting = true;
                out.ask(
                    c,
                    ZkMsg::Connect {
                        timeout_ms: requested_ms,
                    },
                );
            }
        }
    }

    /// Any request from a live session moves its expiry to a later bucket.
    /// A new leader takes over: the replicated state is kept, and the new
    /// leader gives every session a fresh timeout rather than expire one
    /// whose keepalives went to the old leader.
    fn leader_change(&mut self, view: &View, out: &mut Effects) {
        let ids: Vec<u64> = self.sessions.keys().copied().collect();
        for id in &ids {
            self.touch(view, *id, out);
        }
        out.record(Event::Service(ServiceEvent::LeaderChanged {
            renewed: ids.len() as u32,
        }));
    }

    /// The session ends a timeout from now. Its one pending expiry timer
    /// moves to the new end's bucket; when both fall in the same bucket the
    /// one pending stays (a second there would find the session gone). A
    /// new session's end, set to now, has no timer yet; nor has one whose
    /// timer is due this very instant, which finds it touched and does
    /// nothing.
    fn touch(&mut self, view: &View, session: u64, out: &mut Effects) -> bool {
        let Some(s) = self.sessions.get_mut(&session) else {
            return false;
        };
        let before = s.expires_at;
        s.expires_at = expiry_bucket(view.now.ms() + s.timeout_ms, self.tick_ms);
        if s.expires_at != before {
            if before > view.now {
                out.cancel_service_timer(ZkTimer::SessionExpiry { session });
            }
            out.service_timer(s.expires_at, ZkTimer::SessionExpiry { session });
        }
        true
    }

    fn delete_znode(&mut self, seq: u32, out: &mut Effects) {
        let Some((node, watchers)) = self.znodes.remove(seq) else {
            return;
        };
        // A deletion is a transaction, but the sequence only advances on
        // creation (ZooKeeper 3.5 and later).
        self.zxid += 1;
        out.record(Event::Service(ServiceEvent::ZkZnodeDeleted {
            client: node.owner,
            seq: u64::from(seq),
            zxid: self.zxid,
        }));
        for watcher in watchers.iter() {
            out.answer(watcher, ZkMsg::WatchFired { deleted: seq });
        }
    }

    fn connect(&mut self, view: &View, c: ClientId, requested_ms: u64, out: &mut Effects) -> ZkMsg {
        let session = self.next_session;
        self.next_session += 1;
        self.zxid += 1;
        let timeout_ms = negotiated_timeout_ms(requested_ms, self.tick_ms);
        self.sessions.insert(
            session,
            Session {
                owner: c,
                timeout_ms,
                expires_at: view.now,
            },
        );
        self.touch(view, session, out);
        out.record(Event::Service(ServiceEvent::ZkSessionOpened {
            client: c,
            session,
            timeout_ms,
            requested_ms,
            tick_ms: self.tick_ms,
        }));
        ZkMsg::ConnectReply {
            session,
            timeout_ms,
        }
    }

    /// create -e -s: the child is named after the directory's cversion.
    fn create(&mut self, view: &View, c: ClientId, session: u64, out: &mut Effects) -> ZkMsg {
        if !self.touch(view, session, out) {
            return ZkMsg::CreateReply {
                seq: None,
                predecessor: None,
            };
        }
        let seq = self.cversion;
        count_up(&mut self.cversion);
        self.zxid += 1;
        let entry = Entry {
            owner: c,
            session,
            since: view.now,
            stamp: self.zxid,
        };
        out.record(Event::Service(ServiceEvent::ZkZnodeCreated {
            client: c,
            seq: u64::from(seq),
            zxid: self.zxid,
        }));
        let predecessor = self.znodes.join(seq, entry);
        ZkMsg::CreateReply {
            seq: Some(seq),
            predecessor,
        }
    }

    fn on_created(
        &mut self,
        view: &View,
        c: ClientId,
        seq: Option<u32>,
        predecessor: Option<u32>,
        out: &mut Effects,
    ) {
        let acquiring = view.belief(c) == Belief::Acquiring;
        let Some(seq) = seq else {
            if acquiring {
                out.fail(c, AcquireFailure::LeaseGone);
                self.session_lost(c, out);
            }
            return;
        };
        if !acquiring {
            // Released while the create was in flight: take the znode back.
            out.ask(c, ZkMsg::Delete { seq });
            return;
        }
        self.side(c).seq = Some(seq);
        let seq = u64::from(seq);
        if predecessor.is_none() {
            out.grant(c, Some(Token(seq)), seq, None);
        } else {
            out.wait(c, Some(Token(seq)));
        }
    }

    fn on_client_timer(&mut self, view: &View, c: ClientId, timer: ZkTimer, out: &mut Effects) {
        if self.timer_moot(view, Some(c), timer) {
            return;
        }
        let side = &self.side[c.index()];
        match timer {
            ZkTimer::Ping { .. } => {
                self.ping(c, out);
                self.arm_ping(c, out);
            }
            ZkTimer::ReadTimeout { .. } => {
                // Treat your locks as suspended. The recipe itself still
                // says "acquired".
                set_conn(&mut self.conn, c, ZkConn::Suspended, out);
                if self.client == ZkClient::Curator {
                    let (gen, after) = (side.read_gen, side.timeout_ms);
                    self.side(c).suspended_gen = gen;
                    out.client_timer(c, after, ZkTimer::SuspendedTooLong { gen });
                }
            }
            ZkTimer::SuspendedTooLong { .. } => {
                // Curator 3.0+: no word from the ensemble for a whole session
                // timeout since SUSPENDED, so the session must have expired.
                self.session_lost(c, out);
            }
            // The server's timer never reaches a client.
            ZkTimer::SessionExpiry { .. } => {}
        }
    }

    fn on_session_expiry(&mut self, view: &View, session: u64, out: &mut Effects) {
        if self.timer_moot(view, None, ZkTimer::SessionExpiry { session }) {
            return;
        }
        // Not moot: the session is there, and ends now.
        let Some(s) = self.sessions.remove(&session) else {
            return;
        };
        let owner = s.owner;
        self.zxid += 1;
        out.record(Event::Service(ServiceEvent::ZkSessionExpired {
            client: owner,
            session,
        }));
        for seq in self.znodes.of_session(session) {
            self.delete_znode(seq, out);
        }
    }

    /// Told the session expired: LOST. The application drops the lock.
    fn session_lost(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        side.session = None;
        side.seq = None;
        side.connecting = false;
        side.ping_gen += 1;
        side.read_gen += 1;
        set_conn(&mut self.conn, c, ZkConn::Lost, out);
        out.lose(c, LossReason::SessionLost);
    }

    /// Pings every third of the session timeout, as the client library does.
    fn arm_ping(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        side.ping_gen += 1;
        let every = (side.timeout_ms / 3).max(1);
        out.client_timer(c, every, ZkTimer::Ping { gen: side.ping_gen });
    }

    /// No reply for two thirds of the timeout means SUSPENDED. The read
    /// timer it replaces, and the SUSPENDED timer that one started, are
    /// taken out if still pending: their generation has moved on.
    fn arm_read_timeout(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        if side.session.is_none() {
            return;
        }
        let gen = side.read_gen;
        out.cancel_client_timer(c, ZkTimer::ReadTimeout { gen });
        if side.suspended_gen == gen {
            out.cancel_client_timer(c, ZkTimer::SuspendedTooLong { gen });
        }
        side.read_gen += 1;
        let after = (side.timeout_ms * 2 / 3).max(1);
        out.client_timer(c, after, ZkTimer::ReadTimeout { gen: side.read_gen });
    }

    fn ping(&mut self, c: ClientId, out: &mut Effects) {
        if let Some(session) = self.side[c.index()].session {
            out.ask(c, ZkMsg::Ping { session });
        }
    }
}

/// Sets client `c`'s connection state, saying so when it changes.
fn set_conn(conn: &mut [Option<ZkConn>; 4], c: ClientId, state: ZkConn, out: &mut Effects) {
    if conn[c.index()] != Some(state) {
        conn[c.index()] = Some(state);
        out.record(Event::ZkState { client: c, state });
    }
}
