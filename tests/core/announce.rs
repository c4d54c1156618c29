//! A new holder announces its token to the resource as it takes over
//! (`FenceMode::Takeover`), as BookKeeper's recovery fences a ledger and HDFS
//! fences the old NameNode: then a stale write is refused even when the new
//! holder never writes. And the oracle names, for every stale write, whose
//! newer grant made it stale and what the resource had seen.

use distlock::lesson::presets::gc_pause;
use distlock::sim::{
    Action, Backend, Command, Config, Endpoint, Event, FenceMode, Fencing, GrantSeen, Millis,
    RejectReason, Scenario, Sim, Standing,
};
use distlock::wire::link::{self, RunLink};

use crate::common;
use common::{client, story};

/// The systems whose resource orders tokens: it can refuse a lower one.
fn ordered() -> impl Iterator<Item = Backend> {
    Backend::ALL
        .into_iter()
        .filter(|b| b.fence_modes().contains(&FenceMode::Takeover))
}

/// The gc-pause story with B acquiring but never writing.
fn b_never_writes(backend: Backend, fencing: Fencing, fence: FenceMode) -> Scenario {
    let mut scenario = gc_pause(Config {
        backend,
        fencing,
        fence,
        ..Config::default()
    });
    let b = client('B');
    scenario.actions.retain(
        |a| !matches!(a.action, Action::Client { client, command: Command::Write } if client == b),
    );
    scenario
}

/// The script replayed to 40 s past its last command.
fn run(scenario: &Scenario) -> Sim {
    common::run(scenario, scenario.last_at().ms() + 40_000)
}

/// A's late write, as the oracle saw it.
fn a_stale(sim: &Sim) -> distlock::sim::StaleWrite {
    *sim.oracle()
        .stale_writes()
        .iter()
        .find(|s| s.client == client('A') && s.standing == Standing::Stale)
        .unwrap_or_else(|| panic!("A's late write is stale\n{}", story(sim)))
}

#[test]
fn without_b_writing_fencing_alone_lets_a_through_and_says_why() {
    for backend in ordered() {
        let sim = run(&b_never_writes(backend, Fencing::On, FenceMode::Documented));
        let text = story(&sim);
        assert_eq!(sim.oracle().corruptions(), 1, "{backend}\n{text}");
        let stale = a_stale(&sim);
        assert!(stale.accepted, "{backend}");
        let newer = stale.newer.expect("B's grant came after A's");
        assert_eq!(newer.client, client('B'), "{backend}");
        assert!(
            stale.newer_token_unseen(),
            "{backend}: B's token {:?} was newer than A's {:?}, and the resource had seen {:?}",
            newer.token,
            stale.token,
            stale.seen
        );
    }
}

#[test]
fn with_the_announcement_a_is_refused_on_every_system_that_orders_tokens() {
    for backend in ordered() {
        let sim = run(&b_never_writes(backend, Fencing::On, FenceMode::Takeover));
        let text = story(&sim);
        assert_eq!(sim.oracle().corruptions(), 0, "{backend}\n{text}");
        assert_eq!(sim.oracle().saves(), 1, "{backend}\n{text}");
        assert_eq!(sim.resource().value(), 0, "nothing was written: {backend}");
        let stale = a_stale(&sim);
        let b_token = stale.newer.and_then(|g| g.token).expect("B's token");
        assert_eq!(
            stale.reason,
            Some(RejectReason::TokenBelowAnnounced {
                token: stale.token.expect("A's token"),
                announced: b_token,
            }),
            "{backend}\n{text}"
        );
        assert_eq!(sim.resource().announced(), Some(b_token), "{backend}");
        assert_eq!(
            sim.resource().highest(),
            None,
            "no write accepted: {backend}"
        );
        assert!(
            text.contains(&format!(
                "the resource heard B's token {b_token} as it took over"
            )),
            "{backend}\n{text}"
        );
    }
}

#[test]
fn the_announcement_travels_like_any_message_and_fencing_off_ignores_it() {
    for backend in ordered() {
        let sim = run(&b_never_writes(backend, Fencing::Off, FenceMode::Takeover));
        let sent = sim.history().iter().any(|r| {
            matches!(r.event, Event::MessageSent { from: Endpoint::Client(c), to: Endpoint::Resource, .. } if c == client('B'))
        });
        assert!(sent, "B's announcement is a message on the wire: {backend}");
        assert_eq!(
            sim.oracle().corruptions(),
            1,
            "fencing off compares nothing: {backend}"
        );
    }
}

#[test]
fn a_lost_announcement_protects_nothing() {
    let backend = Backend::Etcd;
    // B loses its messages from the moment it has the lock: its
    // announcement never reaches the resource.
    let mut scenario = b_never_writes(backend, Fencing::On, FenceMode::Takeover);
    let granted = run(&scenario)
        .history()
        .iter()
        .find(|r| matches!(r.event, Event::Acquired { client: c, .. } if c == client('B')))
        .map(|r| r.at)
        .expect("B is granted the lock");
    // The instant B is granted the lock its announcement leaves; from then
    // on B loses its messages, and the announcement never arrives.
    scenario = scenario.client(granted.ms(), 'B', Command::LoseMessages { on: true });
    scenario.actions.sort_by_key(|a| a.at);
    let sim = run(&scenario);
    let text = story(&sim);
    assert!(
        text.contains("a message from B to the resource was lost"),
        "{text}"
    );
    // Only A's own announcement arrived: its token is no lower than itself.
    assert_eq!(sim.resource().announced(), a_stale(&sim).token, "{text}");
    assert_eq!(
        sim.oracle().corruptions(),
        1,
        "A's write gets through\n{text}"
    );
}

