//! The lock systems. Each is a folder: `NAME/mod.rs` is its model, a state
//! machine that takes an input and answers with effects, with its own
//! messages, timers and panel detail; `NAME/real_client.rs` beside it is
//! what its real client sends and runs. `with_lock_systems!` at the foot of
//! this file is the one list of them.
//!
//! Beside them: `real_client.rs` holds what the real clients share (the
//! `RealClient` trait, the book that carries a run's names, the dispatch
//! over the list); `queue.rs` is the waiting line ZooKeeper and etcd share,
//! one recipe in one file; `redis_node/` is the Redis server both Redis
//! systems run, with the commands both their clients send in its own
//! `real_client.rs`.

mod chubby;
mod consul;
mod dynamodb;
mod etcd;
mod postgres;
mod queue;
mod real_client;
mod redis;
mod redis_node;
mod redlock;
mod zookeeper;

pub use chubby::{
    chubby_scaled_ms, ChubbyDetail, ChubbyHolderView, ChubbyMsg, ChubbySessionView,
    CHUBBY_ELECTION_MS_MAX, CHUBBY_ELECTION_MS_MIN, CHUBBY_GRACE_MS, CHUBBY_LEASE_MS,
};
pub use consul::{
    election_max_ms, lock_delay_ms, rpc_hold_ms, session_words, AcquireResult, ConsulClientView,
    ConsulDetail, ConsulKeyView, ConsulMsg, ConsulOptions, ConsulPhase, ConsulSessionView,
    ConsulToken, GetPurpose, KeyCleanup, CONSUL_SESSION_TTL_MS, LOCK_DELAY_S_DEFAULT,
    LOCK_DELAY_S_MAX, MONITOR_RETRIES_MAX, SESSION_TTL_MULTIPLIER,
};
pub use dynamodb::{
    rvn_text, DynamoDetail, DynamoHolderView, DynamoItemView, DynamoMsg, DynamoWatchView, ItemSeen,
};
pub use etcd::{granted_ttl_ms, EtcdDetail, EtcdKeyView, EtcdMsg, LeaseView, ETCD_TTL_MS_MIN};
pub use postgres::{
    PgBackendView, PgClientConn, PgDetail, PgLockRow, PgMsg, PgState, PG_LOCK_KEY,
    PG_MAX_CONNECTIONS,
};
pub(crate) use real_client::Listing;
pub use real_client::RealClientBook;
pub use redis::{RedisDetail, RedisServerView, SingleRedisMsg, REDISSON_RETRY_ATTEMPTS};
pub use redlock::{drift_ms, validity_ms, RedisKeyView, RedisMsg, RedisNodeView, RedlockDetail};
pub use zookeeper::{negotiated_timeout_ms, SessionView, ZkDetail, ZkMsg, ZnodeView};

use super::client::{ChubbySession, ZkConn};
use super::effects::{Effects, Input, View};
use super::error::CommandError;
use super::net::{Body, Endpoint, Message};
use super::resource::FenceRule;
use super::scenario::{Command, Config, NodeCommand};
use super::types::{ClientId, FenceMode, Millis, NodeId, Token};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::hash::Hash;

/// What a client library says of its session beyond the client's belief.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibrarySession {
    /// ZooKeeper's connection state, as Curator reports it.
    Zk(ZkConn),
    /// A Chubby client library's view of its session.
    Chubby(ChubbySession),
}

/// Who the service says holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HolderView {
    pub client: ClientId,
    pub token: Option<Token>,
    /// The grant's identity: etcd create_revision, znode sequence, Redis value.
    pub lease_key: u64,
    pub since: Millis,
    /// When the service will let the lease go unless it is renewed.
    pub until: Option<Millis>,
}

/// Who the service says holds the lock and under which grant: a holder
/// without its times, which the engine asks for after every event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grant {
    pub client: ClientId,
    pub token: Option<Token>,
    /// The grant's identity, as in `HolderView`.
    pub lease_key: u64,
}

impl From<HolderView> for Grant {
    fn from(h: HolderView) -> Grant {
        Grant {
            client: h.client,
            token: h.token,
            lease_key: h.lease_key,
        }
    }
}

