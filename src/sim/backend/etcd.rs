//! etcd's lock recipe (client/v3/concurrency Mutex + Session): a lease kept
//! alive by the client, a key per waiter attached to the lease, one global
//! revision, and the key's create_revision as the order and the token.
//!
//! Simplified on purpose: the cluster is one always-available service (no
//! Raft, no leader change), and every acquisition opens its own session.

use super::{extend_belief, fail, grant, lose, renew_every_ms, EtcdKeyView, LeaseView};
use super::{HolderView, LockService, ServiceDetail};
use crate::sim::client::Belief;
use crate::sim::engine::{ClientTimer, Core, ServiceTimer};
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::{Body, Endpoint, Message};
use crate::sim::scenario::Config;
use crate::sim::types::{ClientId, Millis, Token};
use std::collections::BTreeMap;

/// etcd refuses TTLs under about two seconds and counts in whole seconds.
pub const ETCD_TTL_MS_MIN: u64 = 2_000;

/// How often the client library checks its lease deadline.
const DEADLINE_POLL_MS: u64 = 500;

/// The TTL the server really grants for a requested one.
pub fn granted_ttl_ms(requested_ms: u64) -> u64 {
    requested_ms
        .div_ceil(1_000)
        .saturating_mul(1_000)
        .max(ETCD_TTL_MS_MIN)
}

#[derive(Debug, Clone)]
struct Lease {
    owner: ClientId,
    ttl_ms: u64,
    expires_at: Millis,
}

#[derive(Debug, Clone)]
struct Key {
    owner: ClientId,
    lease: u64,
    mod_rev: u64,
    put_at: Millis,
}

/// What one client's session knows, on the client's side of the wire.
#[derive(Debug, Clone, Default)]
struct Side {
    lease: Option<u64>,
    /// The client's own lock key (its create_revision).
    key: Option<u64>,
    /// Lease end by the client's clock: last keepalive reply plus the TTL.
    deadline: Option<Millis>,
    renew_gen: u64,
    deadline_gen: u64,
    /// The deadline passed while the client was frozen; one poll is pending.
    deadline_polled: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct EtcdService {
    ttl_ms: u64,
    revision: u64,
    leases: BTreeMap<u64, Lease>,
    /// Keys under the lock prefix by create_revision: the first one holds.
    keys: BTreeMap<u64, Key>,
    /// Deleted-key watches: watched create_revision -> watchers.
    watchers: BTreeMap<u64, Vec<ClientId>>,
    side: [Side; 4],
}

impl EtcdService {
    pub fn new(config: &Config) -> EtcdService {
        EtcdService {
            ttl_ms: config.ttl_ms,
            // A fresh cluster starts at revision 1.
            revision: 1,
            leases: BTreeMap::new(),
            keys: BTreeMap::new(),
            watchers: BTreeMap::new(),
            side: Default::default(),
        }
    }

    fn side(&mut self, c: ClientId) -> &mut Side {
        &mut self.side[c.index()]
    }

    fn predecessor(&self, own: u64) -> Option<u64> {
        self.keys.range(..own).next_back().map(|(&rev, _)| rev)
    }

    fn watch(&mut self, watched: u64, c: ClientId) {
        let list = self.watchers.entry(watched).or_default();
        if !list.contains(&c) {
            list.push(c);
        }
    }

    /// Every delete is a write: the revision moves and watchers hear of it.
    fn delete_key(&mut self, core: &mut Core, create_rev: u64) {
        let Some(key) = self.keys.remove(&create_rev) else {
            return;
        };
        self.revision += 1;
        core.record(Event::Service(ServiceEvent::EtcdKeyDeleted {
            client: key.owner,
            create_rev,
            revision: self.revision,
        }));
        for watcher in self.watchers.remove(&create_rev).unwrap_or_default() {
            core.send(
                Endpoint::Service,
                Endpoint::Client(watcher),
                Body::EtcdWatchDeleted { create_rev },
            );
        }
    }

