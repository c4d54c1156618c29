//! The Code view's listings: for each lock system, the client code a real
//! application runs (acquire, renew, the write carrying its fence,
//! release) in its most used client, and the resource's check for the
//! fencing the page models. Drawn here, in the worker, so none of it is
//! in the page's first load.
//!
//! A listing is written one line a row, `op|text`: `op` names the
//! operation the line stands for (`crate::lesson::code::Op`'s slug, one
//! line each), and the page marks, per client, the line of the operation
//! its client is in. A name of the client's API is written `@name@`; each
//! is in the listing's list of names beside it, with the file or page of
//! the client that defines it, so a call renamed here fails the tests.

use super::escape;
use crate::sim::{Backend, FenceRule};

/// One listing, and the real API names it uses with their sources.
struct Listing {
    /// The client library and language, as the heading says.
    client: &'static str,
    lang: &'static str,
    text: &'static str,
    api: &'static [(&'static str, &'static str)],
}

const REDIS_PY: &str = "https://github.com/redis/redis-py/blob/master/redis/lock.py";
const REDIS_PY_CLIENT: &str = "https://github.com/redis/redis-py/blob/master/redis/client.py";
const REDIS_PY_CORE: &str = "https://github.com/redis/redis-py/blob/master/redis/commands/core.py";