/// What a lock system is: a state machine over its own messages and timers.
pub(crate) trait LockSystem: Clone + fmt::Debug + Hash {
    type Msg: Copy + fmt::Debug + PartialEq + Eq + Hash + Serialize;
    type Timer: Copy + fmt::Debug + PartialEq + Eq + Hash;
    type Detail: Clone + fmt::Debug + PartialEq + Eq + Serialize;

    /// The name the page shows.
    const NAME: &'static str;
    /// What a lease is called in this system.
    const LEASE_WORD: &'static str;
    /// One-way latency between a client and the service, microseconds at scale 1.
    const LATENCY_US: (u64, u64);
    /// Whether every grant carries a token larger than the last one.
    const MONOTONIC_TOKENS: bool;
    /// The token in a few words, for the comparison: "create_revision".
    const TOKEN_SHORT: &'static str;
    /// The check "in the same transaction" as this system's clients write
    /// it (a resource fencing by `FenceRule::LockHeld` runs it); `None`
    /// where no client checks the lock that way.
    const HELD_CHECK: Option<&'static str> = None;
    /// The fencing modes the resource can use with this system, the one
    /// its clients and docs describe first (docs/fencing.md).
    const FENCE_MODES: &'static [FenceMode] =
        &[FenceMode::Highest, FenceMode::Check, FenceMode::Takeover];
    /// How `FenceMode::Check` checks a write: in the same transaction as
    /// the write, the lock still holds the writer's grant.
    const FENCE_CHECK: FenceRule = FenceRule::LockHeld;
    /// Whether the lock and the data live in one server, so that a client
    /// cut off from the lock service is cut off from the data too.
    const RESOURCE_IN_SERVICE: bool = false;
    /// Whether the lock is a lease that runs out unless it is renewed.
    /// PostgreSQL's advisory lock is not: it lasts as long as its session.
    const LEASED: bool = true;

