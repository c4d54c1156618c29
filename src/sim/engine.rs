//! The discrete-event engine: a queue ordered by (time, sequence), the
//! clients, the network, the resource, and a lock system that answers them.
//! Lock systems only return effects; this file applies them, and asserts
//! the invariants, in one place.

use super::backend::{HolderView, LibrarySession, Service, ServiceDetail, Timer, Validity};
use super::client::{Belief, Client, ClientView, LastWrite, Stashed, WriteJudged};
use super::clock::CLOCK_RATE_PCT_MAX;
use super::effects::{Effect, Effects, Input, View};
use super::error::CommandError;
use super::fingerprint::{fresh_stamp, KeptFingerprint, StableHasher};
use super::history::{DropReason, Event, Record, HISTORY_LEN_MAX};
use super::net::{latency_range_us, Body, Endpoint, InFlight, Message, ResourceMsg};
use super::oracle::{Oracle, StaleWrite};
use super::resource::{FenceRule, Owner, Resource, Verdict};
use super::scenario::{
    Action, Command, Config, NodeCommand, PartitionScope, Scenario, TimedAction, CLOCK_JUMP_MS_MAX,
    PAUSE_MS_MAX, SCRIPT_LEN_MAX, SCRIPT_TIME_MS_MAX, SLOW_MS_MAX,
};
use super::types::{ClientId, FenceMode, Millis, NodeId, Token};
use crate::sim::rng::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::cell::Cell;
use std::hash::{Hash, Hasher};

/// Events one `run_until` call runs at most; past it the call stops early
/// (the clock stays at the last event run) and says so.
pub const EVENTS_PER_RUN_MAX: u64 = 1_000_000;
/// Pending events at most; past it new commands are refused.
pub const QUEUE_LEN_MAX: usize = 100_000;
/// Commands a paused client keeps at most.
pub const QUEUED_COMMANDS_MAX: usize = 16;

/// TCP's retransmission timeout: the first, the largest, and how many
/// retransmissions before the connection gives up (Linux's tcp_retries2).
pub const TCP_RTO_MS_MIN: u64 = 200;
pub const TCP_RTO_MS_MAX: u64 = 120_000;
pub const TCP_RETRIES_MAX: u32 = 15;

/// The network's random stream (the lock system draws from stream 2), so
/// adding draws to one never shifts the other.
const STREAM_NETWORK: u64 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    Deliver(u64),
    Client {
        client: ClientId,
        epoch: u32,
        timer: Timer,
    },
    Service(Timer),
    Wake {
        client: ClientId,
        epoch: u32,
    },
    /// The moment after waking: what reached the client while it was frozen.
    Resume {
        client: ClientId,
        epoch: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scheduled {
    at: u64,
    seq: u64,
    ev: Ev,
}

/// Hashed by hand: the finder fingerprints every pending event of every
/// state it makes, and a derived hash gives the event's kind, its client
/// and its epoch a word each. Here they share one word.
impl Hash for Scheduled {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.at);
        state.write_u64(self.seq);
        let word = |kind: u64, client: ClientId, epoch: u32| {
            kind | (client.index() as u64) << 8 | u64::from(epoch) << 32
        };
        match self.ev {
            Ev::Deliver(id) => {
                state.write_u64(0);
                state.write_u64(id);
            }
            Ev::Client {
                client,
                epoch,
                timer,
            } => {
                state.write_u64(word(1, client, epoch));
                timer.hash(state);
            }
            Ev::Service(timer) => {
                state.write_u64(2);
                timer.hash(state);
            }
            Ev::Wake { client, epoch } => state.write_u64(word(3, client, epoch)),
            Ev::Resume { client, epoch } => state.write_u64(word(4, client, epoch)),
        }
    }
}

// Moved when an event is queued ahead of others.
const _: () = assert!(size_of::<Scheduled>() <= 48);

/// The pending events, ordered by (time, sequence): a vector sorted from
/// the latest to the earliest, so the next event is popped from the end.
/// A run has a few dozen events pending at most times and most new ones
/// are due soon (a message's latency), so they join near the end: cheaper
/// than a binary heap, which moves an entry at every level on each push
/// and pop. Sequence numbers only grow, so a new event comes after every
/// pending one due at the same time; the order is total, and the same as
/// the heap's.
#[derive(Debug, Clone, Default)]
struct EventQueue(Vec<Scheduled>, KeptFingerprint);

impl EventQueue {
    fn push(&mut self, s: Scheduled) {
        debug_assert!(self.0.iter().all(|p| p.seq < s.seq));
        self.1.forget();
        let at = self.0.partition_point(|p| p.at > s.at);
        self.0.insert(at, s);
    }

    /// Takes out the pending event `is` names, if one is: a cancelled
    /// timer. Most are due seconds ahead, near the front.
    fn cancel(&mut self, is: impl Fn(Ev) -> bool) {
        if let Some(at) = self.0.iter().position(|s| is(s.ev)) {
            self.1.forget();
            self.0.remove(at);
        }
    }

    fn pop(&mut self) -> Option<Scheduled> {
        self.1.forget();
        self.0.pop()
    }

    /// Becomes a copy of `source`, keeping its own room.
    fn copy_from(&mut self, source: &EventQueue) {
        self.0.clone_from(&source.0);
        self.1.clone_from(&source.1);
    }

    fn clear(&mut self) {
        self.1.forget();
        self.0.clear();
    }

    /// The pending events hashed on their own, in their order (time, then
    /// sequence: a total order, so runs with the same pending events hold
    /// them in the same order), kept until they change.
    fn fingerprint(&self) -> u64 {
        self.1.get_or(|| {
            let mut h = StableHasher::default();
            self.0.hash(&mut h);
            h.finish()
        })
    }

