//! Small value types shared by the whole core: ids, time, tokens and modes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Virtual time in integer milliseconds since the start of a run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Millis(pub u64);

impl Millis {
    pub const ZERO: Millis = Millis(0);

    pub fn ms(self) -> u64 {
        self.0
    }

    pub fn plus(self, ms: u64) -> Millis {
        Millis(self.0.saturating_add(ms))
    }

    /// Milliseconds from `self` until `later`, zero if `later` is not later.
    pub fn until(self, later: Millis) -> u64 {
        later.0.saturating_sub(self.0)
    }
}

impl fmt::Display for Millis {
    /// Seconds with three decimals, the way the event log prints time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::words::seconds_3(self.0))
    }
}

/// One of the four clients, A to D.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "char", into = "char")]
pub struct ClientId(u8);

impl ClientId {
    pub const COUNT: usize = 4;
    pub const ALL: [ClientId; 4] = [ClientId(0), ClientId(1), ClientId(2), ClientId(3)];

    /// The client for index 0..4, or `None` past the last one.
    pub fn new(index: u8) -> Option<ClientId> {
        (usize::from(index) < Self::COUNT).then_some(ClientId(index))
    }

    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    pub fn letter(self) -> char {
        char::from(b'A' + self.0)
    }

    pub fn from_letter(letter: char) -> Option<ClientId> {
        let upper = letter.to_ascii_uppercase();
        if !upper.is_ascii_uppercase() {
            return None;
        }
        ClientId::new(upper as u8 - b'A')
    }
}

impl TryFrom<char> for ClientId {
    type Error = String;
    fn try_from(letter: char) -> Result<Self, Self::Error> {
        ClientId::from_letter(letter)
            .ok_or_else(|| format!("there is no client {letter}: clients are A to D"))
    }
}

impl From<ClientId> for char {
    fn from(id: ClientId) -> char {
        id.letter()
    }
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One of the five Redis nodes of Redlock, numbered 1 to 5 as people count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct NodeId(u8);

impl NodeId {
    pub const COUNT: usize = 5;

    pub fn new(number: u8) -> Option<NodeId> {
        (1..=5).contains(&number).then_some(NodeId(number))
    }

    pub fn all() -> impl Iterator<Item = NodeId> {
        (1..=5).map(NodeId)
    }

    pub fn number(self) -> u8 {
        self.0
    }

    pub fn index(self) -> usize {
        usize::from(self.0 - 1)
    }
}

impl TryFrom<u8> for NodeId {
    type Error = String;
    fn try_from(number: u8) -> Result<Self, Self::Error> {
        NodeId::new(number)
            .ok_or_else(|| format!("there is no Redis node {number}: nodes are 1 to 5"))
    }
}

impl From<NodeId> for u8 {
    fn from(id: NodeId) -> u8 {
        id.0
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {}", self.0)
    }
}

/// A fencing token as the resource sees it. Only numbers that strictly
/// increase across grants are real fencing tokens; see `Backend::token_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Token(pub u64);

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The master seed of a run. Every random choice derives from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seed(pub u64);

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Whether the resource checks tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fencing {
    On,
    Off,
}

impl Fencing {
    pub fn is_on(self) -> bool {
        self == Fencing::On
    }
}

/// How the resource fences a write when fencing is on. Each lock system
/// offers some of these (`Backend::fence_modes`); `Documented` stands for
/// the one its own clients and docs describe (docs/fencing.md), so a link
/// or file that names no mode means what it meant before the setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FenceMode {
    /// The system's documented mode, whichever it is.
    #[default]
    Documented,
    /// The write carries the lock's token, and the resource accepts it iff
    /// the token is at least the highest it has accepted. It learns a newer
    /// token only from a write: until the new holder writes, a stale write
    /// passes.
    Highest,
    /// The write is one transaction with a check that the lock still holds
    /// the writer's grant: etcd's Txn comparing the lock key's
    /// create_revision, ZooKeeper's multi() with a check op, a Redis script
    /// that reads the lock key's value, Chubby's CheckSequencer, Consul's
    /// check-session, DynamoDB's ConditionCheck, PostgreSQL's write on the
    /// session that holds the advisory lock.
    Check,
    /// As `Highest`, and a client granted the lock announces its token to
    /// the resource at once, before it writes anything, so a lower token is
    /// refused even if the new holder never writes. BookKeeper's recovery
    /// fences a ledger this way before the new writer adds to it, and HDFS
    /// fences the old NameNode before the new one becomes active.
    Takeover,
    /// The data carries its own version and the write names the one its
    /// writer read (`UPDATE ... WHERE version = n`): an ORM's optimistic
    /// lock (Rails `lock_version`, Hibernate `@Version`), which checks the
    /// data, not the lock. PostgreSQL's alone, where the counter is a row.
    /// Last, so that the modes before it keep their hashes.
    Version,
}

