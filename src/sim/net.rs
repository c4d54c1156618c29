//! Messages that travel: who talks to whom, what they carry, how long it takes.

use super::backend::{Backend, Msg};
use super::fingerprint::{fresh_stamp, KeptFingerprint, StableHasher};
use super::history::sentences::TokenWords;
use super::types::{ClientId, Millis, NodeId, Token};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One end of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Endpoint {
    Client(ClientId),
    /// The ZooKeeper ensemble or the etcd cluster, seen as one service.
    Service,
    /// One Redis node of Redlock.
    Node(NodeId),
    Resource,
}

impl Endpoint {
    pub fn client(self) -> Option<ClientId> {
        match self {
            Endpoint::Client(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Client(c) => write!(f, "{c}"),
            Endpoint::Service => f.write_str("the lock service"),
            Endpoint::Node(n) => write!(f, "Redis {n}"),
            Endpoint::Resource => f.write_str("the resource"),
        }
    }
}

/// What a message carries: a lock system's own request or answer, or a
/// write and its answer at the resource. Plain data, so copying one for the
/// history is a copy of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Body {
    Lock(Msg),
    Resource(ResourceMsg),
}

// A resource message fits beside a lock system's in the same 40 bytes (a
// write carries its token, its grant and the counter value it computed).
const _: () = assert!(size_of::<Body>() <= 40);

/// What the resource is sent and answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ResourceMsg {
    /// `lease_key` identifies the grant the writer believes it has; only the
    /// safety oracle reads it, the resource sees the token alone.
    /// `value` is what the writer read when its critical section started,
    /// plus one for each write it has sent since. A run has at most 1,000
    /// commands, so 32 bits hold it.
    Write {
        token: Option<Token>,
        lease_key: u64,
        value: u32,
    },
    /// `version` is the data's version after the write (its counter's value).
    WriteReply { accepted: bool, version: Token },
    /// A new holder's token, sent the moment it is granted the lock when
    /// `Announce::On`: the resource raises the highest token it has seen.
    /// It changes no data and gets no answer.
    Announce { token: Token },
}

impl From<ResourceMsg> for Body {
    fn from(m: ResourceMsg) -> Body {
        Body::Resource(m)
    }
}

impl Body {
    /// A short label for the message as drawn in flight.
    pub fn label(&self) -> String {
        self.label_in(TokenWords::Granted)
    }

    /// The label, with what a write carries worded as `words` says:
    /// "write, token 3", or "write, no token, row version 0".
    pub fn label_in(&self, words: TokenWords) -> String {
        match self {
            Body::Lock(m) => m.label(),
            Body::Resource(ResourceMsg::Write { token, .. }) => {
                format!("write, {}", words.carried(*token))
            }
            Body::Resource(ResourceMsg::WriteReply { accepted: true, .. }) => "accepted".into(),
            Body::Resource(ResourceMsg::WriteReply {
                accepted: false, ..
            }) => "rejected".into(),
            Body::Resource(ResourceMsg::Announce { token }) => format!("announce, token {token}"),
        }
    }

    /// Whether the message is the service confirming a session is alive.
    pub fn confirms_session(&self) -> bool {
        matches!(self, Body::Lock(m) if m.confirms_session())
    }
}

/// A message in flight, from its sending to its arrival or loss. Plain
/// data: a copy of the messages in flight is a copy of their bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub id: u64,
    pub from: Endpoint,
    pub to: Endpoint,
    pub sent_at: Millis,
    /// When it arrives (or, held by TCP, its next try).
    pub deliver_at: Millis,
    pub body: Body,
    /// How many times TCP has sent it again because a partition cut it off.
    pub retransmits: u32,
    /// The receiving client's incarnation when sent: a restart makes old replies moot.
    pub(crate) epoch: u32,
}

// Put in flight and taken out of it for every message.
const _: () = assert!(size_of::<Message>() <= 80);

const _: () = assert!(ClientId::COUNT <= 16 && NodeId::COUNT <= 16);

