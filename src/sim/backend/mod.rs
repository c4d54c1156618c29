//! One trait, three lock services: Redlock, ZooKeeper and etcd.

pub mod etcd;
pub mod redlock;
pub mod zookeeper;

use super::engine::{ClientTimer, Core, ServiceTimer};
use super::error::CommandError;
use super::net::{Endpoint, Message};
use super::scenario::{Config, NodeCommand};
use super::types::{Backend, ClientId, Millis, NodeId, Token};
use serde::{Deserialize, Serialize};

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

/// One Redis node as the lock-service panel draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedisNodeView {
    pub node: NodeId,
    pub up: bool,
    /// The node's wall clock minus virtual time.
    pub clock_offset_ms: i64,
    pub clock_ms: i64,
    pub slow_ms: u64,
    /// The lock key: owner, value, milliseconds left by the node's clock.
    pub key: Option<RedisKeyView>,
    pub fence: u64,
    /// A delayed restart: down until this time.
    pub restart_at: Option<Millis>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedisKeyView {
    pub owner: ClientId,
    pub value: u64,
    pub ttl_left_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZnodeView {
    pub seq: u64,
    pub owner: ClientId,
    pub session: u64,
    pub czxid: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionView {
    pub session: u64,
    pub owner: ClientId,
    pub timeout_ms: u64,
    /// When the server will expire it, counting in tick-sized buckets.
    pub expires_at: Millis,
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

/// The backend's internals, for the lock-service panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "backend", rename_all = "lowercase")]
pub enum ServiceDetail {
    Redlock {
        nodes: Vec<RedisNodeView>,
    },
    #[serde(rename = "zookeeper")]
    ZooKeeper {
        /// The lock directory's children, lowest sequence (the holder) first.
        znodes: Vec<ZnodeView>,
        sessions: Vec<SessionView>,
        zxid: u64,
        tick_ms: u64,
    },
    Etcd {
        /// Keys under the lock prefix, lowest create_revision (the holder) first.
        keys: Vec<EtcdKeyView>,
        leases: Vec<LeaseView>,
        revision: u64,
    },
}

/// What every lock service does. Handlers take the engine's state and an
/// event and answer by sending messages and setting timers.
pub(crate) trait LockService {
    fn acquire(&mut self, core: &mut Core, c: ClientId);
    /// The client gives up the lock or its place in the queue.
    fn release(&mut self, core: &mut Core, c: ClientId);
    fn on_message(&mut self, core: &mut Core, msg: Message);
    fn on_client_timer(&mut self, core: &mut Core, c: ClientId, timer: ClientTimer);
    fn on_service_timer(&mut self, core: &mut Core, timer: ServiceTimer);
    /// The client forgot everything; the service keeps what it had.
    fn on_crash(&mut self, core: &mut Core, c: ClientId);
    /// The client can reach the service again.
    fn on_heal(&mut self, _core: &mut Core, _c: ClientId) {}
    fn on_renewal_on(&mut self, _core: &mut Core, _c: ClientId) {}
    fn check_node_command(&self, _node: NodeId, _cmd: NodeCommand) -> Result<(), CommandError> {
        Err(CommandError::NodesOnlyInRedlock)
    }
    fn node_command(&mut self, _core: &mut Core, _node: NodeId, _cmd: NodeCommand) {}
    /// False for a Redis node that is down: messages to it are lost.
    fn endpoint_up(&self, _e: Endpoint) -> bool {
        true
    }
    fn holder(&self, core: &Core) -> Option<HolderView>;
    /// The service-side end of `c`'s lease, if the service holds one for it.
    fn lease_end(&self, core: &Core, c: ClientId) -> Option<Millis>;
    fn detail(&self, core: &Core) -> ServiceDetail;
    fn monotonic_tokens(&self) -> bool;
}

/// The three implementations, as one cloneable value.
#[derive(Debug, Clone)]
pub(crate) enum Service {
    Redlock(Box<redlock::RedlockService>),
    ZooKeeper(zookeeper::ZkService),
    Etcd(etcd::EtcdService),
}

impl Service {
    pub fn get(&self) -> &dyn LockService {
        match self {
            Service::Redlock(s) => s.as_ref(),
            Service::ZooKeeper(s) => s,
            Service::Etcd(s) => s,
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn LockService {
        match self {
            Service::Redlock(s) => s.as_mut(),
            Service::ZooKeeper(s) => s,
            Service::Etcd(s) => s,
        }
    }
}

pub(crate) fn new_service(config: &Config) -> Service {
    match config.backend {
        Backend::Redlock => Service::Redlock(Box::new(redlock::RedlockService::new(config))),
        Backend::ZooKeeper => Service::ZooKeeper(zookeeper::ZkService::new(config)),
        Backend::Etcd => Service::Etcd(etcd::EtcdService::new(config)),
    }
}

/// How often a client renews: every third of the lease, as etcd's keepalive,
/// ZooKeeper's ping and Redlock auto-extension libraries do.
pub(crate) fn renew_every_ms(ttl_ms: u64) -> u64 {
    (ttl_ms / 3).max(1)
}

/// The client now believes it holds the lock.
pub(crate) fn grant(
    core: &mut Core,
    c: ClientId,
    token: Option<Token>,
    lease_key: u64,
    until: Option<Millis>,
) {
    let since = core.now;
    core.record(crate::sim::history::Event::Acquired {
        client: c,
        token,
        until,
    });
    core.set_belief(
        c,
        crate::sim::client::Belief::Holding {
            token,
            lease_key,
            since,
            until,
        },
    );
}

/// The client stops believing it holds or waits for the lock.
pub(crate) fn lose(core: &mut Core, c: ClientId, reason: crate::sim::history::LossReason) {
    if core.client(c).belief == crate::sim::client::Belief::Idle {
        return;
    }
    core.record(crate::sim::history::Event::Lost { client: c, reason });
    core.set_belief(c, crate::sim::client::Belief::Idle);
}

/// The acquisition the client was making has failed.
pub(crate) fn fail(core: &mut Core, c: ClientId, failure: crate::sim::history::AcquireFailure) {
    core.set_belief(c, crate::sim::client::Belief::Idle);
    core.record(crate::sim::history::Event::AcquireFailed { client: c, failure });
}

/// The client's believed lease end moved (a renewal came back).
pub(crate) fn extend_belief(core: &mut Core, c: ClientId, until: Option<Millis>) {
    if let crate::sim::client::Belief::Holding {
        token,
        lease_key,
        since,
        ..
    } = core.client(c).belief
    {
        core.client_mut(c).belief = crate::sim::client::Belief::Holding {
            token,
            lease_key,
            since,
            until,
        };
    }
    core.record(crate::sim::history::Event::Renewed { client: c, until });
}
