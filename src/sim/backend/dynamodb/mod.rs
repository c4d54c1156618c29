//! The AWS DynamoDB lock client (awslabs/amazon-dynamodb-lock-client): one
//! item per lock in a DynamoDB table, naming its owner and stamped with a
//! record version number (RVN), a random UUID that the holder's heartbeat
//! replaces every few seconds. The service keeps no queue and expires
//! nothing: a waiter polls the item with consistent reads and takes it over
//! with a put conditioned on the RVN once it has seen the same RVN for a
//! whole lease, by its own clock.
//!
//! Every time is measured the way the library measures it: with
//! `System.nanoTime`, a monotonic clock of the client's own (its rate can be
//! off; a wall-clock step cannot move it, so the page refuses clock jumps
//! here). The holder's lease restarts when a heartbeat is *sent* and counts
//! only once the heartbeat succeeded; `isExpired()` is that moment plus the
//! lease. The library tells the application nothing when a heartbeat fails
//! (`sendHeartbeat` logs it). With `DynamoOptions::app_checks_expiry` the
//! application polls `isExpired()`, and the client's belief ends when its
//! own clock says the lease is over; without it the application never
//! asks and believes it holds until it releases, whatever the library
//! dropped. With `DynamoOptions::session_monitor` the application acquired
//! with the library's other way, `withSessionMonitor(safeTime, callback)`:
//! the callback runs once no heartbeat has succeeded for the safe time
//! (half the lease here), and the application stops then, before
//! `isExpired()` would say so.
//!
//! Simplified on purpose: the table is one always-available service (no
//! regions, no throttling); each client runs one lock and its own heartbeat
//! thread; a call that gets no answer fails after the SDK's read timeout,
//! without the SDK's retries; a release deletes the item (the default
//! `deleteLockOnRelease`); `holdLockOnServiceUnavailable` stays off.

mod real_client;

use super::{count_up, ms32, HolderView, LockSystem, ServiceRng};
use crate::sim::client::Belief;
use crate::sim::effects::{Effects, Input, View};
use crate::sim::error::CommandError;
use crate::sim::history::{AcquireFailure, Event, LossReason, ServiceEvent};
use crate::sim::net::Endpoint;
use crate::sim::resource::FenceRule;
use crate::sim::scenario::{
    Command, Config, DynamoOptions, NodeCommand, DYNAMO_HEARTBEATS_DEFAULT,
};
use crate::sim::types::{ClientId, Millis, NodeId};
use serde::{Deserialize, Serialize};
use std::num::NonZeroU64;

/// The library's defaults (AmazonDynamoDBLockClientOptions:
/// DEFAULT_LEASE_DURATION 20 s, DEFAULT_HEARTBEAT_PERIOD 5 s). The page's
/// TTL is the lease; every other duration keeps its ratio to these 20 s.
pub const REAL_LEASE_MS: u64 = 20_000;
pub const REAL_HEARTBEAT_MS: u64 = 5_000;
// The page's default heartbeats per lease are the library's 20 s / 5 s.
const _: () = assert!(REAL_LEASE_MS / REAL_HEARTBEAT_MS == DYNAMO_HEARTBEATS_DEFAULT as u64);
/// AmazonDynamoDBLockClient.DEFAULT_BUFFER_MS: the refresh period between
/// two reads of a waiter, and the default additionalTimeToWaitForLock.
pub const REAL_BUFFER_MS: u64 = 1_000;
/// The AWS SDK for Java 2.x's default HTTP read timeout
/// (SdkHttpConfigurationOption.READ_TIMEOUT): 30 s, a lease and a half.
pub const REAL_READ_TIMEOUT_MS: u64 = 30_000;

/// RVNs are drawn below 2^48, so they stay exact as JSON numbers.
const RVN_MAX: u64 = (1 << 48) - 1;

/// A real duration scaled to a lease of `lease_ms`, as it is to 20 s.
pub fn scaled_ms(real_ms: u64, lease_ms: u64) -> u64 {
    (real_ms.saturating_mul(lease_ms) / REAL_LEASE_MS).max(1)
}

/// An RVN that a message may leave out: drawn from 1, it is never 0, so
/// an absent one takes no room of its own.
fn rvn_nonzero(rvn: u64) -> NonZeroU64 {
    NonZeroU64::new(rvn).expect("RVNs are drawn from 1")
}