impl Endpoint {
    /// Which end, in one byte: the kind in the high nibble, a client's or
    /// a node's number in the low one.
    fn code(self) -> u64 {
        match self {
            Endpoint::Client(c) => c.index() as u64,
            Endpoint::Service => 0x10,
            Endpoint::Node(n) => 0x20 | n.index() as u64,
            Endpoint::Resource => 0x30,
        }
    }
}

/// Hashed by hand: the finder fingerprints every message in flight of
/// every state it makes, and a derived hash gives each end's tag and
/// number, the retries and the epoch a word each. Here both ends and the
/// epoch share one word. Every field is named, so a field added later is
/// not missed.
impl Hash for Message {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Message {
            id,
            from,
            to,
            sent_at,
            deliver_at,
            body,
            retransmits,
            epoch,
        } = self;
        state.write_u64(*id);
        state.write_u64(from.code() | to.code() << 8 | u64::from(*epoch) << 32);
        state.write_u64(sent_at.ms());
        state.write_u64(deliver_at.ms());
        state.write_u32(*retransmits);
        body.hash(state);
    }
}

/// The messages in flight, by id. Ids are handed out in sending order
/// and most messages arrive within milliseconds, so those wait in a deque:
/// a new one joins at the back and an arriving one is found near the front,
/// with little copying (a tree map of whole messages cost about 350
/// instructions a message). A message TCP holds for a partition can wait
/// minutes while thousands pass; those wait in a small sorted map, so the
/// deque stays short.
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight {
    /// Never retransmitted, in id order.
    sent: VecDeque<Message>,
    /// Sent again by TCP at least once.
    held: LiteMap<u64, Message>,
    /// The messages' own fingerprint, kept until they change (every
    /// change below forgets it). Most of a search's moves (a pause, a
    /// clock jump) send nothing and deliver nothing.
    fingerprint: KeptFingerprint,
    /// Its stamp (`fresh_stamp`), given at the first copy after it last
    /// changed and shared with the copy; 0 from a change on (a store, as
    /// the fingerprint's: a run that makes no copies, the explorer's
    /// trials, draws no stamps for its messages). Not part of its state:
    /// two with one stamp hold the same messages, and a copy between them
    /// copies nothing.
    stamp: Cell<u64>,
}

impl InFlight {
    /// Adds a new message, which has the largest id yet.
    pub fn push(&mut self, msg: Message) {
        debug_assert!(self.sent.back().is_none_or(|last| last.id < msg.id));
        self.changed();
        self.sent.push_back(msg);
    }

    /// About to change: its kept fingerprint and its stamp are forgotten.
    /// Inlined, as the one line it replaced was: the page's first-load
    /// list (split/first-part.txt) names the functions a cold load runs,
    /// and every message sent runs this.
    #[inline(always)]
    fn changed(&mut self) {
        self.fingerprint.forget();
        *self.stamp.get_mut() = 0;
    }

    /// Becomes a copy of `source`, keeping its own deque's buffer.
    pub fn copy_from(&mut self, source: &InFlight) {
        // One by one in line: a state has a message or two in flight, and
        // a deque's `clone_from` (or its `extend`) costs more in its calls
        // than in the copying.
        self.fingerprint.clone_from(&source.fingerprint);
        let mut stamp = source.stamp.get();
        if stamp != 0 && self.stamp.get() == stamp {
            // The same messages: a move that sent and delivered nothing.
            return;
        }
        if stamp == 0 {
            stamp = fresh_stamp();
            source.stamp.set(stamp);
        }
        self.stamp.set(stamp);
        self.sent.clear();
        self.sent.reserve(source.sent.len());
        for &msg in &source.sent {
            self.sent.push_back(msg);
        }
        if !(self.held.is_empty() && source.held.is_empty()) {
            self.held.clone_from(&source.held);
        }
    }

    /// Empties both, keeping their capacity.
    pub fn clear(&mut self) {
        self.changed();
        self.sent.clear();
        self.held.clear();
    }

    /// Puts back a message TCP will send again.
    pub fn hold(&mut self, msg: Message) {
        self.changed();
        self.held.insert(msg.id, msg);
    }

