//! PostgreSQL's session-level advisory lock, `pg_advisory_lock(42)`: held
//! by one backend (the server process of one client connection) until it
//! is unlocked or the session ends. There is no lease and no token: a
//! paused client keeps its lock, because its kernel keeps answering TCP;
//! a dead or cut-off client keeps it too, until the server's TCP
//! keepalives give up. Waiters block in the server, first come first served.
//! The counter is a row of the same server, so fencing can check the lock
//! itself: a write on the session that holds the advisory lock, or one
//! that takes `pg_advisory_xact_lock(42)` in its own transaction, is
//! refused unless its writer's session holds the lock (`FenceMode::Check`,
//! the engine's `FenceRule::LockHeld`); only a write through a pooled
//! second connection rules that out. Or the data carries its own version,
//! an ORM's optimistic lock (Rails `lock_version`, Hibernate `@Version`):
//! the client reads it with the lock and `UPDATE ... WHERE version = n`
//! is the check (`FenceMode::Version`, the stories' default), which checks
//! the data, not the lock.
//!
//! Simplified on purpose: one primary with one asynchronous standby; each
//! client keeps one connection for the lock and writes through another
//! (a pool), so its writes never touch the lock's connection; a probe's
//! answer is decided when it is sent; Cancel is a message on the lock's
//! connection rather than a second one; a failover drops the sessions and
//! locks but not the last commits.

mod real_client;

use super::{count_up, HolderView, LockSystem, ServiceRng};
use crate::sim::client::Belief;
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, PgSessionEnd, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Command, Config, NodeCommand, PgOptions};
use crate::sim::types::{ClientId, Millis, NodeId, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};

/// The advisory lock's key, as the page's SQL names it.
pub const PG_LOCK_KEY: u64 = 42;
/// max_connections' default (postgresql.conf): one more is refused.
pub const PG_MAX_CONNECTIONS: u32 = 100;
/// Backend pids are drawn from this range (Linux hands out pids in the
/// thousands on a busy host); a drawn pid is never one still in use.
const PID_MIN: u32 = 1_000;
const PID_MAX: u32 = 99_999;
const PID_DRAWS_MAX: u32 = 16;

/// PostgreSQL's requests and answers on a client's lock connection. Pids,
/// attempts and grants travel in 32 bits (a pid is one in PostgreSQL too;
/// see `count_up`), so that each fits in 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum PgMsg {
    /// Startup: a new connection and its backend process.
    #[serde(rename = "pg-connect")]
    Connect,
    /// `None`: refused, max_connections reached.
    #[serde(rename = "pg-connect-reply")]
    ConnectReply { pid: Option<u32> },
    /// `SELECT pg_advisory_lock(42); SELECT version FROM counter`.
    /// `attempt` tells one acquisition of the client from the next.
    #[serde(rename = "pg-advisory-lock")]
    Lock { pid: u32, attempt: u32 },
    /// The blocked call returned: the lock, and the version read with it.
    #[serde(rename = "pg-locked")]
    Locked {
        pid: u32,
        attempt: u32,
        grant: u32,
        version: u64,
    },
    #[serde(rename = "pg-advisory-unlock")]
    Unlock { pid: u32 },
    /// The client gives up waiting (libpq's PQcancel).
    #[serde(rename = "pg-cancel")]
    Cancel { pid: u32, attempt: u32 },
    /// A TCP reset: the server (or the proxy before it) knows no such
    /// connection any more.
    #[serde(rename = "pg-reset")]
    Reset { pid: u32 },
    /// The client's process exited and its kernel closed the connection:
    /// the backend reads EOF.
    #[serde(rename = "pg-fin")]
    Fin { pid: u32 },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<PgMsg>() <= 24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum PgTimer {
    /// The server's kernel's keepalive timer for one connection.
    Keepalive { pid: u32 },
}

/// A backend's state as pg_stat_activity shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PgState {
    /// Between statements: a lock holder sits here.
    Idle,
    /// Running a statement: blocked in pg_advisory_lock, waiting for the lock.
    Active,
}

/// One row of `pg_locks WHERE locktype = 'advisory' AND objid = 42`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgLockRow {
    pub pid: u64,
    pub client: ClientId,
    pub granted: bool,
    /// When it was granted, or when it began to wait.
    pub since: Millis,
}