impl FenceMode {
    /// Every mode a system may offer, in the order the page lists them.
    pub const ALL: [FenceMode; 4] = [
        FenceMode::Highest,
        FenceMode::Check,
        FenceMode::Takeover,
        FenceMode::Version,
    ];

    /// Whether a configuration leaves it at the system's documented mode
    /// (links and files then say nothing of it).
    pub fn is_documented(&self) -> bool {
        *self == FenceMode::Documented
    }

    /// The word links and files use.
    pub fn word(self) -> &'static str {
        match self {
            FenceMode::Documented => "documented",
            FenceMode::Highest => "highest",
            FenceMode::Check => "check",
            FenceMode::Takeover => "takeover",
            FenceMode::Version => "version",
        }
    }

    /// The mode in a few words, for the page's choice.
    pub fn label(self) -> &'static str {
        match self {
            FenceMode::Documented => "as documented",
            FenceMode::Highest => "highest token seen",
            FenceMode::Check => "checked against the lock in the same transaction",
            FenceMode::Takeover => "new holder fences on takeover",
            FenceMode::Version => "the row's version column (an ORM's optimistic lock)",
        }
    }
}

impl std::hash::Hash for FenceMode {
    /// The documented mode adds nothing to a hash: every run made before
    /// the setting existed keeps its state's fingerprint.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        if !self.is_documented() {
            state.write_u8(*self as u8);
        }
    }
}

/// How a Redis client releases: the safe script or a bare `DEL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseMode {
    /// `if GET key == my value then DEL key`: never deletes someone else's lock.
    CheckValue,
    /// A plain `DEL key`: deletes whatever lock is there, even another client's.
    PlainDel,
}

/// How a Redis client renews: the safe script or a blind `SET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExtendMode {
    /// `if GET key == my value then PEXPIRE key ttl`.
    CheckValue,
    /// `SET key my-value PX ttl` with no check: re-creates an expired lock.
    BlindSet,
}

/// Whether a restarted Redis node comes back with its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Persistence {
    /// `appendfsync always`: keys survive a crash.
    Fsync,
    /// No persistence: a restarted node is empty.
    None,
}

/// Which ZooKeeper client library a client runs: they differ in when a
/// client cut off from the ensemble is told its session is LOST.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZkClient {
    /// Curator 3.0 and later: SUSPENDED when no answer came for two thirds
    /// of the session timeout, and once a whole session timeout has passed
    /// while SUSPENDED (`simulatedSessionExpirationPercent` 100), it
    /// injects a session expiration and declares LOST itself, still cut
    /// off: 5/3 of the timeout after it last heard the ensemble.
    #[default]
    Curator,
    /// kazoo, and the Java native client before 3.9.3: LOST only when it
    /// reaches the ensemble again and hears that the session expired. (The
    /// native client from 3.9.3, ZOOKEEPER-4508, ends the session itself,
    /// about 4/3 of the timeout after it last heard: not modelled.)
    Native,
}

impl ZkClient {
    pub fn name(self) -> &'static str {
        match self {
            ZkClient::Curator => "Curator",
            ZkClient::Native => "native client",
        }
    }
}

/// Whether a crashed Redis node must stay down for a whole TTL before rejoining.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestartPolicy {
    Immediate,
    /// Keep the node down for at least the TTL, so every key it held has expired anyway.
    Delayed,
}
