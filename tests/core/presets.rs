//! Each preset of scenarios.md that concerns the core, as a test of the
//! behaviour its narrative promises.

use distlock::lesson::presets::{self, Preset, PRESETS};
use distlock::sim::{
    Backend, ClientId, ClientState, Config, Event, ExtendMode, Fencing, Millis, ReleaseMode,
    RestartPolicy, Scenario, ServiceDetail, Sim, Token,
};

use crate::common;
use common::{client, run, story};

fn preset(p: &Preset, backend: Backend, fencing: Fencing) -> Sim {
    let scenario = p
        .scenario(backend, fencing)
        .expect("preset suits the backend");
    run(&scenario, p.run_ms_on(backend))
}

fn acquired(sim: &Sim, who: char) -> Vec<(Millis, Option<Token>)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Acquired { client, token, .. } if client.letter() == who => Some((r.at, token)),
            _ => None,
        })
        .collect()
}

#[test]
fn every_preset_runs_on_every_backend_it_names() {
    for p in PRESETS {
        for &backend in p.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                let sim = preset(p, backend, fencing);
                assert!(sim.events_run() > 0, "{} on {backend}", p.id);
            }
        }
        for backend in Backend::ALL {
            if !p.backends.contains(&backend) {
                assert!(p.scenario(backend, Fencing::Off).is_none());
            }
        }
    }
}

/// Code names a story by its constant; a link, a file or an address by its
/// id, which must find that one story, and a wrong id none.
#[test]
fn each_story_is_named_once_and_its_own_systems_only() {
    for (i, p) in PRESETS.iter().enumerate() {
        assert_eq!(presets::preset(p.id), Some(p), "{}", p.id);
        assert!(
            PRESETS[..i].iter().all(|q| q.id != p.id),
            "{} named twice",
            p.id
        );
        for (j, on) in p.on.iter().enumerate() {
            assert!(
                p.backends.contains(&on.backend),
                "{}: told its own way on {}, where it is not told",
                p.id,
                on.backend
            );
            assert!(
                p.on[..j].iter().all(|o| o.backend != on.backend),
                "{}: {} twice",
                p.id,
                on.backend
            );
        }
    }
    assert_eq!(presets::preset("gc-pase"), None);
}

#[test]
fn delayed_write_sent_in_time_arrives_late_and_fencing_saves_it() {
    for backend in Backend::ALL {
        let off = preset(&presets::DELAYED_WRITE, backend, Fencing::Off);
        assert_eq!(off.oracle().corruptions(), 1, "{backend}\n{}", story(&off));
        let stale = off.oracle().last_stale_write().unwrap();
        assert_eq!(stale.client, client('A'));
        assert!(stale.at.ms() >= 8_000, "A's write lands after 8 s");
        let on = preset(&presets::DELAYED_WRITE, backend, Fencing::On);
        assert_eq!(on.oracle().corruptions(), 0, "{backend}\n{}", story(&on));
        assert_eq!(on.resource().rejected(), 1, "{backend}");
    }
}

#[test]
fn a_plain_del_releases_someone_elses_lock() {
    let config = Config {
        backend: Backend::Redlock,
        ..Config::default()
    };
    let plain = run(
        &presets::release_other(config.clone(), ReleaseMode::PlainDel),
        10_000,
    );
    let text = story(&plain);
    assert!(text.contains("on A's plain DEL"), "{text}");
    assert_eq!(acquired(&plain, 'C').len(), 1, "C acquires\n{text}");
    let overlap = plain
        .oracle()
        .overlaps()
        .iter()
        .any(|o| o.clients == vec![client('B'), client('C')]);
    assert!(overlap, "B and C both believe they hold\n{text}");

    let checked = run(
        &presets::release_other(config, ReleaseMode::CheckValue),
        10_000,
    );
    let text = story(&checked);
    assert!(!text.contains("plain DEL"), "{text}");
    assert!(
        acquired(&checked, 'C').is_empty(),
        "B keeps the lock\n{text}"
    );
    assert_eq!(checked.holder().unwrap().client, client('B'));
}

#[test]
fn a_redis_node_restarting_empty_gives_two_holders_without_any_pause() {
    let config = Config {
        backend: Backend::Redlock,
        ..Config::default()
    };
    let sim = run(
        &presets::redlock_restart(config.clone(), RestartPolicy::Immediate),
        6_000,
    );
    let text = story(&sim);
    assert!(!text.contains("GC pause"), "no pause at all");
    assert_eq!(acquired(&sim, 'B').len(), 1, "B wins nodes 3-5\n{text}");
    let overlap = &sim.oracle().overlaps()[0];
    assert_eq!(overlap.clients, vec![client('A'), client('B')], "{text}");
    assert_eq!(sim.oracle().corruptions(), 1, "A's write is stale\n{text}");

    let delayed = run(
        &presets::redlock_restart(config, RestartPolicy::Delayed),
        6_000,
    );
    let text = story(&delayed);
    assert!(text.contains("stays down until"), "{text}");
    assert!(delayed.oracle().overlaps().is_empty(), "{text}");
    assert!(
        acquired(&delayed, 'B').is_empty(),
        "node 3 stays down: no quorum for B"
    );
}