/// One client connection as the server sees it, with its TCP keepalive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgBackendView {
    pub pid: u64,
    pub client: ClientId,
    pub state: PgState,
    /// The last packet the server had from the client (state_change).
    pub last_heard: Millis,
    pub probes_sent: u64,
    /// Unanswered in a row, since the client was last heard.
    pub probes_failed: u64,
    pub next_probe_at: Millis,
}

/// What a client's side knows of its lock connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "conn", rename_all = "kebab-case")]
pub enum PgClientConn {
    None,
    Connecting,
    Open {
        pid: u64,
    },
    /// Reset under it: it learned when it last used it.
    Reset {
        pid: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgDetail {
    /// pg_locks rows for advisory lock 42: the holder, then the waiters in order.
    pub locks: Vec<PgLockRow>,
    pub backends: Vec<PgBackendView>,
    /// Each client's own side of its lock connection, A to D.
    pub clients: Vec<PgClientConn>,
    /// The counter row's version: the counter's value.
    pub version: u64,
    /// Bumped by each promotion of a standby.
    pub timeline: u32,
    pub options: PgOptions,
}

/// One client connection's backend, on the server.
#[derive(Debug, Clone, Hash)]
struct Conn {
    client: ClientId,
    /// The client's incarnation that opened it: a rebooted host resets it.
    epoch: u32,
    last_heard: Millis,
    next_probe_at: Millis,
    probes_sent: u64,
    probes_failed: u64,
}

#[derive(Debug, Clone, Copy, Hash)]
struct Held {
    pid: u32,
    client: ClientId,
    grant: u32,
    since: Millis,
    /// Advisory locks are re-entrant: each lock needs its own unlock.
    count: u32,
}

#[derive(Debug, Clone, Copy, Hash)]
struct Waiter {
    pid: u32,
    client: ClientId,
    attempt: u32,
    since: Millis,
}

/// What one client knows, on its side of the network.
#[derive(Debug, Clone, Copy, Default, Hash)]
struct Side {
    pid: Option<u32>,
    connecting: bool,
    /// The last connection was reset under it.
    reset: bool,
    /// Its current acquisition; replies to an older one are stale.
    attempt: u32,
    /// The connection its exited process's kernel closed, and whether it
    /// held lock 42 then: for its card.
    fin: Option<(u32, bool)>,
}

/// How a client host answers a keepalive probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProbeAnswer {
    /// Its kernel acknowledges, even while the process is frozen.
    Ack,
    /// Nothing comes back: the host is down or cut off.
    Silent,
    /// The host rebooted and answers with a reset.
    Reset,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct Postgres {
    options: PgOptions,
    conns: LiteMap<u32, Conn>,
    held: Option<Held>,
    /// Backends blocked in pg_advisory_lock(42), first come first.
    waiters: Vec<Waiter>,
    grants: u32,
    timeline: u32,
    side: [Side; 4],
    rng: ServiceRng,
    /// Whether the resource fences by the row's version, so a grant hands
    /// the client the version it read as its token; checked in the same
    /// transaction (the write on the lock's own session), a grant carries
    /// none.
    versioned: bool,
}

impl LockSystem for Postgres {
    type Msg = PgMsg;
    type Timer = PgTimer;
    type Detail = PgDetail;
    const NAME: &'static str = "PostgreSQL";
    const LEASE_WORD: &'static str = "session";
    /// A statement on one server: 0.1-0.5 ms a round trip, against 5-20 ms
    /// for etcd's and ZooKeeper's quorum writes (a fortieth of theirs).
    const LATENCY_US: (u64, u64) = (50, 250);
    /// Advisory locks carry no token at all.
    const MONOTONIC_TOKENS: bool = false;
    const TOKEN_SHORT: &'static str = "none for the lock; the row's version column";
    // The advisory lock grants no token, so nothing is ordered: either the
    // data's own version (the ORM's pattern, the stories' default) or the
    // lock checked in the write's own transaction, which PostgreSQL can do
    // because it holds the lock and the data in one server.
    const FENCE_MODES: &'static [crate::sim::FenceMode] =
        &[crate::sim::FenceMode::Version, crate::sim::FenceMode::Check];
    const HELD_CHECK: Option<&'static str> = Some(
        "the write on the session that holds advisory lock 42 (or pg_advisory_xact_lock(42) first)",
    );
    const RESOURCE_IN_SERVICE: bool = true;
    // An advisory lock is held until it is released or its session ends.
    const LEASED: bool = false;

    fn new(config: &Config) -> Postgres {
        Postgres {
            options: config.pg,
            conns: LiteMap::new(),
            held: None,
            waiters: Vec::new(),
            grants: 0,
            timeline: 1,
            side: Default::default(),
            rng: ServiceRng::new(config.seed),
            versioned: config.backend.fence_rule_in(config)
                == crate::sim::resource::FenceRule::Version,
        }
    }

    fn on_input(&mut self, view: &View, input: Input<PgTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => self.acquire(c, out),
            Input::Release(c) => self.release(view, c, out),
            Input::ServiceTimer(PgTimer::Keepalive { pid }) => self.on_keepalive(view, pid, out),
            // The host died: the client forgets, the server is not told.
            Input::Crashed(c) => self.side[c.index()] = Side::default(),
            Input::Exited(c) => self.exited(c, out),
            Input::Node(_, NodeCommand::Failover) => self.failover(out),
            _ => {}
        }
    }

