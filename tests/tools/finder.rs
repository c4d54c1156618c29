//! The shortest-failure finder: no longer than each story that breaks a
//! property, every trace replays to its violation, and a stated bound
//! where the settings keep the property.

use distlock::lesson::presets::{self, Preset, PRESETS};
use distlock::lesson::properties::{Properties, Property};
use distlock::sim::{
    Action, Backend, Command, Config, Event, Fencing, Millis, NodeCommand, Scenario, Sim,
};
use distlock::tools::finder::{self, Finder, MoveKind, Outcome, Request, Trace};
use distlock::wire::link::{self, RunLink};

fn config(backend: Backend, fencing: Fencing) -> Config {
    Config {
        backend,
        fencing,
        ..Config::default()
    }
}

fn search(request: &Request) -> Outcome {
    finder::find(request, |_| true).expect("the request is valid")
}

fn found(request: &Request) -> Trace {
    match search(request) {
        Outcome::Found(trace) => *trace,
        other => panic!(
            "{} on {}: {other} (seed {})",
            request.property, request.scenario.config.backend, request.scenario.config.seed
        ),
    }
}

/// The trace's scenario, replayed from the start, breaks the property at
/// the trace's moment and record.
fn replays(trace: &Trace) {
    let sim = trace.replay().expect("the trace replays");
    let checked = Properties::of(&sim);
    let v = checked
        .violation(trace.violation.property)
        .unwrap_or_else(|| panic!("replayed, {} holds", trace.violation.property));
    assert_eq!(v, &trace.violation);
    assert_eq!(sim.history()[v.index as usize].at, v.at);
}

/// The properties a story breaks, in the order the finder is asked.
fn broken(sim: &Sim) -> Vec<Property> {
    let checked = Properties::of(sim);
    Property::ALL
        .into_iter()
        .filter(|&p| checked.violation(p).is_some())
        .collect()
}

/// The fencing a story is told with: some stories turn it on themselves.
fn story(p: &Preset, backend: Backend) -> (Scenario, Sim) {
    let scenario = p.scenario(backend, Fencing::Off).unwrap();
    let mut sim = Sim::play(&scenario, Millis(p.run_ms_on(backend))).unwrap();
    sim.run_until(Millis(p.run_ms_on(backend)));
    (scenario, sim)
}

#[test]
fn every_story_that_breaks_a_property_is_matched_or_beaten_in_actions() {
    let mut checked = 0;
    for p in PRESETS {
        for &backend in p.backends {
            let (scenario, sim) = story(p, backend);
            // Tokens out of order take the new holder's write first, two
            // moves deeper: checked on etcd and ZooKeeper below, where
            // the search is short.
            let quick = broken(&sim)
                .into_iter()
                .filter(|&p| p != Property::TokensNeverDecrease);
            for property in quick {
                let actions = scenario.actions.len() as u32;
                let mut request = Request::new(scenario.config.clone(), property);
                request.depth_max = actions + 2;
                request.states_max = 200_000;
                let trace = found(&request);
                assert!(
                    trace.actions <= actions,
                    "{} on {backend} breaks {property} in {actions} actions, the finder took {}:\n{}",
                    p.id,
                    trace.actions,
                    trace.lines().join("\n")
                );
                replays(&trace);
                checked += 1;
            }
        }
    }
    assert!(checked >= 50, "only {checked} stories and properties");
}

#[test]
fn tokens_out_of_order_take_the_new_holders_write_first() {
    for backend in [Backend::Etcd, Backend::ZooKeeper] {
        let (scenario, _) = story(&presets::GC_PAUSE, backend);
        let mut request = Request::new(scenario.config, Property::TokensNeverDecrease);
        request.depth_max = 7;
        let trace = found(&request);
        assert_eq!(trace.actions, 5, "{}", trace.lines().join("\n"));
        replays(&trace);
    }
}

#[test]
fn the_scenario_to_run_first_breaks_in_four_actions_on_every_system_with_a_lease() {
    for backend in Backend::ALL {
        let trace = found(&Request::new(
            config(backend, Fencing::Off),
            Property::NoStaleWrite,
        ));
        assert_eq!(trace.actions, 4, "{backend}:\n{}", trace.lines().join("\n"));
        replays(&trace);
        let lines = trace.lines();
        assert!(
            lines[0].starts_with("1. A asks for the lock (t=0.000 s)"),
            "{lines:?}"
        );
        assert!(
            lines.last().unwrap().contains("was accepted though"),
            "{lines:?}"
        );
    }
}

