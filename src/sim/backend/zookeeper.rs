//! ZooKeeper's lock recipe (Curator InterProcessMutex): a session kept
//! alive by pings, an EPHEMERAL_SEQUENTIAL znode per contender, the lowest
//! sequence holds, each waiter watches the znode just before its own.
//!
//! Simplified on purpose: the ensemble is one always-available server (no
//! ZAB, no leader election); each client opens one session and keeps it.

use super::{fail, grant, lose, HolderView, LockService, ServiceDetail, SessionView, ZnodeView};
use crate::sim::client::{Belief, ZkConn};
use crate::sim::engine::{ClientTimer, Core, ServiceTimer};
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::{Body, Endpoint, Message};
use crate::sim::scenario::Config;
use crate::sim::types::{ClientId, Millis, Token};
use std::collections::BTreeMap;

/// The server's tick; session timeouts are clamped to 2-20 ticks.
pub const TICK_MS: u64 = 2_000;
pub const SESSION_TIMEOUT_MS_MIN: u64 = 2 * TICK_MS;
pub const SESSION_TIMEOUT_MS_MAX: u64 = 20 * TICK_MS;

/// The timeout the server negotiates for a requested one.
pub fn negotiated_timeout_ms(requested_ms: u64) -> u64 {
    requested_ms.clamp(SESSION_TIMEOUT_MS_MIN, SESSION_TIMEOUT_MS_MAX)
}

/// Sessions expire in tick-sized buckets: a little after the timeout.
fn expiry_bucket(at_ms: u64) -> Millis {
    Millis((at_ms / TICK_MS + 1) * TICK_MS)
}

#[derive(Debug, Clone)]
struct Session {
    owner: ClientId,
    timeout_ms: u64,
    expires_at: Millis,
}

#[derive(Debug, Clone)]
struct Znode {
    owner: ClientId,
    session: u64,
    czxid: u64,
    created_at: Millis,
}

/// What one client knows, on its side of the wire.
#[derive(Debug, Clone, Default)]
struct Side {
    session: Option<u64>,
    timeout_ms: u64,
    /// The client's own znode sequence number.
    seq: Option<u64>,
    /// Waiting for the connect reply before creating the znode.
    connecting: bool,
    ping_gen: u64,
    read_gen: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct ZkService {
    requested_ms: u64,
    zxid: u64,
    /// The lock directory's cversion: every child created or deleted bumps
    /// it, and a sequential child is named after it.
    cversion: u64,
    next_session: u64,
    sessions: BTreeMap<u64, Session>,
    znodes: BTreeMap<u64, Znode>,
    /// Watched sequence -> watchers.
    watchers: BTreeMap<u64, Vec<ClientId>>,
    side: [Side; 4],
}

impl ZkService {
    pub fn new(config: &Config) -> ZkService {
        ZkService {
            requested_ms: config.ttl_ms,
            zxid: 0,
            cversion: 0,
            next_session: 0x1000,
            sessions: BTreeMap::new(),
            znodes: BTreeMap::new(),
            watchers: BTreeMap::new(),
            side: Default::default(),
        }
    }

    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn predecessor(&self, seq: u64) -> Option<u64> {
        self.znodes.range(..seq).next_back().map(|(&s, _)| s)
    }

    fn watch(&mut self, watched: u64, c: ClientId) {
        let list = self.watchers.entry(watched).or_default();
        if !list.contains(&c) {
            list.push(c);
        }
    }

    /// Any request from a live session moves its expiry to a later bucket.
    fn touch(&mut self, core: &mut Core, session: u64) -> bool {
        let Some(s) = self.sessions.get_mut(&session) else {
            return false;
        };
        s.expires_at = expiry_bucket(core.now.ms() + s.timeout_ms);
        let at = s.expires_at;
        core.service_timer(at, ServiceTimer::ZkSessionExpiry { session });
        true
    }

    fn delete_znode(&mut self, core: &mut Core, seq: u64) {
        let Some(node) = self.znodes.remove(&seq) else {
            return;
        };
        self.zxid += 1;
        self.cversion += 1;
        core.record(Event::Service(ServiceEvent::ZkZnodeDeleted {
            client: node.owner,
            seq,
            zxid: self.zxid,
        }));
        for watcher in self.watchers.remove(&seq).unwrap_or_default() {
            core.send(
                Endpoint::Service,
                Endpoint::Client(watcher),
                Body::ZkWatchFired { deleted: seq },
            );
        }
    }