    fn holder(&self, _view: &View) -> Option<HolderView> {
        self.held.map(|h| HolderView {
            client: h.client,
            token: None,
            lease_key: u64::from(h.grant),
            since: h.since,
            until: None,
        })
    }

    /// No lease: nothing ends unless the session does.
    fn lease_end(&self, _view: &View, _c: ClientId) -> Option<Millis> {
        None
    }

    fn detail(&self, view: &View) -> PgDetail {
        let mut locks: Vec<PgLockRow> = self
            .held
            .iter()
            .map(|h| PgLockRow {
                pid: u64::from(h.pid),
                client: h.client,
                granted: true,
                since: h.since,
            })
            .collect();
        locks.extend(self.waiters.iter().map(|w| PgLockRow {
            pid: u64::from(w.pid),
            client: w.client,
            granted: false,
            since: w.since,
        }));
        let backends = self
            .conns
            .iter()
            .map(|(&pid, conn)| PgBackendView {
                pid: u64::from(pid),
                client: conn.client,
                state: if self.waiters.iter().any(|w| w.pid == pid) {
                    PgState::Active
                } else {
                    PgState::Idle
                },
                last_heard: conn.last_heard,
                probes_sent: conn.probes_sent,
                probes_failed: conn.probes_failed,
                next_probe_at: conn.next_probe_at,
            })
            .collect();
        let clients = self
            .side
            .iter()
            .map(|s| match (s.pid, s.connecting, s.reset) {
                (_, true, _) => PgClientConn::Connecting,
                (Some(pid), false, true) => PgClientConn::Reset {
                    pid: u64::from(pid),
                },
                (Some(pid), false, false) => PgClientConn::Open {
                    pid: u64::from(pid),
                },
                (None, false, _) => PgClientConn::None,
            })
            .collect();
        PgDetail {
            locks,
            backends,
            clients,
            version: view.resource_version.0,
            timeline: self.timeline,
            options: self.options,
        }
    }