#[test]
fn fencing_keeps_the_tokens_in_order_within_the_stated_depth() {
    for backend in [Backend::Etcd, Backend::ZooKeeper] {
        let mut request = Request::new(config(backend, Fencing::On), Property::TokensNeverDecrease);
        request.depth_max = 6;
        match search(&request) {
            Outcome::NoneWithin { depth: 6, states } => {
                assert!(states > 1_000, "{backend}: {states} states");
                let words = search(&request).to_string();
                assert!(
                    words.starts_with("no violation within depth 6 ("),
                    "{words}"
                );
            }
            other => panic!("{backend}: {other}"),
        }
    }
}

#[test]
fn with_fencing_on_a_late_write_that_lands_before_the_new_holders_first_is_still_stale() {
    // The resource knows only the tokens writes brought it: before B's
    // first write it has nothing to compare A's older token against, and
    // the oracle counts the write as corruption all the same.
    let trace = found(&Request::new(
        config(Backend::Etcd, Fencing::On),
        Property::NoStaleWrite,
    ));
    replays(&trace);
    let sim = trace.replay().unwrap();
    let writes: Vec<&Event> = sim
        .history()
        .iter()
        .map(|r| &r.event)
        .filter(|e| matches!(e, Event::WriteAccepted { .. } | Event::WriteRejected { .. }))
        .collect();
    assert_eq!(writes.len(), 1, "the stale write is the first to land");
}

/// Moves without a single fault on a client: no pause, partition, crash or clock jump.
const NO_CLIENT_FAULTS: [MoveKind; 7] = [
    MoveKind::Acquire,
    MoveKind::Write,
    MoveKind::Release,
    MoveKind::NodeCrash,
    MoveKind::NodeClockJump,
    MoveKind::Failover,
    MoveKind::Wait,
];

#[test]
fn redlock_gives_two_holders_through_its_nodes_alone_where_etcd_does_not() {
    let mut request = Request::new(config(Backend::Redlock, Fencing::On), Property::OneBeliever);
    request.moves = NO_CLIENT_FAULTS.to_vec();
    let trace = found(&request);
    replays(&trace);
    let node_faults = trace.steps.iter().filter(|s| {
        matches!(
            s.action,
            Some(Action::Node {
                command: NodeCommand::Crash | NodeCommand::Restart | NodeCommand::ClockJump { .. },
                ..
            })
        )
    });
    assert!(node_faults.count() >= 1, "{}", trace.lines().join("\n"));
    for backend in [Backend::Etcd, Backend::ZooKeeper] {
        let mut request = Request::new(config(backend, Fencing::On), Property::OneBeliever);
        request.moves = NO_CLIENT_FAULTS.to_vec();
        request.depth_max = 6;
        let outcome = search(&request);
        assert!(
            matches!(outcome, Outcome::NoneWithin { depth: 6, .. }),
            "{backend}: {outcome}"
        );
    }
}

#[test]
fn a_lock_with_no_lease_keeps_one_believer_through_pauses() {
    let mut request = Request::new(
        config(Backend::Postgres, Fencing::Off),
        Property::OneBeliever,
    );
    request.moves = vec![
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::Pause,
        MoveKind::Wait,
    ];
    request.depth_max = 6;
    let outcome = search(&request);
    assert!(
        matches!(outcome, Outcome::NoneWithin { depth: 6, .. }),
        "{outcome}"
    );
    // A partition is another matter: the keepalives give A's lock to B.
    request.moves.push(MoveKind::Partition);
    request.depth_max = 8;
    let trace = found(&request);
    replays(&trace);
}

#[test]
fn a_plain_del_is_found_deleting_another_clients_key() {
    for backend in [Backend::Redis, Backend::Redlock] {
        let mut c = config(backend, Fencing::Off);
        c.redis.release = distlock::sim::ReleaseMode::PlainDel;
        let trace = found(&Request::new(c.clone(), Property::NoForeignRelease));
        replays(&trace);
        assert!(
            trace.violation.by.contains("plain DEL"),
            "{}",
            trace.violation
        );
        c.redis.release = distlock::sim::ReleaseMode::CheckValue;
        let mut request = Request::new(c, Property::NoForeignRelease);
        request.depth_max = 5;
        let outcome = search(&request);
        assert!(
            matches!(outcome, Outcome::NoneWithin { depth: 5, .. }),
            "{backend}: {outcome}"
        );
    }
}

