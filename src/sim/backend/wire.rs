//! What each message is on the real wire: the request or reply the real
//! client library sends for it (redis-py, node-redlock, etcd's Go
//! `clientv3`, Curator or kazoo, the Chubby paper's calls, Go `consul/api`,
//! `AmazonDynamoDBLockClient`, psycopg), with the run's own key, value,
//! lease, session and TTL filled in. Each text was checked against the
//! client's source; the comment beside it names the file and function.
//! Where the page scales a system's time (Consul's 15 s session TTL and
//! DynamoDB's 20 s lease are the page's TTL), the wire shows the real
//! client's default and says what the page's TTL stands for.
//!
//! Only the worker calls this (the page asks it for a run's wire text on
//! first use), so none of these templates is in the page's first load.
//! Every match below is exhaustive: a new message kind does not compile
//! until it says what it is on the wire.
//!
//! Where the real protocol is binary (ZooKeeper's jute, etcd's gRPC,
//! PostgreSQL's frontend/backend messages), the text is the client's call
//! and the server's answer as the library's own docs write them.

use super::chubby::ChubbyMsg;
use super::consul::{AcquireResult, ConsulMsg, GetPurpose, KeyCleanup, Rpc, LOCK_DELAY_S_DEFAULT};
use super::dynamodb::{DynamoMsg, ItemSeen, REAL_LEASE_MS};
use super::etcd::EtcdMsg;
use super::postgres::{PgMsg, PG_LOCK_KEY};
use super::redis::{SingleRedisMsg, REDISSON_SYNC_TIMEOUT_MS, WAIT_TIMEOUT_MS};
use super::redlock::RedisMsg;
use super::zookeeper::ZkMsg;
use super::{Backend, Msg};
use crate::sim::net::{Body, Endpoint, ResourceMsg};
use crate::sim::scenario::Config;
use crate::sim::types::{ClientId, ExtendMode, ReleaseMode, ZkClient};
use std::collections::BTreeMap;

/// The lock's key in Redis (both single Redis and each Redlock node).
pub const REDIS_KEY: &str = "lock:shared-counter";
/// The fencing counter beside it.
pub const REDIS_FENCE_KEY: &str = "fence:lock:shared-counter";
/// `concurrency.NewMutex(session, "/lock/shared-counter")` adds the "/"
/// (mutex.go `NewMutex`); `tryAcquire` puts `pfx + "%x" of the lease`.
pub const ETCD_PREFIX: &str = "/lock/shared-counter/";
/// The prefix's range end (`clientv3.GetPrefixRangeEnd`: the last byte
/// plus one, "/" + 1 = "0"), as `WithPrefix()` sends it.
const ETCD_PREFIX_END: &str = "/lock/shared-counter0";
/// The lock's parent znode (Curator's and kazoo's lock path).
pub const ZK_PATH: &str = "/locks/shared-counter";
pub const CHUBBY_FILE: &str = "/ls/cell/shared-counter";
pub const CONSUL_KEY: &str = "locks/shared-counter";
/// api/lock.go `DefaultLockSessionTTL`: the page's TTL stands for it.
const CONSUL_TTL: &str = "15s";
/// consul/api's `LockFlagValue`, set on the key by `Lock()`.
const CONSUL_LOCK_FLAG: u64 = 0x2ddc_cbc0_58a5_0c18;
pub const DYNAMO_TABLE: &str = "lockTable";
/// AmazonDynamoDBLockClient.java's expression strings, as the client
/// formats them without a sort key: ACQUIRE_LOCK_THAT_DOESNT_EXIST_PK_CONDITION,
pub const DYNAMO_NEW_LOCK: &str = "attribute_not_exists(#pk)";
/// PK_EXISTS_AND_RVN_IS_THE_SAME_CONDITION (taking over an expired lock),
pub const DYNAMO_SAME_RVN: &str = "attribute_exists(#pk) AND #rvn = :rvn";
/// PK_EXISTS_AND_OWNER_NAME_SAME_AND_RVN_SAME_CONDITION (heartbeat, release),
pub const DYNAMO_OWNER_AND_RVN: &str = "attribute_exists(#pk) AND #rvn = :rvn AND #on = :on";
/// and UPDATE_LEASE_DURATION_AND_RVN (heartbeat).
pub const DYNAMO_HEARTBEAT_UPDATE: &str = "SET #ld = :ld, #rvn = :newRvn";
pub const DYNAMO_KEY: &str = "shared-counter";

/// redis-py's `Lock.LUA_RELEASE_SCRIPT` (redis/lock.py).
pub const REDIS_PY_RELEASE: &str = "local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
    return 0
end
redis.call('del', KEYS[1])
return 1";

/// redis-py's `Lock.LUA_EXTEND_SCRIPT`; `extend(ttl, replace_ttl=True)`
/// passes ARGV[3] = "1", so the new TTL replaces what is left.
pub const REDIS_PY_EXTEND: &str = "local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
    return 0
end
local expiration = redis.call('pttl', KEYS[1])
if not expiration then
    expiration = 0
end
if expiration < 0 then
    return 0
end

local newttl = ARGV[2]
if ARGV[3] == \"0\" then
    newttl = ARGV[2] + expiration
end
redis.call('pexpire', KEYS[1], newttl)
return 1";