    fn check_node(&self, node: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Failover if node.number() == 1 => Ok(()),
            NodeCommand::Failover => Err(CommandError::Unsupported {
                why: "PostgreSQL here is one primary (node 1) with one standby: fail over node 1",
            }),
            _ => Err(CommandError::Unsupported {
                why: "PostgreSQL here is one primary with a standby: its only server command is Failover (promote the standby)",
            }),
        }
    }

    fn check_command(&self, _c: ClientId, cmd: Command) -> Result<(), CommandError> {
        match cmd {
            Command::Renewal { .. } => Err(CommandError::Unsupported {
                why: "PostgreSQL's advisory lock has no lease to renew: it lasts as long as the session's connection",
            }),
            _ => Ok(()),
        }
    }

    /// A process that exited sends FIN and the backend ends the session
    /// when it reads EOF; a dead host sends nothing, and only the server's
    /// keepalives end its session.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let ghost = self.conns.iter().find(|(_, conn)| conn.client == c);
        let lock = |pid: u32| {
            if self.held.is_some_and(|h| h.pid == pid) {
                " and lock 42"
            } else {
                ""
            }
        };
        match (exited, self.side[c.index()].fin, ghost) {
            (true, Some((pid, _)), Some((&open, _))) if open == pid => {
                let client = &view.clients[c.index()];
                if client.partition.is_some() || client.losing {
                    format!("its kernel's FIN is held up in the network: PostgreSQL keeps session pid {pid}{} until it arrives", lock(pid))
                } else {
                    format!("its kernel sent FIN on pid {pid}: the server ends the session when it reads EOF")
                }
            }
            (true, Some((pid, true)), _) => {
                format!("the server read EOF: its session (pid {pid}) ended, lock 42 freed")
            }
            (true, Some((pid, false)), _) => {
                format!("the server read EOF: its session (pid {pid}) ended")
            }
            (true, None, _) => "its process exited with no connection open".into(),
            (false, _, Some((&pid, _))) => format!(
                "the server hears nothing: it keeps session pid {pid}{} until TCP keepalives give up ({})",
                lock(pid),
                keepalive_words(self.options)
            ),
            (false, _, None) => "the server hears nothing; it has no session of its".into(),
        }
    }

    /// No lease: the keepalives' patience with a dead host.
    fn silent_holder_ms(config: &Config) -> u64 {
        config.pg.dead_after_ms()
    }

    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
        body: PgMsg,
        out: &mut Effects,
    ) {
        match body {
            PgMsg::Connect => self.connect(view, c, out),
            PgMsg::Lock { pid, attempt } if self.conn_of(view, c, pid, out) => {
                self.lock(view, c, pid, attempt, out)
            }
            PgMsg::Unlock { pid } if self.conn_of(view, c, pid, out) => self.unlock(view, pid, out),
            // EOF on the socket: the backend exits, and its session-level
            // locks go with it before any keepalive could matter.
            PgMsg::Fin { pid } if self.conns.get(&pid).is_some_and(|conn| conn.client == c) => {
                self.end_session(view, pid, PgSessionEnd::ClientExited, out)
            }
            PgMsg::Cancel { pid, attempt } if self.conn_of(view, c, pid, out) => {
                self.waiters
                    .retain(|w| !(w.pid == pid && w.attempt == attempt));
            }
            _ => {}
        }
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: PgMsg, out: &mut Effects) {
        let belief = view.belief(c);
        let side = self.side[c.index()];
        match body {
            PgMsg::ConnectReply { pid: Some(pid) } => {
                *self.side(c) = Side {
                    pid: Some(pid),
                    attempt: side.attempt,
                    ..Side::default()
                };
                if belief == Belief::Acquiring {
                    out.ask(
                        c,
                        PgMsg::Lock {
                            pid,
                            attempt: side.attempt,
                        },
                    );
                }
            }
            PgMsg::ConnectReply { pid: None } => {
                self.side(c).connecting = false;
                if belief == Belief::Acquiring {
                    out.fail(
                        c,
                        AcquireFailure::TooManyConnections {
                            max: PG_MAX_CONNECTIONS,
                        },
                    );
                }
            }
            PgMsg::Locked {
                pid,
                attempt,
                grant,
                version,
            } => {
                let wanted = matches!(belief, Belief::Acquiring | Belief::Waiting { .. })
                    && side.attempt == attempt
                    && side.pid == Some(pid);
                if wanted {
                    let token = self.versioned.then_some(Token(version));
                    out.grant(c, token, u64::from(grant), None);
                } else if !belief.is_holding() {
                    // Given up meanwhile: hand the lock straight back.
                    out.ask(c, PgMsg::Unlock { pid });
                }
            }
            PgMsg::Reset { pid } if side.pid == Some(pid) => self.on_reset(view, c, out),
            _ => {}
        }
    }

    // A session lock: nothing to renew.
    fn renews(_msg: &PgMsg) -> bool {
        false
    }

    fn releases(msg: &PgMsg) -> bool {
        matches!(msg, PgMsg::Unlock { .. })
    }

    fn label(msg: &PgMsg) -> String {
        match msg {
            PgMsg::Connect => "connect".into(),
            PgMsg::ConnectReply { pid: Some(pid) } => format!("pid {pid}"),
            PgMsg::ConnectReply { pid: None } => "too many clients".into(),
            PgMsg::Lock { .. } => format!("pg_advisory_lock({PG_LOCK_KEY})"),
            PgMsg::Locked { version, .. } => format!("locked, version {version}"),
            PgMsg::Unlock { .. } => format!("pg_advisory_unlock({PG_LOCK_KEY})"),
            PgMsg::Cancel { .. } => "cancel".into(),
            PgMsg::Reset { .. } => "connection reset".into(),
            PgMsg::Fin { .. } => "FIN".into(),
        }
    }
}