#[test]
fn finer_waits_and_delayed_writes_are_moves_too() {
    let mut request = Request::new(config(Backend::Redis, Fencing::Off), Property::NoStaleWrite);
    request.moves = vec![
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::NextEvent,
    ];
    // With no fault, only a release before the write's answer breaks it:
    // the client bug, allowed here and named in the trace.
    request.early_release = true;
    let trace = found(&request);
    replays(&trace);
    assert!(trace.depth > trace.actions, "it waited event by event");
    assert_eq!(trace.early_release, Some(distlock::sim::ClientId::ALL[0]));
    // The delayed-write story's mechanism, with no pause at all: A
    // releases while its write is still in the network, as the story does.
    let mut request = Request::new(config(Backend::Etcd, Fencing::Off), Property::NoStaleWrite);
    request.moves = vec![
        MoveKind::Acquire,
        MoveKind::Release,
        MoveKind::DelayedWrite,
        MoveKind::Wait,
    ];
    request.early_release = true;
    let trace = found(&request);
    replays(&trace);
    assert!(trace.client_bug().is_some(), "{}", trace.lines().join("\n"));
    let delayed = trace.steps.iter().any(|s| {
        matches!(
            s.action,
            Some(Action::Client {
                command: Command::WriteDelayed { .. },
                ..
            })
        )
    });
    assert!(delayed, "{}", trace.lines().join("\n"));
}

#[test]
fn a_search_starts_where_a_script_stops() {
    // A holds and is frozen at 0.5 s: a write (queued) and B's acquire are left.
    let scenario = Scenario::new(config(Backend::Etcd, Fencing::Off))
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 8_000 });
    let mut request = Request::new(scenario.config.clone(), Property::NoStaleWrite);
    request.scenario = scenario;
    let trace = found(&request);
    assert_eq!(trace.actions, 2, "{}", trace.lines().join("\n"));
    assert_eq!(
        trace.scenario.actions.len(),
        4,
        "the script and the two moves"
    );
    replays(&trace);
    // A run that has broken it already needs no move.
    let (whole, _) = story(&presets::GC_PAUSE, Backend::Etcd);
    let mut request = Request::new(whole.config.clone(), Property::NoStaleWrite);
    request.scenario = whole;
    request.from_ms = Some(12_000);
    let trace = found(&request);
    assert_eq!((trace.depth, trace.steps.len()), (0, 0));
}

#[test]
fn the_same_request_gives_the_same_trace_whether_run_whole_or_in_slices() {
    let request = Request::new(
        config(Backend::Redlock, Fencing::Off),
        Property::OneBeliever,
    );
    let whole = search(&request);
    assert_eq!(whole, search(&request), "deterministic");
    let mut finder = Finder::new(&request).unwrap();
    let mut slices = 0;
    let sliced = loop {
        slices += 1;
        if let Some(outcome) = finder.run(7) {
            break outcome;
        }
    };
    assert!(slices > 3);
    assert_eq!(sliced, whole);
}

#[test]
fn a_cancelled_search_states_the_depth_it_finished() {
    let mut request = Request::new(
        config(Backend::Etcd, Fencing::On),
        Property::TokensNeverDecrease,
    );
    request.depth_max = 12;
    let mut calls = 0;
    let outcome = finder::find(&request, |p| {
        calls += 1;
        p.depth < 6
    })
    .unwrap();
    let Outcome::Cancelled { depth, states } = outcome else {
        panic!("{outcome}");
    };
    assert_eq!(depth, 5, "depth 6 was under way");
    assert!(states > 0 && calls >= 1);
    assert!(outcome
        .to_string()
        .starts_with("cancelled: no violation within depth 5;"));
    // And a state limit stops it the same way (with both crash kinds
    // offered, 500 states run out in depth 4, after depth 3 finished).
    request.states_max = 500;
    let outcome = search(&request);
    assert!(
        matches!(
            outcome,
            Outcome::OutOfStates {
                depth: 3,
                states: 500
            }
        ),
        "{outcome}"
    );
}

