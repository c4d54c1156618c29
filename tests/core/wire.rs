//! The wire: every message each lock system sends in the stories has its
//! real request or reply as text, with the run's values filled in, and the
//! syntax is the real client's (spot-checked per system).

use crate::common;
use distlock::lesson::presets;
use distlock::sim::{
    Backend, Event, Fencing, KeyCleanup, RealClientBook, ReplicaWait, Scenario, Sim, ZkClient,
};
use std::collections::BTreeMap;

/// Every scenario the page plays on `backend`: each story, with fencing
/// off and on.
fn scenarios(backend: Backend) -> Vec<(String, Scenario, u64)> {
    let mut out = Vec::new();
    for p in presets::PRESETS {
        for fencing in [Fencing::Off, Fencing::On] {
            if let Some(s) = p.scenario(backend, fencing) {
                out.push((format!("{} {fencing:?}", p.id), s, p.run_ms_on(backend)));
            }
        }
    }
    if backend == Backend::Redis {
        // Each way of waiting for the replica, on the first story.
        for wait in [ReplicaWait::AppWait1, ReplicaWait::Redisson] {
            let mut s = presets::GC_PAUSE.scenario(backend, Fencing::On).unwrap();
            s.config.redis.wait = wait;
            out.push((format!("gc-pause {wait:?}"), s, 20_000));
        }
    }
    out
}

/// The message's kind as its serde tag names it ("redis-set"), with the
/// command inside a single-Redis wrapper ("redis-command/redis-set-fence").
fn kind_of(body: &distlock::sim::Body) -> String {
    let json = serde_json::to_value(body).unwrap();
    let outer = json["kind"].as_str().unwrap_or("?").to_string();
    match json["cmd"]["kind"].as_str() {
        Some(inner) => format!("{outer}/{inner}"),
        None => outer,
    }
}

/// Each message kind sent in the run, with one wire text of it.
fn wire_of(sim: &Sim, texts: &mut BTreeMap<String, String>) {
    let mut book = RealClientBook::new(sim.config());
    for record in sim.history() {
        if let Event::MessageSent { from, to, body, .. } = &record.event {
            let text = book.text(*from, *to, body);
            let kind = kind_of(body);
            assert!(
                !text.trim().is_empty() && (text != body.label() || text == "OK"),
                "{kind}: wire text {text:?} says no more than the label"
            );
            texts.entry(kind).or_insert(text);
        }
    }
}

fn wire_texts(backend: Backend) -> BTreeMap<String, String> {
    let mut texts = BTreeMap::new();
    for (name, scenario, run_ms) in scenarios(backend) {
        let sim = common::run(&scenario, run_ms);
        assert!(
            sim.history()
                .iter()
                .any(|r| matches!(r.event, Event::MessageSent { .. })),
            "{name} sends messages"
        );
        wire_of(&sim, &mut texts);
    }
    texts
}

/// The kinds each system's stories send, every one with its wire text: a
/// new kind sent in a story shows up here (and its `match` in
/// `sim::backend::real_client` does not compile until it has a text).
fn check_kinds(backend: Backend, expected: &[&str]) -> BTreeMap<String, String> {
    let texts = wire_texts(backend);
    let lock_kinds: Vec<&str> = texts
        .keys()
        .map(String::as_str)
        .filter(|k| !matches!(*k, "write" | "write-reply" | "announce"))
        .collect();
    for kind in expected {
        assert!(
            texts.contains_key(*kind),
            "{backend}: no story sends {kind}: {lock_kinds:?}"
        );
    }
    for kind in &lock_kinds {
        assert!(
            expected.contains(kind),
            "{backend}: {kind} is sent; list it with its wire text check: {}",
            texts[*kind]
        );
    }
    assert!(
        texts["write"].contains("write")
            || texts["write"].starts_with("UPDATE")
            || texts["write"].starts_with("TransactWriteItems")
    );
    texts
}