impl Postgres {
    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    /// Locks on the open connection, or opens one first.
    fn acquire(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        let attempt = count_up(&mut side.attempt);
        match (side.pid, side.reset, side.connecting) {
            (_, _, true) => {} // The connect reply sends the lock request.
            (Some(pid), false, false) => out.ask(c, PgMsg::Lock { pid, attempt }),
            _ => {
                *side = Side {
                    connecting: true,
                    attempt,
                    ..Side::default()
                };
                out.ask(c, PgMsg::Connect);
            }
        }
    }

    /// The client's process exited: its kernel closes the lock's open
    /// connection, and the FIN travels like any packet (a partition or a
    /// lossy link holds it up). A connection still being opened, or already
    /// reset, sends nothing.
    fn exited(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side[c.index()];
        self.side[c.index()] = Side::default();
        if let Some(pid) = side.pid.filter(|_| !side.reset && !side.connecting) {
            let held = self.held.is_some_and(|h| h.pid == pid);
            self.side[c.index()].fin = Some((pid, held));
            out.ask(c, PgMsg::Fin { pid });
        }
    }

    fn release(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = self.side[c.index()];
        let Some(pid) = side.pid.filter(|_| !side.reset && !side.connecting) else {
            return;
        };
        match view.belief(c) {
            Belief::Holding { .. } => out.ask(c, PgMsg::Unlock { pid }),
            Belief::Acquiring | Belief::Waiting { .. } => out.ask(
                c,
                PgMsg::Cancel {
                    pid,
                    attempt: side.attempt,
                },
            ),
            Belief::Idle => {}
        }
    }

    /// The client was heard on `pid`: its keepalive timer starts again.
    fn heard(&mut self, view: &View, pid: u32, out: &mut Effects) {
        let idle_ms = self.options.keepalives_idle_s.saturating_mul(1_000);
        if let Some(conn) = self.conns.get_mut(&pid) {
            conn.last_heard = view.now;
            conn.probes_failed = 0;
            conn.next_probe_at = view.now.plus(idle_ms);
            out.service_timer(conn.next_probe_at, PgTimer::Keepalive { pid });
        }
    }

    /// The connection `pid` if it is `c`'s; a TCP reset answers any other.
    fn conn_of(&mut self, view: &View, c: ClientId, pid: u32, out: &mut Effects) -> bool {
        if self.conns.get(&pid).is_some_and(|conn| conn.client == c) {
            self.heard(view, pid, out);
            return true;
        }
        out.answer(c, PgMsg::Reset { pid });
        false
    }

    fn connect(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        if self.conns.len() >= PG_MAX_CONNECTIONS as usize {
            out.answer(c, PgMsg::ConnectReply { pid: None });
            return;
        }
        let pid = self.draw_pid();
        self.conns.insert(
            pid,
            Conn {
                client: c,
                epoch: view.clients[c.index()].epoch,
                last_heard: view.now,
                next_probe_at: view.now,
                probes_sent: 0,
                probes_failed: 0,
            },
        );
        self.heard(view, pid, out);
        out.record(Event::Service(ServiceEvent::PgSessionStarted {
            client: c,
            pid: u64::from(pid),
        }));
        out.answer(c, PgMsg::ConnectReply { pid: Some(pid) });
    }