    fn peek(&self) -> Option<&Scheduled> {
        self.0.last()
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

/// The engine's state: everything but the lock system and the script.
#[derive(Debug, Clone)]
struct Core {
    config: Config,
    /// The fingerprint's hasher with the configuration fed in: the same
    /// for every state of a run, so worked out once when the run starts.
    after_config: StableHasher,
    now: Millis,
    queue: EventQueue,
    seq: u64,
    in_flight: InFlight,
    next_message: u64,
    clients: [Client; 4],
    resource: Resource,
    oracle: Oracle,
    /// The oracle's stamp (`fresh_stamp`): a fresh one wherever it may
    /// change, its source's in a copy. Not part of the run's state: most
    /// moves leave the oracle as it was (a grant or a write changes it),
    /// and a copy into a spare whose oracle has the source's stamp leaves
    /// it alone.
    oracle_stamp: u64,
    /// The oracle's own fingerprint, kept until it changes (with its
    /// stamp). Not part of the run's state.
    oracle_fingerprint: KeptFingerprint,
    history: Vec<Record>,
    history_dropped: u64,
    /// False in a run that keeps no history at all (many short trials
    /// that only count): nothing in the core reads the history back.
    keeps_history: bool,
    net_rng: ChaCha8Rng,
    events_run: u64,
    /// Clients whose belief or last write may have changed, or that were
    /// handed a command or woke, since a driver last took their bit
    /// (`Sim::take_touched`): a driver waiting on a client looks at it
    /// again only when its bit is set. Not part of the run's state.
    touched: u8,
}

/// The network's random stream of a run with this configuration.
fn network_rng(config: &Config) -> ChaCha8Rng {
    let mut net_rng = ChaCha8Rng::seed_from_u64(config.seed.0);
    net_rng.set_stream(STREAM_NETWORK);
    net_rng
}

/// The fingerprint's hasher with the configuration fed in.
fn after_config(config: &Config) -> StableHasher {
    let mut after_config = StableHasher::default();
    config.hash(&mut after_config);
    after_config
}

impl Core {
    fn new(config: Config) -> Core {
        Core {
            after_config: after_config(&config),
            now: Millis::ZERO,
            queue: EventQueue::default(),
            seq: 0,
            in_flight: InFlight::default(),
            next_message: 1,
            clients: ClientId::ALL.map(|id| Client::new(id, config.renewal[id.index()])),
            resource: Resource::new(),
            oracle: Oracle::default(),
            oracle_stamp: fresh_stamp(),
            oracle_fingerprint: KeptFingerprint::default(),
            history: Vec::new(),
            history_dropped: 0,
            keeps_history: true,
            net_rng: network_rng(&config),
            events_run: 0,
            touched: 0,
            config,
        }
    }

    /// Becomes a fresh core of `config`, as `Core::new` makes it, in place:
    /// its buffers (queue, messages, history, the oracle's and the
    /// clients' lists) are emptied and kept, and nothing is moved. Every
    /// field is named, so a field added later is not missed.
    fn reset(&mut self, config: Config) {
        let Core {
            config: kept,
            after_config: hasher,
            now,
            queue,
            seq,
            in_flight,
            next_message,
            clients,
            resource,
            oracle,
            // Both set as `oracle_changed` sets them, below.
            oracle_stamp: _,
            oracle_fingerprint: _,
            history,
            history_dropped,
            keeps_history,
            net_rng,
            events_run,
            touched,
        } = self;
        *hasher = after_config(&config);
        *now = Millis::ZERO;
        queue.clear();
        *seq = 0;
        in_flight.clear();
        *next_message = 1;
        for (client, id) in clients.iter_mut().zip(ClientId::ALL) {
            client.reset(id, config.renewal[id.index()]);
        }
        *resource = Resource::new();
        oracle.clear();
        history.clear();
        *history_dropped = 0;
        *keeps_history = true;
        *net_rng = network_rng(&config);
        *events_run = 0;
        *touched = 0;
        *kept = config;
        self.oracle_changed();
    }

    fn view(&self) -> View<'_> {
        View {
            now: self.now,
            clients: &self.clients,
            resource_version: Token(self.resource.value()),
        }
    }

    fn client(&self, c: ClientId) -> &Client {
        &self.clients[c.index()]
    }

    /// The one way to a client to change: its kept fingerprint is
    /// forgotten here, and it takes a fresh stamp.
    fn client_mut(&mut self, c: ClientId) -> &mut Client {
        let client = &mut self.clients[c.index()];
        *client.fingerprint.get_mut() = 0;
        client.stamp = fresh_stamp();
        client
    }

    /// The clients that believe they hold the lock: a crashed one believes
    /// nothing.
    fn believers(&self) -> impl Iterator<Item = ClientId> + '_ {
        self.clients
            .iter()
            .filter(|cl| !cl.crashed && cl.belief.is_holding())
            .map(|cl| cl.id)
    }

    /// Inlined, so that a run that keeps no history does not even build
    /// the record.
    #[inline]
    fn record(&mut self, event: Event) {
        if self.keeps_history {
            self.keep(event);
        }
    }

    #[inline(never)]
    fn keep(&mut self, event: Event) {
        if self.history.len() < HISTORY_LEN_MAX {
            self.history.push(Record {
                at: self.now,
                event,
            });
        } else {
            self.history_dropped += 1;
        }
    }