    fn new(config: &Config) -> Self;
    /// Whether every grant's token is at least the last one with these
    /// settings (Consul's LockIndex restarts when its key is deleted).
    fn monotonic_tokens_in(_config: &Config) -> bool {
        Self::MONOTONIC_TOKENS
    }
    /// The mode the system's docs describe, with these settings (Consul's
    /// depends on the token the application carries).
    fn documented_fence_in(_config: &Config) -> FenceMode {
        Self::FENCE_MODES[0]
    }
    /// How `FenceMode::Check` checks a write with these settings.
    fn fence_check_in(_config: &Config) -> FenceRule {
        Self::FENCE_CHECK
    }
    /// The period of the server's own expiry checks with these settings,
    /// on its clock from its start, where it has one: a lease ends at the
    /// first check after it runs out (etcd's lessor every 500 ms,
    /// ZooKeeper's session buckets every tick). The pause that corrupts
    /// soonest outlives a lease that runs out just on a check.
    fn expiry_checks_ms(_config: &Config) -> Option<u64> {
        None
    }
    /// Everything but a message: commands, timers, faults. A message goes
    /// to `on_request` or `on_answer` (`on_message`).
    fn on_input(&mut self, view: &View, input: Input<Self::Timer>, out: &mut Effects);
    /// Whether `timer`, due now (client `c`'s, or the service's when
    /// `None`), would find nothing to do if handed over: no answer, no
    /// record, no draw, no change to the system. The engine then drops it
    /// unrun, as a cancelled timer (a keepalive or a release left it
    /// behind). Saying false is always right; true only where it is sure.
    fn timer_moot(&self, _view: &View, _c: Option<ClientId>, _timer: Self::Timer) -> bool {
        false
    }
    /// A client's message reaching the service at `at` (the service, or
    /// one of Redlock's nodes).
    fn on_request(
        &mut self,
        view: &View,
        c: ClientId,
        at: Endpoint,
        body: Self::Msg,
        out: &mut Effects,
    );
    /// The service's answer reaching client `c`.
    fn on_answer(&mut self, view: &View, c: ClientId, body: Self::Msg, out: &mut Effects);
    /// Routes a message by its ends: a client's to the service side, the
    /// service side's to a client.
    fn on_message(
        &mut self,
        view: &View,
        from: Endpoint,
        to: Endpoint,
        body: Self::Msg,
        out: &mut Effects,
    ) {
        match (from, to) {
            (Endpoint::Client(c), at @ (Endpoint::Service | Endpoint::Node(_))) => {
                self.on_request(view, c, at, body, out)
            }
            (Endpoint::Service | Endpoint::Node(_), Endpoint::Client(c)) => {
                self.on_answer(view, c, body, out)
            }
            _ => {}
        }
    }
    fn holder(&self, view: &View) -> Option<HolderView>;
    /// The holder without its times, asked for after every event: a system
    /// whose times cost a lookup or a sort answers without them.
    fn grant(&self, view: &View) -> Option<Grant> {
        self.holder(view).map(Grant::from)
    }
    /// The service-side end of `c`'s lease, if the service holds one for it.
    fn lease_end(&self, view: &View, c: ClientId) -> Option<Millis>;
    /// Whether `holder` and `lease_end` read the clock (a key that expires
    /// lazily, by the time it is read at) and not only the system's state:
    /// the engine keeps their answers from one change of the run to the
    /// next, and forgets them as the clock moves when this is true.
    const HOLDER_READS_CLOCK: bool = false;
    /// Whether `grant` reads the service's books alone, which only the
    /// service side changes (a request reaching the service, a timer of
    /// the service, a node command): then a client's input (a command, a
    /// timer of its library, a crash, a heal) and an answer reaching a
    /// client, which change the client's side of the system only, never
    /// move the grant, and the engine does not ask for it after them.
    /// Saying false is always right.
    const GRANT_IN_SERVICE_BOOKS: bool = false;
    /// The system's own books, for the lock-service panel.
    fn detail(&self, view: &View) -> Self::Detail;
    /// Whether the system runs as one replicated service whose only node
    /// command is an instant leader failover (`Input::Node(_, Failover)`).
    const LEADER_FAILOVER: bool = false;
    /// Whether a node command would be accepted now.
    fn check_node(&self, _node: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Failover if Self::LEADER_FAILOVER => Ok(()),
            _ => Err(CommandError::NoNodes { system: Self::NAME }),
        }
    }
    /// Whether this system offers a client command at all (PostgreSQL has
    /// no lease to renew); the engine has checked the client's own state.
    fn check_command(&self, _c: ClientId, _cmd: Command) -> Result<(), CommandError> {
        Ok(())
    }
    /// A short label for one of its messages, as drawn in flight.
    fn label(msg: &Self::Msg) -> String;
    /// Whether the message renews a lease or a session (the Code view's
    /// "renew" line).
    fn renews(msg: &Self::Msg) -> bool;
    /// Whether the message gives the lock back (the Code view's "release").
    fn releases(msg: &Self::Msg) -> bool;
    /// What client `c`'s library says of its session beyond its belief,
    /// from the system's own books.
    fn library_session(&self, _c: ClientId) -> Option<LibrarySession> {
        None
    }
    /// Whether the message is the service confirming a session is alive.
    fn confirms_session(_msg: &Self::Msg) -> bool {
        false
    }
    /// Whether the message is a client's value-checked release, which a
    /// stale client can still send into another's lock.
    fn is_unlock(_msg: &Self::Msg) -> bool {
        false
    }
    /// How long the lock stays with a holder that has gone silent (paused,
    /// cut off, crashed) before another client can have it: the TTL unless
    /// the system waits longer.
    fn silent_holder_ms(config: &Config) -> u64 {
        config.ttl_ms
    }
    /// The Redlock validity budget of a client acquiring or holding.
    fn validity(&self, _view: &View, _c: ClientId) -> Option<Validity> {
        None
    }
    /// What the service noticed of crashed client `c`, for its card:
    /// `exited` tells a process exit (its kernel closed its connections)
    /// from a host that died (silence). Each system says it in its words.
    fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String;
}

