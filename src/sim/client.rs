//! What each client believes, and the states a visitor sees on its card.

use super::backend::{copy_list, LibrarySession};
use super::clock::Clock;
use super::fingerprint::{fresh_stamp, StableHasher};
use super::history::{LossReason, Standing};
use super::net::Message;
use super::scenario::{Command, PartitionScope};
use super::types::{ClientId, Millis, Token};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A client's belief about the lock. It can be wrong: that is the lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "belief", rename_all = "kebab-case")]
pub enum Belief {
    Idle,
    Acquiring,
    /// Queued behind another holder (ZooKeeper and etcd).
    Waiting {
        token: Option<Token>,
    },
    /// `until` is the lease end by the client's own clock, `None` when the
    /// backend gives the client no deadline (a ZooKeeper session).
    Holding {
        token: Option<Token>,
        lease_key: u64,
        since: Millis,
        until: Option<Millis>,
    },
}

impl Belief {
    pub fn is_holding(&self) -> bool {
        matches!(self, Belief::Holding { .. })
    }

    pub fn token(&self) -> Option<Token> {
        match *self {
            Belief::Waiting { token } | Belief::Holding { token, .. } => token,
            _ => None,
        }
    }
}

/// ZooKeeper's connection states, as Curator reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ZkConn {
    Connected,
    /// No reply for two thirds of the session timeout: locks should be
    /// treated as suspended, but the recipe still says "acquired".
    Suspended,
    /// The session expired; the client learns it only once it reaches the server.
    Lost,
}

impl fmt::Display for ZkConn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ZkConn::Connected => "CONNECTED",
            ZkConn::Suspended => "SUSPENDED",
            ZkConn::Lost => "LOST",
        })
    }
}

/// A Chubby client library's view of its session (OSDI '06 section 2.8):
/// its local lease runs out into jeopardy, and a grace period decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "session", rename_all = "kebab-case")]
pub enum ChubbySession {
    /// KeepAlives are answered: the local lease runs.
    Live,
    /// The local lease ran out: the cache is flushed, calls block, and the
    /// grace period runs until `grace_until`.
    Jeopardy { grace_until: Millis },
    /// A KeepAlive got through within the grace period: the session lives.
    Safe,
    /// The grace period ended without the master, or the master said the
    /// session is gone.
    Expired,
}

impl ChubbySession {
    /// Chubby's own word for it.
    pub fn word(self) -> &'static str {
        match self {
            ChubbySession::Live => "live",
            ChubbySession::Jeopardy { .. } => "jeopardy",
            ChubbySession::Safe => "safe",
            ChubbySession::Expired => "expired",
        }
    }
}

impl fmt::Display for ChubbySession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The one word a client card shows, most pressing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientState {
    Idle,
    Acquiring,
    Waiting,
    Holding,
    Paused,
    Partitioned,
    Crashed,
    Suspended,
    Lost,
    /// A Chubby session in jeopardy (its grace period running).
    Jeopardy,
    /// A Chubby session expired.
    Expired,
}

impl ClientState {
    pub fn word(self) -> &'static str {
        match self {
            ClientState::Idle => "idle",
            ClientState::Acquiring => "acquiring",
            ClientState::Waiting => "waiting",
            ClientState::Holding => "holding",
            ClientState::Paused => "paused",
            ClientState::Partitioned => "partitioned",
            ClientState::Crashed => "crashed",
            ClientState::Suspended => "SUSPENDED",
            ClientState::Lost => "LOST",
            ClientState::Jeopardy => "jeopardy",
            ClientState::Expired => "expired",
        }
    }
}

impl fmt::Display for ClientState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The result of a client's latest write, as the resource answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LastWrite {
    InFlight,
    Accepted,
    Rejected,
}

/// How the safety oracle judged a client's latest write when the resource
/// applied it. The client itself is never told: its reply says only
/// accepted or rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WriteJudged {
    pub accepted: bool,
    pub standing: Standing,
    /// Who the service said held the lock when the write landed.
    pub holder: Option<ClientId>,
}

/// Something that reached a paused client and waits for it to wake.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Stashed {
    Message(Message),
    Timer(super::backend::Timer),
}

