//! The timeline's picture, built from the history alone: who the service
//! says holds, who believes it holds, and where the two disagree.

use distlock::sim::{
    Backend, Command, Config, Fencing, PartitionScope, Picture, Scenario, Seed, WriteOutcome,
};

use crate::common;
use common::{client, run};

const SEED: u64 = 1;

/// The scenario to run first as a script, on `backend`.
fn first_scenario(backend: Backend, fencing: Fencing) -> Scenario {
    let config = Config {
        backend,
        fencing,
        seed: Seed(SEED),
        ..Config::default()
    };
    common::first_scenario(config)
}

#[test]
fn a_believes_it_holds_while_the_service_has_given_the_lock_to_b() {
    for backend in [Backend::Redlock, Backend::ZooKeeper, Backend::Etcd] {
        let sim = run(&first_scenario(backend, Fencing::Off), 12_000);
        let picture = Picture::from_history(sim.history());
        let zones = picture.zones(client('A'), sim.now().ms());
        let alarm: Vec<_> = zones.iter().filter(|z| z.other.is_some()).collect();
        assert_eq!(
            alarm.len(),
            1,
            "{backend}: one alarm band for A, got {zones:?}"
        );
        let band = alarm[0];
        assert_eq!(band.other, Some(client('B')), "{backend}");
        let b_grant = picture
            .holders
            .iter()
            .find(|h| h.client == client('B'))
            .expect("the service grants B the lock");
        assert_eq!(
            band.from_ms, b_grant.span.from_ms,
            "{backend}: the band starts at B's grant"
        );
        // A's belief ends only after it wakes at 9 s and learns the truth.
        assert!(band.to_ms > 9_000, "{backend}: band ends at {}", band.to_ms);
        assert!(picture
            .zones(client('B'), sim.now().ms())
            .iter()
            .all(|z| z.other.is_none()));
    }
}

#[test]
fn holders_and_tokens_follow_the_service_and_writes_are_marked() {
    let off = run(&first_scenario(Backend::Redlock, Fencing::Off), 12_000);
    let picture = Picture::from_history(off.history());
    let holders: Vec<(char, Option<u64>)> = picture
        .holders
        .iter()
        .map(|h| (h.client.letter(), h.token.map(|t| t.0)))
        .collect();
    assert_eq!(holders, vec![('A', Some(1)), ('B', Some(2))]);
    let writes: Vec<(char, WriteOutcome)> = picture
        .writes
        .iter()
        .map(|w| (w.client.letter(), w.outcome))
        .collect();
    assert_eq!(
        writes,
        vec![('B', WriteOutcome::Accepted), ('A', WriteOutcome::Stale)]
    );

    let on = run(&first_scenario(Backend::Redlock, Fencing::On), 12_000);
    let picture = Picture::from_history(on.history());
    let a_write = picture
        .writes
        .iter()
        .find(|w| w.client == client('A'))
        .expect("A writes");
    assert!(
        matches!(a_write.outcome, WriteOutcome::Rejected(_)),
        "{a_write:?}"
    );
    assert!(
        a_write.text.contains("token 1 < highest accepted 2"),
        "{}",
        a_write.text
    );
}

#[test]
fn pauses_partitions_and_held_messages_are_spans_and_late_arrows() {
    let scenario = Scenario::new(Config {
        backend: Backend::ZooKeeper,
        seed: Seed(SEED),
        ..Config::default()
    })
    .client(0, 'A', Command::Acquire)
    .client(
        1_000,
        'A',
        Command::Partition {
            scope: PartitionScope::Service,
        },
    )
    .client(3_000, 'A', Command::Heal)
    .client(4_000, 'B', Command::GcPause { pause_ms: 2_000 });
    let sim = run(&scenario, 8_000);
    let picture = Picture::from_history(sim.history());
    let a = &picture.clients[0];
    assert_eq!(a.partitions.len(), 1);
    assert_eq!(
        (a.partitions[0].from_ms, a.partitions[0].to_ms),
        (1_000, Some(3_000))
    );
    let b = &picture.clients[1];
    assert_eq!(
        (b.pauses[0].from_ms, b.pauses[0].to_ms),
        (4_000, Some(6_000))
    );
    assert!(
        picture
            .arrows
            .iter()
            .any(|m| m.held && !m.dropped && m.sent_ms < 3_000 && m.arrive_ms >= 3_000),
        "a heartbeat sent into the partition is held by TCP and arrives after it heals"
    );
    assert!(
        !picture.arrows.iter().any(|m| m.dropped),
        "a partition loses nothing"
    );
    assert!(
        !a.renewals.is_empty(),
        "answered heartbeats are drawn as ticks"
    );
}

#[test]
fn feeding_records_as_they_come_draws_the_same_picture_as_all_at_once() {
    for backend in [Backend::Redlock, Backend::ZooKeeper, Backend::Etcd] {
        let sim = run(&first_scenario(backend, Fencing::On), 12_000);
        let history = sim.history();
        let whole = Picture::from_history(history);
        let mut fed = Picture::default();
        for end in (0..=history.len()).step_by(7).chain([history.len()]) {
            fed.feed(&history[..end]);
        }
        assert_eq!(fed, whole, "{backend}");
        assert_eq!(fed.fed(), history.len());
    }
}
