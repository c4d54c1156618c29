//! Messages that travel: who talks to whom, what they carry, how long it takes.

use super::types::{Backend, ClientId, NodeId, Token};
use serde::{Deserialize, Serialize};
use std::fmt;

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

/// What a message carries. One enum for all backends keeps the queue simple.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Body {
    // Redis (Redlock)
    /// `SET lock value NX PX ttl`.
    RedisSet {
        value: u64,
        px_ms: u64,
        round: u64,
    },
    RedisSetReply {
        ok: bool,
        round: u64,
    },
    /// `INCR fence` on node 1, once a quorum is held: the token.
    RedisIncr {
        round: u64,
    },
    RedisIncrReply {
        fence: u64,
        round: u64,
    },
    /// Renewal: the checked script (`PEXPIRE` if the value matches) or a blind `SET`.
    RedisExtend {
        value: u64,
        px_ms: u64,
        blind: bool,
        round: u64,
    },
    RedisExtendReply {
        ok: bool,
        round: u64,
    },
    /// A node that is down refuses the connection at once.
    RedisRefused {
        round: u64,
    },
    /// Release: the checked script or a plain `DEL`.
    RedisUnlock {
        value: u64,
        plain_del: bool,
    },
    // ZooKeeper
    ZkConnect {
        timeout_ms: u64,
    },
    ZkConnectReply {
        session: u64,
        timeout_ms: u64,
    },
    ZkCreate {
        session: u64,
    },
    ZkCreateReply {
        seq: Option<u64>,
        predecessor: Option<u64>,
    },
    ZkPing {
        session: u64,
    },
    ZkPingReply {
        alive: bool,
    },
    ZkDelete {
        seq: u64,
    },
    ZkWatchFired {
        deleted: u64,
    },
    ZkGetChildren {
        seq: u64,
    },
    ZkChildrenReply {
        exists: bool,
        predecessor: Option<u64>,
    },
    // etcd
    EtcdLeaseGrant {
        ttl_ms: u64,
    },
    EtcdLeaseGrantReply {
        lease: u64,
        ttl_ms: u64,
    },
    EtcdLockTxn {
        lease: u64,
    },
    EtcdLockTxnReply {
        create_rev: Option<u64>,
        predecessor: Option<u64>,
        revision: u64,
    },
    EtcdKeepAlive {
        lease: u64,
    },
    EtcdKeepAliveReply {
        lease: u64,
        ttl_ms: Option<u64>,
    },
    EtcdDelete {
        create_rev: u64,
    },
    EtcdWatchDeleted {
        create_rev: u64,
    },
    EtcdGet {
        create_rev: u64,
    },
    EtcdGetReply {
        exists: bool,
        predecessor: Option<u64>,
    },
    // The resource
    /// `lease_key` identifies the grant the writer believes it has; only the
    /// safety oracle reads it, the resource sees the token alone.
    Write {
        token: Option<Token>,
        lease_key: u64,
    },
    WriteReply {
        accepted: bool,
    },
}

impl Body {
    /// A short label for the message as drawn in flight.
    pub fn label(&self) -> String {
        match self {
            Body::RedisSet { .. } => "SET NX PX".into(),
            Body::RedisSetReply { ok: true, .. } => "OK".into(),
            Body::RedisSetReply { ok: false, .. } => "nil (taken)".into(),
            Body::RedisIncr { .. } => "INCR fence".into(),
            Body::RedisIncrReply { fence, .. } => format!("fence {fence}"),
            Body::RedisExtend { blind: false, .. } => "extend if mine".into(),
            Body::RedisExtend { blind: true, .. } => "SET PX (blind)".into(),
            Body::RedisExtendReply { ok, .. } => if *ok { "extended" } else { "not mine" }.into(),
            Body::RedisRefused { .. } => "connection refused".into(),
            Body::RedisUnlock {
                plain_del: false, ..
            } => "DEL if mine".into(),
            Body::RedisUnlock {
                plain_del: true, ..
            } => "DEL".into(),
            Body::ZkConnect { .. } => "connect".into(),
            Body::ZkConnectReply { session, .. } => format!("session 0x{session:x}"),
            Body::ZkCreate { .. } => "create -e -s".into(),
            Body::ZkCreateReply { seq: Some(s), .. } => format!("lock-{s:010}"),
            Body::ZkCreateReply { seq: None, .. } => "session expired".into(),
            Body::ZkPing { .. } => "ping".into(),
            Body::ZkPingReply { alive: true } => "pong".into(),
            Body::ZkPingReply { alive: false } => "session expired".into(),
            Body::ZkDelete { .. } => "delete".into(),
            Body::ZkWatchFired { .. } => "watch: deleted".into(),
            Body::ZkGetChildren { .. } => "getChildren".into(),
            Body::ZkChildrenReply { .. } => "children".into(),
            Body::EtcdLeaseGrant { .. } => "LeaseGrant".into(),
            Body::EtcdLeaseGrantReply { lease, .. } => format!("lease {lease:x}"),
            Body::EtcdLockTxn { .. } => "txn: put if absent".into(),
            Body::EtcdLockTxnReply {
                create_rev: Some(r),
                ..
            } => format!("rev {r}"),
            Body::EtcdLockTxnReply { .. } => "lease not found".into(),
            Body::EtcdKeepAlive { .. } => "keepalive".into(),
            Body::EtcdKeepAliveReply {
                ttl_ms: Some(_), ..
            } => "TTL renewed".into(),
            Body::EtcdKeepAliveReply { ttl_ms: None, .. } => "lease not found".into(),
            Body::EtcdDelete { .. } => "delete".into(),
            Body::EtcdWatchDeleted { .. } => "watch: deleted".into(),
            Body::EtcdGet { .. } => "get".into(),
            Body::EtcdGetReply { .. } => "keys".into(),
            Body::Write { token: Some(t), .. } => format!("write, token {t}"),
            Body::Write { token: None, .. } => "write, no token".into(),
            Body::WriteReply { accepted: true } => "accepted".into(),
            Body::WriteReply { accepted: false } => "rejected".into(),
        }
    }
}

/// A message on the wire, from its sending to its arrival or loss.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub id: u64,
    pub from: Endpoint,
    pub to: Endpoint,
    pub sent_ms: u64,
    pub deliver_ms: u64,
    pub body: Body,
    /// Sent across a partition: it travels, but will not arrive.
    pub doomed: bool,
    /// The receiving client's incarnation when sent: a restart makes old replies moot.
    pub(crate) epoch: u32,
}

/// One-way latency ranges in microseconds at scale 1, from backends.md:
/// a Redis round trip is 0.5-2 ms, an etcd or ZooKeeper quorum write 5-20 ms,
/// a write to a database-like resource 1-5 ms.
pub fn latency_range_us(backend: Backend, from: Endpoint, to: Endpoint) -> (u64, u64) {
    let touches_resource = from == Endpoint::Resource || to == Endpoint::Resource;
    if touches_resource {
        return (500, 2_500);
    }
    match backend {
        Backend::Redlock => (250, 1_000),
        Backend::ZooKeeper | Backend::Etcd => (2_500, 10_000),
    }
}