    fn schedule(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Scheduled {
            at,
            seq: self.seq,
            ev,
        });
    }

    /// Starts a client timer of `after_ms` by the client's own clock; it
    /// belongs to the client's current incarnation.
    fn client_timer(&mut self, c: ClientId, after_ms: u64, timer: Timer) {
        let client = self.client(c);
        let epoch = client.epoch;
        let at = self
            .now
            .ms()
            .saturating_add(client.clock.virtual_ms(after_ms));
        self.schedule(
            at,
            Ev::Client {
                client: c,
                epoch,
                timer,
            },
        );
    }

    /// Sends a message that arrives after a drawn latency plus `extra_ms`.
    fn send(&mut self, from: Endpoint, to: Endpoint, body: Body, extra_ms: u64) {
        let (lo, hi) = latency_range_us(self.config.backend, from, to);
        // The system's own time, scaled, plus half the network round trip
        // between parties further apart than one zone.
        let us = self.net_rng.random_range(lo..=hi) * u64::from(self.config.latency_scale)
            + u64::from(self.config.network_rtt_ms) * 500;
        let latency_ms = (us / 1000).max(1) + extra_ms;
        let id = self.next_message;
        self.next_message += 1;
        let epoch = to.client().map_or(0, |c| self.client(c).epoch);
        // A client's request never overtakes its last one to the same
        // service (`InFlight::last_request`): arrivals on that connection
        // keep their order.
        let drawn = self.now.plus(latency_ms);
        let last = match (from, to) {
            (Endpoint::Client(c), Endpoint::Service | Endpoint::Node(_)) => {
                self.in_flight.last_request(c, to)
            }
            _ => None,
        };
        let deliver_at = match last {
            Some(last) if last > drawn => last,
            _ => drawn,
        };
        self.record(Event::MessageSent {
            id,
            from,
            to,
            body,
            deliver_at,
        });
        self.in_flight.push(Message {
            id,
            from,
            to,
            sent_at: self.now,
            deliver_at,
            body,
            retransmits: 0,
            epoch,
        });
        self.schedule(deliver_at.ms(), Ev::Deliver(id));
    }

    /// True when either end is a client that loses its messages.
    fn is_losing(&self, from: Endpoint, to: Endpoint) -> bool {
        [from, to]
            .iter()
            .any(|e| e.client().is_some_and(|c| self.client(c).losing))
    }

    /// TCP holds a message a partition cut off and sends it again after a
    /// retransmission timeout that doubles each time (Linux: from 200 ms,
    /// at most 120 s, 15 tries, about 15 minutes in all).
    fn retransmit(&mut self, mut msg: Message) {
        let rto_ms = (TCP_RTO_MS_MIN << msg.retransmits.min(16)).min(TCP_RTO_MS_MAX);
        msg.retransmits += 1;
        msg.deliver_at = self.now.plus(rto_ms);
        self.record(Event::MessageRetransmitted {
            id: msg.id,
            from: msg.from,
            to: msg.to,
            deliver_at: msg.deliver_at,
            attempt: msg.retransmits,
        });
        self.schedule(msg.deliver_at.ms(), Ev::Deliver(msg.id));
        self.in_flight.hold(msg);
    }

    /// True when a partition lies between the two ends right now.
    fn is_cut(&self, from: Endpoint, to: Endpoint) -> bool {
        let (client, other) = match (from, to) {
            (Endpoint::Client(c), other) | (other, Endpoint::Client(c)) => (c, other),
            _ => return false,
        };
        match (self.client(client).partition, other) {
            (None, _) => false,
            (Some(_), Endpoint::Service | Endpoint::Node(_)) => true,
            (Some(scope), Endpoint::Resource) => {
                scope == PartitionScope::ServiceAndResource
                    || self.config.backend.resource_in_service()
            }
            (Some(_), Endpoint::Client(_)) => false,
        }
    }

    /// Changes a client's belief and lets the oracle count believed holders.
    fn set_belief(&mut self, c: ClientId, belief: Belief) {
        self.touch(c);
        let client = self.client_mut(c);
        client.belief = belief;
        // Any change but a loss (which sets it again) ends what it learned.
        client.lost = None;
        // A fixed array: this runs on every belief change.
        let mut holders = [ClientId::ALL[0]; 4];
        let mut count = 0;
        for id in self.believers() {
            holders[count] = id;
            count += 1;
        }
        let holders = &holders[..count];
        let overlap = self.oracle.believers(self.now, holders);
        // It changes the oracle only then: an overlap starts, goes on or ends.
        if holders.len() >= 2 || overlap.is_some() {
            self.oracle_changed();
        }
        match overlap {
            Some(true) => self.record(Event::TwoHolders {
                clients: holders.to_vec(),
            }),
            Some(false) => self.record(Event::OneHolderAgain),
            None => {}
        }
    }

    /// Applies a lock system's answers in order. The invariants every lock
    /// system must keep are asserted here: they are bugs, not bad input.
    fn apply(&mut self, effects: &mut Effects) {
        // Many inputs answer nothing: no drain to build and drop for them.
        if effects.is_empty() {
            return;
        }
        for effect in effects.take() {
            match effect {
                Effect::Send {
                    from,
                    to,
                    body,
                    extra_ms,
                } => self.send(from, to, body, extra_ms),
                Effect::ClientTimer {
                    client,
                    after_ms,
                    timer,
                } => self.client_timer(client, after_ms, timer),
                Effect::ServiceTimer { at, timer } => {
                    assert!(
                        at >= self.now,
                        "a timer set in the past: {at} at {} (seed {})",
                        self.now,
                        self.config.seed
                    );
                    self.schedule(at.ms(), Ev::Service(timer));
                }
                Effect::CancelClientTimer { client, timer } => self.queue.cancel(
                    |ev| matches!(ev, Ev::Client { client: c, timer: t, .. } if c == client && t == timer),
                ),
                Effect::CancelServiceTimer { timer } => {
                    self.queue.cancel(|ev| ev == Ev::Service(timer))
                }
                Effect::Record(event) => self.record(event),
                belief => self.apply_belief(belief),
            }
        }
    }

    fn apply_belief(&mut self, effect: Effect) {
        let seed = self.config.seed;
        match effect {
            Effect::Grant {
                client,
                token,
                lease_key,
                until,
            } => self.grant(client, token, lease_key, until),
            Effect::Wait { client, token } => {
                let before = self.client(client).belief;
                assert!(
                    before == Belief::Acquiring,
                    "{client} queued while {} (seed {seed})",
                    belief_words(before)
                );
                self.set_belief(client, Belief::Waiting { token });
                self.record(Event::Waiting { client, token });
            }
            Effect::Lose { client, reason } => {
                if self.client(client).belief == Belief::Idle {
                    return;
                }
                let held = self.client(client).belief.is_holding();
                self.record(Event::Lost { client, reason });
                self.set_belief(client, Belief::Idle);
                // A waiter that gave up never had a lease to lose.
                self.client_mut(client).lost = held.then_some(reason);
            }
            Effect::Fail { client, failure } => {
                let before = self.client(client).belief;
                assert!(
                    before == Belief::Acquiring,
                    "{client} failed to acquire while {} (seed {seed})",
                    belief_words(before)
                );
                self.set_belief(client, Belief::Idle);
                self.record(Event::AcquireFailed { client, failure });
            }
            Effect::Extend { client, until } => self.extend_belief(client, until),
            _ => unreachable!("only belief changes reach apply_belief"),
        }
    }

    /// The client now believes it holds the lock, as it may only while it
    /// asks or waits for it.
    fn grant(
        &mut self,
        client: ClientId,
        token: Option<Token>,
        lease_key: u64,
        until: Option<Millis>,
    ) {
        let seed = self.config.seed;
        let before = self.client(client).belief;
        assert!(
            matches!(before, Belief::Acquiring | Belief::Waiting { .. }),
            "{client} granted the lock while {} (seed {seed})",
            belief_words(before)
        );
        self.record(Event::Acquired {
            client,
            token,
            until,
        });
        let since = self.now;
        // Its critical section starts: it reads the counter it will update.
        self.client_mut(client).read = u32::try_from(self.resource.value()).unwrap_or(u32::MAX);
        self.set_belief(
            client,
            Belief::Holding {
                token,
                lease_key,
                since,
                until,
            },
        );
        self.announce(client, token);
    }

    /// With `FenceMode::Takeover`, a new holder tells the resource its token at
    /// once, over the network like any message. Only a token the resource
    /// compares by order is worth announcing: DynamoDB's check asks the
    /// lock item, PostgreSQL's the row's version.
    fn announce(&mut self, client: ClientId, token: Option<Token>) {
        let config = &self.config;
        if config.backend.fence_mode_in(config) != FenceMode::Takeover {
            return;
        }
        if let Some(token) = token {
            let body = ResourceMsg::Announce { token }.into();
            self.send(Endpoint::Client(client), Endpoint::Resource, body, 0);
        }
    }

    /// A renewal came back: a holder's believed lease now ends at `until`.
    fn extend_belief(&mut self, client: ClientId, until: Option<Millis>) {
        self.touch(client);
        if let Belief::Holding {
            token,
            lease_key,
            since,
            ..
        } = self.client(client).belief
        {
            self.client_mut(client).belief = Belief::Holding {
                token,
                lease_key,
                since,
                until,
            };
        }
        self.record(Event::Renewed { client, until });
    }

    /// The oracle may have changed: it takes a fresh stamp, and its kept
    /// fingerprint is forgotten. Inlined, as `Sim::service_handed` is: the
    /// page's first-load list (split/first-part.txt) names the functions a
    /// cold load runs, and a belief's change runs this.
    #[inline(always)]
    fn oracle_changed(&mut self) {
        self.oracle_stamp = fresh_stamp();
        self.oracle_fingerprint.forget();
    }

    fn touch(&mut self, c: ClientId) {
        self.touched |= 1 << c.index();
    }

    fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// Becomes the same state as `source` with an empty history, keeping
    /// its own buffers (queue, messages, history, the oracle's lists).
    fn copy_without_history(&mut self, source: &Core) {
        let Core {
            config,
            after_config,
            now,
            queue,
            seq,
            in_flight,
            next_message,
            clients,
            resource,
            oracle,
            oracle_stamp,
            oracle_fingerprint,
            history,
            history_dropped,
            keeps_history,
            net_rng,
            events_run,
            touched,
        } = self;
        // Left alone after a move that sent nothing.
        net_rng.copy_from(&source.net_rng);
        config.clone_from(&source.config);
        *after_config = source.after_config;
        *now = source.now;
        queue.copy_from(&source.queue);
        *seq = source.seq;
        in_flight.copy_from(&source.in_flight);
        *next_message = source.next_message;
        for (client, from) in clients.iter_mut().zip(&source.clients) {
            client.copy_from(from);
        }
        resource.clone_from(&source.resource);
        if *oracle_stamp != source.oracle_stamp {
            oracle.copy_from(&source.oracle);
            *oracle_stamp = source.oracle_stamp;
        }
        oracle_fingerprint.clone_from(&source.oracle_fingerprint);
        history.clear();
        *history_dropped = 0;
        *keeps_history = source.keeps_history;
        *events_run = source.events_run;
        *touched = source.touched;
    }

    /// The same state with an empty history.
    fn without_history(&self) -> Core {
        Core {
            config: self.config.clone(),
            after_config: self.after_config,
            now: self.now,
            queue: EventQueue(with_room(&self.queue.0, 4), self.queue.1.clone()),
            seq: self.seq,
            in_flight: self.in_flight.clone(),
            next_message: self.next_message,
            clients: self.clients.clone(),
            resource: self.resource.clone(),
            oracle: self.oracle.clone(),
            oracle_stamp: self.oracle_stamp,
            oracle_fingerprint: self.oracle_fingerprint.clone(),
            history: Vec::with_capacity(SNAPSHOT_HISTORY_ROOM),
            history_dropped: 0,
            keeps_history: self.keeps_history,
            net_rng: self.net_rng.clone(),
            events_run: self.events_run,
            touched: self.touched,
        }
    }
}

/// Records a snapshot's history has room for before it grows: a search
/// moves each of its snapshots on by one click or one wait, a handful of
/// records.
const SNAPSHOT_HISTORY_ROOM: usize = 8;