    fn on_server_message(&mut self, core: &mut Core, c: ClientId, body: Body) {
        let reply = match body {
            Body::ZkConnect { timeout_ms } => {
                let session = self.next_session;
                self.next_session += 1;
                self.zxid += 1;
                let timeout_ms = negotiated_timeout_ms(timeout_ms);
                self.sessions.insert(
                    session,
                    Session {
                        owner: c,
                        timeout_ms,
                        expires_at: core.now,
                    },
                );
                self.touch(core, session);
                core.record(Event::Service(ServiceEvent::ZkSessionOpened {
                    client: c,
                    session,
                    timeout_ms,
                }));
                Body::ZkConnectReply {
                    session,
                    timeout_ms,
                }
            }
            Body::ZkCreate { session } => self.create(core, c, session),
            Body::ZkPing { session } => Body::ZkPingReply {
                alive: self.touch(core, session),
            },
            Body::ZkDelete { seq } => {
                if self.znodes.get(&seq).is_some_and(|z| z.owner == c) {
                    let session = self.znodes[&seq].session;
                    self.touch(core, session);
                    self.delete_znode(core, seq);
                }
                return;
            }
            Body::ZkGetChildren { seq } => {
                let exists = self.znodes.contains_key(&seq);
                let predecessor = if exists { self.predecessor(seq) } else { None };
                if let Some(p) = predecessor {
                    self.watch(p, c);
                }
                Body::ZkChildrenReply {
                    exists,
                    predecessor,
                }
            }
            _ => return,
        };
        core.send(Endpoint::Service, Endpoint::Client(c), reply);
    }

    /// create -e -s: the child is named after the directory's cversion.
    fn create(&mut self, core: &mut Core, c: ClientId, session: u64) -> Body {
        if !self.touch(core, session) {
            return Body::ZkCreateReply {
                seq: None,
                predecessor: None,
            };
        }
        let seq = self.cversion;
        self.cversion += 1;
        self.zxid += 1;
        self.znodes.insert(
            seq,
            Znode {
                owner: c,
                session,
                czxid: self.zxid,
                created_at: core.now,
            },
        );
        core.record(Event::Service(ServiceEvent::ZkZnodeCreated {
            client: c,
            seq,
            zxid: self.zxid,
        }));
        let predecessor = self.predecessor(seq);
        if let Some(p) = predecessor {
            self.watch(p, c);
        }
        Body::ZkCreateReply {
            seq: Some(seq),
            predecessor,
        }
    }

    fn on_client_message(&mut self, core: &mut Core, c: ClientId, body: Body) {
        // Any reply proves the connection works: the read timeout restarts.
        self.arm_read_timeout(core, c);
        match body {
            Body::ZkConnectReply {
                session,
                timeout_ms,
            } => {
                let side = self.side(c);
                side.session = Some(session);
                side.timeout_ms = timeout_ms;
                side.connecting = false;
                self.set_conn(core, c, ZkConn::Connected);
                self.arm_ping(core, c);
                self.arm_read_timeout(core, c);
                if core.client(c).belief == Belief::Acquiring {
                    core.send(
                        Endpoint::Client(c),
                        Endpoint::Service,
                        Body::ZkCreate { session },
                    );
                }
            }
            Body::ZkCreateReply { seq, predecessor } => self.on_created(core, c, seq, predecessor),
            Body::ZkPingReply { alive: true } => {
                self.set_conn(core, c, ZkConn::Connected);
            }
            Body::ZkPingReply { alive: false } => self.session_lost(core, c),
            Body::ZkWatchFired { .. } => {
                if let (Belief::Waiting { .. }, Some(seq)) =
                    (core.client(c).belief, self.side[c.index()].seq)
                {
                    core.send(
                        Endpoint::Client(c),
                        Endpoint::Service,
                        Body::ZkGetChildren { seq },
                    );
                }
            }
            Body::ZkChildrenReply {
                exists,
                predecessor,
            } => {
                let (Belief::Waiting { .. }, Some(seq)) =
                    (core.client(c).belief, self.side[c.index()].seq)
                else {
                    return;
                };
                if !exists {
                    self.side(c).seq = None;
                    lose(core, c, LossReason::KeyGone);
                } else if predecessor.is_none() {
                    grant(core, c, Some(Token(seq)), seq, None);
                }
            }
            _ => {}
        }
    }

    fn on_created(
        &mut self,
        core: &mut Core,
        c: ClientId,
        seq: Option<u64>,
        predecessor: Option<u64>,
    ) {
        let acquiring = core.client(c).belief == Belief::Acquiring;
        let Some(seq) = seq else {
            if acquiring {
                fail(core, c, AcquireFailure::LeaseGone);
                self.session_lost(core, c);
            }
            return;
        };
        if !acquiring {
            // Released while the create was in flight: take the znode back.
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::ZkDelete { seq },
            );
            return;
        }
        self.side(c).seq = Some(seq);
        if predecessor.is_none() {
            grant(core, c, Some(Token(seq)), seq, None);
        } else {
            let token = Some(Token(seq));
            core.set_belief(c, Belief::Waiting { token });
            core.record(Event::Waiting { client: c, token });
        }
    }

    /// Told the session expired: LOST. The application drops the lock.
    fn session_lost(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.session = None;
        side.seq = None;
        side.connecting = false;
        side.ping_gen += 1;
        side.read_gen += 1;
        self.set_conn(core, c, ZkConn::Lost);
        lose(core, c, LossReason::SessionLost);
    }