    fn touch_lease(&mut self, core: &mut Core, lease: u64) -> Option<u64> {
        let entry = self.leases.get_mut(&lease)?;
        entry.expires_at = core.now.plus(entry.ttl_ms);
        let (at, ttl_ms) = (entry.expires_at, entry.ttl_ms);
        core.service_timer(at, ServiceTimer::EtcdLeaseExpiry { lease });
        Some(ttl_ms)
    }

    fn on_service_message(&mut self, core: &mut Core, c: ClientId, body: Body) {
        let reply = match body {
            Body::EtcdLeaseGrant { ttl_ms } => {
                let lease = core.draw(0x1000_0000_0000, 0x7fff_ffff_ffff);
                let ttl_ms = granted_ttl_ms(ttl_ms);
                let expires_at = core.now.plus(ttl_ms);
                self.leases.insert(
                    lease,
                    Lease {
                        owner: c,
                        ttl_ms,
                        expires_at,
                    },
                );
                core.service_timer(expires_at, ServiceTimer::EtcdLeaseExpiry { lease });
                core.record(Event::Service(ServiceEvent::EtcdLeaseGranted {
                    client: c,
                    lease,
                    ttl_ms,
                }));
                Body::EtcdLeaseGrantReply { lease, ttl_ms }
            }
            Body::EtcdLockTxn { lease } => self.lock_txn(core, c, lease),
            Body::EtcdKeepAlive { lease } => Body::EtcdKeepAliveReply {
                lease,
                ttl_ms: self.touch_lease(core, lease),
            },
            Body::EtcdDelete { create_rev } => {
                // Unlock deletes the key; closing the session revokes its lease.
                if let Some(key) = self.keys.get(&create_rev).filter(|k| k.owner == c) {
                    let lease = key.lease;
                    self.delete_key(core, create_rev);
                    self.leases.remove(&lease);
                }
                return;
            }
            Body::EtcdGet { create_rev } => {
                let exists = self.keys.contains_key(&create_rev);
                let predecessor = if exists {
                    self.predecessor(create_rev)
                } else {
                    None
                };
                if let Some(p) = predecessor {
                    self.watch(p, c);
                }
                Body::EtcdGetReply {
                    exists,
                    predecessor,
                }
            }
            _ => return,
        };
        core.send(Endpoint::Service, Endpoint::Client(c), reply);
    }

    /// Put `<prefix>/<lease>` if absent, attached to the lease; its
    /// create_revision places the client in the queue.
    fn lock_txn(&mut self, core: &mut Core, c: ClientId, lease: u64) -> Body {
        if !self.leases.contains_key(&lease) {
            return Body::EtcdLockTxnReply {
                create_rev: None,
                predecessor: None,
                revision: self.revision,
            };
        }
        self.revision += 1;
        let rev = self.revision;
        self.keys.insert(
            rev,
            Key {
                owner: c,
                lease,
                mod_rev: rev,
                put_at: core.now,
            },
        );
        core.record(Event::Service(ServiceEvent::EtcdKeyPut {
            client: c,
            create_rev: rev,
        }));
        let predecessor = self.predecessor(rev);
        if let Some(p) = predecessor {
            self.watch(p, c);
        }
        Body::EtcdLockTxnReply {
            create_rev: Some(rev),
            predecessor,
            revision: self.revision,
        }
    }