const REDIS: Listing = Listing {
    client: "redis-py",
    lang: "python",
    text: "\
|r = redis.Redis(host=\"redis\")
|lock = r.@lock@(\"lock:42\", timeout={ttl_s})  # the lease: the page's TTL
|
idle|def job(value):
acquire|    lock.@acquire@()  # SET lock:42 <uuid> NX PX {ttl_ms}, retried while taken
|    fence = r.@incr@(\"fence:lock:42\")  # the fencing token: it only grows
check|    if lock.@owned@():  # the check: GET lock:42 is still my uuid
write|        resource.write(value, fence)  # a pause here can outlive the lease
release|    lock.@release@()  # Lua: DEL only if the value is still mine
|
|# From a timer while the job runs, every TTL / 3:
renew|lock.@extend@({ttl_s}, replace_ttl=True)  # Lua: PEXPIRE only if mine
|# The model sends SET NX PX and INCR as one script, as the real-server check does.",
    api: &[
        ("lock", REDIS_PY_CLIENT),
        ("acquire", REDIS_PY),
        ("incr", REDIS_PY_CORE),
        ("owned", REDIS_PY),
        ("release", REDIS_PY),
        ("extend", REDIS_PY),
    ],
};

const REDLOCK_JS: &str = "https://github.com/mike-marcacci/node-redlock/blob/main/src/index.ts";
const IOREDIS: &str = "https://github.com/redis/ioredis/blob/main/lib/utils/RedisCommander.ts";

const REDLOCK: Listing = Listing {
    client: "node-redlock",
    lang: "javascript",
    text: "\
|const redlock = new @Redlock@([r1, r2, r3, r4, r5]);  // five independent nodes
|
idle|async function job(value) {
acquire|  let lock = await redlock.@acquire@([\"lock:42\"], {ttl_ms});  // Lua on each node: SET PX if absent
|  const fence = await r1.@incr@(\"fence:lock:42\");  // one node's counter: a restart empties it
check|  if (lock.@expiration@ > Date.now()) {  // the check: validity by my own clock
write|    await resource.write(value, fence);  // a pause here can outlive the validity
|  }
release|  await lock.@release@();  // Lua on every node: DEL only if the value is mine
|}
|// While the job runs, every TTL / 3 (redlock.@using@() does this for you):
renew|lock = await lock.@extend@({ttl_ms});  // Lua on every node: SET PX again if mine
|// The model's random value cannot be ordered: only the INCR can fence.",
    api: &[
        ("Redlock", REDLOCK_JS),
        ("acquire", REDLOCK_JS),
        ("incr", IOREDIS),
        ("expiration", REDLOCK_JS),
        ("release", REDLOCK_JS),
        ("using", REDLOCK_JS),
        ("extend", REDLOCK_JS),
    ],
};

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

const ETCD_SESSION: &str =
    "https://github.com/etcd-io/etcd/blob/main/client/v3/concurrency/session.go";
const ETCD_MUTEX: &str = "https://github.com/etcd-io/etcd/blob/main/client/v3/concurrency/mutex.go";
const ETCD_LEASE: &str = "https://github.com/etcd-io/etcd/blob/main/client/v3/lease.go";

const ETCD: Listing = Listing {
    client: "etcd clientv3/concurrency",
    lang: "go",
    text: "\
|s, _ := concurrency.@NewSession@(cli, concurrency.@WithTTL@({ttl_s}))  // LeaseGrant
renew|// NewSession's goroutine: cli.@KeepAlive@(lease), every TTL / 3.
|m := concurrency.@NewMutex@(s, \"/lock/widget-42\")
|
idle|func job(ctx context.Context, value int64) error {
acquire|	if err := m.@Lock@(ctx); err != nil {  // Txn: put if absent, wait on the key before
|		return err
|	}
|	fence := m.@Header@().Revision  // the revision of the grant: it only grows
check|	select { case <-s.@Done@(): return errLost; default: }  // the check: lease alive
write|	resource.Write(value, fence)  // a pause here can outlive the lease
release|	return m.@Unlock@(ctx)  // Delete(my key)
|}
|// The model's token is the key's CreateRevision, ordered as the header's revision.",
    api: &[
        ("NewSession", ETCD_SESSION),
        ("WithTTL", ETCD_SESSION),
        ("KeepAlive", ETCD_LEASE),
        ("NewMutex", ETCD_MUTEX),
        ("Lock", ETCD_MUTEX),
        ("Header", ETCD_MUTEX),
        ("Done", ETCD_SESSION),
        ("Unlock", ETCD_MUTEX),
    ],
};

const CHUBBY_PAPER: &str =
    "https://research.google/pubs/the-chubby-lock-service-for-loosely-coupled-distributed-systems/";

const CHUBBY: Listing = Listing {
    client: "Chubby's client API (OSDI '06, no public client)",
    lang: "cpp",
    text: "\
|h = @Open@(\"/ls/cell/widget-42\", WRITE);  // a handle in my session (section 2.6)
renew|// The library's KeepAlive RPCs extend the session lease (section 2.8).
|
idle|void job(int64 value) {
acquire|  @Acquire@(h);  // blocks while another holds it, and through its lock-delay
|  Sequencer seq = @GetSequencer@(h);  // name, mode, generation (section 2.4)
check|  if (!jeopardy) {  // the check: the library has not reported jeopardy
write|    resource.write(value, seq);  // the server asks @CheckSequencer@(seq)
|  }
release|  @Release@(h);
|}
|// The paper gives no code: the calls are its names, the syntax is ours.",
    api: &[
        ("Open", CHUBBY_PAPER),
        ("Acquire", CHUBBY_PAPER),
        ("GetSequencer", CHUBBY_PAPER),
        ("CheckSequencer", CHUBBY_PAPER),
        ("Release", CHUBBY_PAPER),
    ],
};

const CONSUL_LOCK: &str = "https://github.com/hashicorp/consul/blob/main/api/lock.go";
const CONSUL_SESSION: &str = "https://github.com/hashicorp/consul/blob/main/api/session.go";
const CONSUL_KV: &str = "https://github.com/hashicorp/consul/blob/main/api/kv.go";

const CONSUL: Listing = Listing {
    client: "Consul api",
    lang: "go",
    text: "\
|lock, _ := client.@LockOpts@(&api.@LockOptions@{Key: \"lock/widget-42\", SessionTTL: \"{ttl_s}s\"})
renew|// Lock() starts Session().@RenewPeriodic@(ttl, id, ...): a renewal every TTL / 2.
|
idle|func job(value int64) {
acquire|	lost, _ := lock.@Lock@(nil)  // KV GET (blocking), then PUT ?acquire=<session>
|	pair, _, _ := client.@KV@().@Get@(\"lock/widget-42\", nil)  // the sequencer's parts
check|	select { case <-lost: return; default: }  // the check: lost not yet closed
write|	resource.Write(value, pair.@LockIndex@, pair.@Session@, pair.@ModifyIndex@)
release|	lock.@Unlock@()  // PUT ?release=<session>; the session is destroyed
|}",
    api: &[
        ("LockOpts", CONSUL_LOCK),
        ("LockOptions", CONSUL_LOCK),
        ("RenewPeriodic", CONSUL_SESSION),
        ("Lock", CONSUL_LOCK),
        ("KV", CONSUL_KV),
        ("Get", CONSUL_KV),
        ("LockIndex", CONSUL_KV),
        ("Session", CONSUL_KV),
        ("ModifyIndex", CONSUL_KV),
        ("Unlock", CONSUL_LOCK),
    ],
};

const DYNAMO_DIR: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/";
const DYNAMO_CLIENT: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/AmazonDynamoDBLockClient.java";
const DYNAMO_OPTIONS: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/AmazonDynamoDBLockClientOptions.java";
const DYNAMO_ACQUIRE: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/AcquireLockOptions.java";
const DYNAMO_ITEM: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/LockItem.java";

const DYNAMODB: Listing = Listing {
    client: "AmazonDynamoDBLockClient",
    lang: "java",
    text: "\
|AmazonDynamoDBLockClient locks = new @AmazonDynamoDBLockClient@(
|    @AmazonDynamoDBLockClientOptions@.@builder@(dynamo, \"locks\")
|        .@withTimeUnit@(TimeUnit.MILLISECONDS).@withLeaseDuration@({ttl_ms}L)
renew|        .@withHeartbeatPeriod@(heartbeat).build());  // a thread: a new RVN each beat
|
idle|void job(long value) throws InterruptedException {
acquire|  LockItem lock = locks.@acquireLock@(@AcquireLockOptions@.@builder@(\"widget-42\").build());
|  // acquireLock waits a whole lease of one unchanged RVN before taking over.
check|  if (!lock.@isExpired@()) {  // the check: by this process's own clock
write|    resource.write(value, lock.@getOwnerName@());  // see the resource's check
|  }
release|  locks.@releaseLock@(lock);  // DeleteItem, if the RVN is still mine
|}",
    api: &[
        ("AmazonDynamoDBLockClient", DYNAMO_CLIENT),
        ("AmazonDynamoDBLockClientOptions", DYNAMO_OPTIONS),
        ("builder", DYNAMO_DIR),
        ("withTimeUnit", DYNAMO_OPTIONS),
        ("withLeaseDuration", DYNAMO_OPTIONS),
        ("withHeartbeatPeriod", DYNAMO_OPTIONS),
        ("acquireLock", DYNAMO_CLIENT),
        ("AcquireLockOptions", DYNAMO_ACQUIRE),
        ("isExpired", DYNAMO_ITEM),
        ("getOwnerName", DYNAMO_ITEM),
        ("releaseLock", DYNAMO_CLIENT),
    ],
};

const PSYCOPG: &str =
    "https://github.com/psycopg/psycopg/blob/master/psycopg/psycopg/connection.py";
const PSYCOPG_CURSOR: &str =
    "https://github.com/psycopg/psycopg/blob/master/psycopg/psycopg/cursor.py";
const PSYCOPG_BASE: &str =
    "https://github.com/psycopg/psycopg/blob/master/psycopg/psycopg/_cursor_base.py";

const POSTGRES: Listing = Listing {
    client: "psycopg 3",
    lang: "python",
    text: "\
|conn = psycopg.@connect@(\"dbname=app\", autocommit=True)  # the lock lives with this session
|# No renewal: a session lock has no lease. TCP keepalives find a dead peer.
|
idle|def job(value):
acquire|    conn.@execute@(\"SELECT pg_advisory_lock(42)\")  # blocks in the server while taken
|    v = conn.execute(\"SELECT version FROM counter WHERE id = 1\").@fetchone@()[0]
check|    # the check: none; the lock holds while this connection lives
write|    cur = conn.execute(WRITE, (v,))  # the resource's check is in WRITE
|    ok = cur.@rowcount@ == 1
release|    conn.execute(\"SELECT pg_advisory_unlock(42)\")",
    api: &[
        ("connect", PSYCOPG),
        ("execute", PSYCOPG),
        ("fetchone", PSYCOPG_CURSOR),
        ("rowcount", PSYCOPG_BASE),
    ],
};

const BOTO3: &str = "https://boto3.amazonaws.com/v1/documentation/api/latest/reference/services/dynamodb/client/transact_write_items.html";

/// The resource's side, for the fencing the page models: one listing per
/// rule, and one with fencing off.
fn resource(system: Backend, fence: Option<FenceRule>) -> Listing {
    match fence {
        None if system == Backend::Postgres => Listing {
            client: "the resource, fencing off (SQL)",
            lang: "sql",
            text: "\
|-- WRITE: no version condition, so a write from any session lands.
|UPDATE counter SET version = version + 1 WHERE id = 1;",
            api: &[],
        },
        None => Listing {
            client: "the resource, fencing off",
            lang: "python",
            text: "\
|def write(value, token):
|    counter.apply(value)  # no check: a stale holder's write lands",
            api: &[],
        },
        Some(FenceRule::Highest) => Listing {
            client: "the resource: the highest token",
            lang: "python",
            text: "\
|def write(value, token):
|    global highest
|    if token < highest:  # older than one already seen: a stale holder
|        raise Rejected(token, highest)
|    highest = token  # equal passes: one holder writes many times
|    counter.apply(value)
|# It knows only tokens it has seen: without B's write, nothing to compare.",
            api: &[],
        },
        Some(FenceRule::LockHeld) => held(system),
        Some(FenceRule::LockOwner) => Listing {
            client: "the resource: a transaction on the lock item (boto3)",
            lang: "python",
            text: "\
|dynamo.@transact_write_items@(TransactItems=[
|    {\"ConditionCheck\": {\"TableName\": \"locks\", \"Key\": LOCK_KEY,
|        \"ConditionExpression\": \"ownerName = :me\", \"ExpressionAttributeValues\": ME}},
|    {\"Update\": COUNTER_UPDATE},  # applied only with the check: both or neither
|])",
            api: &[("transact_write_items", BOTO3)],
        },
        Some(FenceRule::Version) => Listing {
            client: "the resource: the row's version (SQL)",
            lang: "sql",
            text: "\
|-- WRITE: the data carries its own version, checked and bumped in one statement.
|UPDATE counter SET version = version + 1
|  WHERE id = 1 AND version = %s;  -- 0 rows: someone wrote since I read",
            api: &[],
        },
        Some(FenceRule::Sequencer) => Listing {
            client: "the resource: Consul's sequencer (Go api)",
            lang: "go",
            text:
                "\
|pair, _, _ := client.@KV@().@Get@(\"lock/widget-42\", &api.@QueryOptions@{RequireConsistent: true})
|if pair == nil || pair.@Session@ != w.Session || pair.@LockIndex@ != w.LockIndex {
|	return errRejected  // the key no longer names this holder
|}
|counter.Apply(w.Value)  // the model checks and writes at one instant; a real read leaves a window",
            api: &[
                ("KV", CONSUL_KV),
                ("Get", CONSUL_KV),
                (
                    "QueryOptions",
                    "https://github.com/hashicorp/consul/blob/main/api/api.go",
                ),
                ("Session", CONSUL_KV),
                ("LockIndex", CONSUL_KV),
            ],
        },
    }
}

const ETCD_TXN: &str = "https://github.com/etcd-io/etcd/blob/main/client/v3/txn.go";
const CONSUL_TXN: &str = "https://github.com/hashicorp/consul/blob/main/api/txn.go";

/// The resource's side with the check "in the same transaction": the data
/// lives in the lock's own store, and one request checks the lock and writes.
fn held(system: Backend) -> Listing {
    match system {
        Backend::Etcd => Listing {
            client: "the resource: a Txn on the lock key (Go, clientv3)",
            lang: "go",
            text: "\
|// The counter lives in etcd too: the check and the write are one Txn.
|resp, err := cli.@Txn@(ctx).
|\tIf(m.@IsOwner@()). // CreateRevision(myKey) == myRev: gone once A's lease expired
|\tThen(clientv3.OpPut(\"counter\", next)).
|\tCommit()
|if err == nil && !resp.Succeeded {
|\treturn errRejected // the lock no longer holds this grant
|}",
            api: &[("Txn", ETCD_TXN), ("IsOwner", ETCD_MUTEX)],
        },
        Backend::ZooKeeper => Listing {
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
        },
        Backend::Redis => Listing {
            client: "the resource: one script checks the lock and writes (redis-py)",
            lang: "python",
            text: "\
|# The counter lives in the same Redis: the script runs as one step.
|WRITE = \"\"\"if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
|redis.call('incr', KEYS[2]) return 1\"\"\"
|if not r.@eval@(WRITE, 2, \"lock\", \"counter\", my_value):
|    raise Rejected()  # the key holds another client's value, or none",
            api: &[("eval", REDIS_PY_CORE)],
        },
        Backend::Chubby => Listing {
            client: "the resource: CheckSequencer (OSDI '06, no public client)",
            lang: "cpp",
            text: "\
|// The server asks the lock service about each write (section 2.4).
|if (!@CheckSequencer@(w.sequencer)) return kRejected;  // not the current holder
|counter.Apply(w.value);  // the model checks and writes at one instant",
            api: &[("CheckSequencer", CHUBBY_PAPER)],
        },
        _ => Listing {
            client: "the resource: check-session in a Txn (Go api)",
            lang: "go",
            text: "\
|// The counter lives in Consul's KV too: the check and the write are one Txn.
|ok, _, _, err := client.KV().@Txn@(api.KVTxnOps{
|\t{Verb: api.@KVCheckSession@, Key: \"lock/widget-42\", Session: w.Session},
|\t{Verb: api.KVSet, Key: \"counter\", Value: next},
|}, nil)
|if err != nil || !ok {
|\treturn errRejected // the key no longer names this session
|}",
            api: &[("Txn", CONSUL_TXN), ("KVCheckSession", CONSUL_TXN)],
        },
    }
}

/// The client listing for a system; ZooKeeper's follows the page's
/// client setting (Curator, or the native client that kazoo is).
fn client(system: Backend, kazoo: bool) -> Listing {
    match system {
        Backend::Redis => REDIS,
        Backend::Redlock => REDLOCK,
        Backend::ZooKeeper if kazoo => KAZOO,
        Backend::ZooKeeper => CURATOR,
        Backend::Etcd => ETCD,
        Backend::Chubby => CHUBBY,
        Backend::Consul => CONSUL,
        Backend::DynamoDb => DYNAMODB,
        Backend::Postgres => POSTGRES,
    }
}

/// The Code view's body: the client's listing, the resource's, and the
/// sources of the names they use.
pub fn body(system: Backend, kazoo: bool, fence: Option<FenceRule>, ttl_ms: u64) -> String {
    let (client, resource) = (client(system, kazoo), resource(system, fence));
    let mut out = String::new();
    draw(&mut out, &client, "Client", ttl_ms);
    draw(&mut out, &resource, "Resource", ttl_ms);
    let mut sources: Vec<&str> = client
        .api
        .iter()
        .chain(resource.api)
        .map(|&(_, url)| url)
        .collect();
    sources.sort_unstable();
    sources.dedup();
    out.push_str("<p class=\"code__sources\">Names checked against: ");
    for (i, url) in sources.iter().enumerate() {
        let short = url.trim_end_matches('/').rsplit('/').next().unwrap_or(url);
        let sep = if i == 0 { "" } else { ", " };
        out.push_str(&format!(
            "{sep}<a href=\"{0}\" target=\"_blank\" rel=\"noopener\">{1}</a>",
            escape(url),
            escape(short)
        ));
    }
    out.push_str("</p>");
    out
}

/// One listing as a labelled `<pre>`: each line a span with its
/// operation, and a gutter where the page shows the letters of the
/// clients at it.
fn draw(out: &mut String, listing: &Listing, role: &str, ttl_ms: u64) {
    let label = format!("{role} code: {}", listing.client);
    out.push_str(&format!(
        "<h3 class=\"code__title\">{}</h3><pre class=\"code__pre\" tabindex=\"0\" aria-label=\"{}\"><code class=\"language-{}\">",
        escape(&label),
        escape(&label),
        listing.lang
    ));
    let text = listing
        .text
        .replace("{ttl_ms}", &ttl_ms.to_string())
        .replace("{ttl_s}", &crate::words::seconds_in_code(ttl_ms));
    for row in text.lines() {
        let (op, line) = row.split_once('|').unwrap_or(("", row));
        match op {
            "" => out.push_str("<span class=\"code__l\">"),
            op => out.push_str(&format!("<span class=\"code__l\" data-op=\"{op}\">")),
        }
        out.push_str(GUTTER);
        draw_line(out, line);
        // Each line is a block: a newline here would show as a blank line.
        out.push_str("</span>");
    }
    out.push_str("</code></pre>");
}

/// The letters of the clients at a line, hidden until one is (the
/// worker's stylesheet shows them), and the arrow.
const GUTTER: &str = "<span class=\"code__g\"><span class=\"code__c\" data-c=\"a\">A</span><span class=\"code__c\" data-c=\"b\">B</span><span class=\"code__c\" data-c=\"c\">C</span><span class=\"code__c\" data-c=\"d\">D</span><span class=\"code__c\" data-c=\"at\">\u{25b8}</span> </span>";

/// A line's code, its API names marked, its comment muted.
fn draw_line(out: &mut String, line: &str) {
    let (code, comment) = split_comment(line);
    for (i, part) in code.split('@').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!(
                "<span class=\"code__api\">{}</span>",
                escape(part)
            ));
        } else {
            out.push_str(&escape(part));
        }
    }
    if !comment.is_empty() {
        let comment = comment.replace('@', "");
        out.push_str(&format!(
            "<span class=\"code__note\">{}</span>",
            escape(&comment)
        ));
    }
}

/// A line's code and its comment (`# `, `// ` or `-- `, at the line's start
/// or after a space).
fn split_comment(line: &str) -> (&str, &str) {
    let starts = ["# ", "// ", "-- "];
    let at = starts
        .iter()
        .filter_map(|s| {
            line.match_indices(s)
                .map(|(i, _)| i)
                .find(|&i| i == 0 || line[..i].ends_with(' ') || line[..i].ends_with('\t'))
        })
        .min();
    match at {
        Some(i) => line.split_at(i),
        None => (line, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::code::Op;

    fn all_listings() -> Vec<(String, Listing)> {
        let mut all: Vec<(String, Listing)> = Backend::ALL
            .iter()
            .flat_map(|&b| [(b, false), (b, true)])
            .filter(|&(b, kazoo)| !kazoo || b == Backend::ZooKeeper)
            .map(|(b, kazoo)| (format!("{b:?} kazoo={kazoo}"), client(b, kazoo)))
            .collect();
        for fence in [
            None,
            Some(FenceRule::Highest),
            Some(FenceRule::LockOwner),
            Some(FenceRule::Version),
            Some(FenceRule::Sequencer),
            Some(FenceRule::LockHeld),
        ] {
            for system in [Backend::Redis, Backend::Postgres] {
                all.push((format!("resource {fence:?}"), resource(system, fence)));
            }
        }
        all
    }

    /// The names a listing marks as its client's API.
    fn marked(listing: &Listing) -> Vec<&'static str> {
        listing
            .text
            .lines()
            .flat_map(|l| l.split('@').skip(1).step_by(2))
            .collect()
    }

    #[test]
    fn every_api_name_in_a_listing_is_a_real_one_with_its_source() {
        for (name, listing) in all_listings() {
            let marked = marked(&listing);
            for used in &marked {
                assert!(
                    listing.api.iter().any(|(n, _)| n == used),
                    "{name}: `{used}` is not in its list of the client's names"
                );
            }
            for (api, source) in listing.api {
                assert!(marked.contains(api), "{name}: `{api}` is listed but unused");
                assert!(source.starts_with("https://"), "{name}: {api} has a source");
                assert!(
                    !api.is_empty() && api.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                    "{name}: `{api}` is one identifier"
                );
            }
        }
    }

    #[test]
    fn each_client_listing_has_one_line_for_each_operation() {
        for (name, listing) in all_listings()
            .into_iter()
            .filter(|(n, _)| !n.starts_with("resource"))
        {
            for op in Op::ALL {
                let lines = listing
                    .text
                    .lines()
                    .filter(|l| l.split_once('|').map(|(o, _)| o) == Some(op.slug()))
                    .count();
                // PostgreSQL's session lock has no lease to renew.
                let want = usize::from(!(op == Op::Renew && name.starts_with("Postgres")));
                assert_eq!(lines, want, "{name}: lines for {op:?}");
            }
            for l in listing.text.lines() {
                let op = l.split_once('|').map(|(o, _)| o);
                assert!(
                    op.is_some_and(|o| o.is_empty() || Op::ALL.iter().any(|op| op.slug() == o)),
                    "{name}: a line with an unknown operation: {l}"
                );
            }
        }
    }

    #[test]
    fn the_body_escapes_code_and_marks_lines_for_the_page() {
        let html = body(Backend::Redis, false, Some(FenceRule::Highest), 5_000);
        assert!(html.contains("data-op=\"write\""));
        assert!(
            html.contains("SET lock:42 &lt;uuid&gt; NX PX 5000"),
            "{html}"
        );
        assert!(html.contains("timeout=5)"));
        assert!(html.contains("<span class=\"code__api\">extend</span>"));
        assert!(!html.contains('@'), "markers are gone");
        assert!(html.contains("aria-label=\"Client code: redis-py\""));
        assert!(html.contains("aria-label=\"Resource code: the resource: the highest token\""));
        assert!(html.contains("if token &lt; highest:"));
        assert!(
            html.contains("href=\"https://github.com/redis/redis-py/blob/master/redis/lock.py\"")
        );
        assert!(body(Backend::ZooKeeper, true, None, 2_500)
            .contains("KazooClient</span>(hosts=&quot;zk:2181&quot;, timeout=2.5)"));
        assert!(body(Backend::ZooKeeper, false, None, 5_000).contains("InterProcessMutex"));
    }

    #[test]
    fn comments_split_where_they_start() {
        assert_eq!(split_comment("a(1)  # b # c"), ("a(1)  ", "# b # c"));
        assert_eq!(split_comment("// all"), ("", "// all"));
        assert_eq!(split_comment("x = \"/lock//a\""), ("x = \"/lock//a\"", ""));
    }
}