    /// A pid no live backend has: drawn, and with at most 100 of 99,000
    /// in use a few draws always do; past `PID_DRAWS_MAX` the first free one.
    fn draw_pid(&mut self) -> u32 {
        for _ in 0..PID_DRAWS_MAX {
            let drawn = self.rng.draw(u64::from(PID_MIN), u64::from(PID_MAX));
            // A match: `expect` would link the error's Debug into the page.
            let Ok(pid) = u32::try_from(drawn) else {
                panic!("a pid is drawn below PID_MAX");
            };
            if !self.conns.contains_key(&pid) {
                return pid;
            }
        }
        (PID_MIN..=PID_MAX)
            .find(|pid| !self.conns.contains_key(pid))
            .unwrap_or(PID_MAX)
    }

    fn lock(&mut self, view: &View, c: ClientId, pid: u32, attempt: u32, out: &mut Effects) {
        match self.held {
            None => self.grant(view, pid, c, attempt, out),
            Some(mut h) if h.pid == pid => {
                // Re-entrant: the same session locks again, and must unlock twice.
                h.count = h.count.saturating_add(1);
                self.held = Some(h);
                out.answer(
                    c,
                    PgMsg::Locked {
                        pid,
                        attempt,
                        grant: h.grant,
                        version: view.resource_version.0,
                    },
                );
            }
            Some(h) => {
                if let Some(w) = self.waiters.iter_mut().find(|w| w.pid == pid) {
                    w.attempt = attempt;
                } else {
                    self.waiters.push(Waiter {
                        pid,
                        client: c,
                        attempt,
                        since: view.now,
                    });
                }
                out.record(Event::Service(ServiceEvent::PgLockBlocked {
                    client: c,
                    pid: u64::from(pid),
                    holder: h.client,
                }));
                // The client's call is blocked in the server now, not in flight.
                if view.belief(c) == Belief::Acquiring && self.side[c.index()].attempt == attempt {
                    out.wait(c, None);
                }
            }
        }
    }

    fn grant(&mut self, view: &View, pid: u32, c: ClientId, attempt: u32, out: &mut Effects) {
        debug_assert!(self.held.is_none(), "one holder of advisory lock 42");
        let grant = count_up(&mut self.grants);
        self.held = Some(Held {
            pid,
            client: c,
            grant,
            since: view.now,
            count: 1,
        });
        let version = view.resource_version.0;
        out.record(Event::Service(ServiceEvent::PgLockGranted {
            client: c,
            pid: u64::from(pid),
            version,
        }));
        out.answer(
            c,
            PgMsg::Locked {
                pid,
                attempt,
                grant,
                version,
            },
        );
    }

    fn unlock(&mut self, view: &View, pid: u32, out: &mut Effects) {
        let Some(mut h) = self.held.filter(|h| h.pid == pid) else {
            return; // "you don't own a lock of type ExclusiveLock"
        };
        h.count -= 1;
        if h.count > 0 {
            self.held = Some(h);
            return;
        }
        self.held = None;
        out.record(Event::Service(ServiceEvent::PgLockReleased {
            client: h.client,
            pid: u64::from(pid),
        }));
        self.grant_next(view, out);
    }

    /// The first waiter still connected gets the free lock.
    fn grant_next(&mut self, view: &View, out: &mut Effects) {
        if self.held.is_some() || self.waiters.is_empty() {
            return;
        }
        let w = self.waiters.remove(0);
        self.grant(view, w.pid, w.client, w.attempt, out);
    }

    /// The client learns its connection is gone, as libpq does: on using it.
    fn on_reset(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        self.side(c).reset = true;
        match view.belief(c) {
            // Its lock request found no connection: open a new one.
            Belief::Acquiring => self.acquire_again(c, out),
            // The call it was blocked in fails.
            Belief::Waiting { .. } => out.lose(c, LossReason::ConnectionReset),
            // A holder is not reading its connection: it learns nothing.
            Belief::Holding { .. } | Belief::Idle => {}
        }
    }

    fn acquire_again(&mut self, c: ClientId, out: &mut Effects) {
        let attempt = self.side[c.index()].attempt;
        *self.side(c) = Side {
            connecting: true,
            attempt,
            ..Side::default()
        };
        out.ask(c, PgMsg::Connect);
    }