/// A copy of `items` with room for `more` pushes. A snapshot is made to be
/// moved on, and a clone's capacity is its length, so its first push would
/// allocate and copy it all again.
fn with_room<T: Clone>(items: &[T], more: usize) -> Vec<T> {
    let mut copy = Vec::with_capacity(items.len() + more);
    copy.extend_from_slice(items);
    copy
}

impl Core {
    /// Feeds everything that decides what happens next but the
    /// configuration (in `after_config` already), not the history.
    fn hash_after_config(&self, state: &mut StableHasher) {
        self.now.hash(state);
        state.write_u64(self.queue.fingerprint());
        self.seq.hash(state);
        self.in_flight.hash(state);
        self.next_message.hash(state);
        self.clients.hash(state);
        self.resource.hash(state);
        state.write_u64(self.oracle_fingerprint.get_or(|| {
            let mut h = StableHasher::default();
            self.oracle.hash(&mut h);
            h.finish()
        }));
        // The stream's seed is the configuration's (hashed with it): its
        // position alone tells two states of one run apart.
        self.net_rng.get_word_pos().hash(state);
    }
}

/// What the views read between events, worked out by the lock system at
/// the first read after the run changed and kept until the next change: a
/// driver or page that looks at every client many times between two
/// events (a poll, a drawn frame) asks the system once. Cells, since
/// reading a view takes `&Sim`; nothing here is part of the run's state.
#[derive(Debug, Clone, Default)]
struct Looks {
    /// Which answers are kept: bit 0 the holder, bit 1 + i client i's
    /// lease end. Forgetting them all is one store, made after every event.
    known: Cell<u8>,
    holder: Cell<Option<HolderView>>,
    lease_end: [Cell<Option<Millis>>; ClientId::COUNT],
}

impl Looks {
    const HOLDER: u8 = 1;

    fn lease_end_bit(c: ClientId) -> u8 {
        2 << c.index()
    }

    /// The answer kept under `bit`, or `work`'s, kept from now on.
    fn get_or<T: Copy>(&self, bit: u8, cell: &Cell<T>, work: impl FnOnce() -> T) -> T {
        let known = self.known.get();
        if known & bit != 0 {
            return cell.get();
        }
        let value = work();
        cell.set(value);
        self.known.set(known | bit);
        value
    }

    fn forget(&mut self) {
        *self.known.get_mut() = 0;
    }
}

/// A whole simulation: the engine plus the lock system of one backend.
#[derive(Debug, Clone)]
pub struct Sim {
    core: Core,
    service: Service,
    script: Vec<TimedAction>,
    last_holder: Option<(ClientId, Option<Token>)>,
    /// Reused for every input, so handling one allocates nothing new.
    out: Effects,
    looks: Looks,
    /// The lock system was handed something since the holder was last
    /// noted: only then can its grant differ (a system whose holder reads
    /// the clock is asked every time). Not part of the run's state.
    service_moved: bool,
    /// The lock system's own fingerprint, worked out at the first hash
    /// after it was last handed something; 0 until then. Not part of the
    /// run's state: cleared wherever the system is handed an input or a
    /// message (`Sim::feed`, `Sim::receive`). Most of a search's moves
    /// (a pause, a clock jump, a partition, a write) hand it nothing.
    service_fingerprint: KeptFingerprint,
    /// The lock system's stamp (`fresh_stamp`): a fresh one whenever it is
    /// handed something, its source's in a copy. Not part of the run's
    /// state.
    service_stamp: u64,
}

/// How a `run_until` call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Everything due ran and the clock is at the target.
    Reached,
    /// The per-call event limit stopped it; the clock is at the last event run.
    Truncated { events: u64 },
}

impl Sim {
    /// A fresh run. An out-of-range configuration is refused.
    pub fn new(config: Config) -> Result<Sim, CommandError> {
        config.validate()?;
        let service = Service::new(&config);
        Ok(Sim {
            core: Core::new(config),
            service,
            script: Vec::new(),
            last_holder: None,
            out: Effects::default(),
            looks: Looks::default(),
            service_moved: true,
            service_fingerprint: KeptFingerprint::default(),
            service_stamp: fresh_stamp(),
        })
    }

    /// Becomes a fresh run of `config`, exactly as `Sim::new(config)` makes
    /// it, in place: this run's buffers (event queue, messages, history,
    /// script, the oracle's lists) are emptied and kept, and so is the lock
    /// system's box when the system is the same, so that many short runs in
    /// a row (the hazard explorer's trials) neither grow them again nor
    /// move a whole run about. Nothing of this run carries over but their
    /// capacity. An out-of-range configuration is refused, and the run is
    /// then left as it was. Every field is named, so a field added later
    /// is not missed.
    pub fn reset(&mut self, config: Config) -> Result<(), CommandError> {
        config.validate()?;
        let Sim {
            core,
            service,
            script,
            last_holder,
            out,
            looks,
            service_moved,
            service_fingerprint,
            service_stamp,
        } = self;
        service.reset(&config);
        core.reset(config);
        script.clear();
        *last_holder = None;
        out.clear();
        out.keep_records(true);
        *looks = Looks::default();
        *service_moved = true;
        *service_fingerprint = KeptFingerprint::default();
        *service_stamp = fresh_stamp();
        Ok(())
    }

    /// A copy of the run without its history: cheap enough to explore
    /// many futures of one state.
    pub fn snapshot(&self) -> Sim {
        Sim {
            core: self.core.without_history(),
            service: self.service.clone(),
            script: with_room(&self.script, 1),
            last_holder: self.last_holder,
            out: Effects::default(),
            looks: self.looks.clone(),
            service_moved: self.service_moved,
            service_fingerprint: self.service_fingerprint.clone(),
            service_stamp: self.service_stamp,
        }
    }

    /// Makes `into` a snapshot of this run, as `snapshot` would, reusing
    /// its buffers: a search that copies a state for every move it tries
    /// hands back the copies it is done with rather than allocate anew.
    pub fn snapshot_into(&self, into: &mut Sim) {
        let Sim {
            core,
            service,
            script,
            last_holder,
            out,
            looks,
            service_moved,
            service_fingerprint,
            service_stamp,
        } = into;
        core.copy_without_history(&self.core);
        // About half a search's moves hand the lock system nothing: the
        // spare, made from the same state a move ago, holds it already.
        if *service_stamp != self.service_stamp {
            service.clone_from(&self.service);
            *service_stamp = self.service_stamp;
        }
        script.clone_from(&self.script);
        *last_holder = self.last_holder;
        out.clear();
        out.keep_records(self.core.keeps_history);
        looks.clone_from(&self.looks);
        *service_moved = self.service_moved;
        service_fingerprint.clone_from(&self.service_fingerprint);
    }

    /// A stable 64-bit fingerprint of the run's state (clients, service,
    /// network, resource, oracle, queue, random streams), not its history
    /// or script: two runs that reached the same state have the same one,
    /// on every platform.
    pub fn fingerprint(&self) -> u64 {
        let mut h = self.core.after_config;
        self.core.hash_after_config(&mut h);
        h.write_u64(self.service_fingerprint());
        self.last_holder.hash(&mut h);
        h.finish()
    }

    /// The lock system hashed on its own, kept until it is handed
    /// something.
    fn service_fingerprint(&self) -> u64 {
        self.service_fingerprint.get_or(|| {
            let mut h = StableHasher::default();
            self.service.hash(&mut h);
            h.finish()
        })
    }

    pub fn config(&self) -> &Config {
        &self.core.config
    }

    pub fn now(&self) -> Millis {
        self.core.now
    }

    pub fn history(&self) -> &[Record] {
        &self.core.history
    }

    /// Stops (or resumes) keeping the history: a run that only counts
    /// (the hazard explorer's trials) skips the cost of recording every
    /// event. Everything else, the oracle's findings included, is the same.
    pub fn keep_history(&mut self, on: bool) {
        self.core.keeps_history = on;
        self.out.keep_records(on);
    }