#[test]
fn systems_without_an_ordered_token_announce_nothing() {
    for backend in [Backend::DynamoDb, Backend::Postgres] {
        let on = run(&b_never_writes(backend, Fencing::On, FenceMode::Takeover));
        let off = run(&b_never_writes(backend, Fencing::On, FenceMode::Documented));
        assert_eq!(
            on.history(),
            off.history(),
            "{backend}: nothing to announce, the same run"
        );
        assert_eq!(on.resource().announced(), None);
    }
}

#[test]
fn the_oracle_names_the_newer_grant_and_what_the_resource_had_seen() {
    // The scenario to run first, B writing: fencing refuses A, having
    // accepted B's token; without fencing A's write is the corruption.
    for (fencing, accepted) in [(Fencing::On, false), (Fencing::Off, true)] {
        let sim = run(&gc_pause(Config {
            fencing,
            ..Config::default()
        }));
        let stale = a_stale(&sim);
        assert_eq!(stale.accepted, accepted);
        let b_token = match stale.newer {
            Some(GrantSeen {
                client: c,
                token: Some(t),
            }) if c == client('B') => t,
            other => panic!("B's grant with its token, not {other:?}"),
        };
        assert!(stale.token < Some(b_token));
        assert_eq!(stale.seen, Some(b_token), "B's write showed its token");
        assert!(!stale.newer_token_unseen());
        let last = sim.oracle().last_write().expect("a write");
        assert_eq!(last.client, client('A'), "A's write came last");
        if fencing.is_on() {
            assert_eq!(
                stale.reason,
                Some(RejectReason::TokenBelowHighest {
                    token: stale.token.unwrap(),
                    highest: b_token,
                })
            );
        } else {
            assert_eq!(stale.reason, None);
        }
    }
}

#[test]
fn the_holders_own_write_is_the_last_write_and_no_finding() {
    let mut sim = Sim::new(Config::default()).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(1_000));
    sim.command(client('A'), Command::Write).unwrap();
    sim.run_until(Millis(2_000));
    let last = sim.oracle().last_write().expect("A's write");
    assert_eq!(last.standing, Standing::Holder);
    assert!(last.accepted);
    assert_eq!(last.newer, None);
    assert!(sim.oracle().stale_writes().is_empty());
}

#[test]
fn the_same_run_with_announcements_twice_is_the_same() {
    for backend in ordered() {
        let scenario = b_never_writes(backend, Fencing::On, FenceMode::Takeover);
        let (one, two) = (run(&scenario), run(&scenario));
        assert_eq!(one.history(), two.history(), "{backend}");
        assert_eq!(one.fingerprint(), two.fingerprint(), "{backend}");
        let off = run(&b_never_writes(backend, Fencing::On, FenceMode::Documented));
        assert_ne!(one.fingerprint(), off.fingerprint(), "{backend}");
    }
}

#[test]
fn links_keep_the_announcement_and_old_links_their_meaning() {
    let scenario = b_never_writes(Backend::Etcd, Fencing::On, FenceMode::Takeover);
    let sim = run(&scenario);
    let fragment = link::encode(&RunLink::of(&sim, sim.now()));
    let back = link::decode(&fragment).expect("its own link reads back");
    assert_eq!(back.scenario.config.fence, FenceMode::Takeover);

    // A run without it writes no word of it: links made before it existed
    // are the links made now.
    let plain = run(&b_never_writes(
        Backend::Etcd,
        Fencing::On,
        FenceMode::Documented,
    ));
    let json = serde_json::to_string(&plain.scenario().config).unwrap();
    assert!(!json.contains("fence\""), "{json}");
    let old = link::decode(&link::encode(&RunLink::of(&plain, plain.now()))).unwrap();
    assert_eq!(old.scenario.config.fence, FenceMode::Documented);
}

#[test]
fn a_link_with_a_bad_announcement_says_so() {
    let json = serde_json::json!({
        "version": 1,
        "config": {
            "backend": "etcd", "fencing": "on", "ttl_ms": 5000, "seed": 1,
            "latency_scale": 10, "renewal": [true, true, true, true],
            "pg": {"keepalives_idle_s": 10, "keepalives_interval_s": 5, "keepalives_count": 3},
            "announce": "loudly"
        },
        "actions": [], "playhead_ms": 0, "end_ms": 0
    });
    let text = json.to_string();
    let err = link::from_run_file(&text).expect_err("an unknown setting is refused");
    let words = err.to_string();
    assert!(
        words.contains("its token announcement is \"loudly\""),
        "{words}"
    );
    assert!(words.contains("on, off"), "{words}");
}
