//! The scenario to run first (scenarios.md), for every backend, fencing off
//! and on: B takes over with a larger token at about 5 s, and A's late write
//! at 8.5 s is accepted (one corruption) or rejected (rejected = 1).

use distlock::lesson::presets::gc_pause;
use distlock::sim::{Backend, Config, Event, Fencing, Millis, Record, Sim};

use crate::common;
use common::{grants, seeds, story};

const BACKENDS: [Backend; 3] = [Backend::Etcd, Backend::ZooKeeper, Backend::Redlock];

fn run_first(backend: Backend, fencing: Fencing) -> Sim {
    let config = Config {
        backend,
        fencing,
        ..Config::default()
    };
    let mut sim = Sim::from_scenario(&gc_pause(config)).expect("the script runs");
    sim.run_until(Millis(12_000));
    sim
}

/// Each client's grants as (time, token), in order.

#[test]
fn b_takes_over_with_a_larger_token_at_five_seconds() {
    for backend in BACKENDS {
        let sim = run_first(backend, Fencing::Off);
        let a = grants(&sim, 'A');
        let b = grants(&sim, 'B');
        assert_eq!(a.len(), 1, "{backend}: A acquires once\n{}", story(&sim));
        assert_eq!(b.len(), 1, "{backend}: B acquires once\n{}", story(&sim));
        let (a_token, (b_at, b_token)) = (a[0].1.unwrap(), b[0]);
        let b_token = b_token.unwrap();
        assert!(b_token > a_token, "{backend}: {b_token} > {a_token}");
        assert!(
            (5_000..7_000).contains(&b_at.ms()),
            "{backend}: B acquires at {b_at}"
        );
        let expected = match backend {
            // Revision 1 is the fresh cluster; A's key is 2. The server
            // looks for expired leases every 500 ms, so B's key (asked for
            // at 5 s) is created at 3 before A's expiry deletes A's key at 4:
            // B waits in line and holds with 3, as a queued waiter does on
            // the real server.
            Backend::Etcd => (2, 3),
            // Sequence numbers start at 0 in a fresh lock directory.
            Backend::ZooKeeper => (0, 1),
            // node 1's INCR counter.
            Backend::Redlock => (1, 2),
            // The master's INCR counter, in the same script as the key.
            Backend::Redis => (1, 2),
            // Its lease outlives an 8 s pause: tests/core/chubby.rs.
            Backend::Chubby => unreachable!("not in BACKENDS"),
            other => unreachable!("{other} is not in BACKENDS"),
        };
        assert_eq!((a_token.0, b_token.0), expected, "{backend}");
    }
}

#[test]
fn without_fencing_the_late_write_corrupts_the_counter() {
    for backend in BACKENDS {
        let sim = run_first(backend, Fencing::Off);
        let story = story(&sim);
        assert_eq!(sim.oracle().corruptions(), 1, "{backend}\n{story}");
        assert_eq!(sim.resource().accepted(), 2, "{backend}\n{story}");
        assert_eq!(sim.resource().rejected(), 0, "{backend}\n{story}");
        let stale = sim
            .oracle()
            .last_stale_write()
            .expect("A's write was stale");
        assert_eq!(stale.client.letter(), 'A');
        assert!(stale.accepted);
        assert!(
            (8_500..8_600).contains(&stale.at.ms()),
            "{backend}: the stale write lands right after A wakes, at {}",
            stale.at
        );
        assert!(
            !sim.oracle().overlaps().is_empty(),
            "{backend}: A and B both believed they held the lock"
        );
        assert!(story.contains("A's late write"), "{story}");
    }
}

#[test]
fn with_fencing_the_late_write_is_rejected() {
    for backend in BACKENDS {
        let sim = run_first(backend, Fencing::On);
        let story = story(&sim);
        assert_eq!(sim.resource().rejected(), 1, "{backend}\n{story}");
        assert_eq!(sim.resource().accepted(), 1, "{backend}\n{story}");
        assert_eq!(sim.oracle().corruptions(), 0, "{backend}");
        assert_eq!(sim.oracle().saves(), 1, "{backend}");
        let a_token = grants(&sim, 'A')[0].1.unwrap();
        let b_token = grants(&sim, 'B')[0].1.unwrap();
        let reason = format!("token {a_token} < highest accepted {b_token}");
        assert!(story.contains(&reason), "{backend}: {reason}\n{story}");
        assert_eq!(sim.resource().highest(), Some(b_token));
    }
}

#[test]
fn the_scenario_is_deterministic_and_serializes() {
    for backend in BACKENDS {
        let one = run_first(backend, Fencing::Off);
        let two = run_first(backend, Fencing::Off);
        assert_eq!(one.history(), two.history(), "{backend}");
        let json = serde_json::to_string(one.history()).unwrap();
        let back: Vec<Record> = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back,
            one.history(),
            "{backend}: history round-trips as JSON"
        );
        let scenario = one.scenario();
        let replayed = distlock::sim::Scenario::from_json(&scenario.to_json()).unwrap();
        assert_eq!(replayed, scenario);
    }
}

#[test]
fn a_different_seed_changes_the_timing_not_the_story() {
    for backend in BACKENDS {
        for seed in seeds(2..6) {
            let config = Config {
                backend,
                seed: distlock::sim::Seed(seed),
                ..Config::default()
            };
            let mut sim = Sim::from_scenario(&gc_pause(config)).unwrap();
            sim.run_until(Millis(12_000));
            assert_eq!(
                sim.oracle().corruptions(),
                1,
                "{backend} DISTLOCK_SEED={seed}"
            );
        }
    }
}

#[test]
fn a_write_clicked_just_after_the_wake_still_goes_out() {
    // etcd and ZooKeeper clients learn of the loss from the service's
    // answer, a round trip after waking; until then the client still
    // believes it holds the lock and a Write click is sent.
    for backend in [Backend::Etcd, Backend::ZooKeeper] {
        let config = Config {
            backend,
            ..Config::default()
        };
        let scenario = distlock::sim::Scenario::new(config)
            .client(0, 'A', distlock::sim::Command::Acquire)
            .client(
                500,
                'A',
                distlock::sim::Command::GcPause { pause_ms: 8_000 },
            )
            .client(5_000, 'B', distlock::sim::Command::Acquire)
            .client(7_000, 'B', distlock::sim::Command::Write)
            .client(8_520, 'A', distlock::sim::Command::Write);
        let sim = Sim::replay(&scenario, Millis(12_000)).expect("A still believes at 8.52 s");
        assert_eq!(sim.oracle().corruptions(), 1, "{backend}\n{}", story(&sim));
        let lost = sim.history().iter().find_map(|r| match r.event {
            Event::Lost { client, reason } if client.letter() == 'A' => Some((r.at, reason)),
            _ => None,
        });
        let (at, _) = lost.expect("A learns it lost the lock");
        assert!(at.ms() > 8_520, "{backend}: A learns at {at}");
    }
}