/// Makes `into` a copy of `from`, keeping `into`'s buffer: a search copies
/// a state into one it is done with for every move it tries, and a fresh
/// map (what a derived `clone_from` makes) allocates again.
pub(crate) fn copy_map<K: Clone, V: Clone>(
    into: &mut litemap::LiteMap<K, V>,
    from: &litemap::LiteMap<K, V>,
) {
    if into.is_empty() && from.is_empty() {
        return;
    }
    let mut store = std::mem::take(into).into_tuple_vec();
    // Entry by entry into those already there: a value that owns a list
    // (a key's watchers) keeps its room.
    from.as_slice().clone_into(&mut store);
    *into = litemap::LiteMap::from_sorted_store_unchecked(store);
}

/// `into.clone_from(from)`, but nothing at all where both are empty (most
/// runs find no stale write and no overlap, most clients have no command
/// queued and nothing stashed): the copy's call to copy no bytes cost as
/// much as a short copy.
pub(crate) fn copy_list<T: Clone>(into: &mut Vec<T>, from: &[T]) {
    if !(into.is_empty() && from.is_empty()) {
        from.clone_into(into);
    }
}

/// A crash note for a system whose server ends nothing early: what it
/// noticed (`first`), then what is left to run out and when.
pub(crate) fn lease_note(first: &str, rest: &str, until: Option<Millis>) -> String {
    match until {
        Some(t) => format!("{first}: {rest} (at t={})", seconds_1(t)),
        None => format!("{first}: nothing of its is left to run out"),
    }
}

/// "12.3 s", rounded down to the tenth as the cards print times.
pub(crate) fn seconds_1(t: Millis) -> String {
    format!("{}.{} s", t.ms() / 1_000, t.ms() % 1_000 / 100)
}

/// Redlock's budget while acquiring or holding: what is left of the TTL
/// after the time the acquisition took and the allowance for clock drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validity {
    pub ttl_ms: u64,
    pub elapsed_ms: u64,
    pub drift_ms: u64,
    /// ttl - elapsed - drift, by the client's own clock.
    pub left_ms: i64,
}

/// The next value of a counter that messages or timers carry in 32 bits (a
/// round, a revision, a call id): that lets each lock system's message fit
/// in 24 bytes (single Redis's wrapper in 32), and keeps the values the
/// engine moves for each event small. A counter steps once per request,
/// write or timer at most, so a run would need billions of them to reach
/// the limit; it stops there, saying so, rather than wrap around and
/// mistake a new value for an old one.
pub(crate) fn count_up(counter: &mut u32) -> u32 {
    *counter = counter
        .checked_add(1)
        .expect("a 32-bit counter of the lock system ran out");
    *counter
}

/// A duration that a message carries in 32 bits of milliseconds. Each is
/// bounded by the run's settings (a TTL of at most 60 s), far below the 49
/// days that 32 bits hold.
pub(crate) fn ms32(ms: u64) -> u32 {
    // `ok().expect` would trip clippy and `expect` would link the error's
    // Debug formatting into the page; a match does neither.
    match u32::try_from(ms) {
        Ok(ms) => ms,
        Err(_) => panic!("a duration in a message fits in 32 bits of milliseconds"),
    }
}

/// How often a client renews: every third of the lease, as etcd's keepalive,
/// ZooKeeper's ping and Redlock auto-extension libraries do.
pub(crate) fn renew_every_ms(ttl_ms: u64) -> u64 {
    (ttl_ms / 3).max(1)
}

