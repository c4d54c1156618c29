//! Predict, then see: every question a tour asks, on every story, system
//! and fencing setting, is well formed, and its right answer is what the
//! run then does, checked in the engine's own state at the moment.

use distlock::lesson::presets::{self, Preset, PRESETS};
use distlock::lesson::tour::{self, Moment, Question};
use distlock::sim::{Backend, ClientId, Fencing, Millis, Scenario, Sim};
use std::collections::BTreeSet;

fn scenario_and_tour(
    preset: &Preset,
    backend: Backend,
    fencing: Fencing,
) -> (Scenario, Vec<Moment>) {
    let scenario = preset
        .scenario(backend, fencing)
        .expect("the preset suits the backend");
    let moments = tour::moments(preset, &scenario, Millis(preset.run_ms_on(backend)));
    (scenario, moments)
}

/// Every (story, system, fencing) with its tour.
fn every_tour() -> Vec<(String, Scenario, Vec<Moment>)> {
    let mut all = Vec::new();
    for p in PRESETS {
        for &backend in p.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                let (scenario, moments) = scenario_and_tour(p, backend, fencing);
                all.push((
                    format!("{} on {backend:?} ({fencing:?})", p.id),
                    scenario,
                    moments,
                ));
            }
        }
    }
    all
}

fn well_formed(q: &Question, what: &str) {
    assert!(
        (2..=4).contains(&q.answers.len()),
        "{what}: {} answers",
        q.answers.len()
    );
    assert!(q.right < q.answers.len(), "{what}: {q:#?}");
    let texts: BTreeSet<&str> = q.answers.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(
        texts.len(),
        q.answers.len(),
        "{what}: answers repeat: {q:#?}"
    );
    let whys: BTreeSet<&str> = q.answers.iter().map(|a| a.why.as_str()).collect();
    assert_eq!(
        whys.len(),
        q.answers.len(),
        "{what}: explanations repeat: {q:#?}"
    );
    for a in &q.answers {
        assert!(a.why.len() > 30 && a.why.ends_with('.'), "{what}: {a:?}");
    }
    assert!(q.ask.ends_with('?'), "{what}: {}", q.ask);
}

/// The client an answer names first ("A still believes ...").
fn named(text: &str) -> ClientId {
    ClientId::ALL
        .into_iter()
        .find(|c| text.starts_with(&c.to_string()))
        .expect("an answer that names a client")
}

/// Plays the run to the moment and checks the right answer against it.
fn bears_out(scenario: &Scenario, m: &Moment, q: &Question, what: &str) {
    let at = Sim::play(scenario, m.at).expect("the story plays");
    let right = &q.right_answer().text;
    if q.ask.starts_with("What will the resource do") {
        let before = Sim::play(scenario, Millis(m.at.ms() - 1)).expect("the story plays");
        let (was, now) = (before.resource(), at.resource());
        let accepted = now.accepted() > was.accepted();
        let rejected = now.rejected() > was.rejected();
        assert!(accepted != rejected, "{what}: one write lands at {}", m.at);
        let said = if accepted {
            "It accepts the write"
        } else {
            "It rejects the write"
        };
        assert_eq!(right, said, "{what} at {}: {q:#?}", m.at);
        let judged = at.client_view(ClientId::ALL[0]).judged;
        assert!(judged.is_some(), "{what}: A's write was judged");
    } else {
        assert!(q.ask.starts_with("When "), "{what}: {}", q.ask);
        let old = named(&q.answers[0].text);
        let believes = at.client_view(old).belief.is_holding();
        assert_eq!(
            q.right == 0,
            believes,
            "{what} at {}: {old} believes it holds: {believes}; {q:#?}",
            m.at
        );
    }
}

#[test]
fn every_question_is_borne_out_by_the_run_that_follows() {
    let mut asked = 0;
    for (what, scenario, moments) in every_tour() {
        for m in &moments {
            if let Some(q) = &m.question {
                well_formed(q, &what);
                bears_out(&scenario, m, q, &what);
                asked += 1;
            }
        }
    }
    assert!(asked > 50, "only {asked} questions in every tour");
}