    /// Empties the history, as a snapshot's starts: a search that moves a
    /// state on itself, where it would move a copy, judges only what the
    /// move records.
    pub fn forget_history(&mut self) {
        self.core.history.clear();
        self.core.history_dropped = 0;
    }

    /// Records that did not fit under `HISTORY_LEN_MAX`.
    pub fn history_dropped(&self) -> u64 {
        self.core.history_dropped
    }

    pub fn resource(&self) -> &Resource {
        &self.core.resource
    }

    pub fn oracle(&self) -> &Oracle {
        &self.core.oracle
    }

    pub fn events_run(&self) -> u64 {
        self.core.events_run
    }

    /// Whether client `c` may have changed in a way a driver reads (its
    /// belief, its last write, a pause ended, a command handed to it)
    /// since this was last asked for it; asking clears it.
    /// A driver that waits on a client after every event can skip it
    /// while this says no: nothing it reads of the client has moved.
    pub fn take_touched(&mut self, c: ClientId) -> bool {
        let bit = 1 << c.index();
        let touched = self.core.touched & bit != 0;
        self.core.touched &= !bit;
        touched
    }

    /// Whether any of `clients` (a bit each, by index) is touched, as
    /// `take_touched` would say, without clearing anything: a driver that
    /// waits on several clients asks once before it looks at each.
    #[inline]
    pub fn touched_any(&self, clients: u8) -> bool {
        self.core.touched & clients != 0
    }

    /// The commands run so far, each with its time, in order.
    pub fn script(&self) -> &[TimedAction] {
        &self.script
    }

    /// The run so far as a replayable scenario.
    pub fn scenario(&self) -> Scenario {
        Scenario {
            version: super::scenario::SCENARIO_VERSION,
            config: self.core.config.clone(),
            actions: self.script.clone(),
        }
    }

    /// Messages in flight, oldest first.
    pub fn in_flight(&self) -> impl Iterator<Item = &Message> {
        self.core.in_flight.iter()
    }

    /// Whether any message in flight passes `pred`, taken in no
    /// particular order: cheaper than `in_flight().any(..)`, for a search
    /// that asks it of every state it makes.
    pub fn any_in_flight(&self, pred: impl FnMut(&Message) -> bool) -> bool {
        self.core.in_flight.any(pred)
    }

    /// The time of the next event, if any.
    pub fn next_event_at(&self) -> Option<Millis> {
        self.core.queue.peek().map(|s| Millis(s.at))
    }

    /// Whether the next event is `c`'s own: one of its timers, its wake,
    /// or a message reaching it. Between two of them nothing changes `c`.
    pub fn next_event_is_for(&self, c: ClientId) -> bool {
        match self.core.queue.peek().map(|s| s.ev) {
            Some(
                Ev::Client { client, .. } | Ev::Wake { client, .. } | Ev::Resume { client, .. },
            ) => client == c,
            Some(Ev::Deliver(id)) => self
                .core
                .in_flight
                .any(|m| m.id == id && m.to == Endpoint::Client(c)),
            Some(Ev::Service(_)) | None => false,
        }
    }

    /// Who the service says holds the lock now.
    pub fn holder(&self) -> Option<HolderView> {
        let looks = &self.looks;
        looks.get_or(Looks::HOLDER, &looks.holder, || {
            self.service.holder(&self.core.view())
        })
    }

    /// The service-side end of `c`'s lease, if the service holds one for it.
    fn lease_end(&self, c: ClientId) -> Option<Millis> {
        let looks = &self.looks;
        let cell = &looks.lease_end[c.index()];
        looks.get_or(Looks::lease_end_bit(c), cell, || {
            self.service.lease_end(&self.core.view(), c)
        })
    }

    pub fn service_detail(&self) -> ServiceDetail {
        self.service.detail(&self.core.view())
    }

    /// Whether the backend promises tokens that only grow, with this run's settings.
    pub fn monotonic_tokens(&self) -> bool {
        let config = &self.core.config;
        config.backend.monotonic_tokens_in(config)
    }

    /// Redlock's validity budget for a client acquiring or holding.
    pub fn validity(&self, c: ClientId) -> Option<Validity> {
        self.service.validity(&self.core.view(), c)
    }

    /// What the lock service noticed of a crashed client, in its own
    /// words (a FIN read, silence, a lease left to run out); `None` while
    /// the client runs.
    pub fn crash_note(&self, c: ClientId) -> Option<String> {
        let client = self.core.client(c);
        client
            .crashed
            .then(|| self.service.crash_note(&self.core.view(), c, client.exited))
    }

    pub fn client_view(&self, c: ClientId) -> ClientView {
        let client = self.core.client(c);
        let holder = self.holder();
        let service_until = self.lease_end(c);
        let session = self.service.library_session(c);
        let stale = match client.belief {
            Belief::Holding { lease_key, .. } => {
                holder.is_none_or(|h| h.client != c || h.lease_key != lease_key)
            }
            _ => false,
        };
        ClientView {
            id: c,
            state: client.state(session),
            belief: client.belief,
            paused_until: client.paused_until,
            partition: client.partition,
            crashed: client.crashed,
            exited: client.exited,
            renewal: client.renewal,
            zk_conn: match session {
                Some(LibrarySession::Zk(conn)) => Some(conn),
                _ => None,
            },
            chubby: match session {
                Some(LibrarySession::Chubby(state)) => Some(state),
                _ => None,
            },
            queued: client.queued.clone(),
            last_write: client.last_write,
            judged: client.judged,
            lost: client.lost,
            service_until,
            stale: stale && !client.crashed,
            clock_offset_ms: client.clock.offset_ms(self.core.now),
            clock_rate_pct: client.clock.rate_pct(),
            losing: client.losing,
            read: client.read,
        }
    }

    /// A client's belief alone: cheaper than `client_view` for a driver
    /// that looks after every event.
    pub fn belief(&self, c: ClientId) -> Belief {
        self.core.client(c).belief
    }

    /// When a client's pause ends, if it is paused: cheaper than
    /// `client_view` for a driver that looks after every event.
    pub fn paused_until(&self, c: ClientId) -> Option<Millis> {
        self.core.client(c).paused_until
    }

    /// The commands a paused client will run as it wakes, borrowed.
    pub fn queued(&self, c: ClientId) -> &[Command] {
        &self.core.client(c).queued
    }

    /// Whether a client is down (crashed or exited).
    pub fn crashed(&self, c: ClientId) -> bool {
        self.core.client(c).crashed
    }

    /// The partition that cuts a client off, if one does.
    pub fn partition(&self, c: ClientId) -> Option<PartitionScope> {
        self.core.client(c).partition
    }

    /// The result of a client's latest write, as its reply said.
    pub fn last_write(&self, c: ClientId) -> Option<LastWrite> {
        self.core.client(c).last_write
    }

    /// The clients that believe they hold the lock, as the oracle counts
    /// them.
    pub fn believers(&self) -> Vec<ClientId> {
        self.core.believers().collect()
    }

    pub fn clients(&self) -> Vec<ClientView> {
        ClientId::ALL.iter().map(|&c| self.client_view(c)).collect()
    }

    /// Runs the next event. Returns false when nothing is left to run.
    pub fn step(&mut self) -> bool {
        let Some(next) = self.core.queue.pop() else {
            return false;
        };
        debug_assert!(next.at >= self.core.now.ms(), "time never goes backwards");
        self.core.now = Millis(next.at);
        // An event that finds nothing to do is dropped unrun and uncounted:
        // running it changed nothing but the engine's own caches.
        if !self.moot(next.ev) {
            self.core.events_run += 1;
            self.dispatch(next.ev);
        }
        self.note_holder();
        true
    }