/// The page's single-Redis client: redis-py's `Lock` whose acquire also
/// takes the next fencing token in the same script
/// (scripts/fidelity/client_redis.py, `SET_AND_FENCE`).
pub const SET_AND_FENCE: &str = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('incr', KEYS[2])
end
return false";

/// node-redlock's `ACQUIRE_SCRIPT` (src/index.ts, without the first and
/// last newline of its template string): Redlock's `SET NX PX`
/// as node-redlock sends it to each node, one script for all the keys of
/// a lock. It answers how many keys it set (1 here), 0 if one existed.
pub const REDLOCK_ACQUIRE: &str = r#"  -- Return 0 if an entry already exists.
  for i, key in ipairs(KEYS) do
    if redis.call("exists", key) == 1 then
      return 0
    end
  end

  -- Create an entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries added.
  return #KEYS"#;

/// node-redlock's `EXTEND_SCRIPT` (src/index.ts): the value-checked
/// extension re-sets the key with a new PX (not PEXPIRE).
pub const REDLOCK_EXTEND: &str = r#"  -- Return 0 if an entry exists with a *different* lock value.
  for i, key in ipairs(KEYS) do
    if redis.call("get", key) ~= ARGV[1] then
      return 0
    end
  end

  -- Update the entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries updated.
  return #KEYS"#;

/// node-redlock's `RELEASE_SCRIPT` (src/index.ts): delete only the keys
/// that still hold this lock's value; it answers how many it deleted.
pub const REDLOCK_UNLOCK: &str = r#"  local count = 0
  for i, key in ipairs(KEYS) do
    -- Only remove entries for *this* lock value.
    if redis.call("get", key) == ARGV[1] then
      redis.pcall("del", key)
      count = count + 1
    end
  end

  -- Return the number of entries removed.
  return count"#;

/// node-redlock's `_attemptOperationOnClient` sends `EVALSHA` of the
/// script's SHA1 first and the script itself only on `NOSCRIPT`; the text
/// shows the script, as the node runs it.
const REDLOCK_EVALSHA_NOTE: &str =
    "(node-redlock sends EVALSHA <sha1 of the script> first, EVAL only on NOSCRIPT)";

/// A run's messages turned into wire text, in sending order: it
/// remembers what each pair of ends last asked (a reply's text names its
/// request) and the names the service handed out (leases, znodes,
/// sessions), so a later message can use them.
#[derive(Debug)]
pub struct WireBook {
    config: Config,
    /// The last request from one end to the other.
    asked: BTreeMap<(Endpoint, Endpoint), Msg>,
    /// etcd: each client's lease; each key's lease by create_revision.
    leases: [Option<u64>; ClientId::COUNT],
    revisions: BTreeMap<u32, u64>,
    /// ZooKeeper: who created each sequence number.
    znodes: BTreeMap<u32, ClientId>,
}

impl WireBook {
    pub fn new(config: &Config) -> WireBook {
        WireBook {
            config: config.clone(),
            asked: BTreeMap::new(),
            leases: [None; ClientId::COUNT],
            revisions: BTreeMap::new(),
            znodes: BTreeMap::new(),
        }
    }

    /// The message's wire text; call it for every message in sending order.
    pub fn text(&mut self, from: Endpoint, to: Endpoint, body: &Body) -> String {
        let client = from.client().or(to.client());
        match body {
            Body::Resource(m) => self.resource(client, m),
            Body::Lock(m) => {
                let asked = self.asked.get(&(to, from)).copied();
                let text = self.lock(client, m, asked);
                if from.client().is_some() {
                    self.asked.insert((from, to), *m);
                }
                text
            }
        }
    }

    fn lock(&mut self, c: Option<ClientId>, m: &Msg, asked: Option<Msg>) -> String {
        match m {
            Msg::Redis(m) => single_redis(m, asked),
            Msg::Redlock(m) => {
                let asked = match asked {
                    Some(Msg::Redlock(a)) => Some(a),
                    _ => None,
                };
                redis(m, asked, false)
            }
            Msg::Etcd(m) => self.etcd(c, m),
            Msg::ZooKeeper(m) => self.zookeeper(c, m),
            Msg::Chubby(m) => self.chubby(m),
            Msg::Consul(m) => self.consul(m),
            Msg::DynamoDb(m) => self.dynamo(c, m),
            Msg::Postgres(m) => postgres(m),
        }
    }