    /// The server's kernel probes an idle connection: after `idle` with
    /// nothing heard, then every `interval`; `count` unanswered probes in
    /// a row end the session. A frozen process's kernel still answers.
    fn on_keepalive(&mut self, view: &View, pid: u32, out: &mut Effects) {
        let options = self.options;
        let Some(conn) = self.conns.get(&pid) else {
            return;
        };
        if conn.next_probe_at != view.now {
            return; // Heard from since: a later timer is set.
        }
        if conn.probes_failed >= options.keepalives_count {
            self.end_session(view, pid, PgSessionEnd::KeepalivesGaveUp, out);
            return;
        }
        let answer = probe_answer(view, conn.client, conn.epoch);
        let client = conn.client;
        if answer == ProbeAnswer::Reset {
            self.end_session(view, pid, PgSessionEnd::ConnectionReset, out);
            return;
        }
        let Some(conn) = self.conns.get_mut(&pid) else {
            return;
        };
        conn.probes_sent += 1;
        let after_s = if answer == ProbeAnswer::Ack {
            conn.probes_failed = 0;
            options.keepalives_idle_s
        } else {
            conn.probes_failed += 1;
            out.record(Event::Service(ServiceEvent::PgProbeUnanswered {
                client,
                pid: u64::from(pid),
                failed: conn.probes_failed,
                count: options.keepalives_count,
            }));
            options.keepalives_interval_s
        };
        conn.next_probe_at = view.now.plus(after_s.saturating_mul(1_000));
        out.service_timer(conn.next_probe_at, PgTimer::Keepalive { pid });
    }

    /// The backend exits: its advisory lock and its place in line go with it.
    fn end_session(&mut self, view: &View, pid: u32, why: PgSessionEnd, out: &mut Effects) {
        let Some(conn) = self.conns.remove(&pid) else {
            return;
        };
        self.waiters.retain(|w| w.pid != pid);
        let freed_lock = self.held.is_some_and(|h| h.pid == pid);
        if freed_lock {
            self.held = None;
        }
        out.record(Event::Service(ServiceEvent::PgSessionEnded {
            client: conn.client,
            pid: u64::from(pid),
            why,
            freed_lock,
        }));
        self.grant_next(view, out);
    }

    /// The primary dies and the asynchronous standby is promoted. Advisory
    /// locks are never WAL-logged, so the new primary has none, and no
    /// sessions: the proxy resets every client's connection. A client
    /// blocked in pg_advisory_lock sees its call fail; a holder, not
    /// reading its connection, still believes it holds the lock.
    fn failover(&mut self, out: &mut Effects) {
        self.timeline += 1;
        let dropped = self.held.take().map(|h| h.client);
        self.waiters.clear();
        let conns = std::mem::take(&mut self.conns);
        out.record(Event::Service(ServiceEvent::PgFailover {
            timeline: self.timeline,
            dropped,
        }));
        for (pid, conn) in conns {
            out.answer(conn.client, PgMsg::Reset { pid });
        }
    }
}

/// How long keepalives take to give up on a silent host, and whose values
/// they are: "2 h 11 min at Linux's defaults", "25 s, tuned".
fn keepalive_words(options: PgOptions) -> String {
    let ms = options.dead_after_ms();
    let time = if ms >= 3_600_000 {
        format!("{} h {} min", ms / 3_600_000, ms % 3_600_000 / 60_000)
    } else if ms >= 120_000 {
        format!("{} min", ms / 60_000)
    } else {
        format!("{} s", ms / 1_000)
    };
    match options {
        PgOptions::LINUX => format!("{time} at Linux's defaults"),
        PgOptions::TUNED => format!("{time} with tuned keepalives"),
        _ => format!("{time} with these settings"),
    }
}

/// How `c`'s host answers a keepalive probe now: a frozen process's kernel
/// still answers; a dead, cut-off or message-losing host does not; a host
/// that rebooted since the connection opened, or whose process exited (its
/// kernel closed the socket), answers with a reset.
fn probe_answer(view: &View, c: ClientId, epoch: u32) -> ProbeAnswer {
    let client = &view.clients[c.index()];
    if client.host_down() || client.partition.is_some() || client.losing {
        ProbeAnswer::Silent
    } else if client.epoch != epoch {
        ProbeAnswer::Reset
    } else {
        ProbeAnswer::Ack
    }
}