#[test]
fn a_clock_jump_on_one_node_expires_the_key_early() {
    let sim = preset(&presets::REDLOCK_CLOCK_JUMP, Backend::Redlock, Fencing::Off);
    let text = story(&sim);
    assert!(text.contains("node 3 expired A's lock key"), "{text}");
    assert_eq!(acquired(&sim, 'B').len(), 1, "{text}");
    assert!(!sim.oracle().overlaps().is_empty(), "{text}");
    let ServiceDetail::Redlock(distlock::sim::RedlockDetail { nodes }) = sim.service_detail()
    else {
        panic!("Redlock detail");
    };
    assert_eq!(
        nodes[2].clock_offset_ms, 10_000,
        "node 3's clock is drawn ahead"
    );
    assert_eq!(nodes[0].clock_offset_ms, 0);
}

#[test]
fn the_incr_counter_resets_and_fencing_does_not_save_redlock() {
    let sim = preset(&presets::REDLOCK_NO_FENCE, Backend::Redlock, Fencing::On);
    let text = story(&sim);
    assert!(text.contains("INCR fence counter restarts"), "{text}");
    let a = acquired(&sim, 'A')[0].1.unwrap();
    let b = acquired(&sim, 'B')[0].1.unwrap();
    assert_eq!(
        a, b,
        "unique is not monotonic: B got A's token again\n{text}"
    );
    assert_eq!(
        sim.oracle().corruptions(),
        1,
        "fencing on, still corrupted\n{text}"
    );
    assert!(!sim.monotonic_tokens());
}

#[test]
fn zookeeper_suspended_is_not_lost_and_the_queue_is_fifo() {
    let p = presets::ZK_PARTITION
        .scenario(Backend::ZooKeeper, Fencing::Off)
        .unwrap();
    let sim = Sim::replay(&p, Millis(5_000)).unwrap();
    let a = sim.client_view(client('A'));
    assert_eq!(a.state, ClientState::Suspended, "cut off: SUSPENDED");
    assert!(a.belief.is_holding(), "still believes it holds");
    assert_eq!(sim.client_view(client('B')).state, ClientState::Waiting);
    assert_eq!(sim.client_view(client('C')).state, ClientState::Waiting);
    let sim = Sim::replay(&p, Millis(8_500)).unwrap();
    assert_eq!(
        sim.holder().unwrap().client,
        client('B'),
        "B was next in line"
    );
    assert_eq!(
        sim.client_view(client('A')).state,
        ClientState::Suspended,
        "no news of the expiry without a connection"
    );
    let sim = Sim::replay(&p, Millis(11_900)).unwrap();
    assert_eq!(
        sim.client_view(client('A')).state,
        ClientState::Suspended,
        "the native client hears nothing until the partition heals"
    );
    let sim = Sim::replay(&p, Millis(14_000)).unwrap();
    let text = story(&sim);
    assert!(text.contains("A's ZooKeeper connection is LOST"), "{text}");
    let b = acquired(&sim, 'B')[0].1.unwrap();
    let c = acquired(&sim, 'C')[0].1.unwrap();
    assert_eq!((b, c), (Token(1), Token(2)), "FIFO: B then C\n{text}");
    assert_eq!(
        sim.oracle().corruptions(),
        2,
        "A wrote at 7 s and at 10 s as a stale holder\n{text}"
    );
}

#[test]
fn etcd_revision_moves_on_every_write_not_just_grants() {
    let sim = preset(&presets::ETCD_KEEPALIVE, Backend::Etcd, Fencing::Off);
    let text = story(&sim);
    assert!(text.contains("etcd expired A's lease"), "{text}");
    assert!(
        text.contains("A no longer believes it holds the lock: its own clock says"),
        "a partitioned etcd client learns it locally\n{text}"
    );
    let a = acquired(&sim, 'A')[0].1.unwrap();
    let b = acquired(&sim, 'B')[0].1.unwrap();
    let ServiceDetail::Etcd(distlock::sim::EtcdDetail { revision, .. }) = sim.service_detail()
    else {
        panic!("etcd detail");
    };
    assert_eq!(a, Token(2));
    assert_eq!(b, Token(3), "B's key was put while A's was still there");
    assert_eq!(revision, 4, "the expiry's deletion was a write too");
}