    fn etcd(&mut self, c: Option<ClientId>, m: &EtcdMsg) -> String {
        let lease_of = |c: Option<ClientId>, book: &WireBook| {
            c.and_then(|c| book.leases[c.index()]).unwrap_or_default()
        };
        match *m {
            // session.go `NewSession`: `client.Grant(ctx, int64(ops.ttl))`,
            // ops.leaseID 0: the server picks the ID.
            EtcdMsg::LeaseGrant { ttl_ms } => format!(
                "Lease.LeaseGrant(LeaseGrantRequest{{TTL: {}, ID: 0}})\n(concurrency.NewSession(client, concurrency.WithTTL({})))",
                secs_up(ttl_ms),
                secs_up(ttl_ms)
            ),
            EtcdMsg::LeaseGrantReply { lease, ttl_ms } => {
                if let Some(c) = c {
                    self.leases[c.index()] = Some(lease);
                }
                format!("LeaseGrantResponse{{ID: 0x{lease:x}, TTL: {}}}", secs_up(ttl_ms))
            }
            // mutex.go `tryAcquire`, then the TxnRequest it becomes
            // (op.go: `WithFirstCreate()` = WithPrefix, WithSort(
            // SortByCreateRevision, SortAscend), WithLimit(1)).
            EtcdMsg::LockTxn { lease } => {
                let key = format!("{ETCD_PREFIX}{lease:x}");
                let owner = format!(
                    "RangeRequest{{Key: \"{ETCD_PREFIX}\", RangeEnd: \"{ETCD_PREFIX_END}\", Limit: 1, SortOrder: ASCEND, SortTarget: CREATE}}"
                );
                format!(
                    "KV.Txn(\n  If(Compare(CreateRevision(\"{key}\"), \"=\", 0)),\n  Then(OpPut(\"{key}\", \"\", WithLease(0x{lease:x})),\n       OpGet(\"{ETCD_PREFIX}\", WithFirstCreate()...)),\n  Else(OpGet(\"{key}\"),\n       OpGet(\"{ETCD_PREFIX}\", WithFirstCreate()...)))\n(Mutex.Lock's tryAcquire)\non the wire: TxnRequest{{\n  Compare: [{{Result: EQUAL, Target: CREATE, Key: \"{key}\", CreateRevision: 0}}],\n  Success: [RequestPut{{Key: \"{key}\", Value: \"\", Lease: 0x{lease:x}}}, {owner}],\n  Failure: [RangeRequest{{Key: \"{key}\"}}, {owner}]}}"
                )
            }
            EtcdMsg::LockTxnReply {
                create_rev: Some(rev),
                predecessor,
                revision,
            } => {
                let lease = lease_of(c, self);
                self.revisions.insert(rev, lease);
                let owner = match predecessor {
                    None => format!("owner: {ETCD_PREFIX}{lease:x} (mine: the lock is held)"),
                    Some(p) => format!("an older key waits ahead (create_revision {p}): watch its delete"),
                };
                format!(
                    "TxnResponse{{Header.Revision: {revision}, Succeeded: true}}\nmy key {ETCD_PREFIX}{lease:x}: create_revision {rev}\n{owner}"
                )
            }
            EtcdMsg::LockTxnReply {
                create_rev: None, ..
            } => "rpc error: code = NotFound desc = etcdserver: requested lease not found".into(),
            EtcdMsg::KeepAlive { lease } => format!(
                "Lease.LeaseKeepAlive stream: LeaseKeepAliveRequest{{ID: 0x{lease:x}}}"
            ),
            EtcdMsg::KeepAliveReply {
                lease,
                ttl_ms: Some(ttl),
            } => format!(
                "LeaseKeepAliveResponse{{ID: 0x{lease:x}, TTL: {}}}",
                secs_up(u64::from(ttl))
            ),
            EtcdMsg::KeepAliveReply { lease, ttl_ms: None } => format!(
                "LeaseKeepAliveResponse{{ID: 0x{lease:x}, TTL: 0}}: the lease is gone (the session's Done() channel closes)"
            ),
            // mutex.go `Unlock`: `client.Delete(ctx, m.myKey)`.
            EtcdMsg::Delete { create_rev } => {
                let lease = self.revisions.get(&create_rev).copied().unwrap_or_else(|| lease_of(c, self));
                format!("KV.DeleteRange(DeleteRangeRequest{{Key: \"{ETCD_PREFIX}{lease:x}\"}})\n(Mutex.Unlock)")
            }
            // key.go `waitDelete`: `client.Watch(key, WithRev(rev))` until a
            // DELETE event.
            EtcdMsg::WatchDeleted { create_rev } => {
                let lease = self.revisions.get(&create_rev).copied().unwrap_or_default();
                format!(
                    "WatchResponse{{Events: [DELETE \"{ETCD_PREFIX}{lease:x}\" (create_revision {create_rev})]}}"
                )
            }
            // key.go `waitDeletes`: `Get(pfx, WithLastCreate()...,
            // WithMaxCreateRev(myRev-1))`; once none is left, mutex.go
            // `Lock` reads its own key (`client.Get(ctx, m.myKey)`). The
            // model asks both in one request.
            EtcdMsg::Get { create_rev } => {
                let mine = self.revisions.get(&create_rev).copied().unwrap_or_else(|| lease_of(c, self));
                format!(
                    "KV.Range(\"{ETCD_PREFIX}\", WithLastCreate()..., WithMaxCreateRev({max}))\n(waitDeletes: the newest key older than mine)\non the wire: RangeRequest{{Key: \"{ETCD_PREFIX}\", RangeEnd: \"{ETCD_PREFIX_END}\", Limit: 1, SortOrder: DESCEND, SortTarget: CREATE, MaxCreateRevision: {max}}}\nthen KV.Range(\"{ETCD_PREFIX}{mine:x}\") (Lock: is my own key still there?)\n(two requests in the client; the model sends them as one)",
                    max = create_rev.saturating_sub(1)
                )
            }
            EtcdMsg::GetReply {
                exists: false, ..
            } => "RangeResponse{Kvs: []}: my own key is gone (its lease expired): Lock returns ErrSessionExpired".into(),
            EtcdMsg::GetReply {
                predecessor: Some(p),
                ..
            } => {
                let lease = self.revisions.get(&p).copied().unwrap_or_default();
                format!(
                    "RangeResponse{{Kvs: [{ETCD_PREFIX}{lease:x} create_revision {p}]}}: watch it for its DELETE\n(WatchCreateRequest{{Key: \"{ETCD_PREFIX}{lease:x}\", StartRevision: <this header's revision>}})"
                )
            }
            EtcdMsg::GetReply {
                predecessor: None, ..
            } => "RangeResponse{Kvs: []}: no older key: the lock is mine".into(),
        }
    }

