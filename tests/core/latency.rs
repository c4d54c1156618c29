//! Latency as a setting: the presets' ranges, what each does to a run's
//! messages and acquisitions, and links that keep it (older links, which
//! never named a network round trip, run as they ran).

use distlock::sim::latency::{latency_words, preset_of, LATENCY_PRESETS};
use distlock::sim::{
    latency_range_us, Backend, ClientId, Command, Config, Endpoint, Event, Millis, Scenario, Sim,
    LATENCY_SCALE_DEFAULT, NETWORK_RTT_MS_MAX,
};
use distlock::wire::link::{self, RunLink};

fn a() -> ClientId {
    ClientId::ALL[0]
}

/// A asks for the lock at 0 and writes at 1 s: one acquisition, one write.
fn asks(config: Config) -> Sim {
    let scenario = Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::Write);
    Sim::replay(&scenario, Millis(3_000)).expect("the run replays")
}

/// When A was granted the lock, in ms after it asked at 0.
fn acquired_at(sim: &Sim) -> u64 {
    sim.history()
        .iter()
        .find_map(|r| match r.event {
            Event::Acquired { client, .. } if client == a() => Some(r.at.ms()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("A is granted the lock (seed {})", sim.config().seed))
}

#[test]
fn the_default_is_the_watchable_preset_and_the_stories_keep_it() {
    let config = Config::default();
    assert_eq!(config.latency_scale, LATENCY_SCALE_DEFAULT);
    assert_eq!(config.network_rtt_ms, 0);
    let preset = preset_of(&config).expect("the default is a preset");
    assert_eq!(preset, &LATENCY_PRESETS[0]);
    assert!(preset.name.contains("10x"), "{}", preset.name);
    assert_eq!(latency_words(&config), "10x real");
}

#[test]
fn the_settings_range_is_checked_with_a_message() {
    let at = |latency_scale, network_rtt_ms| {
        Sim::new(Config {
            latency_scale,
            network_rtt_ms,
            ..Config::default()
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    assert!(at(1, 0).is_ok() && at(100, NETWORK_RTT_MS_MAX).is_ok());
    assert!(at(0, 0).unwrap_err().contains("latency scale of 0x"));
    assert!(at(101, 0).unwrap_err().contains("choose 1x to 100x"));
    let far = at(1, NETWORK_RTT_MS_MAX + 1).unwrap_err();
    assert!(far.contains("network round trip of 1001 ms"), "{far}");
    for preset in LATENCY_PRESETS {
        let config = preset.apply(&Config::default());
        assert!(config.validate().is_ok(), "{}", preset.name);
        assert_eq!(preset_of(&config), Some(&preset));
    }
}

#[test]
fn every_message_travels_the_systems_own_time_scaled_plus_half_the_round_trip() {
    for preset in LATENCY_PRESETS {
        for backend in Backend::ALL {
            let config = preset.apply(&Config {
                backend,
                ..Config::default()
            });
            let sim = asks(config.clone());
            let mut sent = 0;
            for r in sim.history() {
                let Event::MessageSent {
                    from,
                    to,
                    deliver_at,
                    ..
                } = r.event
                else {
                    continue;
                };
                // The same sum the engine draws from, at its ends.
                let (lo, hi) = latency_range_us(backend, from, to);
                let one_way = |us: u64| {
                    let us = us * u64::from(config.latency_scale)
                        + u64::from(config.network_rtt_ms) * 500;
                    (us / 1000).max(1)
                };
                let took = r.at.until(deliver_at);
                // No extra delay is asked of these messages: each took a
                // time inside the draw.
                assert!(
                    (one_way(lo)..=one_way(hi)).contains(&took),
                    "{} on {backend}: {from} to {to} took {took} ms",
                    preset.name
                );
                sent += 1;
            }
            assert!(sent > 0, "{} on {backend} sent nothing", preset.name);
        }
    }
}

#[test]
fn a_preset_changes_how_long_an_acquisition_takes() {
    for backend in Backend::ALL {
        let at = |i: usize| {
            acquired_at(&asks(LATENCY_PRESETS[i].apply(&Config {
                backend,
                ..Config::default()
            })))
        };
        // In the field's order: slowed, one zone, cross-zone, cross-region.
        let (slowed, zone, cross_zone, region) = (at(0), at(1), at(2), at(3));
        // One zone at 1x is faster than the same LAN slowed tenfold.
        assert!(
            zone < slowed,
            "{backend}: zone {zone} ms, slowed {slowed} ms"
        );
        assert!(zone <= cross_zone, "{backend}: {zone} then {cross_zone} ms");
        // Across regions every acquisition pays at least one 70 ms round
        // trip: Redlock's nodes too (its node timeout grows with it).
        assert!(region >= 70, "{backend}: cross-region in {region} ms");
        assert!(region < 1_000, "{backend}: cross-region in {region} ms");
    }
}

#[test]
fn links_keep_the_setting_and_older_links_mean_what_they_meant() {
    let preset = LATENCY_PRESETS[3];
    let sim = asks(preset.apply(&Config::default()));
    let run = RunLink::of(&sim, Millis(1_500));
    let (opened, replayed) = link::open_link(&link::encode(&run)).expect("the link opens");
    assert_eq!(opened.scenario.config.network_rtt_ms, preset.network_rtt_ms);
    assert_eq!(acquired_at(&replayed), acquired_at(&sim));
    // A link written before the setting has no "network_rtt_ms".
    let old = r#"{"version":1,"config":{"backend":"etcd","fencing":"off","ttl_ms":5000,"seed":1,"latency_scale":1,"renewal":[true,true,true,true]},"actions":[],"playhead_ms":0,"end_ms":0}"#;
    let run = link::from_run_file(old).expect("an old run file reads");
    assert_eq!(run.scenario.config.network_rtt_ms, 0);
    assert_eq!(run.scenario.config.latency_scale, 1);
    // And a run at no added round trip writes none, as before.
    let written = link::to_run_file(&RunLink::of(&asks(Config::default()), Millis(0)), &[]);
    assert!(!written.contains("network_rtt_ms"), "{written}");
}

/// TCP keeps a connection's order, and every system's client library
/// sends its requests over one session or connection: a client's requests
/// reach the service in the order it sent them, however the draws fall.
/// Drawn one by one, a release sent just before the next acquire could be
/// overtaken by it where latency varies widely: Chubby's master granted
/// the acquire to the holder it still had, then let the lock go on the
/// release, and granted it to the next client: two holders and a lost
/// write with no pause at all (the explorer found it across regions,
/// in a cell whose threshold said no pause could corrupt).
#[test]
fn a_clients_requests_reach_the_service_in_the_order_it_sent_them() {
    for preset in LATENCY_PRESETS {
        for backend in Backend::ALL {
            for seed in crate::common::seeds(1..=12) {
                let config = preset.apply(&Config {
                    backend,
                    seed: distlock::sim::Seed(seed),
                    ..Config::default()
                });
                // A releases and at once asks again; B asks just after.
                let scenario = Scenario::new(config)
                    .client(0, 'A', Command::Acquire)
                    .client(6_000, 'A', Command::Release)
                    .client(6_001, 'A', Command::Acquire)
                    .client(6_030, 'B', Command::Acquire);
                let sim = Sim::replay(&scenario, Millis(12_000))
                    .unwrap_or_else(|e| panic!("{} on {backend}, seed {seed}: {e}", preset.name));
                let mut last: Vec<(ClientId, Endpoint, Millis)> = Vec::new();
                for r in sim.history() {
                    match r.event {
                        Event::MessageSent {
                            from: Endpoint::Client(c),
                            to: to @ (Endpoint::Service | Endpoint::Node(_)),
                            deliver_at,
                            ..
                        } => {
                            if let Some((_, _, before)) =
                                last.iter_mut().find(|(lc, lt, _)| *lc == c && *lt == to)
                            {
                                assert!(
                                    deliver_at >= *before,
                                    "{} on {backend}, seed {seed}: {c}'s request to {to} arrives at {deliver_at}, before its last one at {before}\n{}",
                                    preset.name,
                                    crate::common::seeded_story(&sim)
                                );
                                *before = deliver_at;
                            } else {
                                last.push((c, to, deliver_at));
                            }
                        }
                        Event::TwoHolders { .. } => panic!(
                            "{} on {backend}, seed {seed}: two holders with no fault\n{}",
                            preset.name,
                            crate::common::seeded_story(&sim)
                        ),
                        _ => {}
                    }
                }
            }
        }
    }
}
