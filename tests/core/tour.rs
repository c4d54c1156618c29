//! Guided tours: every story's key moments are found in its own run, on
//! every backend it suits, in order, and say what the run really did.

use distlock::lesson::presets::{self, Preset, PRESETS};
use distlock::lesson::tour::{self, Look, Moment};
use distlock::sim::{Backend, ClientId, Fencing, Millis};

fn tour_of(preset: &Preset, backend: Backend, fencing: Fencing) -> Vec<Moment> {
    let scenario = preset
        .scenario(backend, fencing)
        .expect("the preset suits the backend");
    tour::moments(preset, &scenario, Millis(preset.run_ms_on(backend)))
}

#[test]
fn every_story_has_a_tour_in_time_order_on_every_backend() {
    for p in PRESETS {
        for &backend in p.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                let moments = tour_of(p, backend, fencing);
                let at: Vec<u64> = moments.iter().map(|m| m.at.ms()).collect();
                assert!(
                    moments.len() >= 3,
                    "{} on {backend:?} ({fencing:?}) has only {} moments: {moments:#?}",
                    p.id,
                    moments.len()
                );
                assert!(
                    at.windows(2).all(|w| w[0] <= w[1]),
                    "{} {backend:?}: {at:?}",
                    p.id
                );
                let run_ms = p.run_ms_on(backend);
                assert!(at.iter().all(|&t| t <= run_ms), "{}: {at:?}", p.id);
            }
        }
    }
}

/// A caption is written once as a template: every field it names is
/// filled, so no brace is left in what a tour says.
#[test]
fn every_caption_fills_the_fields_it_names() {
    for p in PRESETS {
        for &backend in p.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                for m in tour_of(p, backend, fencing) {
                    assert!(
                        !m.caption.contains(['{', '}']),
                        "{} on {backend:?}: {}",
                        p.id,
                        m.caption
                    );
                }
            }
        }
    }
}

#[test]
fn the_first_story_ends_on_the_stale_write_accepted_or_rejected() {
    for backend in [Backend::Etcd, Backend::ZooKeeper, Backend::Redlock] {
        let off = tour_of(&presets::GC_PAUSE, backend, Fencing::Off);
        let on = tour_of(&presets::GC_PAUSE, backend, Fencing::On);
        assert_eq!(off.len(), 6, "{backend:?}: {off:#?}");
        let last_off = off.last().expect("moments");
        assert!(last_off.caption.contains("stale write"), "{last_off:?}");
        assert_eq!(last_off.look, Look::Resource);
        let last_on = on.last().expect("moments");
        assert!(last_on.caption.contains("rejected"), "{last_on:?}");
        assert_eq!(off[0].look, Look::Card(ClientId::ALL[0]));
        // A wakes at 8.5 s: the pause started at 0.5 s and lasts 8 s.
        assert_eq!(off[4].at, Millis(8_500), "{off:#?}");
    }
}

#[test]
fn the_first_story_says_the_write_was_clicked_during_the_pause_and_left_as_a_woke() {
    for backend in Backend::ALL {
        if backend == Backend::Postgres {
            // No lease to lose there: its tour tells another story.
            continue;
        }
        let told: Vec<String> = tour_of(&presets::GC_PAUSE, backend, Fencing::Off)
            .into_iter()
            .map(|m| m.caption)
            .collect();
        let all = told.join("\n");
        assert!(
            all.contains("clicked now, during the pause"),
            "{backend:?}: {all}"
        );
        assert!(
            all.contains("leaves the instant A wakes"),
            "{backend:?}: {all}"
        );
        assert!(
            all.contains("clicked during its pause leaves the instant it woke"),
            "{backend:?}: {all}"
        );
    }
}

#[test]
fn a_fix_leaves_out_the_moment_that_no_longer_happens() {
    use distlock::sim::Config;
    use distlock::sim::RestartPolicy;
    let config = || Config {
        backend: Backend::Redlock,
        ..Config::default()
    };
    let broken = presets::redlock_restart(config(), RestartPolicy::Immediate);
    let fixed = presets::redlock_restart(config(), RestartPolicy::Delayed);
    let say = |s| {
        tour::moments(&presets::REDLOCK_RESTART, &s, Millis(6_000))
            .into_iter()
            .map(|m| m.caption)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (broken, fixed) = (say(broken), say(fixed));
    assert!(
        broken.contains("Two holders, and no client ever paused"),
        "{broken}"
    );
    assert!(fixed.contains("stays down until"), "{fixed}");
    assert!(!fixed.contains("Two holders"), "{fixed}");
}
