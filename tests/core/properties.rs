//! The safety properties, each against runs that break it and runs that
//! keep it, fed record by record as the page feeds them.

use distlock::lesson::presets::{self, Preset, PRESETS};
use distlock::lesson::properties::{Properties, Property, PropertyState};
use distlock::sim::{
    Backend, Config, Event, Fencing, Millis, ReleaseMode, Scenario, Sim, Standing,
};

use crate::common;
use common::client;

fn run(scenario: &Scenario, until_ms: u64) -> Sim {
    let mut sim = Sim::play(scenario, Millis(until_ms)).expect("the script runs");
    sim.run_until(Millis(until_ms));
    sim
}

fn preset(p: &Preset, backend: Backend, fencing: Fencing) -> Sim {
    let scenario = p
        .scenario(backend, fencing)
        .expect("the story suits the backend");
    run(&scenario, p.run_ms_on(backend))
}

fn config(backend: Backend, fencing: Fencing) -> Config {
    Config {
        backend,
        fencing,
        ..Config::default()
    }
}

/// The property's violation, checked to point at a record of that moment.
fn violated(sim: &Sim, property: Property) -> distlock::lesson::properties::Violation {
    let checked = Properties::of(sim);
    let v = checked
        .violation(property)
        .unwrap_or_else(|| panic!("{property} holds (seed {})", sim.config().seed))
        .clone();
    let record = &sim.history()[v.index as usize];
    assert_eq!(record.at, v.at, "the index points at the violating record");
    v
}

fn holds(sim: &Sim, property: Property) {
    let checked = Properties::of(sim);
    assert_eq!(
        checked.state(property),
        PropertyState::Holds,
        "{property} (seed {})",
        sim.config().seed
    );
}

#[test]
fn a_stale_write_breaks_no_stale_write_and_fencing_keeps_it() {
    let off = preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::Off);
    let v = violated(&off, Property::NoStaleWrite);
    assert_eq!(v.client, Some(client('A')));
    assert!(v.at.ms() >= 8_000, "A writes when it wakes at 8.5 s: {v}");
    assert!(
        v.by.contains("A's write (token 2)") && v.by.contains("B was granted the lock after A"),
        "{v}"
    );
    let record = &off.history()[v.index as usize];
    assert!(matches!(
        record.event,
        Event::WriteAccepted {
            standing: Standing::Stale,
            ..
        }
    ));
    holds(
        &preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::On),
        Property::NoStaleWrite,
    );
}

#[test]
fn no_stale_write_is_the_oracles_corruption_on_every_story() {
    for p in PRESETS {
        for &backend in p.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                let sim = preset(p, backend, fencing);
                let first = sim
                    .oracle()
                    .stale_writes()
                    .iter()
                    .find(|s| s.accepted && s.standing.is_stale())
                    .map(|s| s.at);
                let checked = Properties::of(&sim);
                let found = checked.violation(Property::NoStaleWrite).map(|v| v.at);
                assert_eq!(found, first, "{} on {backend}, {fencing:?}", p.id);
                assert_eq!(
                    found.is_some(),
                    sim.oracle().corruptions() > 0,
                    "{} on {backend}",
                    p.id
                );
            }
        }
    }
}

#[test]
fn two_believers_break_one_believer_and_a_lock_with_no_lease_keeps_it() {
    let off = preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::Off);
    let v = violated(&off, Property::OneBeliever);
    assert_eq!(v.by, "A and B both believing they hold the lock");
    let overlap = &off.oracle().overlaps()[0];
    assert_eq!(v.at, overlap.from, "the oracle's first overlap");
    holds(
        &preset(&presets::GC_PAUSE, Backend::Postgres, Fencing::Off),
        Property::OneBeliever,
    );
}