    #[inline]
    pub fn remove(&mut self, id: u64) -> Option<Message> {
        self.changed();
        // Most often the oldest arrives first.
        if self.sent.front().is_some_and(|m| m.id == id) {
            return self.sent.pop_front();
        }
        match self.sent.binary_search_by_key(&id, |m| m.id) {
            Ok(at) => self.sent.remove(at),
            Err(_) => self.remove_held(id),
        }
    }

    /// Out of line: rare, and kept out of the hot path above so that it
    /// stays small enough to be inlined where messages arrive.
    #[cold]
    #[inline(never)]
    fn remove_held(&mut self, id: u64) -> Option<Message> {
        self.held.remove(&id)
    }

    /// The messages hashed on its own: the count, then each id and message
    /// in order, as a map from id to message, so that it does not depend
    /// on where a message waits.
    fn own_fingerprint(&self) -> u64 {
        let mut h = StableHasher::default();
        let state = &mut h;
        state.write_usize(self.sent.len() + self.held.len());
        // A message's hash starts with its id.
        if self.held.is_empty() {
            // Most often: the deque alone, without merging the two.
            let (front, back) = self.sent.as_slices();
            front.iter().chain(back).for_each(|msg| msg.hash(state));
        } else {
            for msg in self.iter() {
                msg.hash(state);
            }
        }
        h.finish()
    }

    /// When the last request in flight from client `c` to `to` (the lock
    /// service or one of its nodes) arrives, of those TCP has not had to
    /// send again: a client's requests reach the service in the order it
    /// sent them. Each of the eight systems' client libraries talks to
    /// its service over one session or connection, and a release returns
    /// only once the service has it, so a release sent just before the
    /// next acquire is never overtaken by it. A request a partition cut
    /// off is left out: a client that finds its connection dead
    /// reconnects, and what it sends then does not wait behind what the
    /// old connection still holds. Replies keep no such order (a service
    /// answers its requests concurrently: etcd's keepalives ride their own
    /// stream beside its transactions), nor do writes to the resource,
    /// which a client sends over a pool of connections (a write held up
    /// in the network can land after a later one).
    ///
    /// By index from the newest, not by the deque's iterator: the page's
    /// first load sends messages, and the iterator would be one more
    /// function its first part must hold (split/first-part.txt).
    #[inline]
    pub fn last_request(&self, c: ClientId, to: Endpoint) -> Option<Millis> {
        let from = Endpoint::Client(c);
        let mut i = self.sent.len();
        while i > 0 {
            i -= 1;
            let m = &self.sent[i];
            if m.from == from && m.to == to {
                return Some(m.deliver_at);
            }
        }
        None
    }

    /// Whether any message in flight passes `pred`, taken in no
    /// particular order: without the merge of the two lists by id that
    /// `iter` makes at every message.
    pub fn any(&self, mut pred: impl FnMut(&Message) -> bool) -> bool {
        self.sent.iter().any(&mut pred) || self.held.values().any(pred)
    }

    /// Oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Message> {
        let mut sent = self.sent.iter().peekable();
        let mut held = self.held.values().peekable();
        std::iter::from_fn(move || match (sent.peek(), held.peek()) {
            (Some(s), Some(h)) if h.id < s.id => held.next(),
            (Some(_), _) => sent.next(),
            (None, _) => held.next(),
        })
    }
}

impl Hash for InFlight {
    /// One word: the messages' own fingerprint (`own_fingerprint`), kept
    /// until they change.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fingerprint.get_or(|| self.own_fingerprint()));
    }
}

/// One-way latency ranges in microseconds at scale 1, from backends.md:
/// each lock system's own round trip, and a write to a database-like
/// resource at 1-5 ms.
pub fn latency_range_us(backend: Backend, from: Endpoint, to: Endpoint) -> (u64, u64) {
    let touches_resource = from == Endpoint::Resource || to == Endpoint::Resource;
    if touches_resource {
        return (500, 2_500);
    }
    backend.latency_us()
}
