//! What ZooKeeper's clients send (Curator's `InterProcessMutex`, kazoo's
//! `Lock`), and their code as the Code view lists it: the worker's text,
//! none of it in the page's first load.

use super::{ZkMsg, ZooKeeper};
use crate::sim::backend::real_client::{Listing, RealClient};
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;
use crate::sim::types::ZkClient;
use std::collections::BTreeMap;

/// The lock's parent znode (Curator's and kazoo's lock path).
const ZK_PATH: &str = "/locks/shared-counter";

/// Who created each sequence number, so a znode is named by its owner.
#[derive(Debug, Default)]
pub(crate) struct Names {
    znodes: BTreeMap<u32, ClientId>,
}

impl RealClient for ZooKeeper {
    type Names = Names;

    fn message_text(
        config: &Config,
        names: &mut Names,
        c: Option<ClientId>,
        m: &ZkMsg,
        _asked: Option<&ZkMsg>,
    ) -> String {
        let curator = config.zk.client == ZkClient::Curator;
        let name = |owner: Option<ClientId>, seq: u32| znode(curator, owner, seq);
        match *m {
            ZkMsg::Connect { timeout_ms } => format!(
                "ConnectRequest{{protocolVersion: 0, lastZxidSeen: 0, timeOut: {timeout_ms}, sessionId: 0, passwd: 16 zero bytes}}"
            ),
            ZkMsg::ConnectReply {
                session,
                timeout_ms,
            } => format!(
                "ConnectResponse{{protocolVersion: 0, timeOut: {timeout_ms}, sessionId: 0x{session:x}, passwd: 16 bytes}}"
            ),
            // Curator StandardLockInternalsDriver `createsTheLock`:
            // create().creatingParentContainersIfNeeded().withProtection()
            // .withMode(EPHEMERAL_SEQUENTIAL).forPath(path) with no bytes, so
            // the node holds CuratorFrameworkFactory's defaultData, the
            // host's IP address. kazoo lock.py `_inner_acquire`:
            // create(create_path, self.data, ephemeral=True, sequence=True),
            // self.data the identifier (empty by default).
            ZkMsg::Create { .. } => {
                let prefix = name(c, 0);
                let prefix = prefix.trim_end_matches('0');
                if curator {
                    format!(
                        "create(\"{prefix}\", <this host's IP address: Curator's defaultData>, OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL)\n(InterProcessMutex.acquire: withProtection, creatingParentContainersIfNeeded)"
                    )
                } else {
                    format!("create(\"{prefix}\", b\"\", ephemeral=True, sequence=True)\n(kazoo Lock.acquire)")
                }
            }
            ZkMsg::CreateReply { seq: Some(seq), .. } => {
                if let Some(c) = c {
                    names.znodes.insert(seq, c);
                }
                format!("\"{}\"", name(c, seq))
            }
            ZkMsg::CreateReply { seq: None, .. } | ZkMsg::PingReply { alive: false } => {
                "KeeperException.SessionExpiredException: KeeperErrorCode = Session expired".into()
            }
            ZkMsg::Ping { session } => {
                format!("ping (xid -2, OpCode.ping) on session 0x{session:x}")
            }
            ZkMsg::PingReply { alive: true } => "ping reply (xid -2, err 0)".into(),
            // Curator LockInternals `deleteOurPath`: delete().guaranteed();
            // kazoo `_delete_node`: delete(path). Version -1: any version.
            ZkMsg::Delete { seq } => format!("delete(\"{}\", -1)", name(c, seq)),
            ZkMsg::WatchFired { deleted } => format!(
                "WatchedEvent{{type: NodeDeleted, state: SyncConnected, path: \"{}\"}}",
                name(names.znodes.get(&deleted).copied(), deleted)
            ),
            // Curator LockInternals `getSortedChildren` then
            // `internalLockLoop`: getData().usingWatcher(watcher) on the
            // node before mine; kazoo `_get_predecessor` then
            // `get(predecessor, self._watch_predecessor)`. The model sends
            // the two requests as one.
            ZkMsg::GetChildren { .. } => {
                let (children, watch) = if curator {
                    ("getChildren", "getData(\"<the node before mine>\") with a watcher")
                } else {
                    ("get_children", "get(\"<the node before mine>\", watch)")
                };
                format!(
                    "{children}(\"{ZK_PATH}\")\nthen, if mine is not the lowest: {watch}\n(two requests in the client; the model sends them as one)"
                )
            }
            ZkMsg::ChildrenReply { exists: false, .. } => {
                "my znode is not among the children: the session that made it is gone".into()
            }
            ZkMsg::ChildrenReply {
                predecessor: Some(p),
                ..
            } => format!(
                "children sorted by sequence; the one before mine: \"{}\" (watch set)",
                name(names.znodes.get(&p).copied(), p)
            ),
            ZkMsg::ChildrenReply {
                predecessor: None, ..
            } => "children sorted by sequence: mine is the lowest, the lock is mine".into(),
        }
    }

    /// Curator's, or kazoo's for the native client.
    fn client_code(kazoo: bool) -> Listing {
        match kazoo {
            true => KAZOO,
            false => CURATOR,
        }
    }

    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        (fence == Some(FenceRule::LockHeld)).then_some(HELD)
    }
}

