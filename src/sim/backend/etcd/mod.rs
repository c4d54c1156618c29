//! etcd's lock recipe (client/v3/concurrency Mutex + Session): a lease kept
//! alive by the client, a key per waiter attached to the lease, one global
//! revision, and the key's create_revision as the order and the token.
//!
//! Simplified on purpose: the cluster is one service whose Raft is not
//! modelled message by message; a leader change (`NodeCommand::Failover`)
//! keeps the replicated state and restarts every lease's timeout, as etcd's
//! new leader does. Every acquisition opens its own session.

mod real_client;

use super::queue::{Contenders, Entry, Recheck};
use super::{count_up, ms32, renew_every_ms, Grant, HolderView, LockSystem};
use crate::sim::client::Belief;
use crate::sim::effects::{Effects, Input, View};
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::scenario::{Config, NodeCommand};
use crate::sim::types::{ClientId, Millis, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

/// etcd refuses TTLs under about two seconds and counts in whole seconds.
pub const ETCD_TTL_MS_MIN: u64 = 2_000;

/// How often the client library checks its lease deadlines: its
/// `deadlineLoop` ticks every second (client/v3/lease.go, v3.4-v3.6).
const DEADLINE_LOOP_MS: u64 = 1_000;
/// How often the server's lessor looks for expired leases (server/lease/
/// lessor.go `runLoop`, every 500 ms).
const EXPIRY_CHECK_MS: u64 = 500;
/// The client's deadline before its first keepalive reply, while it does not
/// yet know the TTL: `firstKeepAliveTimeout`, which `NewLease` sets to
/// DialTimeout + 1 s and, when that is 1 s (DialTimeout left unset),
/// to `defaultTTL`, 5 s (client/v3/lease.go, v3.4-v3.6).
pub const FIRST_KEEPALIVE_MS: u64 = 5_000;

/// The server's next expiry check at or after `at`.
fn expiry_check(at: Millis) -> Millis {
    Millis(at.ms().div_ceil(EXPIRY_CHECK_MS) * EXPIRY_CHECK_MS)
}

/// The TTL the server really grants for a requested one.
pub fn granted_ttl_ms(requested_ms: u64) -> u64 {
    requested_ms
        .div_ceil(1_000)
        .saturating_mul(1_000)
        .max(ETCD_TTL_MS_MIN)
}

/// etcd's requests and answers. Revisions travel in 32 bits (see
/// `count_up`), so that each fits in 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum EtcdMsg {
    #[serde(rename = "etcd-lease-grant")]
    LeaseGrant { ttl_ms: u64 },
    #[serde(rename = "etcd-lease-grant-reply")]
    LeaseGrantReply { lease: u64, ttl_ms: u64 },
    /// Put `<prefix>/<lease>` if it does not exist, attached to the lease.
    #[serde(rename = "etcd-lock-txn")]
    LockTxn { lease: u64 },
    #[serde(rename = "etcd-lock-txn-reply")]
    LockTxnReply {
        create_rev: Option<u32>,
        predecessor: Option<u32>,
        revision: u32,
    },
    #[serde(rename = "etcd-keep-alive")]
    KeepAlive { lease: u64 },
    #[serde(rename = "etcd-keep-alive-reply")]
    KeepAliveReply { lease: u64, ttl_ms: Option<u32> },
    #[serde(rename = "etcd-delete")]
    Delete { create_rev: u32 },
    #[serde(rename = "etcd-watch-deleted")]
    WatchDeleted { create_rev: u32 },
    #[serde(rename = "etcd-get")]
    Get { create_rev: u32 },
    #[serde(rename = "etcd-get-reply")]
    GetReply {
        exists: bool,
        predecessor: Option<u32>,
    },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<EtcdMsg>() <= 24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum EtcdTimer {
    /// Time to send the next keepalive.
    Renew { gen: u64 },
    /// The lease end by the client's own clock.
    LeaseDeadline { gen: u64 },
    /// The server's lease expiry.
    LeaseExpiry { lease: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdKeyView {
    pub owner: ClientId,
    pub lease: u64,
    pub create_rev: u64,
    pub mod_rev: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseView {
    pub lease: u64,
    pub owner: ClientId,
    pub ttl_ms: u64,
    pub expires_at: Millis,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdDetail {
    /// Keys under the lock prefix, lowest create_revision (the holder) first.
    pub keys: Vec<EtcdKeyView>,
    pub leases: Vec<LeaseView>,
    pub revision: u64,
}

#[derive(Debug, Clone, Hash)]
struct Lease {
    owner: ClientId,
    ttl_ms: u64,
    expires_at: Millis,
}

/// What one client's session knows, on the client's side of the network.
#[derive(Debug, Clone, Default)]
struct Side {
    lease: Option<u64>,
    /// The TTL the server granted: keepalives go every third of it.
    granted_ms: u64,
    /// The client's own lock key (its create_revision).
    key: Option<u32>,
    /// Lease end by the client's clock: last keepalive reply plus the TTL;
    /// before the first reply, KeepAlive's start plus `FIRST_KEEPALIVE_MS`.
    deadline: Option<Millis>,
    /// When, by the client's clock, its deadline loop ticks (every second
    /// from then): it starts at the client's first KeepAlive, once per
    /// client (`firstKeepAliveOnce`). The model sets the phase again at
    /// that KeepAlive's first reply: on a LAN the two are one instant to
    /// within the loop timer's own drift (its `Reset` follows each turn's
    /// work), and the page's scaled latency would otherwise put every
    /// deadline a reply's travel past a tick, a second later than the real
    /// client sees it (the real-server check's etcd-first-keepalive case).
    loop_start: Option<i64>,
    /// Whether `loop_start` is set from a reply.
    loop_heard: bool,
    /// When its deadline loop will look at that deadline.
    check_at: Millis,
    renew_gen: u64,
    deadline_gen: u64,
    /// The deadline passed while the client was frozen; one poll is pending.
    deadline_polled: bool,
}

/// Hashed by hand, as `Client` is: the flags and which options are set
/// share one word, and only the values that are there follow. Every field
/// is named, so a field added later is not missed.
impl Hash for Side {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Side {
            lease,
            granted_ms,
            key,
            deadline,
            loop_start,
            loop_heard,
            check_at,
            renew_gen,
            deadline_gen,
            deadline_polled,
        } = self;
        let tags = u64::from(lease.is_some())
            | u64::from(key.is_some()) << 1
            | u64::from(deadline.is_some()) << 2
            | u64::from(loop_start.is_some()) << 3
            | u64::from(*loop_heard) << 4
            | u64::from(*deadline_polled) << 5
            | u64::from(key.unwrap_or(0)) << 32;
        state.write_u64(tags);
        if let Some(lease) = lease {
            lease.hash(state);
        }
        if let Some(deadline) = deadline {
            deadline.hash(state);
        }
        if let Some(start) = loop_start {
            start.hash(state);
        }
        granted_ms.hash(state);
        check_at.hash(state);
        renew_gen.hash(state);
        deadline_gen.hash(state);
    }
}

#[derive(Debug, Hash)]
pub(crate) struct Etcd {
    ttl_ms: u64,
    revision: u32,
    leases: LiteMap<u64, Lease>,
    /// Keys under the lock prefix by create_revision: the first one holds.
    keys: Contenders,
    side: [Side; 4],
    rng: super::ServiceRng,
}

impl Clone for Etcd {
    fn clone(&self) -> Etcd {
        Etcd {
            ttl_ms: self.ttl_ms,
            revision: self.revision,
            leases: self.leases.clone(),
            keys: self.keys.clone(),
            side: self.side.clone(),
            rng: self.rng.clone(),
        }
    }

    /// Into its own maps' room: the finder copies a state for every move
    /// it tries. Every field is named, so a field added later is not missed.
    fn clone_from(&mut self, source: &Etcd) {
        let Etcd {
            ttl_ms,
            revision,
            leases,
            keys,
            side,
            rng,
        } = self;
        (*ttl_ms, *revision) = (source.ttl_ms, source.revision);
        super::copy_map(leases, &source.leases);
        keys.clone_from(&source.keys);
        side.clone_from(&source.side);
        rng.clone_from(&source.rng);
    }
}

impl LockSystem for Etcd {
    type Msg = EtcdMsg;
    type Timer = EtcdTimer;
    type Detail = EtcdDetail;
    const NAME: &'static str = "etcd";
    const LEASE_WORD: &'static str = "lease";
    /// A quorum write with fsync: 5-20 ms a round trip.
    const LATENCY_US: (u64, u64) = (2_500, 10_000);
    const MONOTONIC_TOKENS: bool = true;
    const TOKEN_SHORT: &'static str = "create_revision of the key";
    const HELD_CHECK: Option<&'static str> = Some("a Txn comparing the lock key's create_revision");
    const LEADER_FAILOVER: bool = true;
    /// The first key of the lock prefix: only requests at the cluster and
    /// its lease expiry checks put or delete keys; the clients' sessions
    /// (`Side`) are apart.
    const GRANT_IN_SERVICE_BOOKS: bool = true;

    fn new(config: &Config) -> Etcd {
        Etcd {
            ttl_ms: config.ttl_ms,
            // A fresh cluster starts at revision 1.
            revision: 1,
            leases: LiteMap::new(),
            keys: Contenders::default(),
            side: Default::default(),
            rng: super::ServiceRng::new(config.seed),
        }
    }

    fn expiry_checks_ms(_config: &Config) -> Option<u64> {
        Some(EXPIRY_CHECK_MS)
    }

    fn on_input(&mut self, view: &View, input: Input<EtcdTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => {
                self.forget(c, out);
                out.ask(
                    c,
                    EtcdMsg::LeaseGrant {
                        ttl_ms: self.ttl_ms,
                    },
                );
            }
            Input::Release(c) => {
                if let Some(create_rev) = self.side[c.index()].key {
                    out.ask(c, EtcdMsg::Delete { create_rev });
                }
                self.forget(c, out);
            }
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            Input::ServiceTimer(EtcdTimer::LeaseExpiry { lease }) => {
                self.on_lease_expiry(view, lease, out)
            }
            // The keepalive stream closing revokes nothing: the lease runs out
            // at its TTL either way (etcd's lease docs).
            Input::Crashed(c) | Input::Exited(c) => {
                self.forget(c, out);
                // A new process makes a new client, whose loop starts anew.
                let side = self.side(c);
                side.loop_start = None;
                side.loop_heard = false;
            }
            Input::Node(_, NodeCommand::Failover) => self.leader_change(view, out),
            Input::Healed(c) => {
                // A watch resumes from its revision after a reconnect: re-check.
                if let (Belief::Waiting { .. }, Some(own)) =
                    (view.belief(c), self.side[c.index()].key)
                {
                    out.ask(c, EtcdMsg::Get { create_rev: own });
                }
            }
            Input::RenewalOn(c) if self.side[c.index()].lease.is_some() => {
                // A keepalive timer from before renewal went off may still
                // be pending: the new one stands in for it.
                let gen = self.side[c.index()].renew_gen;
                out.cancel_client_timer(c, EtcdTimer::Renew { gen });
                self.arm_renew(c, out);
            }
            _ => {}
        }
    }

    /// A keepalive or deadline timer of a session since forgotten or set
    /// again (its generation moved on), and a lease expiry check the lease
    /// outlived (a keepalive moved its expiry) or came after (revoked, or
    /// expired), answer nothing. The rules are stated here only:
    /// `on_client_timer` and `on_lease_expiry` start by asking.
    fn timer_moot(&self, view: &View, c: Option<ClientId>, timer: EtcdTimer) -> bool {
        match (timer, c) {
            (EtcdTimer::Renew { gen }, Some(c)) => {
                let side = &self.side[c.index()];
                gen != side.renew_gen || side.lease.is_none() || !view.renewal(c)
            }
            (EtcdTimer::LeaseDeadline { gen }, Some(c)) => {
                let side = &self.side[c.index()];
                gen != side.deadline_gen || side.lease.is_none()
            }
            (EtcdTimer::LeaseExpiry { lease }, None) => self
                .leases
                .get(&lease)
                .is_none_or(|l| expiry_check(l.expires_at) != view.now),
            _ => false,
        }
    }

    fn holder(&self, _view: &View) -> Option<HolderView> {
        self.keys.holder(|lease| self.lease_expiry(lease))
    }

    /// The first key's, without looking up when its lease ends.
    fn grant(&self, _view: &View) -> Option<Grant> {
        self.keys.grant()
    }

    fn lease_end(&self, _view: &View, c: ClientId) -> Option<Millis> {
        self.keys.lease_end(c, |lease| self.lease_expiry(lease))
    }

    fn detail(&self, _view: &View) -> EtcdDetail {
        EtcdDetail {
            keys: self
                .keys
                .iter()
                .map(|(rev, k)| EtcdKeyView {
                    owner: k.owner,
                    lease: k.session,
                    create_rev: u64::from(rev),
                    mod_rev: k.stamp,
                })
                .collect(),
            leases: self
                .leases
                .iter()
                .map(|(&lease, l)| LeaseView {
                    lease,
                    owner: l.owner,
                    ttl_ms: l.ttl_ms,
                    expires_at: l.expires_at,
                })
                .collect(),
            revision: u64::from(self.revision),
        }
    }

    /// The keepalive stream closing revokes nothing: the lease runs out at its TTL.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
        let first = if exited {
            "a closed stream revokes nothing"
        } else {
            "etcd hears nothing"
        };
        super::lease_note(
            first,
            "the lease runs out at its TTL",
            self.lease_end(view, c),
        )
    }

    /// The lease as the server granted it.
    fn silent_holder_ms(config: &Config) -> u64 {
        granted_ttl_ms(config.ttl_ms)
    }

    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
        body: EtcdMsg,
        out: &mut Effects,
    ) {
        let reply = match body {
            EtcdMsg::LeaseGrant { ttl_ms } => {
                let lease = self.rng.draw(0x1000_0000_0000, 0x7fff_ffff_ffff);
                let ttl_ms = granted_ttl_ms(ttl_ms);
                let expires_at = view.now.plus(ttl_ms);
                self.leases.insert(
                    lease,
                    Lease {
                        owner: c,
                        ttl_ms,
                        expires_at,
                    },
                );
                out.service_timer(expiry_check(expires_at), EtcdTimer::LeaseExpiry { lease });
                out.record(Event::Service(ServiceEvent::EtcdLeaseGranted {
                    client: c,
                    lease,
                    ttl_ms,
                }));
                EtcdMsg::LeaseGrantReply { lease, ttl_ms }
            }
            EtcdMsg::LockTxn { lease } => self.lock_txn(view, c, lease, out),
            EtcdMsg::KeepAlive { lease } => EtcdMsg::KeepAliveReply {
                lease,
                ttl_ms: self.touch_lease(view, lease, out).map(ms32),
            },
            EtcdMsg::Delete { create_rev } => {
                // Unlock deletes the key; closing the session revokes its lease.
                if let Some(key) = self.keys.get(create_rev).filter(|k| k.owner == c) {
                    let lease = key.session;
                    self.delete_key(create_rev, out);
                    self.leases.remove(&lease);
                }
                return;
            }
            EtcdMsg::Get { create_rev } => {
                let (exists, predecessor) = self.keys.look(create_rev, c);
                EtcdMsg::GetReply {
                    exists,
                    predecessor,
                }
            }
            _ => return,
        };
        out.answer(c, reply);
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: EtcdMsg, out: &mut Effects) {
        let belief = view.belief(c);
        match body {
            EtcdMsg::LeaseGrantReply { lease, ttl_ms } => {
                if belief != Belief::Acquiring {
                    return; // Released meanwhile: the lease simply runs out.
                }
                let side = self.side(c);
                side.lease = Some(lease);
                side.granted_ms = ttl_ms;
                side.key = None;
                if view.renewal(c) {
                    // NewSession calls KeepAlive at once: its first keepalive
                    // goes now, and until its reply the client, not yet
                    // knowing the TTL, counts firstKeepAliveTimeout.
                    self.set_deadline(view, c, FIRST_KEEPALIVE_MS, out);
                    out.ask(c, EtcdMsg::KeepAlive { lease });
                } else {
                    self.set_deadline(view, c, ttl_ms, out);
                }
                self.arm_renew(c, out);
                out.ask(c, EtcdMsg::LockTxn { lease });
            }
            EtcdMsg::LockTxnReply {
                create_rev,
                predecessor,
                ..
            } => self.on_lock_reply(view, c, create_rev, predecessor, out),
            EtcdMsg::KeepAliveReply { lease, ttl_ms } => {
                if self.side[c.index()].lease != Some(lease) {
                    return;
                }
                match ttl_ms {
                    Some(ttl_ms) => {
                        let side = self.side(c);
                        if !side.loop_heard {
                            side.loop_heard = true;
                            side.loop_start = Some(view.local_now(c));
                        }
                        self.set_deadline(view, c, u64::from(ttl_ms), out);
                        let until = self.side[c.index()].deadline;
                        match belief {
                            Belief::Holding { .. } => out.extend(c, until),
                            _ => out.record(Event::Renewed { client: c, until }),
                        }
                    }
                    None => {
                        self.forget(c, out);
                        out.lose(c, LossReason::ServiceSaidGone);
                    }
                }
            }
            EtcdMsg::WatchDeleted { .. } => {
                if let (Belief::Waiting { .. }, Some(own)) = (belief, self.side[c.index()].key) {
                    // Re-check that our own key still exists (etcd issue 11456).
                    out.ask(c, EtcdMsg::Get { create_rev: own });
                }
            }
            EtcdMsg::GetReply {
                exists,
                predecessor,
            } => {
                let (Belief::Waiting { .. }, Some(own)) = (belief, self.side[c.index()].key) else {
                    return;
                };
                match Recheck::of(exists, predecessor) {
                    Recheck::Gone => {
                        self.forget(c, out);
                        out.lose(c, LossReason::KeyGone);
                    }
                    Recheck::Holds => {
                        let until = self.side[c.index()].deadline;
                        let own = u64::from(own);
                        out.grant(c, Some(Token(own)), own, until);
                    }
                    Recheck::Waits => {}
                }
            }
            _ => {}
        }
    }

    fn renews(msg: &EtcdMsg) -> bool {
        matches!(msg, EtcdMsg::KeepAlive { .. })
    }

    fn releases(msg: &EtcdMsg) -> bool {
        matches!(msg, EtcdMsg::Delete { .. })
    }

    fn label(msg: &EtcdMsg) -> String {
        match msg {
            EtcdMsg::LeaseGrant { .. } => "LeaseGrant".into(),
            EtcdMsg::LeaseGrantReply { lease, .. } => format!("lease {lease:x}"),
            EtcdMsg::LockTxn { .. } => "txn: put if absent".into(),
            EtcdMsg::LockTxnReply {
                create_rev: Some(r),
                ..
            } => format!("rev {r}"),
            EtcdMsg::LockTxnReply { .. } => "lease not found".into(),
            EtcdMsg::KeepAlive { .. } => "keepalive".into(),
            EtcdMsg::KeepAliveReply {
                ttl_ms: Some(_), ..
            } => "TTL renewed".into(),
            EtcdMsg::KeepAliveReply { ttl_ms: None, .. } => "lease not found".into(),
            EtcdMsg::Delete { .. } => "delete".into(),
            EtcdMsg::WatchDeleted { .. } => "watch: deleted".into(),
            EtcdMsg::Get { .. } => "get".into(),
            EtcdMsg::GetReply { .. } => "keys".into(),
        }
    }
}

impl Etcd {
    fn lease_expiry(&self, lease: u64) -> Option<Millis> {
        self.leases.get(&lease).map(|l| l.expires_at)
    }

    /// Every delete is a write: the revision moves and watchers hear of it.
    fn delete_key(&mut self, create_rev: u32, out: &mut Effects) {
        let Some((key, watchers)) = self.keys.remove(create_rev) else {
            return;
        };
        let revision = count_up(&mut self.revision);
        out.record(Event::Service(ServiceEvent::EtcdKeyDeleted {
            client: key.owner,
            create_rev: u64::from(create_rev),
            revision: u64::from(revision),
        }));
        for watcher in watchers.iter() {
            out.answer(watcher, EtcdMsg::WatchDeleted { create_rev });
        }
    }

    /// A new leader takes over: the replicated state is kept, and the new
    /// leader gives every lease a fresh timeout rather than expire one
    /// whose keepalives went to the old leader.
    fn leader_change(&mut self, view: &View, out: &mut Effects) {
        let ids: Vec<u64> = self.leases.keys().copied().collect();
        for id in &ids {
            self.touch_lease(view, *id, out);
        }
        out.record(Event::Service(ServiceEvent::LeaderChanged {
            renewed: ids.len() as u32,
        }));
    }

    /// A keepalive: the lease ends a TTL from now. Its one pending expiry
    /// check moves to the new end's; when both fall at the same check, the
    /// one pending stays (a second there would find the lease gone).
    fn touch_lease(&mut self, view: &View, lease: u64, out: &mut Effects) -> Option<u64> {
        let entry = self.leases.get_mut(&lease)?;
        let before = expiry_check(entry.expires_at);
        entry.expires_at = view.now.plus(entry.ttl_ms);
        let check = expiry_check(entry.expires_at);
        if check != before {
            out.cancel_service_timer(EtcdTimer::LeaseExpiry { lease });
            out.service_timer(check, EtcdTimer::LeaseExpiry { lease });
        }
        Some(entry.ttl_ms)
    }

    /// Put `<prefix>/<lease>` if absent, attached to the lease; its
    /// create_revision places the client in the queue.
    fn lock_txn(&mut self, view: &View, c: ClientId, lease: u64, out: &mut Effects) -> EtcdMsg {
        if !self.leases.contains_key(&lease) {
            return EtcdMsg::LockTxnReply {
                create_rev: None,
                predecessor: None,
                revision: self.revision,
            };
        }
        let rev = count_up(&mut self.revision);
        let entry = Entry {
            owner: c,
            session: lease,
            since: view.now,
            stamp: u64::from(rev),
        };
        out.record(Event::Service(ServiceEvent::EtcdKeyPut {
            client: c,
            create_rev: u64::from(rev),
        }));
        let predecessor = self.keys.join(rev, entry);
        EtcdMsg::LockTxnReply {
            create_rev: Some(rev),
            predecessor,
            revision: self.revision,
        }
    }

    fn on_lock_reply(
        &mut self,
        view: &View,
        c: ClientId,
        create_rev: Option<u32>,
        predecessor: Option<u32>,
        out: &mut Effects,
    ) {
        let belief = view.belief(c);
        let Some(rev) = create_rev else {
            if belief == Belief::Acquiring {
                self.forget(c, out);
                out.fail(c, AcquireFailure::LeaseGone);
            }
            return;
        };
        if belief != Belief::Acquiring {
            // Released while the put was in flight: take the key back out.
            out.ask(c, EtcdMsg::Delete { create_rev: rev });
            return;
        }
        self.side(c).key = Some(rev);
        let rev = u64::from(rev);
        if predecessor.is_none() {
            let until = self.side[c.index()].deadline;
            out.grant(c, Some(Token(rev)), rev, until);
        } else {
            out.wait(c, Some(Token(rev)));
        }
    }

    fn on_client_timer(&mut self, view: &View, c: ClientId, timer: EtcdTimer, out: &mut Effects) {
        if self.timer_moot(view, Some(c), timer) {
            return;
        }
        let side = &self.side[c.index()];
        match timer {
            EtcdTimer::Renew { .. } => {
                // Not moot: the session has its lease.
                let Some(lease) = side.lease else { return };
                out.ask(c, EtcdMsg::KeepAlive { lease });
                self.arm_renew(c, out);
            }
            EtcdTimer::LeaseDeadline { gen } => {
                // Frozen past its check: the timer fires only on waking.
                let late = view.now > side.check_at;
                if late && !side.deadline_polled && view.renewal(c) {
                    // Frozen past its deadline: the woken client first hears
                    // from its keepalive ("lease not found"); its deadline
                    // loop, which ticks every second, is the fallback.
                    self.side(c).deadline_polled = true;
                    out.client_timer(c, DEADLINE_LOOP_MS, EtcdTimer::LeaseDeadline { gen });
                    return;
                }
                self.forget(c, out);
                out.lose(c, LossReason::LocalDeadline);
            }
            // The server's timer never reaches a client.
            EtcdTimer::LeaseExpiry { .. } => {}
        }
    }

    fn on_lease_expiry(&mut self, view: &View, lease: u64, out: &mut Effects) {
        if self.timer_moot(view, None, EtcdTimer::LeaseExpiry { lease }) {
            return;
        }
        // Not moot: the lease is there, and ends at this check.
        let Some(Lease { owner, .. }) = self.leases.remove(&lease) else {
            return;
        };
        out.record(Event::Service(ServiceEvent::EtcdLeaseExpired {
            client: owner,
            lease,
        }));
        for rev in self.keys.of_session(lease) {
            self.delete_key(rev, out);
        }
    }

    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    /// The client's own lease deadline, `ttl_ms` from now by its own clock
    /// (the reply it just got, or KeepAlive's start). Its deadline loop,
    /// ticking every second since the client's first KeepAlive, notices at
    /// its next tick.
    fn set_deadline(&mut self, view: &View, c: ClientId, ttl_ms: u64, out: &mut Effects) {
        let now = view.local_now(c);
        let start = *self.side(c).loop_start.get_or_insert(now);
        let local_deadline = now + ttl_ms as i64;
        let to_turn = (DEADLINE_LOOP_MS as i64
            - (local_deadline - start).rem_euclid(DEADLINE_LOOP_MS as i64))
            % DEADLINE_LOOP_MS as i64;
        let side = self.side(c);
        if side.deadline.is_some() {
            // The deadline it replaces has its check pending.
            let gen = side.deadline_gen;
            out.cancel_client_timer(c, EtcdTimer::LeaseDeadline { gen });
        }
        side.deadline = Some(view.after_local(c, ttl_ms));
        side.check_at = view.after_local(c, ttl_ms + to_turn as u64);
        side.deadline_gen += 1;
        side.deadline_polled = false;
        let gen = side.deadline_gen;
        out.client_timer(c, ttl_ms + to_turn as u64, EtcdTimer::LeaseDeadline { gen });
    }

    fn arm_renew(&mut self, c: ClientId, out: &mut Effects) {
        let granted = self.side[c.index()].granted_ms;
        let every = renew_every_ms(if granted > 0 { granted } else { self.ttl_ms });
        let side = self.side(c);
        side.renew_gen += 1;
        out.client_timer(
            c,
            every,
            EtcdTimer::Renew {
                gen: side.renew_gen,
            },
        );
    }

    /// Forgets the session; its pending keepalive and deadline timers, set
    /// only while it had a lease, are taken out.
    fn forget(&mut self, c: ClientId, out: &mut Effects) {
        let side = self.side(c);
        if side.lease.is_some() {
            let (renew, deadline) = (side.renew_gen, side.deadline_gen);
            out.cancel_client_timer(c, EtcdTimer::Renew { gen: renew });
            out.cancel_client_timer(c, EtcdTimer::LeaseDeadline { gen: deadline });
        }
        side.lease = None;
        side.key = None;
        side.deadline = None;
        side.renew_gen += 1;
        side.deadline_gen += 1;
    }
}