#[test]
fn a_crashed_holder_blocks_everyone_for_a_lease() {
    for backend in Backend::ALL {
        let sim = preset(&presets::CRASHED_HOLDER, backend, Fencing::Off);
        let text = story(&sim);
        let b = acquired(&sim, 'B');
        assert_eq!(b.len(), 1, "{backend}\n{text}");
        assert!(
            b[0].0.ms() >= 5_000,
            "{backend}: B waits for the lease to run out, got it at {}",
            b[0].0
        );
        assert!(sim.client_view(client('A')).crashed);
    }
}

#[test]
fn an_acquisition_slower_than_the_ttl_is_not_acquired() {
    let sim = preset(&presets::SLOW_ACQUIRE, Backend::Redlock, Fencing::Off);
    let text = story(&sim);
    assert!(text.contains("validity = TTL - elapsed - drift"), "{text}");
    assert!(text.contains("not above 0: not acquired"), "{text}");
    let a = acquired(&sim, 'A');
    assert_eq!(a.len(), 1, "A's next attempt acquires\n{text}");
    assert!(a[0].0.ms() > 6_100, "only after the pause\n{text}");
}

#[test]
fn a_blind_renewal_after_expiry_silently_reacquires() {
    let config = Config {
        backend: Backend::Redlock,
        ..Config::default()
    };
    // Just after A wakes and its stashed renewal lands on every node.
    let blind = run(
        &presets::renew_after_expiry(config.clone(), ExtendMode::BlindSet),
        9_500,
    );
    let text = story(&blind);
    assert_eq!(acquired(&blind, 'B').len(), 1, "{text}");
    assert_eq!(blind.holder().unwrap().client, client('A'), "{text}");
    let b = blind.client_view(client('B'));
    assert!(
        b.belief.is_holding() && b.stale,
        "B believes, the service disagrees"
    );

    let checked = run(
        &presets::renew_after_expiry(config, ExtendMode::CheckValue),
        9_500,
    );
    let text = story(&checked);
    assert_eq!(checked.holder().unwrap().client, client('B'), "{text}");
    assert!(!checked.client_view(client('B')).stale);
}

/// What a visitor sees change when they flip a story's suggested setting.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    corruptions: u64,
    rejected: u64,
    overlaps: usize,
    first_grant_to_b: Option<Millis>,
    first_grant_to_a: Option<Millis>,
    holder_at_end: Option<ClientId>,
}

fn outcome(sim: &Sim) -> Outcome {
    Outcome {
        corruptions: sim.oracle().corruptions(),
        rejected: sim.resource().rejected(),
        overlaps: sim.oracle().overlaps().len(),
        first_grant_to_b: acquired(sim, 'B').first().map(|g| g.0),
        first_grant_to_a: acquired(sim, 'A').first().map(|g| g.0),
        holder_at_end: sim.holder().map(|h| h.client),
    }
}

/// A story whose "try this" rightly changes nothing on a backend, and
/// says so there (`presets::told`): PostgreSQL's lock is no lease, so
/// fencing has no late write to catch and the TTL sets no wait (a dead
/// host's keepalives, or a dead process's FIN, do).
fn unchanged_on_purpose(id: &str, backend: Backend) -> bool {
    backend == Backend::Postgres && matches!(id, "gc-pause" | "crashed-holder" | "process-exit")
}

#[test]
fn every_try_this_changes_what_the_story_shows() {
    for p in PRESETS {
        for &backend in p.backends {
            let scenario = p.scenario(backend, Fencing::Off).unwrap();
            let tweak = p.try_this.tweak;
            if unchanged_on_purpose(p.id, backend) {
                continue;
            }
            assert!(
                !tweak.is_applied(&scenario.config),
                "{}: already applied",
                p.id
            );
            let tried = Scenario {
                config: tweak.apply(&scenario.config),
                ..scenario.clone()
            };
            let run_ms = p.run_ms_on(backend);
            let play = |s: &Scenario| Sim::play(s, Millis(run_ms)).expect("the story plays");
            let (before, after) = (play(&scenario), play(&tried));
            let (b, a) = (outcome(&before), outcome(&after));
            assert_ne!(
                b, a,
                "{} on {backend:?}: trying \"{}\" changes nothing",
                p.id, p.try_this.text
            );
            // A fix that claims to stop the damage must stop it.
            if b.corruptions > 0 && p.try_this.text.contains("rejected") {
                assert_eq!(
                    a.corruptions,
                    0,
                    "{} on {backend:?}: {a:?}\n{}",
                    p.id,
                    story(&after)
                );
                assert!(a.rejected > 0, "{} on {backend:?}: {a:?}", p.id);
            }
            assert_eq!(
                tweak.revert(&tried.config, &scenario.config),
                scenario.config,
                "{}: revert puts the setting back",
                p.id
            );
        }
    }
}