/// An RVN as the page prints it: the first eight hex digits of the UUID.
pub fn rvn_text(rvn: u64) -> String {
    format!("{:08x}…", rvn >> 16)
}

/// What a client asks DynamoDB and what it answers. `call` pairs an answer
/// with the request it answers: a call the client gave up on is ignored.
/// Call ids travel in 32 bits (see `count_up`) and an RVN that may be
/// absent as a `NonZeroU64` (RVNs are drawn from 1), so that each fits in
/// 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum DynamoMsg {
    /// A consistent `GetItem` of the lock item.
    #[serde(rename = "dynamo-get-item")]
    GetItem { call: u32 },
    #[serde(rename = "dynamo-item")]
    Item { call: u32, item: Option<ItemSeen> },
    /// `PutItem` of a new item naming the sender, with a new RVN, on a
    /// condition: the item is absent, or still has the RVN the sender saw.
    #[serde(rename = "dynamo-put-item")]
    PutItem {
        call: u32,
        rvn: u64,
        expected: Option<NonZeroU64>,
    },
    #[serde(rename = "dynamo-put-reply")]
    PutReply { call: u32, ok: bool },
    /// `sendHeartbeat`: an `UpdateItem` conditioned on owner and RVN that
    /// writes a new random RVN.
    #[serde(rename = "dynamo-heartbeat")]
    Heartbeat { call: u32, rvn: u64, new_rvn: u64 },
    #[serde(rename = "dynamo-heartbeat-reply")]
    HeartbeatReply { call: u32, ok: bool },
    /// `releaseLock`: a `DeleteItem` conditioned on owner and RVN.
    #[serde(rename = "dynamo-delete-item")]
    DeleteItem { rvn: u64 },
}

// Each lock system's message fits in 24 bytes, so that `Msg`, and every
// value that carries one, stays small (see `count_up`).
const _: () = assert!(size_of::<DynamoMsg>() <= 24);

/// The lock item as a consistent read returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ItemSeen {
    pub owner: ClientId,
    pub rvn: NonZeroU64,
    pub lease_ms: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum DynamoTimer {
    /// A waiter's refresh period is over: read the item again.
    Poll { gen: u64 },
    /// The heartbeat thread's turn.
    Heartbeat { gen: u64 },
    /// The holder's `isExpired()` turns true by its own clock.
    Deadline { gen: u64 },
    /// The SDK's read timeout for one call.
    CallTimeout { call: u32 },
}

/// The lock item, for the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DynamoItemView {
    pub owner: ClientId,
    pub rvn: u64,
    pub lease_ms: u64,
    pub since: Millis,
    /// When the current RVN was written.
    pub rvn_at: Millis,
    /// RVNs the owner's heartbeats wrote since its put.
    pub heartbeats: u64,
}

/// One waiter's watch: the RVN it saw and since when, by its own clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DynamoWatchView {
    pub client: ClientId,
    /// `None` until its first read comes back.
    pub rvn: Option<u64>,
    pub owner: Option<ClientId>,
    /// Its own clock's reading when it first saw this RVN.
    pub seen_local_ms: i64,
    /// How long it has seen this RVN unchanged, by its own clock.
    pub watched_ms: u64,
    /// How long it has been asking, and how long it will, by its own clock.
    pub waited_ms: u64,
    pub wait_ms: u64,
}