    /// Whether `ev`, due now, would do nothing at all: a client's timer or
    /// wake from before a crash or a restart, a wake or resume a new pause
    /// or a crash overtook, a timer the lock system says is cancelled
    /// (`LockSystem::timer_moot`). A timer that reaches a paused client is
    /// kept for it, so it is not moot here.
    fn moot(&self, ev: Ev) -> bool {
        let core = &self.core;
        match ev {
            Ev::Deliver(_) => false,
            Ev::Client {
                client,
                epoch,
                timer,
            } => {
                let cl = core.client(client);
                cl.crashed
                    || cl.epoch != epoch
                    || (!cl.is_paused()
                        && self.service.timer_moot(&core.view(), Some(client), timer))
            }
            Ev::Service(timer) => self.service.timer_moot(&core.view(), None, timer),
            Ev::Wake { client, epoch } => {
                let cl = core.client(client);
                cl.crashed || cl.epoch != epoch || cl.paused_until != Some(core.now)
            }
            Ev::Resume { client, epoch } => {
                let cl = core.client(client);
                cl.crashed || cl.epoch != epoch || cl.is_paused()
            }
        }
    }

    /// Runs every event due up to `t` and moves the clock to `t`.
    pub fn run_until(&mut self, t: Millis) -> RunOutcome {
        let mut events = 0;
        while let Some(next) = self.core.queue.peek() {
            if next.at > t.ms() {
                break;
            }
            if events >= EVENTS_PER_RUN_MAX {
                return RunOutcome::Truncated { events };
            }
            self.step();
            events += 1;
        }
        if t > self.core.now {
            self.core.now = t;
            if self.service.holder_reads_clock() {
                self.looks.forget();
            }
        }
        RunOutcome::Reached
    }

    /// Runs an action now, as a click would, and records it in the script.
    pub fn act(&mut self, action: Action) -> Result<(), CommandError> {
        match action {
            Action::Client { client, command } => self.command(client, command),
            Action::Node { node, command } => self.node_command(node, command),
        }
    }

    /// `act` for an action `check` or `check_node` already let through in
    /// this very state: a search lists the moves of a state by asking
    /// them, then runs each on a copy of it, and a second check was a
    /// sixtieth of its time.
    pub(crate) fn act_checked(&mut self, action: Action) {
        match action {
            Action::Client { client, command } => {
                debug_assert!(self.check(client, command).is_ok());
                self.run_command(client, command);
            }
            Action::Node { node, command } => {
                debug_assert!(self.check_node(node, command).is_ok());
                self.run_node_command(node, command);
            }
        }
    }

    /// Whether `command` would be accepted now, without running it.
    pub fn check(&self, c: ClientId, command: Command) -> Result<(), CommandError> {
        let client = self.core.client(c);
        self.room_for_a_command()?;
        if client.crashed && command != Command::Restart {
            return Err(CommandError::ClientCrashed { client: c });
        }
        if client.is_paused() && client.queued.len() >= QUEUED_COMMANDS_MAX {
            let immediate = matches!(
                command,
                Command::Partition { .. }
                    | Command::Heal
                    | Command::PowerOff
                    | Command::Exit
                    | Command::Renewal { .. }
                    | Command::ClockJump { .. }
                    | Command::ClockRate { .. }
                    | Command::LoseMessages { .. }
            );
            if !immediate {
                return Err(CommandError::TooManyQueued { client: c });
            }
        }
        check_command(client, command)?;
        self.service.check_command(c, command)
    }

    /// Runs a client command now. A refused command changes nothing.
    pub fn command(&mut self, c: ClientId, command: Command) -> Result<(), CommandError> {
        self.check(c, command)?;
        self.run_command(c, command);
        Ok(())
    }

    /// A client command `check` let through, run. Inlined, as these lines
    /// were in `command`: the page's first-load list
    /// (split/first-part.txt) names the functions a cold load runs.
    #[inline(always)]
    fn run_command(&mut self, c: ClientId, command: Command) {
        self.core.touch(c);
        self.script.push(TimedAction {
            at: self.core.now,
            action: Action::Client { client: c, command },
        });
        self.core.record(Event::Clicked { client: c, command });
        let deferred = matches!(
            command,
            Command::Acquire | Command::Write | Command::WriteDelayed { .. } | Command::Release
        );
        if deferred && self.core.client(c).is_paused() {
            self.core.client_mut(c).queued.push(command);
            self.core.record(Event::Queued { client: c, command });
        } else {
            self.execute(c, command);
        }
        self.note_holder();
    }

    pub fn check_node(&self, node: NodeId, command: NodeCommand) -> Result<(), CommandError> {
        self.room_for_a_command()?;
        self.service.check_node(node, command)
    }

    /// Whether the run can take one more command: the queue has room, and
    /// the script (what a link carries) is under its limits of length and
    /// time. A full script is said apart from a busy queue: waiting does
    /// not empty it, nor make the clock younger.
    fn room_for_a_command(&self) -> Result<(), CommandError> {
        if self.script.len() >= SCRIPT_LEN_MAX {
            return Err(CommandError::ScriptFull);
        }
        if self.core.now.ms() > SCRIPT_TIME_MS_MAX {
            return Err(CommandError::DayOver);
        }
        if self.core.pending_events() >= QUEUE_LEN_MAX {
            return Err(CommandError::TooManyEvents);
        }
        Ok(())
    }

    /// Runs a command on one node of the service (Redlock's Redis nodes).
    pub fn node_command(&mut self, node: NodeId, command: NodeCommand) -> Result<(), CommandError> {
        self.check_node(node, command)?;
        self.run_node_command(node, command);
        Ok(())
    }

    /// A node command `check_node` let through, run. Inlined, as
    /// `run_command` is.
    #[inline(always)]
    fn run_node_command(&mut self, node: NodeId, command: NodeCommand) {
        // A node's change reaches clients only through the system's
        // answers; every client is marked all the same.
        self.core.touched = u8::MAX;
        self.script.push(TimedAction {
            at: self.core.now,
            action: Action::Node { node, command },
        });
        self.core.record(Event::NodeClicked { node, command });
        self.feed(Input::Node(node, command));
        self.note_holder();
    }

    /// The lock system is about to be handed something (an input or a
    /// message): its grant may move, unless what it is handed reaches a
    /// client's side (`client_side`) and the system keeps its grant in the
    /// service's books alone (`LockSystem::GRANT_IN_SERVICE_BOOKS`); its
    /// kept fingerprint is forgotten and it takes a fresh stamp. Inlined,
    /// as these lines were in its two callers: the page's first-load list
    /// (split/first-part.txt) names the functions a cold load runs.
    #[inline(always)]
    fn service_handed(&mut self, client_side: bool) {
        self.service_moved |= !client_side || !self.service.grant_in_service_books();
        self.service_fingerprint.forget();
        self.service_stamp = fresh_stamp();
    }

    /// Hands one input to the lock system and applies what it answers.
    fn feed(&mut self, input: Input<Timer>) {
        self.service_handed(!matches!(input, Input::ServiceTimer(_) | Input::Node(..)));
        self.service
            .on_input(&self.core.view(), input, &mut self.out);
        self.core.apply(&mut self.out);
    }