    fn on_client_message(&mut self, core: &mut Core, c: ClientId, body: Body) {
        let belief = core.client(c).belief;
        match body {
            Body::EtcdLeaseGrantReply { lease, ttl_ms } => {
                if belief != Belief::Acquiring {
                    return; // Released meanwhile: the lease simply runs out.
                }
                let side = self.side(c);
                side.lease = Some(lease);
                side.key = None;
                self.set_deadline(core, c, ttl_ms);
                self.arm_renew(core, c);
                core.send(
                    Endpoint::Client(c),
                    Endpoint::Service,
                    Body::EtcdLockTxn { lease },
                );
            }
            Body::EtcdLockTxnReply {
                create_rev,
                predecessor,
                ..
            } => self.on_lock_reply(core, c, create_rev, predecessor),
            Body::EtcdKeepAliveReply { lease, ttl_ms } => {
                if self.side[c.index()].lease != Some(lease) {
                    return;
                }
                match ttl_ms {
                    Some(ttl_ms) => {
                        self.set_deadline(core, c, ttl_ms);
                        let until = self.side[c.index()].deadline;
                        match belief {
                            Belief::Holding { .. } => extend_belief(core, c, until),
                            _ => core.record(Event::Renewed { client: c, until }),
                        }
                    }
                    None => {
                        self.forget(c);
                        lose(core, c, LossReason::ServiceSaidGone);
                    }
                }
            }
            Body::EtcdWatchDeleted { .. } => {
                if let (Belief::Waiting { .. }, Some(own)) = (belief, self.side[c.index()].key) {
                    // Re-check that our own key still exists (etcd issue 11456).
                    core.send(
                        Endpoint::Client(c),
                        Endpoint::Service,
                        Body::EtcdGet { create_rev: own },
                    );
                }
            }
            Body::EtcdGetReply {
                exists,
                predecessor,
            } => {
                let (Belief::Waiting { .. }, Some(own)) = (belief, self.side[c.index()].key) else {
                    return;
                };
                if !exists {
                    self.forget(c);
                    lose(core, c, LossReason::KeyGone);
                } else if predecessor.is_none() {
                    let until = self.side[c.index()].deadline;
                    grant(core, c, Some(Token(own)), own, until);
                }
            }
            _ => {}
        }
    }

    fn on_lock_reply(
        &mut self,
        core: &mut Core,
        c: ClientId,
        create_rev: Option<u64>,
        predecessor: Option<u64>,
    ) {
        let belief = core.client(c).belief;
        let Some(rev) = create_rev else {
            if belief == Belief::Acquiring {
                self.forget(c);
                fail(core, c, AcquireFailure::LeaseGone);
            }
            return;
        };
        if belief != Belief::Acquiring {
            // Released while the put was in flight: take the key back out.
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::EtcdDelete { create_rev: rev },
            );
            return;
        }
        self.side(c).key = Some(rev);
        if predecessor.is_none() {
            let until = self.side[c.index()].deadline;
            grant(core, c, Some(Token(rev)), rev, until);
        } else {
            let token = Some(Token(rev));
            core.set_belief(c, Belief::Waiting { token });
            core.record(Event::Waiting { client: c, token });
        }
    }

    /// The client's own lease deadline, from the reply it just got.
    fn set_deadline(&mut self, core: &mut Core, c: ClientId, ttl_ms: u64) {
        let side = self.side(c);
        side.deadline = Some(core.now.plus(ttl_ms));
        side.deadline_gen += 1;
        side.deadline_polled = false;
        let gen = side.deadline_gen;
        core.client_timer(c, ttl_ms, ClientTimer::LeaseDeadline { gen });
    }

    fn arm_renew(&mut self, core: &mut Core, c: ClientId) {
        let side = self.side(c);
        side.renew_gen += 1;
        let gen = side.renew_gen;
        core.client_timer(c, renew_every_ms(self.ttl_ms), ClientTimer::Renew { gen });
    }

    fn forget(&mut self, c: ClientId) {
        let side = self.side(c);
        side.lease = None;
        side.key = None;
        side.deadline = None;
        side.renew_gen += 1;
        side.deadline_gen += 1;
    }
}

impl LockService for EtcdService {
    fn acquire(&mut self, core: &mut Core, c: ClientId) {
        self.forget(c);
        core.send(
            Endpoint::Client(c),
            Endpoint::Service,
            Body::EtcdLeaseGrant {
                ttl_ms: self.ttl_ms,
            },
        );
    }