    fn zookeeper(&mut self, c: Option<ClientId>, m: &ZkMsg) -> String {
        let curator = self.config.zk.client == ZkClient::Curator;
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
                    self.znodes.insert(seq, c);
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
                name(self.znodes.get(&deleted).copied(), deleted)
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
                name(self.znodes.get(&p).copied(), p)
            ),
            ZkMsg::ChildrenReply {
                predecessor: None, ..
            } => "children sorted by sequence: mine is the lowest, the lock is mine".into(),
        }
    }

    fn chubby(&self, m: &ChubbyMsg) -> String {
        let delay_s = self.config.chubby.lock_delay_ms / 1_000;
        match *m {
            ChubbyMsg::CreateSession => format!(
                "Open(\"{CHUBBY_FILE}\", write mode, lock-delay {delay_s} s)\n(the first Open creates the client's session; Chubby paper §2.8)"
            ),
            ChubbyMsg::SessionCreated { session, lease_ms } => {
                format!(
                    "handle on {CHUBBY_FILE}; session {session:x}, lease {} s",
                    lease_ms / 1_000
                )
            }
            ChubbyMsg::KeepAlive { session, seq } => format!(
                "KeepAlive(session {session:x}) #{seq}: the master holds it until the lease nearly ends (§2.8)"
            ),
            ChubbyMsg::KeepAliveReply {
                session,
                lease_after_ms,
                ..
            } => format!(
                "KeepAlive reply: session {session:x}'s lease now ends {} s after the master got the call (new lease timeout)",
                f64::from(lease_after_ms) / 1_000.0
            ),
            ChubbyMsg::SessionExpired { session } => {
                format!("session {session:x} expired: the master knows it no more (jeopardy, then grace, has run out)")
            }
            ChubbyMsg::Acquire { .. } => {
                format!("Acquire(handle on {CHUBBY_FILE}): exclusive; blocks until the lock is free and past its lock-delay")
            }
            ChubbyMsg::Acquired { generation, .. } => format!(
                "Acquire returns: lock held\nGetSequencer(handle) = {{name: \"{CHUBBY_FILE}\", mode: exclusive, lock generation: {generation}}}"
            ),
            ChubbyMsg::Release { session } => {
                format!("Release(handle on {CHUBBY_FILE}) (session {session:x})")
            }
        }
    }

    fn consul(&self, m: &ConsulMsg) -> String {
        match *m {
            // api/lock.go `createSession`: SessionEntry{Name, TTL,
            // LockDelay} (or LockOptions.SessionOpts), which session.go
            // `Create` sends with only the fields set, the lock-delay as
            // api.go `durToMsec`; Go writes a map's keys in sorted order.
            ConsulMsg::SessionCreate { cleanup, .. } => self.consul_session_create(cleanup),
            ConsulMsg::SessionCreateReply { session } => {
                format!("200 OK\n{{\"ID\": \"{}\"}}", consul_id(session))
            }
            // session.go `RenewPeriodic` (started by lock.go `Lock`): `Renew`
            // every TTL/2, every 1 s after an error.
            ConsulMsg::SessionRenew { session } => {
                format!("PUT /v1/session/renew/{}\n(RenewPeriodic, every TTL/2)", consul_id(session))
            }
            ConsulMsg::SessionRenewReply {
                session,
                found: true,
            } => format!(
                "200 OK\n[{{\"ID\": \"{}\", \"TTL\": \"{CONSUL_TTL}\", ...}}]",
                consul_id(session)
            ),
            ConsulMsg::SessionRenewReply {
                session,
                found: false,
            } => format!("404 Not Found\nSession id '{}' not found", consul_id(session)),
            ConsulMsg::SessionDestroy { session } => {
                format!("PUT /v1/session/destroy/{}", consul_id(session))
            }
            ConsulMsg::KvGet {
                wait_index,
                purpose,
            } => consul_get(wait_index, purpose),
            ConsulMsg::KvGetReply { session, index, .. } => {
                let holder = match session {
                    Some(s) => format!(", \"Session\": \"{}\"", consul_id(s)),
                    None => String::new(),
                };
                format!(
                    "200 OK, X-Consul-Index: {index}\n[{{\"Key\": \"{CONSUL_KEY}\", \"Flags\": {CONSUL_LOCK_FLAG}{holder}, ...}}]"
                )
            }
            // api/kv.go `Acquire`: params acquire and flags (decimal), which
            // url.Values.Encode writes sorted by name.
            ConsulMsg::KvAcquire { session } => format!(
                "PUT /v1/kv/{CONSUL_KEY}?acquire={}&flags={CONSUL_LOCK_FLAG}",
                consul_id(session)
            ),
            ConsulMsg::KvAcquireReply { session, result } => match result {
                AcquireResult::Locked {
                    lock_index,
                    modify_index,
                } => format!(
                    "200 OK\ntrue\n(the key now reads LockIndex {lock_index}, ModifyIndex {modify_index})"
                ),
                AcquireResult::NotLocked => "200 OK\nfalse".into(),
                AcquireResult::InvalidSession => format!(
                    "500 Internal Server Error\ninvalid session \"{}\"",
                    consul_id(session)
                ),
            },
            ConsulMsg::Unlock {
                session,
                delete_key,
            } => {
                let id = consul_id(session);
                let delete = if delete_key {
                    format!("\nDELETE /v1/kv/{CONSUL_KEY}?cas=<its ModifyIndex> (if no one holds it)")
                } else {
                    String::new()
                };
                // api/kv.go `Release`: flags, then release (sorted by name);
                // lock.go `Unlock` closes sessionRenew, and RenewPeriodic
                // then destroys the session; `Destroy` is kv.go `DeleteCAS`.
                format!(
                    "PUT /v1/kv/{CONSUL_KEY}?flags={CONSUL_LOCK_FLAG}&release={id}{delete}\nPUT /v1/session/destroy/{id}"
                )
            }
            ConsulMsg::NoLeader { rpc } => {
                let what = match rpc {
                    Rpc::SessionCreate => "session create",
                    Rpc::SessionRenew => "session renew",
                    Rpc::KvGet { .. } => "GET of the key",
                    Rpc::KvAcquire => "PUT ?acquire",
                };
                format!("500 Internal Server Error\nNo cluster leader (to the {what}, after the agent held it rpc_hold_timeout)")
            }
        }
    }

    /// The session `Lock()` creates: the page's TTL stands for
    /// `DefaultLockSessionTTL`, so the wire carries Consul's own values.
    fn consul_session_create(&self, cleanup: KeyCleanup) -> String {
        let delay_s = self.config.consul.lock_delay_s;
        let mut fields = Vec::new();
        if cleanup == KeyCleanup::Delete {
            fields.push("\"Behavior\": \"delete\"".to_string());
        }
        // A LockDelay of 0 is left out, and the server applies its 15 s.
        let delay_note = match delay_s {
            LOCK_DELAY_S_DEFAULT => "no LockDelay: the server's default, 15 s",
            0 => "a zero lock-delay: consul/api leaves a zero LockDelay out (the server would apply 15 s), so this body is written by hand",
            _ => "LockOptions.LockDelay",
        };
        if delay_s != LOCK_DELAY_S_DEFAULT {
            fields.push(format!("\"LockDelay\": \"{}ms\"", delay_s * 1_000));
        }
        fields.push("\"Name\": \"Consul API Lock\"".into());
        fields.push(format!("\"TTL\": \"{CONSUL_TTL}\""));
        let behavior = match cleanup {
            KeyCleanup::Keep => "no Behavior: the server's default, release",
            KeyCleanup::Delete => "Behavior delete: a session of LockOptions.SessionOpts",
        };
        format!(
            "PUT /v1/session/create\n{{{}}}\n(consul/api Lock.Lock; {delay_note}; {behavior}; the page's TTL of {} stands for DefaultLockSessionTTL, {CONSUL_TTL})",
            fields.join(", "),
            secs_text(self.config.ttl_ms)
        )
    }

    /// AmazonDynamoDBLockClient.java, with the default partition key name
    /// "key" (AmazonDynamoDBLockClientOptions DEFAULT_PARTITION_KEY_NAME),
    /// no sort key and no data. The page's TTL stands for the client's
    /// 20 s lease, so `leaseDuration` carries the real "20000".
    fn dynamo(&self, c: Option<ClientId>, m: &DynamoMsg) -> String {
        let me = c.map(dynamo_owner).unwrap_or_default();
        let lease = REAL_LEASE_MS;
        let key = format!("Key: {{\"key\": {{S: \"{DYNAMO_KEY}\"}}}}");
        match *m {
            // `readFromDynamoDB`: GetItem with consistentRead(true).
            DynamoMsg::GetItem { .. } => {
                format!("GetItem{{TableName: \"{DYNAMO_TABLE}\", {key}, ConsistentRead: true}}")
            }
            DynamoMsg::Item { item: None, .. } => "GetItemResponse{} (no Item: nobody holds the lock)".into(),
            DynamoMsg::Item {
                item: Some(ItemSeen { owner, rvn, .. }),
                ..
            } => format!(
                "GetItemResponse{{Item: {{key: {{S: \"{DYNAMO_KEY}\"}}, ownerName: {{S: \"{}\"}}, leaseDuration: {{S: \"{lease}\"}}, recordVersionNumber: {{S: \"{}\"}}}}}}",
                dynamo_owner(owner),
                rvn_uuid(rvn.get())
            ),
            // `acquireLock` builds the item (key, ownerName, leaseDuration,
            // recordVersionNumber); `upsertAndMonitorNewLock` puts it with
            // ACQUIRE_LOCK_THAT_DOESNT_EXIST_PK_CONDITION,
            // `upsertAndMonitorExpiredLock` with
            // PK_EXISTS_AND_RVN_IS_THE_SAME_CONDITION.
            DynamoMsg::PutItem { rvn, expected, .. } => {
                let (condition, names, values) = match expected {
                    None => (DYNAMO_NEW_LOCK, "", String::new()),
                    Some(old) => (
                        DYNAMO_SAME_RVN,
                        ", \"#rvn\": \"recordVersionNumber\"",
                        format!(",\n  ExpressionAttributeValues: {{\":rvn\": {{S: \"{}\"}}}}", rvn_uuid(old.get())),
                    ),
                };
                format!(
                    "PutItem{{TableName: \"{DYNAMO_TABLE}\",\n  Item: {{key: {{S: \"{DYNAMO_KEY}\"}}, ownerName: {{S: \"{me}\"}}, leaseDuration: {{S: \"{lease}\"}}, recordVersionNumber: {{S: \"{}\"}}}},\n  ConditionExpression: \"{condition}\",\n  ExpressionAttributeNames: {{\"#pk\": \"key\"{names}}}{values}}}\n(the page's TTL of {} stands for the client's leaseDuration, 20 s)",
                    rvn_uuid(rvn),
                    secs_text(self.config.ttl_ms)
                )
            }
            DynamoMsg::PutReply { ok: true, .. } | DynamoMsg::HeartbeatReply { ok: true, .. } => {
                "200 OK {}".into()
            }
            DynamoMsg::PutReply { ok: false, .. } | DynamoMsg::HeartbeatReply { ok: false, .. } => {
                "400 ConditionalCheckFailedException: The conditional request failed".into()
            }
            // `sendHeartbeat`: UPDATE_LEASE_DURATION_AND_RVN on
            // PK_EXISTS_AND_OWNER_NAME_SAME_AND_RVN_SAME_CONDITION.
            DynamoMsg::Heartbeat { rvn, new_rvn, .. } => format!(
                "UpdateItem{{TableName: \"{DYNAMO_TABLE}\", {key},\n  UpdateExpression: \"{DYNAMO_HEARTBEAT_UPDATE}\",\n  ConditionExpression: \"{DYNAMO_OWNER_AND_RVN}\",\n  ExpressionAttributeNames: {{\"#pk\": \"key\", \"#ld\": \"leaseDuration\", \"#rvn\": \"recordVersionNumber\", \"#on\": \"ownerName\"}},\n  ExpressionAttributeValues: {{\":rvn\": {{S: \"{}\"}}, \":on\": {{S: \"{me}\"}}, \":newRvn\": {{S: \"{}\"}}, \":ld\": {{S: \"{lease}\"}}}}}}\n(sendHeartbeat)",
                rvn_uuid(rvn),
                rvn_uuid(new_rvn)
            ),
            // `releaseLock` with deleteLock (the default): DeleteItem on
            // PK_EXISTS_AND_OWNER_NAME_SAME_AND_RVN_SAME_CONDITION.
            DynamoMsg::DeleteItem { rvn } => format!(
                "DeleteItem{{TableName: \"{DYNAMO_TABLE}\", {key},\n  ConditionExpression: \"{DYNAMO_OWNER_AND_RVN}\",\n  ExpressionAttributeNames: {{\"#pk\": \"key\", \"#on\": \"ownerName\", \"#rvn\": \"recordVersionNumber\"}},\n  ExpressionAttributeValues: {{\":rvn\": {{S: \"{}\"}}, \":on\": {{S: \"{me}\"}}}}}}\n(releaseLock, deleteLock = true)",
                rvn_uuid(rvn)
            ),
        }
    }

    /// The resource is the page's own counter service, which takes the
    /// token with each write (the fencing of Kleppmann's article); on
    /// PostgreSQL and DynamoDB it is a row or an item of the same server.
    fn resource(&self, c: Option<ClientId>, m: &ResourceMsg) -> String {
        let fencing = self.config.fencing.is_on();
        let me = c.map(|c| c.to_string()).unwrap_or_default();
        match (self.config.backend, *m) {
            (Backend::Postgres, ResourceMsg::Write { token, .. }) => match token.filter(|_| fencing) {
                Some(v) => format!("UPDATE counter SET version = version + 1 WHERE id = 1 AND version = {v} RETURNING version"),
                None => "UPDATE counter SET version = version + 1 WHERE id = 1 RETURNING version".into(),
            },
            (Backend::Postgres, ResourceMsg::WriteReply { accepted: true, version }) => {
                format!("UPDATE 1\nversion = {version}")
            }
            (Backend::Postgres, ResourceMsg::WriteReply { accepted: false, .. }) => {
                "UPDATE 0 (no row has the version read: someone wrote since)".into()
            }
            (Backend::DynamoDb, ResourceMsg::Write { .. }) if fencing => format!(
                "TransactWriteItems[\n  ConditionCheck{{TableName: \"{DYNAMO_TABLE}\", Key: {{\"key\": {{S: \"{DYNAMO_KEY}\"}}}}, ConditionExpression: \"#on = :on\", :on = \"{me}\"}},\n  Update{{TableName: \"counter\", UpdateExpression: \"SET #v = #v + :one\"}}]"
            ),
            (Backend::DynamoDb, ResourceMsg::WriteReply { accepted: false, .. }) if fencing => {
                "400 TransactionCanceledException: [ConditionalCheckFailed, None]".into()
            }
            (_, ResourceMsg::Write { token, .. }) => match token.filter(|_| fencing) {
                Some(t) => format!("write(counter + 1, fencing_token = {t})"),
                None => "write(counter + 1) (no token: the resource cannot tell a stale holder)".into(),
            },
            (_, ResourceMsg::WriteReply { accepted: true, version }) => format!("ok, counter = {version}"),
            (_, ResourceMsg::WriteReply { accepted: false, .. }) => {
                "rejected: the token is older than one the resource has seen".into()
            }
            (_, ResourceMsg::Announce { token }) => {
                format!("announce(fencing_token = {token}) (the new holder's token, before any write)")
            }
        }
    }
}