    fn execute(&mut self, c: ClientId, command: Command) {
        let core = &mut self.core;
        match command {
            Command::Acquire => {
                core.set_belief(c, Belief::Acquiring);
                core.record(Event::AcquireStarted { client: c });
                self.feed(Input::Acquire(c));
            }
            Command::Write => self.send_write(c, 0),
            Command::WriteDelayed { extra_ms } => self.send_write(c, extra_ms),
            Command::Release => {
                self.feed(Input::Release(c));
                self.core.set_belief(c, Belief::Idle);
                self.core.record(Event::Released { client: c });
            }
            Command::GcPause { pause_ms } => {
                let until = core.now.plus(pause_ms);
                core.client_mut(c).paused_until = Some(until);
                let epoch = core.client(c).epoch;
                core.schedule(until.ms(), Ev::Wake { client: c, epoch });
                core.record(Event::Paused { client: c, until });
            }
            Command::Partition { scope } => {
                core.client_mut(c).partition = Some(scope);
                core.record(Event::Partitioned { client: c, scope });
            }
            Command::Heal => {
                core.client_mut(c).partition = None;
                core.record(Event::Healed { client: c });
                if !core.client(c).is_paused() {
                    self.feed(Input::Healed(c));
                }
            }
            Command::PowerOff => self.crash(c, false),
            Command::Exit => self.crash(c, true),
            Command::Restart => {
                let client = core.client_mut(c);
                // The machine's clock and network stay as they were.
                *client = Client {
                    epoch: client.epoch,
                    clock: client.clock,
                    losing: client.losing,
                    // A power-off already cleared it; a process that
                    // exited restarts on a host still cut off.
                    partition: client.partition,
                    ..Client::new(c, client.renewal)
                };
                core.record(Event::Restarted { client: c });
            }
            Command::Renewal { on } => {
                core.client_mut(c).renewal = on;
                core.record(Event::Renewal { client: c, on });
                if on {
                    self.feed(Input::RenewalOn(c));
                }
            }
            Command::ClockJump { jump_ms } => {
                let now = core.now;
                core.client_mut(c).clock.jump(now, jump_ms);
                core.record(Event::ClockJumpedOn { client: c, jump_ms });
            }
            Command::ClockRate { rate_pct } => {
                let now = core.now;
                core.client_mut(c).clock.set_rate(now, rate_pct);
                core.record(Event::ClockRate {
                    client: c,
                    rate_pct,
                });
            }
            Command::LoseMessages { on } => {
                core.client_mut(c).losing = on;
                core.record(Event::Losing { client: c, on });
            }
        }
    }

    /// The client forgets everything: its host dies (`exited` false) or
    /// its process exits on a host that stays up. The engine's part is the
    /// same; the lock system is told which, since what its server notices
    /// differs (a FIN, or silence).
    fn crash(&mut self, c: ClientId, exited: bool) {
        let core = &mut self.core;
        core.set_belief(c, Belief::Idle);
        let client = core.client_mut(c);
        *client = Client {
            epoch: client.epoch + 1,
            clock: client.clock,
            losing: client.losing,
            crashed: true,
            exited,
            // A process that exits keeps its host's network as it was.
            partition: if exited { client.partition } else { None },
            ..Client::new(c, client.renewal)
        };
        core.set_belief(c, Belief::Idle);
        if exited {
            self.feed(Input::Exited(c));
            self.core.record(Event::Exited { client: c });
        } else {
            self.feed(Input::Crashed(c));
            self.core.record(Event::Crashed { client: c });
        }
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Deliver(id) => self.deliver(id),
            Ev::Client {
                client,
                epoch,
                timer,
            } => {
                let cl = self.core.client(client);
                if cl.crashed || cl.epoch != epoch {
                    return;
                }
                if cl.is_paused() {
                    self.core
                        .client_mut(client)
                        .stash
                        .push(Stashed::Timer(timer));
                    return;
                }
                self.feed(Input::ClientTimer(client, timer));
            }
            Ev::Service(timer) => self.feed(Input::ServiceTimer(timer)),
            Ev::Wake { client, epoch } => self.wake(client, epoch),
            Ev::Resume { client, .. } => self.resume(client),
        }
    }

    fn deliver(&mut self, id: u64) {
        let Some(msg) = self.core.in_flight.remove(id) else {
            return;
        };
        let (from, to) = (msg.from, msg.to);
        let reason = if self.core.is_losing(from, to) {
            Some(DropReason::Lost)
        } else if !self.core.is_cut(from, to) {
            None
        } else if msg.retransmits < TCP_RETRIES_MAX {
            self.core.retransmit(msg);
            return;
        } else {
            Some(DropReason::TcpGaveUp)
        };
        if let Some(reason) = reason {
            self.core.record(Event::MessageDropped {
                id,
                from,
                to,
                reason,
            });
            return;
        }
        if let Endpoint::Client(c) = msg.to {
            let cl = self.core.client(c);
            if cl.crashed || cl.epoch != msg.epoch {
                return;
            }
            if cl.is_paused() {
                self.core.client_mut(c).stash.push(Stashed::Message(msg));
                return;
            }
        }
        self.receive(msg);
    }

    /// A message reaches a running client, the resource or the service.
    fn receive(&mut self, msg: Message) {
        match (msg.to, &msg.body) {
            (
                Endpoint::Client(c),
                Body::Resource(ResourceMsg::WriteReply { accepted, version }),
            ) => {
                self.core.touch(c);
                let client = self.core.client_mut(c);
                client.last_write = Some(if *accepted {
                    LastWrite::Accepted
                } else {
                    LastWrite::Rejected
                });
                // A refusal tells the writer the counter as it is now.
                if !*accepted {
                    client.read = u32::try_from(version.0).unwrap_or(u32::MAX);
                }
                // Where the data carries its own version, the reply tells the
                // writer the version it now holds: the next write names it.
                let config = &self.core.config;
                if *accepted && config.backend.fence_rule_in(config) == FenceRule::Version {
                    if let Belief::Holding { token, .. } = &mut self.core.client_mut(c).belief {
                        *token = Some(*version);
                    }
                }
            }
            (Endpoint::Resource, Body::Resource(ResourceMsg::Announce { token })) => {
                if let Endpoint::Client(client) = msg.from {
                    let seen = self.core.resource.announce(*token);
                    let token = *token;
                    self.core.record(Event::TokenAnnounced {
                        client,
                        token,
                        seen,
                    });
                }
            }
            (Endpoint::Resource, _) => self.apply_write(msg),
            // As `feed` does, without making the message a general input
            // first: an answer reaching a client is of its side.
            _ => {
                self.service_handed(matches!(msg.to, Endpoint::Client(_)));
                self.service
                    .on_message(&self.core.view(), msg, &mut self.out);
                self.core.apply(&mut self.out);
            }
        }
    }

    fn apply_write(&mut self, msg: Message) {
        let Body::Resource(ResourceMsg::Write {
            token,
            lease_key,
            value,
        }) = msg.body
        else {
            return;
        };
        let Endpoint::Client(c) = msg.from else {
            return;
        };
        let holder = self.holder();
        let standing = self.core.oracle.standing(c, lease_key, holder);
        let config = &self.core.config;
        let (fencing, rule) = (config.fencing, config.backend.fence_rule_in(config));
        let owner = Owner {
            owner: holder.map(|h| h.client),
            writer: c,
            current: holder.map(|h| (h.token, h.lease_key)),
            lease_key,
        };
        let seen = self.core.resource.seen();
        let verdict = self.core.resource.apply(fencing, rule, token, owner, value);
        let accepted = matches!(verdict, Verdict::Accepted { .. });
        self.core.client_mut(c).judged = Some(WriteJudged {
            accepted,
            standing,
            holder: holder.map(|h| h.client),
        });
        let newer = self.core.oracle.newer_grant(c, lease_key);
        self.core.oracle_changed();
        self.core.oracle.record_write(StaleWrite {
            at: self.core.now,
            client: c,
            token,
            holder: holder.map(|h| h.client),
            accepted,
            standing,
            newer,
            seen,
            reason: match verdict {
                Verdict::Rejected(reason) => Some(reason),
                Verdict::Accepted { .. } => None,
            },
            lost: match verdict {
                Verdict::Accepted { lost, .. } => lost,
                Verdict::Rejected(_) => 0,
            },
        });
        let event = match verdict {
            Verdict::Accepted { value, lost } => Event::WriteAccepted {
                client: c,
                token,
                value,
                standing,
                lost,
            },
            Verdict::Rejected(reason) => Event::WriteRejected {
                client: c,
                token,
                reason,
                standing,
            },
        };
        self.core.record(event);
        let version = Token(self.core.resource.value());
        self.core.send(
            Endpoint::Resource,
            msg.from,
            ResourceMsg::WriteReply { accepted, version }.into(),
            0,
        );
    }

    /// The pause of `c`'s incarnation `epoch` ends now (`moot` checked it
    /// is that pause's end).
    fn wake(&mut self, c: ClientId, epoch: u32) {
        self.core.client_mut(c).paused_until = None;
        self.core.touch(c);
        self.core.record(Event::Woke { client: c });
        // What was clicked during the pause runs first: the pause struck
        // between the check "I hold the lock" and the action.
        let queued = std::mem::take(&mut self.core.client_mut(c).queued);
        for command in queued {
            if check_command(self.core.client(c), command).is_ok() {
                self.execute(c, command);
            }
        }
        // Replies and timers that came due during the pause run a moment later.
        self.core
            .schedule(self.core.now.ms() + 1, Ev::Resume { client: c, epoch });
    }

    /// The moment after `c` woke, still running (`moot` checked).
    fn resume(&mut self, c: ClientId) {
        self.core.touch(c);
        let stash = std::mem::take(&mut self.core.client_mut(c).stash);
        for item in stash {
            if self.core.client(c).is_paused() {
                // A queued command paused it again: keep the rest for later.
                self.core.client_mut(c).stash.push(item);
                continue;
            }
            match item {
                Stashed::Timer(timer) => self.feed(Input::ClientTimer(c, timer)),
                Stashed::Message(msg) => self.receive(msg),
            }
        }
        if self.core.client(c).partition.is_none() {
            self.feed(Input::Healed(c));
        }
    }

    /// Records a change of the service's holder, and checks that backends
    /// promising monotonic tokens never hand out a smaller one.
    fn note_holder(&mut self) {
        // Called after every change to the run: what the views read is new.
        self.looks.forget();
        // A grant the system was asked for already, from the same state,
        // was noted then: the oracle and the last holder know it.
        if !self.service_moved && !self.service.holder_reads_clock() {
            return;
        }
        self.service_moved = false;
        // Only who holds under which grant matters here: not the times.
        let grant = self.service.grant(&self.core.view());
        let now = grant.map(|g| (g.client, g.token));
        if let Some(g) = grant {
            if self.core.oracle.note_grant(g.client, g.lease_key, g.token) {
                self.core.oracle_changed();
            }
        }
        if now == self.last_holder {
            return;
        }
        if self.monotonic_tokens() {
            if let (Some((_, Some(before))), Some((_, Some(after)))) = (self.last_holder, now) {
                assert!(
                    after >= before,
                    "token went backwards: {before} then {after} (seed {})",
                    self.core.config.seed
                );
            }
        }
        self.last_holder = now;
        self.core.record(Event::HolderChanged {
            holder: now.map(|h| h.0),
            token: now.and_then(|h| h.1),
        });
    }

    fn send_write(&mut self, c: ClientId, extra_ms: u64) {
        let core = &mut self.core;
        let Belief::Holding {
            token, lease_key, ..
        } = core.client(c).belief
        else {
            return;
        };
        let client = core.client_mut(c);
        client.last_write = Some(LastWrite::InFlight);
        client.judged = None;
        // Read-modify-write: what it read (or last wrote) plus one.
        client.read = client.read.saturating_add(1);
        let value = client.read;
        core.record(Event::WriteSent {
            client: c,
            token,
            value,
        });
        core.send(
            Endpoint::Client(c),
            Endpoint::Resource,
            ResourceMsg::Write {
                token,
                lease_key,
                value,
            }
            .into(),
            extra_ms,
        );
    }
}