#[test]
fn redis_sends_redis_py_commands() {
    let t = check_kinds(
        Backend::Redis,
        &[
            "redis-command/redis-set-fence",
            "redis-answer/redis-set-fence-reply",
            "redis-command/redis-extend",
            "redis-answer/redis-extend-reply",
            "redis-command/redis-unlock",
            "redis-wait",
            "redis-wait-reply",
        ],
    );
    let set = &t["redis-command/redis-set-fence"];
    assert!(
        set.starts_with("EVAL \"if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then"),
        "{set}"
    );
    let words: Vec<&str> = set.rsplit('"').next().unwrap().split_whitespace().collect();
    assert_eq!(
        &words[..3],
        ["2", "lock:shared-counter", "fence:lock:shared-counter"]
    );
    assert_eq!(words[3].len(), 32, "a redis-py token: uuid1().hex");
    assert_eq!(words[4], "5000", "PX is the run's TTL in ms");
    assert!(t["redis-command/redis-extend"].contains("local newttl = ARGV[2]"));
    assert!(
        t["redis-command/redis-extend"].ends_with(" 5000 1"),
        "replace_ttl=True"
    );
    assert!(
        t["redis-answer/redis-set-fence-reply"].starts_with("(integer) ")
            || t["redis-answer/redis-set-fence-reply"] == "(nil)"
    );
    assert_eq!(t["redis-wait"], "WAIT 1 100");
    assert!(t["redis-wait-reply"].starts_with("(integer) "));
}

#[test]
fn redlock_sends_node_redlocks_scripts_to_each_node() {
    let t = check_kinds(
        Backend::Redlock,
        &[
            "redis-set",
            "redis-set-reply",
            "redis-incr",
            "redis-incr-reply",
            "redis-extend",
            "redis-extend-reply",
            "redis-unlock",
            "redis-refused",
        ],
    );
    // node-redlock (src/index.ts): every operation is one of its scripts,
    // on one key, with the value and the duration as arguments.
    let set = &t["redis-set"];
    assert!(
        set.starts_with("EVAL \"  -- Return 0 if an entry already exists.\n")
            && set.contains("redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])"),
        "{set}"
    );
    let words = eval_args(set);
    assert_eq!(&words[..2], ["1", "lock:shared-counter"], "{set}");
    assert!(
        words[2].len() == 32 && words[2].chars().all(|c| c.is_ascii_hexdigit()),
        "randomBytes(16).toString(\"hex\"): {set}"
    );
    assert_eq!(words[3], "5000", "PX is the run's TTL in ms");
    assert!(set.ends_with(
        "(node-redlock sends EVALSHA <sha1 of the script> first, EVAL only on NOSCRIPT)"
    ));
    assert!(["(integer) 1", "(integer) 0"].contains(&t["redis-set-reply"].as_str()));
    assert_eq!(t["redis-incr"], "INCR fence:lock:shared-counter");
    assert!(t["redis-extend"]
        .starts_with("EVAL \"  -- Return 0 if an entry exists with a *different* lock value.\n"));
    assert!(t["redis-unlock"].starts_with(
        "EVAL \"  local count = 0\n  for i, key in ipairs(KEYS) do\n    -- Only remove entries for *this* lock value.\n    if redis.call(\"get\", key) == ARGV[1] then\n      redis.pcall(\"del\", key)"
    ));
    assert_eq!(
        eval_args(&t["redis-unlock"]).len(),
        3,
        "no duration to release"
    );
}

/// The words after an `EVAL "<script>"`, up to the line's end.
fn eval_args(text: &str) -> Vec<&str> {
    let after = text.rsplit("\" ").next().unwrap();
    after.lines().next().unwrap().split_whitespace().collect()
}