    fn release(&mut self, core: &mut Core, c: ClientId) {
        if let Some(create_rev) = self.side[c.index()].key {
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::EtcdDelete { create_rev },
            );
        }
        self.forget(c);
    }

    fn on_message(&mut self, core: &mut Core, msg: Message) {
        match (msg.from, msg.to) {
            (Endpoint::Client(c), Endpoint::Service) => self.on_service_message(core, c, msg.body),
            (Endpoint::Service, Endpoint::Client(c)) => self.on_client_message(core, c, msg.body),
            _ => {}
        }
    }

    fn on_client_timer(&mut self, core: &mut Core, c: ClientId, timer: ClientTimer) {
        let side = &self.side[c.index()];
        match timer {
            ClientTimer::Renew { gen } if gen == side.renew_gen => {
                let Some(lease) = side.lease else { return };
                if !core.client(c).renewal {
                    return;
                }
                core.send(
                    Endpoint::Client(c),
                    Endpoint::Service,
                    Body::EtcdKeepAlive { lease },
                );
                self.arm_renew(core, c);
            }
            ClientTimer::LeaseDeadline { gen }
                if gen == side.deadline_gen && side.lease.is_some() =>
            {
                let late = side.deadline.is_some_and(|d| core.now > d);
                if late && !side.deadline_polled && core.client(c).renewal {
                    // Frozen past its deadline: the woken client first hears
                    // from its keepalive ("lease not found"); its deadline
                    // loop, which polls every 500 ms, is the fallback.
                    self.side(c).deadline_polled = true;
                    core.client_timer(c, DEADLINE_POLL_MS, ClientTimer::LeaseDeadline { gen });
                    return;
                }
                self.forget(c);
                lose(core, c, LossReason::LocalDeadline);
            }
            _ => {}
        }
    }

    fn on_service_timer(&mut self, core: &mut Core, timer: ServiceTimer) {
        let ServiceTimer::EtcdLeaseExpiry { lease } = timer else {
            return;
        };
        let Some(entry) = self.leases.get(&lease) else {
            return;
        };
        if entry.expires_at != core.now {
            return; // A keepalive moved the expiry; a later timer handles it.
        }
        let owner = entry.owner;
        self.leases.remove(&lease);
        core.record(Event::Service(ServiceEvent::EtcdLeaseExpired {
            client: owner,
            lease,
        }));
        let attached: Vec<u64> = self
            .keys
            .iter()
            .filter(|(_, k)| k.lease == lease)
            .map(|(&rev, _)| rev)
            .collect();
        for rev in attached {
            self.delete_key(core, rev);
        }
    }

    fn on_crash(&mut self, _core: &mut Core, c: ClientId) {
        self.forget(c);
    }

    fn on_heal(&mut self, core: &mut Core, c: ClientId) {
        // A watch resumes from its revision after a reconnect: re-check.
        if let (Belief::Waiting { .. }, Some(own)) =
            (core.client(c).belief, self.side[c.index()].key)
        {
            core.send(
                Endpoint::Client(c),
                Endpoint::Service,
                Body::EtcdGet { create_rev: own },
            );
        }
    }

    fn on_renewal_on(&mut self, core: &mut Core, c: ClientId) {
        if self.side[c.index()].lease.is_some() {
            self.arm_renew(core, c);
        }
    }

    fn holder(&self, _core: &Core) -> Option<HolderView> {
        let (&rev, key) = self.keys.iter().next()?;
        Some(HolderView {
            client: key.owner,
            token: Some(Token(rev)),
            lease_key: rev,
            since: key.put_at,
            until: self.leases.get(&key.lease).map(|l| l.expires_at),
        })
    }

    fn lease_end(&self, _core: &Core, c: ClientId) -> Option<Millis> {
        let lease = self.keys.values().find(|k| k.owner == c)?.lease;
        self.leases.get(&lease).map(|l| l.expires_at)
    }

    fn detail(&self, _core: &Core) -> ServiceDetail {
        ServiceDetail::Etcd {
            keys: self
                .keys
                .iter()
                .map(|(&rev, k)| EtcdKeyView {
                    owner: k.owner,
                    lease: k.lease,
                    create_rev: rev,
                    mod_rev: k.mod_rev,
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
            revision: self.revision,
        }
    }

    fn monotonic_tokens(&self) -> bool {
        true
    }
}