    fn set_conn(&mut self, core: &mut Core, c: ClientId, state: ZkConn) {
        if core.client(c).zk_conn != Some(state) {
            core.client_mut(c).zk_conn = Some(state);
            core.record(Event::ZkState { client: c, state });
        }
    }

    /// Pings every third of the session timeout, as the client library does.
    fn arm_ping(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.ping_gen += 1;
        let (gen, every) = (side.ping_gen, (side.timeout_ms / 3).max(1));
        core.client_timer(c, every, ClientTimer::Renew { gen });
    }

    /// No reply for two thirds of the timeout means SUSPENDED.
    fn arm_read_timeout(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        if side.session.is_none() {
            return;
        }
        side.read_gen += 1;
        let (gen, after) = (side.read_gen, (side.timeout_ms * 2 / 3).max(1));
        core.client_timer(c, after, ClientTimer::ZkReadTimeout { gen });
    }

    fn ping(&mut self, core: &mut Core, c: ClientId) {
        if let Some(session) = self.side[c.index()].session {
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::ZkPing { session },
            );
        }
    }
}

impl LockService for ZkService {
    fn acquire(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.seq = None;
        match side.session {
            Some(session) => core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::ZkCreate { session },
            ),
            None if side.connecting => {}
            None => {
                side.connecting = true;
                core.send(
                    Endpoint::Client(c),
                    Endpoint::Service,
                    Body::ZkConnect {
                        timeout_ms: self.requested_ms,
                    },
                );
            }
        }
    }

    fn release(&mut self, core: &mut Core, c: ClientId) {
        if let Some(seq) = self.side(c).seq.take() {
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::ZkDelete { seq },
            );
        }
    }

    fn on_message(&mut self, core: &mut Core, msg: Message) {
        match (msg.from, msg.to) {
            (Endpoint::Client(c), Endpoint::Service) => self.on_server_message(core, c, msg.body),
            (Endpoint::Service, Endpoint::Client(c)) => self.on_client_message(core, c, msg.body),
            _ => {}
        }
    }

    fn on_client_timer(&mut self, core: &mut Core, c: ClientId, timer: ClientTimer) {
        let side = &self.side[c.index()];
        match timer {
            ClientTimer::Renew { gen }
                if gen == side.ping_gen && side.session.is_some() && core.client(c).renewal =>
            {
                self.ping(core, c);
                self.arm_ping(core, c);
            }
            ClientTimer::ZkReadTimeout { gen }
                if gen == side.read_gen && side.session.is_some() =>
            {
                // Curator: treat your locks as suspended. The recipe itself
                // still says "acquired".
                self.set_conn(core, c, ZkConn::Suspended);
            }
            _ => {}
        }
    }

    fn on_service_timer(&mut self, core: &mut Core, timer: ServiceTimer) {
        let ServiceTimer::ZkSessionExpiry { session } = timer else {
            return;
        };
        let Some(s) = self.sessions.get(&session) else {
            return;
        };
        if s.expires_at != core.now {
            return;
        }
        let owner = s.owner;
        self.sessions.remove(&session);
        self.zxid += 1;
        core.record(Event::Service(ServiceEvent::ZkSessionExpired {
            client: owner,
            session,
        }));
        let ephemeral: Vec<u64> = self
            .znodes
            .iter()
            .filter(|(_, z)| z.session == session)
            .map(|(&seq, _)| seq)
            .collect();
        for seq in ephemeral {
            self.delete_znode(core, seq);
        }
    }

    fn on_crash(&mut self, _core: &mut Core, c: ClientId) {
        self.side[c.index()] = Side::default();
    }

    fn on_heal(&mut self, core: &mut Core, c: ClientId) {
        // Reconnecting: the server answers whether the session still lives.
        self.ping(core, c);
        if let (Belief::Waiting { .. }, Some(seq)) =
            (core.client(c).belief, self.side[c.index()].seq)
        {
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::ZkGetChildren { seq },
            );
        }
    }

    fn on_renewal_on(&mut self, core: &mut Core, c: ClientId) {
        if self.side[c.index()].session.is_some() {
            self.arm_ping(core, c);
        }
    }

    fn holder(&self, _core: &Core) -> Option<HolderView> {
        let (&seq, z) = self.znodes.iter().next()?;
        Some(HolderView {
            client: z.owner,
            token: Some(Token(seq)),
            lease_key: seq,
            since: z.created_at,
            until: self.sessions.get(&z.session).map(|s| s.expires_at),
        })
    }

    fn lease_end(&self, _core: &Core, c: ClientId) -> Option<Millis> {
        let session = self.znodes.values().find(|z| z.owner == c)?.session;
        self.sessions.get(&session).map(|s| s.expires_at)
    }

    fn detail(&self, _core: &Core) -> ServiceDetail {
        ServiceDetail::ZooKeeper {
            znodes: self
                .znodes
                .iter()
                .map(|(&seq, z)| ZnodeView {
                    seq,
                    owner: z.owner,
                    session: z.session,
                    czxid: z.czxid,
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
            tick_ms: TICK_MS,
        }
    }

    fn monotonic_tokens(&self) -> bool {
        true
    }
}