/// Single Redis: the commands are Redlock's, sent to the master; WAIT is
/// its own.
fn single_redis(m: &SingleRedisMsg, asked: Option<Msg>) -> String {
    let asked = match asked {
        Some(Msg::Redis(SingleRedisMsg::Command { cmd })) => Some(cmd),
        _ => None,
    };
    match *m {
        SingleRedisMsg::Command { cmd } | SingleRedisMsg::Answer { cmd } => redis(&cmd, asked, true),
        SingleRedisMsg::Wait { redisson: false, .. } => format!("WAIT 1 {WAIT_TIMEOUT_MS}"),
        SingleRedisMsg::Wait { redisson: true, .. } => format!(
            "INFO replication   (connected_slaves)\nWAIT <connected_slaves> {REDISSON_SYNC_TIMEOUT_MS}   (Redisson's syncedEval)"
        ),
        SingleRedisMsg::WaitReply {
            replicas,
            connected,
            ..
        } => format!("(integer) {replicas}   ({connected} replica(s) connected)"),
    }
}

/// One Redis command or answer; `redis_py` for single Redis (redis-py's
/// `Lock`), else Redlock's (node-redlock's scripts, on each node).
fn redis(m: &RedisMsg, asked: Option<RedisMsg>, redis_py: bool) -> String {
    match *m {
        // redis-py lock.py `do_acquire`: `set(name, token, nx=True, px=...)`,
        // which commands/core.py `set` sends as SET name value NX PX ms.
        RedisMsg::Set { value, px_ms, .. } if redis_py => {
            format!("SET {REDIS_KEY} {} NX PX {px_ms}", redis_value(value))
        }
        // node-redlock `acquire` -> `_execute(acquireScript, keys, [value, duration])`.
        RedisMsg::Set { value, px_ms, .. } => redlock_eval(REDLOCK_ACQUIRE, value, Some(px_ms)),
        RedisMsg::SetReply { ok, .. } if !redis_py => redlock_count(ok),
        RedisMsg::SetReply { ok: true, .. } => "OK".into(),
        RedisMsg::SetReply { ok: false, .. } | RedisMsg::SetFenceReply { fence: None, .. } => {
            "(nil)".into()
        }
        RedisMsg::SetFence { value, px_ms, .. } => eval(
            SET_AND_FENCE,
            &[REDIS_KEY, REDIS_FENCE_KEY],
            &[&redis_value(value), &px_ms.to_string()],
        ),
        RedisMsg::SetFenceReply { fence: Some(f), .. } | RedisMsg::IncrReply { fence: f, .. } => {
            format!("(integer) {f}")
        }
        RedisMsg::Incr { .. } => format!("INCR {REDIS_FENCE_KEY}"),
        RedisMsg::Extend {
            value,
            px_ms,
            mode: ExtendMode::BlindSet,
            ..
        } => format!("SET {REDIS_KEY} {} PX {px_ms}", redis_value(value)),
        RedisMsg::Extend {
            value,
            px_ms,
            mode: ExtendMode::CheckValue,
            ..
        } => {
            if redis_py {
                let (value, px) = (redis_value(value), px_ms.to_string());
                eval(REDIS_PY_EXTEND, &[REDIS_KEY], &[&value, &px, "1"])
            } else {
                redlock_eval(REDLOCK_EXTEND, value, Some(px_ms))
            }
        }
        RedisMsg::ExtendReply { ok, .. } => {
            let blind = matches!(
                asked,
                Some(RedisMsg::Extend {
                    mode: ExtendMode::BlindSet,
                    ..
                })
            );
            match (blind, ok) {
                // SET without NX always answers OK.
                (true, _) => "OK".into(),
                (false, ok) => redlock_count(ok),
            }
        }
        RedisMsg::Refused { .. } => {
            "connect(): Connection refused (ECONNREFUSED): the node is down".into()
        }
        RedisMsg::Unlock {
            mode: ReleaseMode::PlainDel,
            ..
        } => format!("DEL {REDIS_KEY}"),
        RedisMsg::Unlock {
            value,
            mode: ReleaseMode::CheckValue,
        } => {
            if redis_py {
                eval(REDIS_PY_RELEASE, &[REDIS_KEY], &[&redis_value(value)])
            } else {
                redlock_eval(REDLOCK_UNLOCK, value, None)
            }
        }
    }
}