/// A znode of the lock queue as the client names it, then the 10-digit
/// sequence: Curator's protected `_c_<uuid>-lock-` (ProtectedUtils
/// PROTECTED_PREFIX "_c_" + UUID + "-", InterProcessMutex LOCK_NAME
/// "lock-") or kazoo's `<uuid4 hex>__lock__` (lock.py `_NODE_NAME`).
fn znode(curator: bool, owner: Option<ClientId>, seq: u32) -> String {
    let id = owner.map_or(0, |c| c.index() as u64 + 1);
    let mix = id.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    if curator {
        format!(
            "{ZK_PATH}/_c_{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}-lock-{seq:010}",
            mix >> 32,
            (mix >> 16) & 0xffff,
            mix & 0xfff,
            (mix >> 20) & 0xfff,
            mix.rotate_left(17) & 0xffff_ffff_ffff
        )
    } else {
        // kazoo: `uuid.uuid4().hex + "__lock__"`: version 4, variant 8-b.
        let low = mix.rotate_left(31);
        format!(
            "{ZK_PATH}/{:012x}4{:03x}{:x}{:015x}__lock__{seq:010}",
            mix >> 16,
            mix & 0xfff,
            8 + (low >> 62),
            low & 0x0fff_ffff_ffff_ffff
        )
    }
}

const CURATOR_FACTORY: &str = "https://github.com/apache/curator/blob/master/curator-framework/src/main/java/org/apache/curator/framework/CuratorFrameworkFactory.java";
const CURATOR_MUTEX: &str = "https://github.com/apache/curator/blob/master/curator-recipes/src/main/java/org/apache/curator/framework/recipes/locks/InterProcessMutex.java";
const CURATOR_FRAMEWORK: &str = "https://github.com/apache/curator/blob/master/curator-framework/src/main/java/org/apache/curator/framework/CuratorFramework.java";

const CURATOR: Listing = Listing {
    client: "Apache Curator",
    lang: "java",
    text: "\
|CuratorFramework zk = CuratorFrameworkFactory.@newClient@(hosts, {ttl_ms}, 3000, retry);
|zk.@start@();  // the session timeout is the page's TTL
renew|// Its I/O thread pings every third of the session timeout: the session's renewal.
|InterProcessMutex lock = new @InterProcessMutex@(zk, \"/lock/widget-42\");
|
idle|void job(long value) throws Exception {
acquire|  lock.@acquire@();  // create(EPHEMERAL_SEQUENTIAL), then wait on the node before mine
|  String mine = lock.@getParticipantNodes@().iterator().next();  // first in order: mine
|  long fence = Long.parseLong(mine.substring(mine.length() - 10));  // its sequence
check|  if (lock.@isAcquiredInThisProcess@()) {  // the check: the recipe's belief
write|    resource.write(value, fence);  // SUSPENDED, even LOST, may be true by now
|  }
release|  lock.@release@();  // delete(my znode)
|}",
    api: &[
        ("newClient", CURATOR_FACTORY),
        ("start", CURATOR_FRAMEWORK),
        ("InterProcessMutex", CURATOR_MUTEX),
        ("acquire", CURATOR_MUTEX),
        ("getParticipantNodes", CURATOR_MUTEX),
        ("isAcquiredInThisProcess", CURATOR_MUTEX),
        ("release", CURATOR_MUTEX),
    ],
};

const KAZOO_CLIENT: &str = "https://github.com/python-zk/kazoo/blob/master/kazoo/client.py";
const KAZOO_LOCK: &str = "https://github.com/python-zk/kazoo/blob/master/kazoo/recipe/lock.py";

const KAZOO: Listing = Listing {
    client: "kazoo",
    lang: "python",
    text: "\
|zk = @KazooClient@(hosts=\"zk:2181\", timeout={ttl_s})  # session timeout: the page's TTL
|zk.@start@()
renew|# Its connection thread pings every third of the timeout: the session's renewal.
|lock = zk.@Lock@(\"/lock/widget-42\", \"A\")
|
idle|def job(value):
acquire|    lock.@acquire@()  # create(ephemeral, sequence), then wait on the node before mine
|    fence = int(lock.@node@[-10:])  # the sequence number of my znode
check|    if lock.@is_acquired@:  # the check: the recipe's belief
write|        resource.write(value, fence)  # LOST is told only on reaching the ensemble
release|    lock.@release@()  # delete(my znode)",
    api: &[
        ("KazooClient", KAZOO_CLIENT),
        ("start", KAZOO_CLIENT),
        ("Lock", KAZOO_CLIENT),
        ("acquire", KAZOO_LOCK),
        ("node", KAZOO_LOCK),
        ("is_acquired", KAZOO_LOCK),
        ("release", KAZOO_LOCK),
    ],
};

/// The resource's check in the same transaction: the counter is a
/// znode too, and one multi() checks the lock's node and writes.
const HELD: Listing = Listing {
    client: "the resource: a multi() with a check op (kazoo)",
    lang: "python",
    text: "\
|# The counter is a znode too: the check op and the write are one multi().
|tx = zk.@transaction@()
|tx.check(my_lock_node, version=0)  # fails once A's ephemeral node is gone
|tx.set_data(\"/counter\", value)
|if not all(r is True for r in tx.commit()):
|    raise Rejected()  # the lock no longer holds this grant",
    api: &[("transaction", KAZOO_CLIENT)],
};