#[test]
fn etcd_sends_clientv3_mutex_calls() {
    let t = check_kinds(
        Backend::Etcd,
        &[
            "etcd-lease-grant",
            "etcd-lease-grant-reply",
            "etcd-lock-txn",
            "etcd-lock-txn-reply",
            "etcd-keep-alive",
            "etcd-keep-alive-reply",
            "etcd-delete",
            "etcd-watch-deleted",
            "etcd-get",
            "etcd-get-reply",
        ],
    );
    assert!(t["etcd-lease-grant"].starts_with("Lease.LeaseGrant(LeaseGrantRequest{TTL: 5, ID: 0})"));
    let txn = &t["etcd-lock-txn"];
    let lease = t["etcd-lease-grant-reply"]
        .split("ID: 0x")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    assert!(
        txn.contains(&format!(
            "If(Compare(CreateRevision(\"/lock/shared-counter/{lease}\"), \"=\", 0))"
        )),
        "{txn}"
    );
    assert!(
        txn.contains(&format!(
            "Then(OpPut(\"/lock/shared-counter/{lease}\", \"\", WithLease(0x{lease}))"
        )),
        "{txn}"
    );
    assert!(t["etcd-keep-alive"].contains("LeaseKeepAliveRequest{ID: 0x"));
    // What WithFirstCreate() and WithLastCreate() become on the wire
    // (client/v3/op.go `withTop`), and the prefix's range end.
    assert!(
        txn.contains(&format!(
            "Compare: [{{Result: EQUAL, Target: CREATE, Key: \"/lock/shared-counter/{lease}\", CreateRevision: 0}}]"
        )),
        "{txn}"
    );
    assert!(
        txn.contains("RangeRequest{Key: \"/lock/shared-counter/\", RangeEnd: \"/lock/shared-counter0\", Limit: 1, SortOrder: ASCEND, SortTarget: CREATE}"),
        "{txn}"
    );
    assert!(
        t["etcd-get"].contains("SortOrder: DESCEND, SortTarget: CREATE, MaxCreateRevision: "),
        "{}",
        t["etcd-get"]
    );
    assert!(t["etcd-delete"]
        .starts_with("KV.DeleteRange(DeleteRangeRequest{Key: \"/lock/shared-counter/"));
}

#[test]
fn zookeeper_sends_curator_creates() {
    let t = check_kinds(
        Backend::ZooKeeper,
        &[
            "zk-connect",
            "zk-connect-reply",
            "zk-create",
            "zk-create-reply",
            "zk-ping",
            "zk-ping-reply",
            "zk-delete",
            "zk-watch-fired",
            "zk-get-children",
            "zk-children-reply",
        ],
    );
    // Curator: ProtectedUtils "_c_" + UUID + "-", InterProcessMutex's
    // "lock-", EPHEMERAL_SEQUENTIAL; the server appends 10 digits.
    let create = &t["zk-create"];
    let prefix = create
        .strip_prefix("create(\"/locks/shared-counter/_c_")
        .and_then(|rest| rest.split_once("-lock-\", "))
        .map(|(uuid, _)| uuid)
        .unwrap_or_else(|| panic!("{create}"));
    assert!(is_uuid(prefix), "{create}");
    assert!(
        create.contains("CreateMode.EPHEMERAL_SEQUENTIAL)"),
        "{create}"
    );
    assert!(
        create.contains("creatingParentContainersIfNeeded"),
        "{create}"
    );
    let reply = &t["zk-create-reply"];
    let seq = reply.trim_matches('"').rsplit("-lock-").next().unwrap();
    assert!(
        seq.len() == 10 && seq.chars().all(|c| c.is_ascii_digit()),
        "{reply}"
    );
    // The predecessor is read with a watch, not exists() (LockInternals
    // `internalLockLoop`).
    assert!(t["zk-get-children"].starts_with("getChildren(\"/locks/shared-counter\")"));
    assert!(t["zk-get-children"].contains("getData(\"<the node before mine>\") with a watcher"));
}

/// kazoo's Lock recipe names its node `<uuid4 hex>__lock__` and creates it
/// ephemeral and sequential; it reads the predecessor with `get`.
#[test]
fn zookeeper_sends_kazoos_creates_on_the_kazoo_setting() {
    let mut scenario = presets::GC_PAUSE
        .scenario(Backend::ZooKeeper, Fencing::On)
        .unwrap();
    scenario.config.zk.client = ZkClient::Native;
    let mut t = BTreeMap::new();
    wire_of(&common::run(&scenario, 20_000), &mut t);
    let create = &t["zk-create"];
    let name = create
        .strip_prefix("create(\"/locks/shared-counter/")
        .and_then(|rest| {
            rest.strip_suffix(
                "__lock__\", b\"\", ephemeral=True, sequence=True)\n(kazoo Lock.acquire)",
            )
        })
        .unwrap_or_else(|| panic!("{create}"));
    assert!(
        name.len() == 32 && name.chars().all(|c| c.is_ascii_hexdigit()) && &name[12..13] == "4",
        "uuid.uuid4().hex: {create}"
    );
    assert!(
        t["zk-create-reply"].contains("__lock__0000000"),
        "{}",
        t["zk-create-reply"]
    );
    assert!(t["zk-get-children"].starts_with("get_children(\"/locks/shared-counter\")"));
    assert!(t["zk-get-children"].contains("get(\"<the node before mine>\", watch)"));
}