/// One of node-redlock's scripts on one node: one key, then the lock's
/// value and (to acquire or extend) its duration in ms.
fn redlock_eval(script: &str, value: u64, px_ms: Option<u64>) -> String {
    let value = redis_value(value);
    let mut args = vec![value.as_str()];
    let px = px_ms.map(|ms| ms.to_string());
    args.extend(px.as_deref());
    format!(
        "{}\n{REDLOCK_EVALSHA_NOTE}",
        eval(script, &[REDIS_KEY], &args)
    )
}

/// A node-redlock script's answer: the keys it set, 1 or 0.
fn redlock_count(ok: bool) -> String {
    format!("(integer) {}", u8::from(ok))
}

/// `EVAL script numkeys key... arg...`, as redis-cli would print it
/// (redis-py sends `EVALSHA` of the script's SHA1 once it is loaded).
fn eval(script: &str, keys: &[&str], args: &[&str]) -> String {
    let mut out = format!("EVAL \"{script}\" {}", keys.len());
    for word in keys.iter().chain(args) {
        out.push(' ');
        out.push_str(word);
    }
    out
}

/// A lock value as redis-py makes one (lock.py `acquire`:
/// `uuid.uuid1().hex`, 32 hex digits) and node-redlock too (`_random`:
/// `randomBytes(16).toString("hex")`), here from the run's own value.
fn redis_value(value: u64) -> String {
    let mix = value.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("{value:012x}{mix:016x}{:04x}", mix >> 48)
}