/// A client's whole state in the engine.
#[derive(Debug, Clone)]
pub(crate) struct Client {
    pub id: ClientId,
    /// Bumped by a crash: timers and replies of the old incarnation are ignored.
    pub epoch: u32,
    pub belief: Belief,
    pub paused_until: Option<Millis>,
    pub partition: Option<PartitionScope>,
    pub crashed: bool,
    /// Its crash was its process exiting on a host that stays up (its
    /// kernel closed its sockets), not its host dying.
    pub exited: bool,
    pub renewal: bool,
    /// Commands clicked while paused, run the instant the client wakes.
    pub queued: Vec<Command>,
    pub stash: Vec<Stashed>,
    pub last_write: Option<LastWrite>,
    /// Its latest write as the oracle judged it at the resource; `None`
    /// from the moment it sends another until that one lands.
    pub judged: Option<WriteJudged>,
    /// Why its client library stopped believing it holds the lock, while
    /// it has not asked again since: it knows its lease is gone.
    pub lost: Option<LossReason>,
    /// Its own clock, by which it judges its lease.
    pub clock: Clock,
    /// Every message to or from it is lost.
    pub losing: bool,
    /// The counter as it last knew it: read when its critical section
    /// started, then what it wrote (or what a refusal told it). Its next
    /// write sends this plus one.
    pub read: u32,
    /// Its own fingerprint, worked out at the first hash after it last
    /// changed; 0 until then. Not part of its state: the engine clears it
    /// wherever it hands the client out to be changed (`Core::client_mut`).
    /// A move changes one or two clients of four, and a search
    /// fingerprints every state it makes: the others' words are kept.
    pub fingerprint: Cell<u64>,
    /// Its stamp (`fresh_stamp`): a fresh one wherever its fingerprint is
    /// cleared, its source's in a copy. Not part of its state: two clients
    /// with one stamp are the same, and a copy between them copies nothing.
    pub stamp: u64,
}

/// Hashed by hand: the finder fingerprints every client of every state it
/// meets, and a derived hash feeds each flag, each option's tag and each
/// variant a word of its own. Here they share one word, and only the values
/// that are there follow (two clients that hash the same words are the same
/// client). Every field is named, so a field added later is not missed.
impl Hash for Client {
    /// One word: the client's own fingerprint (`own_fingerprint`), kept
    /// until it changes.
    fn hash<H: Hasher>(&self, state: &mut H) {
        let mut word = self.fingerprint.get();
        if word == 0 {
            // 0 stands for "not known": a fingerprint of 0 is taken as 1.
            word = self.own_fingerprint().max(1);
            self.fingerprint.set(word);
        }
        state.write_u64(word);
    }
}

impl Client {
    /// The client's whole state hashed on its own.
    fn own_fingerprint(&self) -> u64 {
        let mut h = StableHasher::default();
        let state = &mut h;
        let Client {
            id,
            epoch,
            belief,
            paused_until,
            partition,
            crashed,
            exited,
            renewal,
            queued,
            stash,
            last_write,
            judged,
            lost,
            clock,
            losing,
            read,
            fingerprint: _,
            stamp: _,
        } = self;
        let belief_tag: u64 = match belief {
            Belief::Idle => 0,
            Belief::Acquiring => 1,
            Belief::Waiting { .. } => 2,
            Belief::Holding { .. } => 3,
        };
        let tags = id.index() as u64
            | u64::from(*crashed) << 8
            | u64::from(*exited) << 9
            | u64::from(*renewal) << 10
            | u64::from(*losing) << 11
            | belief_tag << 12
            | u64::from(paused_until.is_some()) << 14
            | partition.map_or(0, |p| p as u64 + 1) << 15
            | last_write.map_or(0, |w| w as u64 + 1) << 17
            | u64::from(judged.is_some()) << 19
            | lost.map_or(0, |r| r as u64 + 1) << 20
            | u64::from(*epoch) << 32;
        state.write_u64(tags);
        match belief {
            Belief::Idle | Belief::Acquiring => {}
            Belief::Waiting { token } => token.hash(state),
            Belief::Holding {
                token,
                lease_key,
                since,
                until,
            } => {
                token.hash(state);
                lease_key.hash(state);
                since.hash(state);
                until.hash(state);
            }
        }
        if let Some(t) = paused_until {
            t.hash(state);
        }
        if let Some(j) = judged {
            j.hash(state);
        }
        queued.hash(state);
        stash.hash(state);
        clock.hash(state);
        read.hash(state);
        h.finish()
    }
}

impl Client {
    pub fn new(id: ClientId, renewal: bool) -> Client {
        Client {
            id,
            epoch: 0,
            belief: Belief::Idle,
            paused_until: None,
            partition: None,
            crashed: false,
            exited: false,
            renewal,
            queued: Vec::new(),
            stash: Vec::new(),
            last_write: None,
            judged: None,
            lost: None,
            clock: Clock::default(),
            losing: false,
            read: 0,
            fingerprint: Cell::new(0),
            stamp: fresh_stamp(),
        }
    }