/// A client that believes it holds the lock, as its library sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DynamoHolderView {
    pub client: ClientId,
    /// The RVN its last successful heartbeat (or its put) wrote.
    pub rvn: u64,
    /// When `isExpired()` turns true, by its own clock, in true time.
    pub expires_at: Millis,
    /// False once a heartbeat failed its condition: the thread stopped.
    pub heartbeating: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DynamoDetail {
    pub item: Option<DynamoItemView>,
    pub watches: Vec<DynamoWatchView>,
    pub holders: Vec<DynamoHolderView>,
    pub lease_ms: u64,
    pub heartbeat_ms: u64,
    pub refresh_ms: u64,
    pub extra_wait_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Item {
    owner: ClientId,
    rvn: u64,
    lease_ms: u64,
    /// The RVN its owner's put wrote: the grant's identity.
    grant: u64,
    since: Millis,
    rvn_at: Millis,
    heartbeats: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Watch {
    rvn: u64,
    owner: ClientId,
    lease_ms: u64,
    seen_local: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Asking {
    start_local: i64,
    /// A lease plus additionalTimeToWaitForLock once it has seen an item.
    wait_ms: u64,
    waited_a_lease: bool,
    /// `lockTryingToBeAcquired`: the item it is watching.
    watch: Option<Watch>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Held {
    grant: u64,
    rvn: u64,
    /// `lastUpdatedTime`: when the put or the last successful heartbeat
    /// was sent, by its own clock.
    updated_local: i64,
    /// False once a heartbeat failed its condition.
    heartbeating: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
enum Phase {
    #[default]
    Idle,
    Asking(Asking),
    Holding(Held),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum CallKind {
    Get,
    Put { rvn: u64 },
    Beat { new_rvn: u64 },
}

/// A call in flight: the client's calls block, so there is at most one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Call {
    id: u32,
    kind: CallKind,
    sent_local: i64,
}

/// What one client's library knows.
#[derive(Debug, Clone, Copy, Default, Hash)]
struct Side {
    phase: Phase,
    call: Option<Call>,
    poll_gen: u64,
    beat_gen: u64,
    deadline_gen: u64,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct DynamoDb {
    lease_ms: u64,
    heartbeat_ms: u64,
    refresh_ms: u64,
    extra_wait_ms: u64,
    call_timeout_ms: u64,
    /// Whether the application polls `isExpired()` (see `DynamoOptions`).
    app_checks_expiry: bool,
    /// The session monitor's safe time without a heartbeat, when the
    /// application set one: half the lease (see `DynamoOptions`).
    monitor_ms: Option<u64>,
    /// The one lock item; `None` while nobody holds it.
    item: Option<Item>,
    calls: u32,
    side: [Side; 4],
    rng: ServiceRng,
}

impl LockSystem for DynamoDb {
    type Msg = DynamoMsg;
    type Timer = DynamoTimer;
    type Detail = DynamoDetail;
    const NAME: &'static str = "DynamoDB";
    const LEASE_WORD: &'static str = "lease";
    /// A DynamoDB request takes 5-10 ms a round trip (backends.md): as slow
    /// as an etcd quorum write at its fastest, and two of them to acquire.
    const LATENCY_US: (u64, u64) = (2_500, 5_000);
    const MONOTONIC_TOKENS: bool = false;
    const TOKEN_SHORT: &'static str = "none: the RVN is a random UUID";
    // The RVN is a random UUID: there is no token to order, only the
    // lock item to ask.
    const FENCE_MODES: &'static [crate::sim::FenceMode] = &[crate::sim::FenceMode::Check];
    const FENCE_CHECK: FenceRule = FenceRule::LockOwner;

    fn new(config: &Config) -> DynamoDb {
        let lease_ms = config.ttl_ms;
        let DynamoOptions {
            heartbeats_per_lease,
            extra_wait_pct,
            app_checks_expiry,
            session_monitor,
        } = config.dynamo;
        DynamoDb {
            lease_ms,
            heartbeat_ms: (lease_ms / u64::from(heartbeats_per_lease.max(2))).max(1),
            refresh_ms: scaled_ms(REAL_BUFFER_MS, lease_ms),
            extra_wait_ms: lease_ms.saturating_mul(u64::from(extra_wait_pct)) / 100,
            call_timeout_ms: scaled_ms(REAL_READ_TIMEOUT_MS, lease_ms),
            app_checks_expiry,
            monitor_ms: session_monitor.then_some(lease_ms / 2),
            item: None,
            calls: 0,
            side: Default::default(),
            rng: ServiceRng::new(config.seed),
        }
    }

    fn on_input(&mut self, view: &View, input: Input<DynamoTimer>, out: &mut Effects) {
        match input {
            Input::Acquire(c) => self.acquire(view, c, out),
            Input::Release(c) => self.release(c, out),
            Input::ClientTimer(c, timer) => self.on_client_timer(view, c, timer, out),
            // No server holds a connection: nothing heartbeats either way,
            // and the item's lease runs its course.
            Input::Crashed(c) | Input::Exited(c) => self.side[c.index()] = Side::default(),
            Input::RenewalOn(c) => {
                if matches!(self.side[c.index()].phase, Phase::Holding(_)) {
                    self.arm_heartbeat(c, self.heartbeat_ms, out);
                }
            }
            _ => {}
        }
    }

    fn holder(&self, _view: &View) -> Option<HolderView> {
        let item = self.item?;
        Some(HolderView {
            client: item.owner,
            token: None,
            lease_key: item.grant,
            since: item.since,
            until: Some(item.rvn_at.plus(item.lease_ms)),
        })
    }

    /// The item stores no expiry: the soonest a waiter that saw its current
    /// RVN at once could take it over.
    fn lease_end(&self, _view: &View, c: ClientId) -> Option<Millis> {
        let item = self.item.filter(|i| i.owner == c)?;
        Some(item.rvn_at.plus(item.lease_ms))
    }

    fn detail(&self, view: &View) -> DynamoDetail {
        let mut watches = Vec::new();
        let mut holders = Vec::new();
        for c in ClientId::ALL {
            match self.side[c.index()].phase {
                Phase::Asking(a) => watches.push(self.watch_view(view, c, a)),
                Phase::Holding(h) => holders.push(DynamoHolderView {
                    client: c,
                    rvn: h.rvn,
                    expires_at: self.expiry(view, c, h),
                    heartbeating: h.heartbeating,
                }),
                Phase::Idle => {}
            }
        }
        DynamoDetail {
            item: self.item.map(|i| DynamoItemView {
                owner: i.owner,
                rvn: i.rvn,
                lease_ms: i.lease_ms,
                since: i.since,
                rvn_at: i.rvn_at,
                heartbeats: i.heartbeats,
            }),
            watches,
            holders,
            lease_ms: self.lease_ms,
            heartbeat_ms: self.heartbeat_ms,
            refresh_ms: self.refresh_ms,
            extra_wait_ms: self.extra_wait_ms,
        }
    }

    fn check_node(&self, _node: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Failover => Err(CommandError::Unsupported {
                why: "DynamoDB is a managed regional service: its replicas take over for one another inside the service, and a client sees no failover (its consistent reads and conditional writes go on as before)",
            }),
            _ => Err(CommandError::NoNodes { system: Self::NAME }),
        }
    }

    fn check_command(&self, _c: ClientId, cmd: Command) -> Result<(), CommandError> {
        match cmd {
            Command::ClockJump { .. } => Err(CommandError::Unsupported {
                why: "the DynamoDB lock client times its lease with System.nanoTime, a monotonic clock that a wall-clock step does not move, and the lock item stores no time at all: a jump changes nothing here (a clock that runs slow or fast does)",
            }),
            _ => Ok(()),
        }
    }

    /// No server holds a connection: the RVN just stops changing, and a
    /// waiter takes over after a whole lease of it unchanged.
    fn crash_note(&self, view: &View, c: ClientId, _exited: bool) -> String {
        super::lease_note(
            "nothing heartbeats the lock item now",
            "a waiter takes it over after a whole lease of the same RVN",
            self.lease_end(view, c),
        )
    }

    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        _at: Endpoint,
        body: DynamoMsg,
        out: &mut Effects,
    ) {
        let reply = match body {
            DynamoMsg::GetItem { call } => DynamoMsg::Item {
                call,
                item: self.item.map(|i| ItemSeen {
                    owner: i.owner,
                    rvn: rvn_nonzero(i.rvn),
                    lease_ms: ms32(i.lease_ms),
                }),
            },
            DynamoMsg::PutItem {
                call,
                rvn,
                expected,
            } => DynamoMsg::PutReply {
                call,
                ok: self.put_item(view, c, rvn, expected.map(NonZeroU64::get), out),
            },
            DynamoMsg::Heartbeat { call, rvn, new_rvn } => DynamoMsg::HeartbeatReply {
                call,
                ok: self.update_rvn(view, c, rvn, new_rvn, out),
            },
            DynamoMsg::DeleteItem { rvn } => {
                if self.item.is_some_and(|i| i.owner == c && i.rvn == rvn) {
                    self.item = None;
                    out.record(Event::Service(ServiceEvent::DynamoItemDeleted {
                        client: c,
                    }));
                }
                return;
            }
            _ => return,
        };
        out.answer(c, reply);
    }

    fn on_answer(&mut self, view: &View, c: ClientId, body: DynamoMsg, out: &mut Effects) {
        let call = match body {
            DynamoMsg::Item { call, .. }
            | DynamoMsg::PutReply { call, .. }
            | DynamoMsg::HeartbeatReply { call, .. } => call,
            _ => return,
        };
        let Some(pending) = self.take_call(c, call) else {
            return;
        };
        let sent_local = pending.sent_local;
        match (body, pending.kind) {
            (DynamoMsg::Item { item, .. }, CallKind::Get) => self.on_item(view, c, item, out),
            (DynamoMsg::PutReply { ok, .. }, CallKind::Put { rvn }) => {
                self.on_put_reply(view, c, rvn, sent_local, ok, out)
            }
            (DynamoMsg::HeartbeatReply { ok, .. }, CallKind::Beat { new_rvn }) => {
                self.on_heartbeat_reply(view, c, new_rvn, sent_local, ok, out)
            }
            _ => {}
        }
    }

    fn renews(msg: &DynamoMsg) -> bool {
        matches!(msg, DynamoMsg::Heartbeat { .. })
    }

    fn releases(msg: &DynamoMsg) -> bool {
        matches!(msg, DynamoMsg::DeleteItem { .. })
    }

    fn label(msg: &DynamoMsg) -> String {
        match msg {
            DynamoMsg::GetItem { .. } => "GetItem (consistent)".into(),
            DynamoMsg::Item { item: Some(i), .. } => {
                format!("item: {}, RVN {}", i.owner, rvn_text(i.rvn.get()))
            }
            DynamoMsg::Item { item: None, .. } => "no item".into(),
            DynamoMsg::PutItem {
                expected: None,
                rvn,
                ..
            } => format!("PutItem if absent, RVN {}", rvn_text(*rvn)),
            DynamoMsg::PutItem {
                expected: Some(old),
                ..
            } => format!("PutItem if RVN = {}", rvn_text(old.get())),
            DynamoMsg::PutReply { ok: true, .. } => "put OK".into(),
            DynamoMsg::PutReply { ok: false, .. } => "condition failed".into(),
            DynamoMsg::Heartbeat { new_rvn, .. } => {
                format!("heartbeat: RVN → {}", rvn_text(*new_rvn))
            }
            DynamoMsg::HeartbeatReply { ok: true, .. } => "RVN updated".into(),
            DynamoMsg::HeartbeatReply { ok: false, .. } => "condition failed".into(),
            DynamoMsg::DeleteItem { .. } => "DeleteItem if owner and RVN match".into(),
        }
    }

    fn confirms_session(msg: &DynamoMsg) -> bool {
        matches!(msg, DynamoMsg::HeartbeatReply { ok: true, .. })
    }
}

/// The service's side: the table answers each call on the lock item.
impl DynamoDb {
    /// A conditional `PutItem`: the item is absent (`expected` is `None`) or
    /// still carries the RVN the client saw.
    fn put_item(
        &mut self,
        view: &View,
        c: ClientId,
        rvn: u64,
        expected: Option<u64>,
        out: &mut Effects,
    ) -> bool {
        let ok = match (expected, self.item) {
            (None, None) => true,
            (Some(old), Some(item)) => item.rvn == old,
            _ => false,
        };
        if !ok {
            out.record(Event::Service(ServiceEvent::DynamoPutRefused { client: c }));
            return false;
        }
        let replaced = self.item.map(|i| i.owner);
        self.item = Some(Item {
            owner: c,
            rvn,
            lease_ms: self.lease_ms,
            grant: rvn,
            since: view.now,
            rvn_at: view.now,
            heartbeats: 0,
        });
        out.record(Event::Service(ServiceEvent::DynamoItemPut {
            client: c,
            rvn,
            expected,
            replaced,
        }));
        true
    }

    /// A heartbeat's `UpdateItem`, conditioned on owner and RVN.
    fn update_rvn(
        &mut self,
        view: &View,
        c: ClientId,
        rvn: u64,
        new_rvn: u64,
        out: &mut Effects,
    ) -> bool {
        let Some(item) = self.item.as_mut().filter(|i| i.owner == c && i.rvn == rvn) else {
            return false;
        };
        item.rvn = new_rvn;
        item.rvn_at = view.now;
        item.heartbeats += 1;
        out.record(Event::Service(ServiceEvent::DynamoRvnChanged {
            client: c,
            from: rvn,
            to: new_rvn,
        }));
        true
    }
}

/// The client library's side: `acquireLock`'s loop, the heartbeat thread
/// and `isExpired()`.
impl DynamoDb {
    fn acquire(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        self.forget(c);
        self.side[c.index()].phase = Phase::Asking(Asking {
            start_local: view.local_now(c),
            wait_ms: self.extra_wait_ms,
            waited_a_lease: false,
            watch: None,
        });
        self.send_call(view, c, CallKind::Get, out);
    }

    fn release(&mut self, c: ClientId, out: &mut Effects) {
        if let Phase::Holding(h) = self.side[c.index()].phase {
            out.ask(c, DynamoMsg::DeleteItem { rvn: h.rvn });
        }
        // A put still in flight is kept in mind: if it lands, its item goes.
        self.forget(c);
    }

    fn new_rvn(&mut self) -> u64 {
        self.rng.draw(1, RVN_MAX)
    }

    /// Sends one blocking call, with the SDK's read timeout running.
    fn send_call(&mut self, view: &View, c: ClientId, kind: CallKind, out: &mut Effects) {
        let id = count_up(&mut self.calls);
        let msg = match kind {
            CallKind::Get => DynamoMsg::GetItem { call: id },
            CallKind::Put { rvn } => {
                let expected = match self.side[c.index()].phase {
                    Phase::Asking(Asking { watch, .. }) => watch.map(|w| rvn_nonzero(w.rvn)),
                    _ => None,
                };
                DynamoMsg::PutItem {
                    call: id,
                    rvn,
                    expected,
                }
            }
            CallKind::Beat { new_rvn } => {
                let Phase::Holding(h) = self.side[c.index()].phase else {
                    return;
                };
                DynamoMsg::Heartbeat {
                    call: id,
                    rvn: h.rvn,
                    new_rvn,
                }
            }
        };
        self.side[c.index()].call = Some(Call {
            id,
            kind,
            sent_local: view.local_now(c),
        });
        out.ask(c, msg);
        out.client_timer(
            c,
            self.call_timeout_ms,
            DynamoTimer::CallTimeout { call: id },
        );
    }

    /// The answer to the call in flight, if `call` is that one.
    fn take_call(&mut self, c: ClientId, call: u32) -> Option<Call> {
        let side = &mut self.side[c.index()];
        let pending = side.call.filter(|p| p.id == call)?;
        side.call = None;
        Some(pending)
    }

    /// One turn of `acquireLock`'s loop, on the item a consistent read saw.
    fn on_item(&mut self, view: &View, c: ClientId, item: Option<ItemSeen>, out: &mut Effects) {
        let Phase::Asking(mut asking) = self.side[c.index()].phase else {
            return;
        };
        let now_local = view.local_now(c);
        let Some(item) = item else {
            // No item: a put on condition that there still is none.
            asking.watch = None;
            self.side[c.index()].phase = Phase::Asking(asking);
            let rvn = self.new_rvn();
            self.send_call(view, c, CallKind::Put { rvn }, out);
            return;
        };
        let (rvn, lease_ms) = (item.rvn.get(), u64::from(item.lease_ms));
        match asking.watch {
            Some(w) if w.rvn == rvn => {
                // isExpired() of the watched item: its lease has passed
                // since the client first saw this RVN, by its own clock.
                if now_local - w.seen_local > w.lease_ms as i64 {
                    let rvn = self.new_rvn();
                    self.send_call(view, c, CallKind::Put { rvn }, out);
                    return;
                }
            }
            _ => {
                // A first look, or a new RVN: the count starts again.
                asking.watch = Some(Watch {
                    rvn,
                    owner: item.owner,
                    lease_ms,
                    seen_local: now_local,
                });
                if !asking.waited_a_lease {
                    asking.waited_a_lease = true;
                    asking.wait_ms = asking.wait_ms.saturating_add(lease_ms);
                }
            }
        }
        self.side[c.index()].phase = Phase::Asking(asking);
        self.loop_tail(view, c, out);
    }

    /// The end of a turn: give up once the wait is over, else sleep a
    /// refresh period and read again.
    fn loop_tail(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let Phase::Asking(asking) = self.side[c.index()].phase else {
            return;
        };
        let waited_ms = (view.local_now(c) - asking.start_local).max(0) as u64;
        if waited_ms > asking.wait_ms {
            self.forget(c);
            out.fail(c, AcquireFailure::NotGranted { waited_ms });
            return;
        }
        let side = &mut self.side[c.index()];
        side.poll_gen += 1;
        let gen = side.poll_gen;
        out.client_timer(c, self.refresh_ms, DynamoTimer::Poll { gen });
    }

    fn on_put_reply(
        &mut self,
        view: &View,
        c: ClientId,
        rvn: u64,
        sent_local: i64,
        ok: bool,
        out: &mut Effects,
    ) {
        let asking = matches!(self.side[c.index()].phase, Phase::Asking(_));
        if !asking || view.belief(c) != Belief::Acquiring {
            // Released while the put was in flight: take the item back out.
            if ok {
                out.ask(c, DynamoMsg::DeleteItem { rvn });
            }
            return;
        }
        if !ok {
            // Another client's put won: LockNotGrantedException, caught by
            // the loop, which goes on while the wait lasts.
            self.loop_tail(view, c, out);
            return;
        }
        let held = Held {
            grant: rvn,
            rvn,
            // The library starts counting before the put succeeds.
            updated_local: sent_local,
            heartbeating: true,
        };
        self.side[c.index()].phase = Phase::Holding(held);
        let until = self.expiry(view, c, held);
        out.grant(c, None, rvn, Some(until));
        self.arm_deadline(view, c, held, out);
        self.arm_heartbeat(c, self.heartbeat_ms, out);
    }

    fn on_heartbeat_reply(
        &mut self,
        view: &View,
        c: ClientId,
        new_rvn: u64,
        sent_local: i64,
        ok: bool,
        out: &mut Effects,
    ) {
        let Phase::Holding(mut held) = self.side[c.index()].phase else {
            return;
        };
        if ok {
            held.rvn = new_rvn;
            held.updated_local = sent_local;
            self.side[c.index()].phase = Phase::Holding(held);
            out.extend(c, Some(self.expiry(view, c, held)));
            self.arm_deadline(view, c, held, out);
        } else {
            // "Someone else acquired the lock, so we will stop heartbeating
            // it": logged, and the application is not told.
            held.heartbeating = false;
            self.side[c.index()].phase = Phase::Holding(held);
            out.record(Event::Service(ServiceEvent::DynamoHeartbeatRefused {
                client: c,
            }));
            return;
        }
        // The thread sleeps what is left of the period after the call.
        let took_ms = (view.local_now(c) - sent_local).max(0) as u64;
        self.arm_heartbeat(c, self.heartbeat_ms.saturating_sub(took_ms), out);
    }

    fn on_client_timer(&mut self, view: &View, c: ClientId, timer: DynamoTimer, out: &mut Effects) {
        let side = self.side[c.index()];
        match timer {
            DynamoTimer::Poll { gen } if gen == side.poll_gen && side.call.is_none() => {
                if matches!(side.phase, Phase::Asking(_)) {
                    self.send_call(view, c, CallKind::Get, out);
                }
            }
            DynamoTimer::Heartbeat { gen } if gen == side.beat_gen => {
                self.on_heartbeat_turn(view, c, out)
            }
            DynamoTimer::Deadline { gen } if gen == side.deadline_gen => {
                if let Phase::Holding(held) = side.phase {
                    if self.monitor_ms.is_some() && self.past(view, c, held, self.watched_ms()) {
                        // The danger zone: the callback stops the application.
                        self.forget(c);
                        out.lose(c, LossReason::SessionMonitor);
                    } else if self.expired(view, c, held) {
                        self.deadline_passed(c, out);
                    } else {
                        // The clock slowed since the timer was set.
                        self.arm_deadline(view, c, held, out);
                    }
                }
            }
            DynamoTimer::CallTimeout { call } => self.on_call_timeout(view, c, call, out),
            _ => {}
        }
    }

    /// The heartbeat thread's turn: `sendHeartbeat` drops a lock that has
    /// expired by the client's clock, else writes a new random RVN.
    fn on_heartbeat_turn(&mut self, view: &View, c: ClientId, out: &mut Effects) {
        let side = self.side[c.index()];
        let Phase::Holding(held) = side.phase else {
            return;
        };
        if !held.heartbeating || !view.renewal(c) || side.call.is_some() {
            return;
        }
        if self.expired(view, c, held) {
            self.deadline_passed(c, out);
            return;
        }
        let new_rvn = self.new_rvn();
        self.send_call(view, c, CallKind::Beat { new_rvn }, out);
    }

    /// `isExpired()` turned true. An application that polls it stops
    /// believing now. One that never asks goes on: the library stops
    /// heartbeating the lock (its next `sendHeartbeat` finds it expired and
    /// drops it, logged), and nothing tells the application.
    fn deadline_passed(&mut self, c: ClientId, out: &mut Effects) {
        if self.app_checks_expiry {
            self.forget(c);
            out.lose(c, LossReason::LocalDeadline);
            return;
        }
        let side = &mut self.side[c.index()];
        let Phase::Holding(held) = &mut side.phase else {
            return;
        };
        held.heartbeating = false;
        side.beat_gen += 1;
        side.deadline_gen += 1;
        out.record(Event::Service(ServiceEvent::DynamoExpiredUnasked {
            client: c,
        }));
    }

    /// No answer within the SDK's read timeout: the call fails with a
    /// client-side error, which both loops log and survive.
    fn on_call_timeout(&mut self, view: &View, c: ClientId, call: u32, out: &mut Effects) {
        let Some(pending) = self.take_call(c, call) else {
            return;
        };
        out.record(Event::Service(ServiceEvent::DynamoCallTimedOut {
            client: c,
        }));
        match pending.kind {
            CallKind::Get | CallKind::Put { .. } => self.loop_tail(view, c, out),
            CallKind::Beat { .. } => self.arm_heartbeat(c, 0, out),
        }
    }

    /// `isExpired()`: more than a lease since the last update was sent.
    fn expired(&self, view: &View, c: ClientId, held: Held) -> bool {
        self.past(view, c, held, self.lease_ms)
    }

    /// More than `ms` since the last update was sent, by the client's clock.
    fn past(&self, view: &View, c: ClientId, held: Held, ms: u64) -> bool {
        view.local_now(c) - held.updated_local > ms as i64
    }

    /// How long after its last update the holder's deadline timer looks:
    /// the session monitor's safe time where one is set, else the lease.
    fn watched_ms(&self) -> u64 {
        self.monitor_ms.unwrap_or(self.lease_ms)
    }

    /// When `isExpired()` turns true, in true time.
    fn expiry(&self, view: &View, c: ClientId, held: Held) -> Millis {
        view.when_reads(c, held.updated_local + self.lease_ms as i64 + 1)
    }

    fn arm_deadline(&mut self, view: &View, c: ClientId, held: Held, out: &mut Effects) {
        let left = held.updated_local + self.watched_ms() as i64 + 1 - view.local_now(c);
        let side = &mut self.side[c.index()];
        side.deadline_gen += 1;
        let gen = side.deadline_gen;
        out.client_timer(c, left.max(0) as u64, DynamoTimer::Deadline { gen });
    }

    fn arm_heartbeat(&mut self, c: ClientId, after_ms: u64, out: &mut Effects) {
        let side = &mut self.side[c.index()];
        side.beat_gen += 1;
        let gen = side.beat_gen;
        out.client_timer(c, after_ms, DynamoTimer::Heartbeat { gen });
    }

    /// The client stops asking or holding; a call in flight stays known.
    fn forget(&mut self, c: ClientId) {
        let side = &mut self.side[c.index()];
        side.phase = Phase::Idle;
        side.poll_gen += 1;
        side.beat_gen += 1;
        side.deadline_gen += 1;
    }

    fn watch_view(&self, view: &View, c: ClientId, asking: Asking) -> DynamoWatchView {
        let now_local = view.local_now(c);
        let elapsed = |from: i64| (now_local - from).max(0) as u64;
        DynamoWatchView {
            client: c,
            rvn: asking.watch.map(|w| w.rvn),
            owner: asking.watch.map(|w| w.owner),
            seen_local_ms: asking.watch.map_or(now_local, |w| w.seen_local),
            watched_ms: asking.watch.map_or(0, |w| elapsed(w.seen_local)),
            waited_ms: elapsed(asking.start_local),
            wait_ms: asking.wait_ms,
        }
    }
}