#[test]
fn every_system_tells_a_story_whose_tour_asks_questions_with_either_answer() {
    for backend in Backend::ALL {
        let mut rights = BTreeSet::new();
        for p in PRESETS.iter().filter(|p| p.backends.contains(&backend)) {
            for fencing in [Fencing::Off, Fencing::On] {
                let (_, moments) = scenario_and_tour(p, backend, fencing);
                for q in moments.iter().filter_map(|m| m.question.as_ref()) {
                    rights.insert(q.right_answer().text.clone());
                }
            }
        }
        // Accepted somewhere and rejected somewhere, so "accept" is not
        // always the safe guess.
        assert!(
            rights.contains("It accepts the write"),
            "{backend:?}: {rights:?}"
        );
        assert!(
            rights.contains("It rejects the write"),
            "{backend:?}: {rights:?}"
        );
    }
}

#[test]
fn the_first_story_asks_before_the_takeover_and_the_late_write_and_fencing_flips_the_answer() {
    for backend in [Backend::Etcd, Backend::Redis, Backend::ZooKeeper] {
        let (_, off) = scenario_and_tour(&presets::GC_PAUSE, backend, Fencing::Off);
        let (_, on) = scenario_and_tour(&presets::GC_PAUSE, backend, Fencing::On);
        let asked = |ms: &[Moment]| -> Vec<(usize, String)> {
            ms.iter()
                .enumerate()
                .filter_map(|(i, m)| {
                    m.question
                        .as_ref()
                        .map(|q| (i, q.right_answer().text.clone()))
                })
                .collect()
        };
        let (off, on) = (asked(&off), asked(&on));
        // B takes over (moment 3), A's late write lands (moment 6).
        assert_eq!(
            off[0],
            (2, "A still believes it holds it".into()),
            "{backend:?}"
        );
        assert_eq!(
            off.last(),
            Some(&(5, "It accepts the write".into())),
            "{backend:?}"
        );
        assert_eq!(
            on.last(),
            Some(&(5, "It rejects the write".into())),
            "{backend:?}"
        );
    }
}

#[test]
fn on_postgresql_the_old_holder_released_and_its_write_is_no_stale_one() {
    let (_, moments) = scenario_and_tour(&presets::GC_PAUSE, Backend::Postgres, Fencing::Off);
    let questions: Vec<&Question> = moments.iter().filter_map(|m| m.question.as_ref()).collect();
    let rights: Vec<&str> = questions
        .iter()
        .map(|q| q.right_answer().text.as_str())
        .collect();
    assert!(rights.contains(&"It accepts the write"), "{rights:?}");
    assert!(
        rights.contains(&"A no longer believes it holds it"),
        "{rights:?}"
    );
    let landing = questions
        .iter()
        .find(|q| q.ask.starts_with("What will"))
        .expect("a landing question");
    assert!(landing.ask.contains("it read version"), "{}", landing.ask);
    // The wrong "reject" names the misconception: pausing is not losing.
    assert!(
        landing.answers[1]
            .why
            .contains("does not make a write wrong"),
        "{landing:#?}"
    );
}

/// The landing question's words for a rejected write on `backend` with
/// `set` applied to the first story's fenced configuration.
fn rejected_landing_words(backend: Backend, set: impl Fn(&mut Scenario)) -> String {
    let mut scenario = presets::GC_PAUSE
        .scenario(backend, Fencing::On)
        .expect("the first story suits the backend");
    set(&mut scenario);
    let moments = tour::moments(
        &presets::GC_PAUSE,
        &scenario,
        Millis(presets::GC_PAUSE.run_ms_on(backend)),
    );
    let landing = moments
        .iter()
        .filter_map(|m| m.question.as_ref())
        .find(|q| q.ask.starts_with("What will the resource do"))
        .expect("a landing question");
    assert_eq!(landing.right_answer().text, "It rejects the write");
    landing.right_answer().why.clone()
}

#[test]
fn a_landing_question_names_the_check_the_runs_settings_fence_with() {
    use distlock::sim::{ConsulToken, FenceMode};
    // Consul's default token is the ModifyIndex, fenced by order.
    let index = rejected_landing_words(Backend::Consul, |_| {});
    assert!(index.starts_with("Rejected: the token check"), "{index}");
    let sequencer = rejected_landing_words(Backend::Consul, |s| {
        s.config.consul.token = ConsulToken::Sequencer;
    });
    assert!(
        sequencer.starts_with("Rejected: the sequencer check"),
        "{sequencer}"
    );
    // etcd checked in one Txn against the lock key, when asked to.
    let txn = rejected_landing_words(Backend::Etcd, |s| s.config.fence = FenceMode::Check);
    assert!(
        txn.starts_with(
            "Rejected: the lock check (a Txn comparing the lock key's create_revision)"
        ),
        "{txn}"
    );
}
