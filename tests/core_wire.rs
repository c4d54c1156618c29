//! The wire: every message each lock system sends in the stories has its
//! real request or reply as text, with the run's values filled in, and the
//! syntax is the real client's (spot-checked per system).

mod common;

use distlock::lesson::presets;
use distlock::sim::{Backend, Event, Fencing, ReplicaWait, Scenario, Sim, WireBook};
use std::collections::BTreeMap;

/// Every scenario the page plays on `backend`: each story, with fencing
/// off and on.
fn scenarios(backend: Backend) -> Vec<(String, Scenario, u64)> {
    let mut out = Vec::new();
    for p in presets::PRESETS {
        for fencing in [Fencing::Off, Fencing::On] {
            if let Some(s) = presets::scenario(p.id, backend, fencing) {
                out.push((format!("{} {fencing:?}", p.id), s, p.run_ms_on(backend)));
            }
        }
    }
    if backend == Backend::Redis {
        // Each way of waiting for the replica, on the first story.
        for wait in [ReplicaWait::AppWait1, ReplicaWait::Redisson] {
            let mut s = presets::scenario("gc-pause", backend, Fencing::On).unwrap();
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
    let mut book = WireBook::new(sim.config());
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
/// `sim::backend::wire` does not compile until it has a text).
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
fn redlock_sends_set_nx_px_to_each_node() {
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
    let words: Vec<&str> = t["redis-set"].split(' ').collect();
    assert_eq!(words.len(), 6, "{}", t["redis-set"]);
    assert_eq!(
        [words[0], words[1], words[3], words[4], words[5]],
        ["SET", "lock:shared-counter", "NX", "PX", "5000"]
    );
    assert!(words[2].chars().all(|c| c.is_ascii_hexdigit()));
    assert!(["OK", "(nil)"].contains(&t["redis-set-reply"].as_str()));
    assert_eq!(t["redis-incr"], "INCR fence:lock:shared-counter");
    assert!(t["redis-unlock"].starts_with(
        "EVAL \"if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])"
    ));
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
    let create = &t["zk-create"];
    assert!(
        create.starts_with("create(\"/locks/shared-counter/_c_")
            && create.contains("-lock-\", data, CreateMode.EPHEMERAL_SEQUENTIAL)"),
        "{create}"
    );
    let reply = &t["zk-create-reply"];
    let seq = reply.trim_matches('"').rsplit("-lock-").next().unwrap();
    assert!(
        seq.len() == 10 && seq.chars().all(|c| c.is_ascii_digit()),
        "{reply}"
    );
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
    assert!(t["consul-session-create"].starts_with("PUT /v1/session/create\n{\"Name\": \"Consul API Lock\", \"TTL\": \"5s\", \"LockDelay\": "), "{}", t["consul-session-create"]);
    assert!(
        t["consul-kv-acquire"].starts_with(&format!(
            "PUT /v1/kv/locks/shared-counter?acquire={id}&flags="
        )),
        "{}",
        t["consul-kv-acquire"]
    );
    let renewed = t["consul-session-renew"]
        .strip_prefix("PUT /v1/session/renew/")
        .unwrap();
    assert_eq!(renewed.split('\n').next().unwrap().len(), 36, "{renewed}");
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
    let put = &t["dynamo-put-item"];
    assert!(
        put.contains("ConditionExpression: \"attribute_not_exists(#pk)\""),
        "{put}"
    );
    assert!(t["dynamo-heartbeat"]
        .contains("ConditionExpression: \"attribute_exists(#pk) AND #on = :on AND #rvn = :rvn\""));
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
    assert!(t["write"].starts_with("UPDATE counter SET version = version + 1 WHERE id = 1"));
}

#[test]
fn a_run_of_the_same_link_gives_the_same_wire_text() {
    let scenario = presets::scenario("gc-pause", Backend::Etcd, Fencing::On).unwrap();
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    wire_of(&common::run(&scenario, 20_000), &mut a);
    wire_of(&common::run(&scenario, 20_000), &mut b);
    assert_eq!(a, b);
}

/// `cargo test --test core_wire -- --ignored --nocapture` prints one wire
/// text of each kind, each system, to read them over.
#[test]
#[ignore]
fn print_every_kind() {
    for backend in Backend::ALL {
        for (kind, text) in wire_texts(backend) {
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