#[test]
fn a_search_on_several_threads_ends_as_on_one() {
    // Proofs (the count of distinct states is the same), traces (a depth
    // that breaks is searched again on one thread), a state limit.
    let mut requests = Vec::new();
    for backend in [
        Backend::Etcd,
        Backend::ZooKeeper,
        Backend::Redlock,
        Backend::Consul,
    ] {
        for fencing in [Fencing::On, Fencing::Off] {
            for property in [
                Property::NoStaleWrite,
                Property::TokensNeverDecrease,
                Property::OneBeliever,
            ] {
                let mut r = Request::new(config(backend, fencing), property);
                r.depth_max = 4;
                requests.push(r);
            }
        }
    }
    let mut limited = Request::new(
        config(Backend::Etcd, Fencing::On),
        Property::TokensNeverDecrease,
    );
    limited.states_max = 500;
    requests.push(limited);
    let mut proofs = 0;
    for request in &requests {
        let one = search(request);
        for threads in [2, 3] {
            let several = finder::parallel::find(request, threads, |_| true).unwrap();
            assert_eq!(several, one, "{threads} threads: {}", request.property);
        }
        proofs += usize::from(matches!(one, Outcome::NoneWithin { .. }));
    }
    assert!(proofs >= 5 && proofs < requests.len(), "{proofs} proofs");
    // Cancelled as the search on one thread is, in the depth under way.
    let mut request = Request::new(
        config(Backend::Etcd, Fencing::On),
        Property::TokensNeverDecrease,
    );
    request.depth_max = 12;
    let outcome = finder::parallel::find(&request, 2, |p| p.depth < 6).unwrap();
    assert!(
        matches!(outcome, Outcome::Cancelled { depth: 5, .. }),
        "{outcome}"
    );
}

#[test]
fn requests_and_outcomes_travel_as_json() {
    let mut request = Request::new(
        config(Backend::Chubby, Fencing::Off),
        Property::NoStaleWrite,
    );
    request.moves = vec![
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Pause,
        MoveKind::Wait,
    ];
    let text = serde_json::to_string(&request).unwrap();
    assert!(text.contains(r#""property":"stale-write""#), "{text}");
    let back: Request = serde_json::from_str(&text).unwrap();
    assert_eq!(back, request);
    // The scenario and the property are enough; the rest are the defaults.
    let scenario = serde_json::to_string(&request.scenario).unwrap();
    let short = format!(r#"{{"scenario":{scenario},"property":"two-holders"}}"#);
    let read: Request = serde_json::from_str(&short).unwrap();
    assert_eq!(
        read,
        Request::new(request.scenario.config.clone(), Property::OneBeliever)
    );
    let outcome = search(&request);
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(text.starts_with(r#"{"outcome":"found""#), "{text}");
    assert_eq!(serde_json::from_str::<Outcome>(&text).unwrap(), outcome);
}

#[test]
fn a_found_trace_is_a_run_file_the_page_opens_at_the_violation() {
    let trace = found(&Request::new(
        config(Backend::ZooKeeper, Fencing::Off),
        Property::NoStaleWrite,
    ));
    let whole = trace.replay().unwrap();
    let file = link::to_run_file(&RunLink::of(&whole, trace.violation.at), whole.history());
    let (run, opened) = link::open_run_file(&file).expect("the page opens it");
    assert_eq!(run.playhead_ms, trace.violation.at.ms());
    assert_eq!(
        Properties::of(&opened).violation(Property::NoStaleWrite),
        Some(&trace.violation)
    );
}

#[test]
fn bad_requests_are_refused_with_a_reason() {
    let mut request = Request::new(Config::default(), Property::NoStaleWrite);
    request.depth_max = 0;
    let e = Finder::new(&request).unwrap_err();
    assert_eq!(e.to_string(), "a depth of 0 is out of range: 1 to 16 moves");
    request.depth_max = 4;
    request.clients_max = 5;
    assert!(Finder::new(&request).is_err());
    request.clients_max = 2;
    request.scenario.config.ttl_ms = 1;
    assert!(Finder::new(&request)
        .unwrap_err()
        .to_string()
        .starts_with("the starting run cannot be played"));
}

#[test]
fn progress_adds_up_the_distinct_states_of_every_depth() {
    let mut request = Request::new(
        config(Backend::Postgres, Fencing::Off),
        Property::OneBeliever,
    );
    request.moves = vec![MoveKind::Acquire, MoveKind::Pause, MoveKind::Wait];
    // Each depth's search on its own: the whole search repeats them all.
    let mut by_depth = 0;
    for depth in 1..=4 {
        request.depth_max = depth;
        match search(&request) {
            Outcome::NoneWithin { states, .. } => by_depth += states,
            other => panic!("depth {depth}: {other}"),
        }
    }
    let mut finder = Finder::new(&request).unwrap();
    let outcome = finder.run(u64::MAX).unwrap();
    assert!(
        matches!(outcome, Outcome::NoneWithin { depth: 4, .. }),
        "{outcome}"
    );
    let progress = finder.progress();
    assert_eq!(progress.distinct, by_depth);
    assert!(progress.distinct >= progress.states && progress.explored >= progress.distinct);
}