/// `UUID.randomUUID().toString()`: 8-4-4-4-12 hex digits, version 4.
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|g| g.chars().all(|c| c.is_ascii_hexdigit()))
        && groups[2].starts_with('4')
}

#[test]
fn chubby_sends_the_papers_calls() {
    let t = check_kinds(
        Backend::Chubby,
        &[
            "chubby-create-session",
            "chubby-session-created",
            "chubby-keep-alive",
            "chubby-keep-alive-reply",
            "chubby-acquire",
            "chubby-acquired",
            "chubby-release",
            "chubby-session-expired",
        ],
    );
    assert!(t["chubby-acquire"].starts_with("Acquire(handle on /ls/cell/shared-counter)"));
    assert!(t["chubby-acquired"].contains("GetSequencer(handle) = {name: \"/ls/cell/shared-counter\", mode: exclusive, lock generation: "));
}

#[test]
fn consul_sends_consul_api_http() {
    let t = check_kinds(
        Backend::Consul,
        &[
            "consul-session-create",
            "consul-session-create-reply",
            "consul-session-renew",
            "consul-session-renew-reply",
            "consul-kv-get",
            "consul-kv-get-reply",
            "consul-kv-acquire",
            "consul-kv-acquire-reply",
            "consul-unlock",
            "consul-session-destroy",
        ],
    );
    let id = t["consul-session-create-reply"]
        .split("\"ID\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    // api/lock.go `createSession` with the defaults: only Name and TTL
    // (session.go `Create` leaves unset fields out), the real 15 s.
    assert!(
        t["consul-session-create"].starts_with(
            "PUT /v1/session/create\n{\"Name\": \"Consul API Lock\", \"TTL\": \"15s\"}\n"
        ),
        "{}",
        t["consul-session-create"]
    );
    // api/kv.go: the query's parameters sorted by name, flags in decimal
    // (LockFlagValue 0x2ddccbc058a50c18).
    assert_eq!(
        t["consul-kv-acquire"],
        format!("PUT /v1/kv/locks/shared-counter?acquire={id}&flags=3304740253564472344")
    );
    assert!(
        t["consul-unlock"].starts_with(&format!(
            "PUT /v1/kv/locks/shared-counter?flags=3304740253564472344&release={id}\nPUT /v1/session/destroy/{id}"
        )),
        "{}",
        t["consul-unlock"]
    );
    let renewed = t["consul-session-renew"]
        .strip_prefix("PUT /v1/session/renew/")
        .unwrap();
    assert_eq!(renewed.split('\n').next().unwrap().len(), 36, "{renewed}");
    // The blocking reads: index only when known, wait as durToMsec.
    let texts = all_texts(Backend::Consul);
    assert!(texts
        .iter()
        .any(|t| t == "GET /v1/kv/locks/shared-counter?wait=15000ms"));
    assert!(texts
        .iter()
        .any(|t| t.starts_with("GET /v1/kv/locks/shared-counter?index=")
            && t.contains("&wait=15000ms\n")));
    assert!(texts
        .iter()
        .any(|t| t.starts_with("GET /v1/kv/locks/shared-counter?consistent=&index=")));
}

/// A lock-delay other than Consul's 15 s goes in the session's body as
/// `durToMsec` writes it; Behavior "delete" where the key is deleted.
#[test]
fn consul_sends_a_chosen_lock_delay_and_behavior() {
    let mut scenario = presets::GC_PAUSE
        .scenario(Backend::Consul, Fencing::On)
        .unwrap();
    scenario.config.consul.lock_delay_s = 5;
    scenario.config.consul.cleanup = KeyCleanup::Delete;
    let mut t = BTreeMap::new();
    wire_of(&common::run(&scenario, 20_000), &mut t);
    assert!(
        t["consul-session-create"].starts_with(
            "PUT /v1/session/create\n{\"Behavior\": \"delete\", \"LockDelay\": \"5000ms\", \"Name\": \"Consul API Lock\", \"TTL\": \"15s\"}\n"
        ),
        "{}",
        t["consul-session-create"]
    );
}

/// Every wire text of every message the system's stories send.
fn all_texts(backend: Backend) -> Vec<String> {
    let mut out = Vec::new();
    for (_, scenario, run_ms) in scenarios(backend) {
        let sim = common::run(&scenario, run_ms);
        let mut book = RealClientBook::new(sim.config());
        for record in sim.history() {
            if let Event::MessageSent { from, to, body, .. } = &record.event {
                out.push(book.text(*from, *to, body));
            }
        }
    }
    out
}

#[test]
fn dynamodb_sends_the_lock_clients_conditional_writes() {
    let t = check_kinds(
        Backend::DynamoDb,
        &[
            "dynamo-get-item",
            "dynamo-item",
            "dynamo-put-item",
            "dynamo-put-reply",
            "dynamo-heartbeat",
            "dynamo-heartbeat-reply",
            "dynamo-delete-item",
        ],
    );
    assert!(t["dynamo-get-item"].contains("ConsistentRead: true"));
    // AmazonDynamoDBLockClient.java's expression strings, exactly.
    let put = &t["dynamo-put-item"];
    assert!(
        put.contains("ConditionExpression: \"attribute_not_exists(#pk)\""),
        "{put}"
    );
    // The client's default ownerName: its host's name and a random UUID
    // (AmazonDynamoDBLockClientOptions `generateOwnerNameFromLocalhost`).
    let owner = owner_name(put);
    assert!(is_host_and_uuid(owner, "client-a"), "{put}");
    assert!(
        put.contains(&format!(
            "ownerName: {{S: \"{owner}\"}}, leaseDuration: {{S: \"20000\"}}, recordVersionNumber: {{S: \""
        )),
        "{put}"
    );
    let beat = &t["dynamo-heartbeat"];
    assert!(
        beat.contains("UpdateExpression: \"SET #ld = :ld, #rvn = :newRvn\""),
        "{beat}"
    );
    assert!(
        beat.contains(
            "ConditionExpression: \"attribute_exists(#pk) AND #rvn = :rvn AND #on = :on\""
        ),
        "{beat}"
    );
    assert!(t["dynamo-delete-item"]
        .contains("ConditionExpression: \"attribute_exists(#pk) AND #rvn = :rvn AND #on = :on\""));
    // The heartbeat and the release name an owner that put the item.
    let owners: Vec<String> = all_texts(Backend::DynamoDb)
        .iter()
        .filter(|t| t.starts_with("PutItem"))
        .map(|t| owner_name(t).to_string())
        .collect();
    for text in [beat, &t["dynamo-delete-item"]] {
        let key = "\":on\": {S: \"";
        let start = text.find(key).expect("an owner") + key.len();
        let on = &text[start..start + text[start..].find('"').unwrap()];
        assert!(owners.iter().any(|o| o == on), "{on} in {text}");
    }
    // Taking over a lock whose RVN stood still for a lease.
    let takeover = all_texts(Backend::DynamoDb)
        .into_iter()
        .find(|t| t.starts_with("PutItem") && t.contains("attribute_exists"))
        .expect("a story takes over an expired lock");
    assert!(
        takeover.contains("ConditionExpression: \"attribute_exists(#pk) AND #rvn = :rvn\",\n  ExpressionAttributeNames: {\"#pk\": \"key\", \"#rvn\": \"recordVersionNumber\"}"),
        "{takeover}"
    );
}

/// The ownerName a DynamoDB request carries.
fn owner_name(text: &str) -> &str {
    let key = "ownerName: {S: \"";
    let start = text.find(key).expect("an ownerName") + key.len();
    let len = text[start..].find('"').expect("a closing quote");
    &text[start..start + len]
}

/// `host` followed straight by a version-4 UUID, as Java's
/// `UUID.randomUUID().toString()` writes one.
fn is_host_and_uuid(owner: &str, host: &str) -> bool {
    let Some(uuid) = owner.strip_prefix(host) else {
        return false;
    };
    let dashes = [8, 13, 18, 23];
    uuid.len() == 36
        && uuid.char_indices().all(|(i, ch)| {
            if dashes.contains(&i) {
                ch == '-'
            } else {
                ch.is_ascii_hexdigit() && !ch.is_ascii_uppercase()
            }
        })
        && uuid.as_bytes()[14] == b'4'
        && matches!(uuid.as_bytes()[19], b'8' | b'9' | b'a' | b'b')
}

#[test]
fn postgres_sends_sql() {
    let t = check_kinds(
        Backend::Postgres,
        &[
            "pg-connect",
            "pg-connect-reply",
            "pg-advisory-lock",
            "pg-locked",
            "pg-advisory-unlock",
            "pg-fin",
        ],
    );
    assert!(t["pg-advisory-lock"].starts_with("SELECT pg_advisory_lock(42);"));
    assert_eq!(t["pg-advisory-unlock"], "SELECT pg_advisory_unlock(42);");
    assert!(t["write"].starts_with("UPDATE counter SET version = 1 WHERE id = 1"));
}

#[test]
fn a_run_of_the_same_link_gives_the_same_wire_text() {
    let scenario = presets::GC_PAUSE
        .scenario(Backend::Etcd, Fencing::On)
        .unwrap();
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    wire_of(&common::run(&scenario, 20_000), &mut a);
    wire_of(&common::run(&scenario, 20_000), &mut b);
    assert_eq!(a, b);
}

/// Every distinct wire text each system's stories send, whole, in the
/// order first sent: kept in `tests/golden/wire.txt`, so a change to any
/// of them shows in a diff.
#[test]
fn every_wire_text_is_the_one_kept() {
    let mut out = String::new();
    for backend in Backend::ALL {
        let mut seen = std::collections::BTreeSet::new();
        out.push_str(&format!("==== {backend}\n"));
        for (name, scenario, run_ms) in scenarios(backend) {
            let sim = common::run(&scenario, run_ms);
            let mut book = RealClientBook::new(sim.config());
            for record in sim.history() {
                if let Event::MessageSent { from, to, body, .. } = &record.event {
                    let text = book.text(*from, *to, body);
                    if seen.insert(text.clone()) {
                        out.push_str(&format!("-- {name}: {}\n{text}\n", kind_of(body)));
                    }
                }
            }
        }
    }
    common::golden("wire", &out);
}

/// `cargo test --test core wire:: -- --ignored --nocapture` prints one wire
/// text of each kind, each system, to read them over; each has words.
#[test]
#[ignore]
fn print_every_kind() {
    for backend in Backend::ALL {
        let texts = wire_texts(backend);
        assert!(!texts.is_empty(), "{backend} sends no message");
        for (kind, text) in texts {
            assert!(!text.trim().is_empty(), "{backend} {kind} has no words");
            println!("== {backend} {kind}\n{text}\n");
        }
    }
}

/// The service panel links each system's numbers to its section of
/// docs/sources.md (`docs/sources.html#<slug>` once built), and every page
/// links to docs/systems.md's "How the model simplifies": each anchor exists.
#[test]
fn every_systems_sources_and_the_readmes_section_exist() {
    let root = env!("CARGO_MANIFEST_DIR");
    let sources = std::fs::read_to_string(format!("{root}/docs/sources.md")).unwrap();
    for backend in Backend::ALL {
        assert!(
            sources.contains(&format!("{{#{}}}", backend.slug())),
            "docs/sources.md has no section {{#{}}} for {backend}",
            backend.slug()
        );
    }
    let systems = std::fs::read_to_string(format!("{root}/docs/systems.md")).unwrap();
    assert!(systems.lines().any(|l| l == "## How the model simplifies"));
    let panel = std::fs::read_to_string(format!("{root}/src/ui/service_panel/mod.rs")).unwrap();
    assert!(panel.contains("systems.html#how-the-model-simplifies"));
    assert!(panel.contains("sources.html#{}"));
}