#[test]
fn a_late_lower_token_breaks_token_order_unless_fencing_rejects_it() {
    let off = preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::Off);
    let v = violated(&off, Property::TokensNeverDecrease);
    assert_eq!(
        v.by,
        "A's write with token 2, accepted after one with token 3"
    );
    holds(
        &preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::On),
        Property::TokensNeverDecrease,
    );
    let delayed = preset(&presets::DELAYED_WRITE, Backend::ZooKeeper, Fencing::Off);
    violated(&delayed, Property::TokensNeverDecrease);
    holds(
        &preset(&presets::DELAYED_WRITE, Backend::ZooKeeper, Fencing::On),
        Property::TokensNeverDecrease,
    );
}

#[test]
fn a_plain_del_breaks_no_foreign_release_and_the_checked_release_keeps_it() {
    for backend in [Backend::Redlock, Backend::Redis] {
        let plain = run(
            &presets::release_other(config(backend, Fencing::Off), ReleaseMode::PlainDel),
            10_000,
        );
        let v = violated(&plain, Property::NoForeignRelease);
        assert_eq!(v.client, Some(client('A')));
        assert!(
            v.by.starts_with("A's plain DEL, which deleted B's lock key"),
            "{v}"
        );
        let checked = run(
            &presets::release_other(config(backend, Fencing::Off), ReleaseMode::CheckValue),
            10_000,
        );
        holds(&checked, Property::NoForeignRelease);
    }
}

#[test]
fn a_write_after_the_lease_breaks_no_write_without_a_lease_even_when_rejected() {
    let on = preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::On);
    let v = violated(&on, Property::NoWriteWithoutLease);
    assert!(v.by.ends_with("(rejected by fencing)"), "{v}");
    holds(&on, Property::NoStaleWrite);
    let careful = Scenario::new(config(Backend::Etcd, Fencing::Off))
        .client(0, 'A', distlock::sim::Command::Acquire)
        .client(1_000, 'A', distlock::sim::Command::Write)
        .client(2_000, 'A', distlock::sim::Command::Release)
        .client(2_500, 'B', distlock::sim::Command::Acquire)
        .client(3_500, 'B', distlock::sim::Command::Write);
    let sim = run(&careful, 5_000);
    for property in Property::ALL {
        holds(&sim, property);
    }
}

#[test]
fn feeding_records_as_they_come_gives_what_the_whole_history_gives() {
    let whole = preset(&presets::REDLOCK_CLOCK_JUMP, Backend::Redlock, Fencing::Off);
    let expected = Properties::of(&whole);
    let mut live = Properties::new();
    let scenario = whole.scenario();
    let mut sim = Sim::new(scenario.config.clone()).unwrap();
    let mut playback =
        distlock::sim::Playback::new(scenario.actions.as_slice(), distlock::sim::Refusals::Stop);
    let mut t = 0;
    while t < whole.now().ms() {
        t = (t + 137).min(whole.now().ms());
        playback.run_to(&mut sim, Millis(t)).unwrap();
        live.watch(sim.history());
    }
    assert_eq!(live, expected);
    assert_eq!(live.seen(), whole.history().len() as u64);
    // Replayed to an earlier moment, the history is shorter: the check starts over.
    let earlier = Sim::replay(&scenario, Millis(1_000)).unwrap();
    live.watch(earlier.history());
    assert_eq!(live, Properties::of(&earlier));
}

#[test]
fn each_state_reads_as_the_page_lists_it() {
    let sim = preset(&presets::GC_PAUSE, Backend::Etcd, Fencing::Off);
    let checked = Properties::of(&sim);
    let lines: Vec<String> = checked
        .states()
        .map(|(p, state)| format!("{p}: {state}"))
        .collect();
    assert_eq!(lines.len(), 5);
    assert!(
        lines[0].starts_with("no stale write accepted: violated at t=8."),
        "{lines:?}"
    );
    assert_eq!(
        lines[3],
        "no release deletes another client's lock: holds so far"
    );
    for p in Property::ALL {
        assert_eq!(Property::from_slug(p.slug()), Some(p));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(
            json,
            format!("\"{}\"", p.slug()),
            "JSON names it by its slug"
        );
    }
}