fn postgres(m: &PgMsg) -> String {
    match *m {
        PgMsg::Connect => "StartupMessage{user: \"app\", database: \"app\"}\n(psycopg.connect)".into(),
        PgMsg::ConnectReply { pid: Some(pid) } => {
            format!("AuthenticationOk, BackendKeyData{{process ID: {pid}}}, ReadyForQuery")
        }
        PgMsg::ConnectReply { pid: None } => {
            "ErrorResponse{FATAL 53300: sorry, too many clients already}".into()
        }
        // psycopg's `execute` of a query without parameters sends a simple
        // Query message (cursor `_execute_send`: `send_query`).
        PgMsg::Lock { .. } => format!(
            "SELECT pg_advisory_lock({PG_LOCK_KEY});   (blocks in the server while another session holds it)\nSELECT version FROM counter WHERE id = 1;\n(two queries in the client, one after the other; the model sends them as one)"
        ),
        PgMsg::Locked { version, .. } => {
            format!("pg_advisory_lock: (one row, void)\nversion: {version}")
        }
        PgMsg::Unlock { .. } => format!("SELECT pg_advisory_unlock({PG_LOCK_KEY});"),
        PgMsg::Cancel { pid, .. } => format!(
            "CancelRequest{{process ID: {pid}, secret key}} on a new connection (libpq's PQcancel)"
        ),
        PgMsg::Reset { .. } => "TCP RST: the server knows no such connection".into(),
        PgMsg::Fin { .. } => "TCP FIN: the client's kernel closed the socket as its process exited".into(),
    }
}