macro_rules! lock_systems {
    ($($variant:ident($slug:literal) => $module:ident::$system:ident($msg:ident, $detail:ident)),* $(,)?) => {
        /// Which lock service the clients talk to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Backend {
            $(#[serde(rename = $slug)] $variant,)*
        }

        const BACKEND_COUNT: usize = [$($slug),*].len();

        impl Backend {
            pub const ALL: [Backend; BACKEND_COUNT] = [$(Backend::$variant),*];

            pub fn name(self) -> &'static str {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::NAME,)* }
            }

            pub fn slug(self) -> &'static str {
                match self { $(Backend::$variant => $slug,)* }
            }

            /// What a lease is called in this backend.
            pub fn lease_word(self) -> &'static str {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::LEASE_WORD,)* }
            }

            /// Whether the backend promises tokens that only grow.
            pub fn monotonic_tokens(self) -> bool {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::MONOTONIC_TOKENS,)* }
            }

            /// Whether tokens only grow with this run's settings.
            pub fn monotonic_tokens_in(self, config: &Config) -> bool {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::monotonic_tokens_in(config),)* }
            }

            /// The token in a few words.
            pub fn token_short(self) -> &'static str {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::TOKEN_SHORT,)* }
            }

            /// The lock check in one transaction, in its clients' words.
            pub fn held_check(self) -> Option<&'static str> {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::HELD_CHECK,)* }
            }

            /// The fencing modes this system offers, the documented one first.
            pub fn fence_modes(self) -> &'static [FenceMode] {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::FENCE_MODES,)* }
            }

            /// How `FenceMode::Check` checks a write, whatever the settings.
            pub fn fence_check(self) -> FenceRule {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::FENCE_CHECK,)* }
            }

            /// The period of the server's own expiry checks with these
            /// settings, where it has one (`LockSystem::expiry_checks_ms`).
            pub fn expiry_checks_ms(self, config: &Config) -> Option<u64> {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::expiry_checks_ms(config),)* }
            }

            /// The fencing mode this system's docs describe, with these settings.
            pub fn documented_fence(self, config: &Config) -> FenceMode {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::documented_fence_in(config),)* }
            }

            /// The mode the run fences with: the configured one where this
            /// system offers it, else (a system switched under a mode it
            /// lacks) the documented one.
            pub fn fence_mode_in(self, config: &Config) -> FenceMode {
                match config.fence {
                    mode if self.fence_modes().contains(&mode) => mode,
                    _ => self.documented_fence(config),
                }
            }

            /// How the resource checks a write with this run's settings.
            pub fn fence_rule_in(self, config: &Config) -> FenceRule {
                match self.fence_mode_in(config) {
                    FenceMode::Check => match self { $(Backend::$variant => <$module::$system as LockSystem>::fence_check_in(config),)* },
                    FenceMode::Version => FenceRule::Version,
                    _ => FenceRule::Highest,
                }
            }

            /// Whether the lock and the data live in one server.
            pub fn resource_in_service(self) -> bool {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::RESOURCE_IN_SERVICE,)* }
            }

            /// Whether the lock is a lease that runs out unless renewed.
            pub fn leased(self) -> bool {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::LEASED,)* }
            }

            /// How long the lock stays with a silent holder with these settings.
            pub fn silent_holder_ms(self, config: &Config) -> u64 {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::silent_holder_ms(config),)* }
            }

            pub(crate) fn latency_us(self) -> (u64, u64) {
                match self { $(Backend::$variant => <$module::$system as LockSystem>::LATENCY_US,)* }
            }
        }

        /// A message of one lock system.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum Msg {
            $($variant($module::$msg),)*
        }

        $(impl From<$module::$msg> for Body {
            fn from(m: $module::$msg) -> Body {
                Body::Lock(Msg::$variant(m))
            }
        })*

        impl Msg {
            pub fn label(&self) -> String {
                match self { $(Msg::$variant(m) => <$module::$system as LockSystem>::label(m),)* }
            }

            pub fn confirms_session(&self) -> bool {
                match self { $(Msg::$variant(m) => <$module::$system as LockSystem>::confirms_session(m),)* }
            }

            /// Whether it renews a lease or a session.
            pub fn renews(&self) -> bool {
                match self { $(Msg::$variant(m) => <$module::$system as LockSystem>::renews(m),)* }
            }

            /// Whether it gives the lock back.
            pub fn releases(&self) -> bool {
                match self { $(Msg::$variant(m) => <$module::$system as LockSystem>::releases(m),)* }
            }

            /// Whether it is a client's value-checked release.
            pub fn is_unlock(&self) -> bool {
                match self { $(Msg::$variant(m) => <$module::$system as LockSystem>::is_unlock(m),)* }
            }
        }

        /// A timer of one lock system.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum Timer {
            $($variant(<$module::$system as LockSystem>::Timer),)*
        }

        $(impl From<<$module::$system as LockSystem>::Timer> for Timer {
            fn from(t: <$module::$system as LockSystem>::Timer) -> Timer {
                Timer::$variant(t)
            }
        })*

        /// The backend's internals, for the lock-service panel.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(tag = "backend")]
        pub enum ServiceDetail {
            $(#[serde(rename = $slug)] $variant($module::$detail),)*
        }

        /// The running lock system, as one cloneable value.
        #[derive(Debug, Hash)]
        pub(crate) enum Service {
            $($variant(Box<$module::$system>),)*
        }

        impl Clone for Service {
            fn clone(&self) -> Service {
                match self {
                    $(Service::$variant(s) => Service::$variant(s.clone()),)*
                }
            }

            /// Into the same system's box where it is one: a search copies
            /// a state into one it is done with for every move it tries.
            fn clone_from(&mut self, source: &Service) {
                match (self, source) {
                    $((Service::$variant(into), Service::$variant(from)) => into.clone_from(from),)*
                    (this, _) => *this = source.clone(),
                }
            }
        }

        impl Service {
            pub fn new(config: &Config) -> Service {
                match config.backend {
                    $(Backend::$variant => Service::$variant(Box::new(<$module::$system as LockSystem>::new(config))),)*
                }
            }

            /// Becomes `Service::new(config)`, into the same system's box
            /// where it is one: a run reset for another (the hazard
            /// explorer's next trial) allocates no new box.
            pub fn reset(&mut self, config: &Config) {
                match (self, config.backend) {
                    $((Service::$variant(s), Backend::$variant) => **s = <$module::$system as LockSystem>::new(config),)*
                    (this, _) => *this = Service::new(config),
                }
            }

            /// Hands the input to the system; a timer of another system
            /// cannot reach it and is ignored.
            pub fn on_input(&mut self, view: &View, input: Input<Timer>, out: &mut Effects) {
                match self {
                    $(Service::$variant(s) => {
                        let narrowed = input.narrow(
                            |t| match t { Timer::$variant(t) => Some(t), #[allow(unreachable_patterns)] _ => None },
                        );
                        if let Some(input) = narrowed {
                            s.on_input(view, input, out);
                        }
                    })*
                }
            }

            /// Whether a timer due now would find nothing to do
            /// (`LockSystem::timer_moot`).
            pub fn timer_moot(&self, view: &View, c: Option<ClientId>, timer: Timer) -> bool {
                match (self, timer) {
                    $((Service::$variant(s), Timer::$variant(t)) => s.timer_moot(view, c, t),)*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }

            /// Hands a message to the system, narrowed straight from the
            /// network (messages are most inputs, and building a general input
            /// only to narrow it cost a copy and a match); a message of
            /// another system is ignored.
            pub fn on_message(&mut self, view: &View, msg: Message, out: &mut Effects) {
                match (self, msg.body) {
                    $((Service::$variant(s), Body::Lock(Msg::$variant(body))) => {
                        s.on_message(view, msg.from, msg.to, body, out);
                    })*
                    _ => {}
                }
            }

            pub fn holder(&self, view: &View) -> Option<HolderView> {
                match self { $(Service::$variant(s) => s.holder(view),)* }
            }

            pub fn grant(&self, view: &View) -> Option<Grant> {
                match self { $(Service::$variant(s) => s.grant(view),)* }
            }

            pub fn lease_end(&self, view: &View, c: ClientId) -> Option<Millis> {
                match self { $(Service::$variant(s) => s.lease_end(view, c),)* }
            }

            pub fn holder_reads_clock(&self) -> bool {
                match self { $(Service::$variant(_) => <$module::$system as LockSystem>::HOLDER_READS_CLOCK,)* }
            }

            /// Whether only the service side moves the grant
            /// (`LockSystem::GRANT_IN_SERVICE_BOOKS`).
            pub fn grant_in_service_books(&self) -> bool {
                match self { $(Service::$variant(_) => <$module::$system as LockSystem>::GRANT_IN_SERVICE_BOOKS,)* }
            }

            pub fn detail(&self, view: &View) -> ServiceDetail {
                match self { $(Service::$variant(s) => ServiceDetail::$variant(s.detail(view)),)* }
            }

            pub fn check_node(&self, node: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
                match self { $(Service::$variant(s) => s.check_node(node, cmd),)* }
            }

            pub fn check_command(&self, c: ClientId, cmd: Command) -> Result<(), CommandError> {
                match self { $(Service::$variant(s) => s.check_command(c, cmd),)* }
            }

            pub fn validity(&self, view: &View, c: ClientId) -> Option<Validity> {
                match self { $(Service::$variant(s) => s.validity(view, c),)* }
            }

            pub fn library_session(&self, c: ClientId) -> Option<LibrarySession> {
                match self { $(Service::$variant(s) => s.library_session(c),)* }
            }

            pub fn crash_note(&self, view: &View, c: ClientId, exited: bool) -> String {
                match self { $(Service::$variant(s) => s.crash_note(view, c, exited),)* }
            }
        }
    };
}

/// The one list of lock systems: each line is a system's variant, its slug
/// in links, and its folder's system, message and detail types.
/// `with_lock_systems!(m)` hands the list to macro `m`, so that what is
/// built for every system elsewhere (the real clients' text and the Code
/// view in `real_client.rs`, the panels in `ui::service_panel`) is built
/// from this list too: a ninth system is a line here, its folder, and its
/// panel.
macro_rules! with_lock_systems {
    ($then:ident) => {
        $then! {
            Redis("redis") => redis::Redis(SingleRedisMsg, RedisDetail),
            Redlock("redlock") => redlock::Redlock(RedisMsg, RedlockDetail),
            ZooKeeper("zookeeper") => zookeeper::ZooKeeper(ZkMsg, ZkDetail),
            Etcd("etcd") => etcd::Etcd(EtcdMsg, EtcdDetail),
            Chubby("chubby") => chubby::Chubby(ChubbyMsg, ChubbyDetail),
            Consul("consul") => consul::Consul(ConsulMsg, ConsulDetail),
            DynamoDb("dynamodb") => dynamodb::DynamoDb(DynamoMsg, DynamoDetail),
            Postgres("postgresql") => postgres::Postgres(PgMsg, PgDetail),
        }
    };
}
pub(crate) use with_lock_systems;

with_lock_systems!(lock_systems);

// A message of any lock system: the largest one's 32 bytes, with `Msg`'s
// tag packed into that message's own. The engine copies each message into
// the history and moves it through the effects and the network.
const _: () = assert!(size_of::<Msg>() <= 32);

impl Backend {
    pub fn from_slug(slug: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.slug() == slug)
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The lock system's own random stream (lease ids, lock values): its own
/// ChaCha stream of the master seed, so drawing here never shifts the
/// network's latencies.
#[derive(Debug)]
pub(crate) struct ServiceRng(super::rng::ChaCha8Rng);

impl Clone for ServiceRng {
    fn clone(&self) -> ServiceRng {
        ServiceRng(self.0.clone())
    }

    /// `ChaCha8Rng::copy_from`: most of the finder's copies of a lock
    /// system find its stream where the source's is (it draws only for a
    /// new lease or lock value).
    fn clone_from(&mut self, source: &ServiceRng) {
        self.0.copy_from(&source.0);
    }
}

impl ServiceRng {
    const STREAM: u64 = 2;

    pub fn new(seed: super::types::Seed) -> ServiceRng {
        use rand::SeedableRng;
        let mut rng = super::rng::ChaCha8Rng::seed_from_u64(seed.0);
        rng.set_stream(Self::STREAM);
        ServiceRng(rng)
    }

    /// A uniform draw in `lo..=hi`.
    pub fn draw(&mut self, lo: u64, hi: u64) -> u64 {
        use rand::RngExt;
        self.0.random_range(lo..=hi)
    }
}

impl Hash for ServiceRng {
    /// The stream's position stands for its whole state: its seed is the
    /// configuration's, which the run's fingerprint starts with.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.get_word_pos().hash(state);
    }
}