/// A belief in a word, for the invariants' messages: `{:?}` would carry
/// every Debug implementation it reaches into the page.
fn belief_words(belief: Belief) -> &'static str {
    match belief {
        Belief::Idle => "idle",
        Belief::Acquiring => "acquiring",
        Belief::Waiting { .. } => "waiting",
        Belief::Holding { .. } => "holding",
    }
}

/// The rules of what a client may be asked, by its own belief.
fn check_command(client: &Client, command: Command) -> Result<(), CommandError> {
    let c = client.id;
    let queued_acquire = client.queued.contains(&Command::Acquire);
    match command {
        Command::Acquire => match client.belief {
            Belief::Holding { .. } => Err(CommandError::AlreadyHolding { client: c }),
            Belief::Acquiring | Belief::Waiting { .. } => {
                Err(CommandError::AlreadyAcquiring { client: c })
            }
            Belief::Idle if queued_acquire => Err(CommandError::AlreadyAcquiring { client: c }),
            Belief::Idle => Ok(()),
        },
        Command::Write | Command::WriteDelayed { .. } => {
            if let Command::WriteDelayed { extra_ms } = command {
                if extra_ms > SLOW_MS_MAX {
                    return Err(CommandError::DelayOutOfRange { extra_ms });
                }
            }
            match (client.belief, client.lost) {
                (Belief::Holding { .. }, _) => Ok(()),
                (Belief::Idle, Some(reason)) => Err(CommandError::LeaseGone { client: c, reason }),
                (Belief::Acquiring | Belief::Waiting { .. }, _) => {
                    Err(CommandError::NotYetGranted { client: c })
                }
                (Belief::Idle, None) => Err(CommandError::NotHolding { client: c }),
            }
        }
        Command::Release => match client.belief {
            Belief::Idle => Err(CommandError::NothingToRelease { client: c }),
            _ => Ok(()),
        },
        Command::GcPause { pause_ms } => {
            if pause_ms == 0 || pause_ms > PAUSE_MS_MAX {
                Err(CommandError::PauseOutOfRange { pause_ms })
            } else if client.is_paused() {
                Err(CommandError::AlreadyPaused { client: c })
            } else {
                Ok(())
            }
        }
        Command::Partition { .. } if client.partition.is_some() => {
            Err(CommandError::AlreadyPartitioned { client: c })
        }
        Command::Partition { .. } => Ok(()),
        Command::Heal if client.partition.is_none() => {
            Err(CommandError::NotPartitioned { client: c })
        }
        Command::Heal => Ok(()),
        Command::PowerOff | Command::Exit => Ok(()),
        Command::Restart if !client.crashed => Err(CommandError::NotCrashed { client: c }),
        Command::Restart => Ok(()),
        Command::Renewal { on } if client.renewal == on => {
            Err(CommandError::RenewalAlready { client: c, on })
        }
        Command::Renewal { .. } => Ok(()),
        Command::ClockJump { jump_ms } => {
            // unsigned_abs: i64::MIN has no positive twin, and abs() of it
            // overflows (a panic, or in the page's build a negative
            // number that passed the check).
            if jump_ms == 0 || jump_ms.unsigned_abs() > CLOCK_JUMP_MS_MAX.unsigned_abs() {
                Err(CommandError::ClockJumpOutOfRange { jump_ms })
            } else {
                Ok(())
            }
        }
        Command::ClockRate { rate_pct }
            if rate_pct.unsigned_abs() > CLOCK_RATE_PCT_MAX.unsigned_abs() =>
        {
            Err(CommandError::ClockRateOutOfRange { rate_pct })
        }
        Command::ClockRate { rate_pct } if client.clock.rate_pct() == rate_pct => {
            Err(CommandError::ClockRateAlready {
                client: c,
                rate_pct,
            })
        }
        Command::ClockRate { .. } => Ok(()),
        Command::LoseMessages { on } if client.losing == on => {
            Err(CommandError::LosingAlready { client: c, on })
        }
        Command::LoseMessages { .. } => Ok(()),
    }
}