/// api/lock.go `Lock`'s blocking read (QueryOptions{WaitTime:
/// DefaultLockWaitTime, WaitIndex}) and `monitorLock`'s
/// (RequireConsistent): api.go `setQueryOptions` sets index only when
/// non-zero, wait as `durToMsec`, consistent as an empty value.
fn consul_get(wait_index: u32, purpose: GetPurpose) -> String {
    let path = format!("GET /v1/kv/{CONSUL_KEY}");
    match (purpose, wait_index) {
        (GetPurpose::Monitor, 0) => format!("{path}?consistent=\n(monitorLock)"),
        (GetPurpose::Monitor, i) => {
            format!("{path}?consistent=&index={i}\n(monitorLock: blocks until the key changes)")
        }
        (_, 0) => format!("{path}?wait=15000ms"),
        (_, i) => format!(
            "{path}?index={i}&wait=15000ms\n(blocks until the key changes, at most LockWaitTime)"
        ),
    }
}

/// Consul's session ID, a UUID; its first group is the one the page shows.
fn consul_id(session: u64) -> String {
    let mix = session.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        session & 0xffff_ffff,
        mix >> 48,
        (mix >> 32) & 0xffff,
        (mix >> 16) & 0xffff,
        mix & 0xffff_ffff_ffff
    )
}

/// The lock client's RVN, `UUID.randomUUID().toString()`; its first group
/// is the one the page shows (`rvn_text`).
fn rvn_uuid(rvn: u64) -> String {
    let mix = rvn.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        rvn >> 16,
        rvn & 0xffff,
        (mix >> 52) & 0xfff,
        (mix >> 40) & 0xfff,
        mix & 0xffff_ffff_ffff
    )
}

/// A DynamoDB client's `ownerName` as the lock client makes it when the
/// application names none: its host's name followed straight by a random
/// UUID (AmazonDynamoDBLockClientOptions.java
/// `generateOwnerNameFromLocalhost`: `getLocalHost().getHostName() +
/// UUID.randomUUID()`). Client A's host is "client-a"; its UUID is fixed
/// by its letter so that every run shows the same name.
fn dynamo_owner(c: ClientId) -> String {
    let id = c.index() as u64 + 1;
    let mix = id.wrapping_mul(0xd6e8_feb8_6659_fd93) | 1;
    format!(
        "client-{}{:08x}-{:04x}-4{:03x}-b{:03x}-{:012x}",
        c.letter().to_ascii_lowercase(),
        mix >> 32,
        (mix >> 16) & 0xffff,
        mix & 0xfff,
        (mix >> 20) & 0xfff,
        mix.rotate_left(23) & 0xffff_ffff_ffff
    )
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

/// A page duration in seconds, as the notes say it ("5 s", "2.5 s").
fn secs_text(ms: u64) -> String {
    match ms % 1_000 {
        0 => format!("{} s", ms / 1_000),
        r => format!(
            "{}.{} s",
            ms / 1_000,
            format!("{r:03}").trim_end_matches('0')
        ),
    }
}

/// Whole seconds, rounded up, as TTLs in seconds are given.
fn secs_up(ms: u64) -> u64 {
    ms.div_ceil(1_000)
}