    /// Becomes `Client::new(id, renewal)` in place, keeping its lists'
    /// room: a run reset for another (the hazard explorer's next trial).
    pub fn reset(&mut self, id: ClientId, renewal: bool) {
        let (mut queued, mut stash) = (
            std::mem::take(&mut self.queued),
            std::mem::take(&mut self.stash),
        );
        queued.clear();
        stash.clear();
        *self = Client {
            queued,
            stash,
            ..Client::new(id, renewal)
        };
    }

    /// Becomes a copy of `source`, keeping its own lists' room: a derived
    /// `clone_from` would allocate them anew. Inlined where it is called,
    /// for the stamps' test: a move changes one or two clients of four.
    #[inline]
    pub fn copy_from(&mut self, source: &Client) {
        if self.stamp == source.stamp {
            // The same client.
            self.fingerprint.set(source.fingerprint.get());
        } else {
            self.copy_fields(source);
        }
    }

    /// `copy_from` of another client, field by field.
    #[inline(never)]
    fn copy_fields(&mut self, source: &Client) {
        let Client {
            id,
            epoch,
            belief,
            paused_until,
            partition,
            crashed,
            exited,
            renewal,
            queued,
            stash,
            last_write,
            judged,
            lost,
            clock,
            losing,
            read,
            fingerprint,
            stamp,
        } = self;
        (*id, *epoch, *belief, *paused_until) =
            (source.id, source.epoch, source.belief, source.paused_until);
        (*partition, *crashed, *exited, *renewal) = (
            source.partition,
            source.crashed,
            source.exited,
            source.renewal,
        );
        // Most clients have neither: an empty copy's call to copy no bytes
        // was a tenth of the whole copy's instructions.
        copy_list(queued, &source.queued);
        copy_list(stash, &source.stash);
        (*last_write, *judged, *lost) = (source.last_write, source.judged, source.lost);
        *clock = source.clock;
        (*losing, *read) = (source.losing, source.read);
        fingerprint.set(source.fingerprint.get());
        *stamp = source.stamp;
    }

    pub fn is_paused(&self) -> bool {
        self.paused_until.is_some()
    }

    /// Its host is down: crashed by a power-off, not restarted since. A
    /// process that exited leaves a host whose kernel still answers.
    pub fn host_down(&self) -> bool {
        self.crashed && !self.exited
    }

    /// The card's word, given what its library says of its session (the
    /// lock system keeps that in its own books).
    pub fn state(&self, session: Option<LibrarySession>) -> ClientState {
        if self.crashed {
            return ClientState::Crashed;
        }
        if self.is_paused() {
            return ClientState::Paused;
        }
        match session {
            Some(LibrarySession::Zk(ZkConn::Lost)) => return ClientState::Lost,
            Some(LibrarySession::Zk(ZkConn::Suspended)) => return ClientState::Suspended,
            Some(LibrarySession::Chubby(ChubbySession::Jeopardy { .. })) => {
                return ClientState::Jeopardy
            }
            Some(LibrarySession::Chubby(ChubbySession::Expired)) => return ClientState::Expired,
            _ => {}
        }
        if self.partition.is_some() {
            return ClientState::Partitioned;
        }
        match self.belief {
            Belief::Idle => ClientState::Idle,
            Belief::Acquiring => ClientState::Acquiring,
            Belief::Waiting { .. } => ClientState::Waiting,
            Belief::Holding { .. } => ClientState::Holding,
        }
    }
}

/// What the page shows on a client card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientView {
    pub id: ClientId,
    pub state: ClientState,
    pub belief: Belief,
    pub paused_until: Option<Millis>,
    pub partition: Option<PartitionScope>,
    pub crashed: bool,
    /// Crashed by its process exiting; its host is up.
    #[serde(default)]
    pub exited: bool,
    pub renewal: bool,
    pub zk_conn: Option<ZkConn>,
    /// A Chubby client's session, as its library reports it.
    pub chubby: Option<ChubbySession>,
    pub queued: Vec<Command>,
    pub last_write: Option<LastWrite>,
    /// Its latest write as the oracle judged it where it landed.
    pub judged: Option<WriteJudged>,
    /// Why its library knows its lease is gone, until it asks again.
    pub lost: Option<LossReason>,
    /// The lease end the service holds for this client, if it holds one.
    pub service_until: Option<Millis>,
    /// True when the client believes it holds but the service has no lease
    /// for it or has granted the lock to someone else.
    pub stale: bool,
    /// How far its own clock reads from true time, and how fast it runs.
    pub clock_offset_ms: i64,
    pub clock_rate_pct: i32,
    pub losing: bool,
    /// The counter as it last knew it (read when its critical section
    /// started): its next write sends this plus one.
    #[serde(default)]
    pub read: u32,
}
