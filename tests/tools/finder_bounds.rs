//! The finder's questions: a bound on pause length, the faults a run may
//! use, a property per question, and traces that need a client to release
//! before its write is acknowledged, labelled and left out unless asked.

use distlock::lesson::properties::{Properties, Property};
use distlock::sim::{Action, Backend, Command, Config, Fencing, NodeCommand};
use distlock::tools::finder::{self, MoveKind, Outcome, Request, Trace};

fn config(backend: Backend, fencing: Fencing) -> Config {
    Config {
        backend,
        fencing,
        ..Config::default()
    }
}

fn request(config: Config, property: Property, moves: &[MoveKind]) -> Request {
    let mut r = Request::new(config, property);
    r.moves = moves.to_vec();
    r
}

fn search(request: &Request) -> Outcome {
    finder::find(request, |_| true).expect("the request is valid")
}

fn found(request: &Request) -> Trace {
    match search(request) {
        Outcome::Found(trace) => {
            let sim = trace.replay().expect("the trace replays");
            let v = Properties::of(&sim)
                .violation(request.property)
                .cloned()
                .expect("the replayed trace breaks the property");
            assert_eq!(v, trace.violation);
            *trace
        }
        other => panic!(
            "{} on {}: {other} (seed {})",
            request.property, request.scenario.config.backend, request.scenario.config.seed
        ),
    }
}

const PAUSES_ONLY: [MoveKind; 5] = [
    MoveKind::Acquire,
    MoveKind::Write,
    MoveKind::Release,
    MoveKind::Pause,
    MoveKind::Wait,
];

/// The pauses of a trace, in order.
fn pauses(trace: &Trace) -> Vec<u64> {
    trace
        .steps
        .iter()
        .filter_map(|s| match s.action {
            Some(Action::Client {
                command: Command::GcPause { pause_ms },
                ..
            }) => Some(pause_ms),
            _ => None,
        })
        .collect()
}

#[test]
fn pauses_capped_below_the_silent_holder_time_do_not_break_etcd() {
    // The engineer's question: TTL 30 s, pauses never exceed 20 s.
    let etcd = Config {
        ttl_ms: 30_000,
        ..config(Backend::Etcd, Fencing::Off)
    };
    assert_eq!(etcd.backend.silent_holder_ms(&etcd), 30_000);
    let mut capped = request(etcd.clone(), Property::NoStaleWrite, &PAUSES_ONLY);
    capped.pause_max_ms = Some(20_000);
    // Half, one and a half and three times 30 s, each cut to 20 s.
    assert_eq!(finder::request_pauses_ms(&capped), [20_000, 15_000]);
    // Not even two pauses back to back: the client sends its first
    // keepalive the moment it reads its lease's grant (client/v3/lease.go
    // `KeepAlive`: `nextKeepAlive: time.Now()`), and the next one the
    // moment it wakes, so the lease never hears nothing for 30 s.
    capped.depth_max = 7;
    match search(&capped) {
        Outcome::NoneWithin { depth: 7, states } => assert!(states > 1_000, "{states}"),
        other => panic!("pauses of at most 20 s broke etcd within 7 moves: {other}"),
    }
    // Without the bound one pause of 45 s is enough.
    let uncapped = request(etcd, Property::NoStaleWrite, &PAUSES_ONLY);
    assert_eq!(
        finder::request_pauses_ms(&uncapped),
        [45_000, 90_000, 15_000]
    );
    let trace = found(&uncapped);
    assert_eq!(pauses(&trace), [45_000], "{}", trace.lines().join("\n"));
}

#[test]
fn a_pause_bound_out_of_range_is_refused() {
    let mut r = Request::new(config(Backend::Etcd, Fencing::Off), Property::NoStaleWrite);
    r.pause_max_ms = Some(0);
    let e = finder::find(&r, |_| true).unwrap_err();
    assert!(e.to_string().starts_with("a longest pause of"), "{e}");
    // A bound above every length tried changes nothing.
    assert_eq!(
        finder::pauses_ms(5_000, Some(600_000)),
        [7_500, 15_000, 2_500]
    );
    assert_eq!(finder::pauses_ms(5_000, Some(1)), [1]);
}

#[test]
fn with_node_clock_jumps_allowed_redlock_with_fencing_breaks() {
    let moves = [
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::NodeClockJump,
        MoveKind::Wait,
    ];
    let r = request(
        config(Backend::Redlock, Fencing::On),
        Property::NoStaleWrite,
        &moves,
    );
    let trace = found(&r);
    assert_eq!(trace.early_release, None, "{}", trace.lines().join("\n"));
    let jumped = trace.steps.iter().any(|s| {
        matches!(
            s.action,
            Some(Action::Node {
                command: NodeCommand::ClockJump { .. },
                ..
            })
        )
    });
    assert!(jumped, "{}", trace.lines().join("\n"));
    // Well within the default state limit.
    assert!(trace.states < 10_000, "{} states", trace.states);
    // The same faults on etcd, which has no nodes to jump: nothing.
    let mut etcd = request(
        config(Backend::Etcd, Fencing::On),
        Property::NoStaleWrite,
        &moves,
    );
    etcd.depth_max = 6;
    assert!(matches!(
        search(&etcd),
        Outcome::NoneWithin { depth: 6, .. }
    ));
}

#[test]
fn with_node_restarts_allowed_redlock_with_fencing_breaks_without_a_client_bug() {
    let moves = [
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::NodeCrash,
        MoveKind::Wait,
    ];
    let r = request(
        config(Backend::Redlock, Fencing::On),
        Property::NoStaleWrite,
        &moves,
    );
    let trace = found(&r);
    assert_eq!(trace.early_release, None, "{}", trace.lines().join("\n"));
    let restarted = trace.steps.iter().any(|s| {
        matches!(
            s.action,
            Some(Action::Node {
                command: NodeCommand::Restart,
                ..
            })
        )
    });
    assert!(restarted, "{}", trace.lines().join("\n"));
    assert!(trace.states < 10_000, "{} states", trace.states);
}

#[test]
fn a_release_before_the_write_is_acknowledged_is_labelled_and_left_out_unless_asked() {
    let mut r = Request::new(
        config(Backend::Redlock, Fencing::On),
        Property::NoStaleWrite,
    );
    r.early_release = true;
    let bug = found(&r);
    assert_eq!(bug.early_release, Some(distlock::sim::ClientId::ALL[0]));
    assert_eq!(
        bug.client_bug().as_deref(),
        Some("This run needs A to release the lock before its write was acknowledged: a client bug, not the lock's.")
    );
    // Left out by default: the lock's own failure, a move or more longer.
    let own = found(&Request::new(
        config(Backend::Redlock, Fencing::On),
        Property::NoStaleWrite,
    ));
    assert_eq!(own.early_release, None, "{}", own.lines().join("\n"));
    assert!(own.client_bug().is_none());
    assert!(own.depth > bug.depth, "{} vs {}", own.depth, bug.depth);
}

#[test]
fn each_property_is_asked_and_named_in_the_result() {
    let node_faults = [
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::NodeCrash,
        MoveKind::NodeClockJump,
        MoveKind::Wait,
    ];
    let cases = [
        (
            config(Backend::Etcd, Fencing::Off),
            Property::NoStaleWrite,
            &PAUSES_ONLY[..],
        ),
        (
            config(Backend::Redlock, Fencing::On),
            Property::OneBeliever,
            &node_faults[..],
        ),
        (
            config(Backend::Etcd, Fencing::Off),
            Property::TokensNeverDecrease,
            &PAUSES_ONLY[..],
        ),
    ];
    for (config, property, moves) in cases {
        let mut r = request(config, property, moves);
        r.depth_max = 7;
        let trace = found(&r);
        assert_eq!(trace.violation.property, property);
        let words = Outcome::Found(Box::new(trace)).to_string();
        assert!(words.starts_with(property.title()), "{words}");
    }
    // Tokens cannot go out of order through a fence that keeps the highest.
    let mut r = request(
        config(Backend::Etcd, Fencing::On),
        Property::TokensNeverDecrease,
        &PAUSES_ONLY,
    );
    r.depth_max = 6;
    assert!(matches!(search(&r), Outcome::NoneWithin { depth: 6, .. }));
}

#[test]
fn process_exit_and_host_death_are_faults_of_their_own() {
    // PostgreSQL frees the lock at once when the process exits; a dead
    // host keeps it until the keepalives give up.
    let moves = |fault| {
        vec![
            MoveKind::Acquire,
            MoveKind::Write,
            MoveKind::Release,
            fault,
            MoveKind::Wait,
        ]
    };
    let pg = config(Backend::Postgres, Fencing::Off);
    for fault in [MoveKind::Exit, MoveKind::PowerOff] {
        let mut r = request(pg.clone(), Property::NoStaleWrite, &moves(fault));
        r.depth_max = 6;
        let outcome = search(&r);
        let used = |c: Command| match &outcome {
            Outcome::Found(t) => t
                .steps
                .iter()
                .any(|s| matches!(s.action, Some(Action::Client { command, .. }) if command == c)),
            _ => false,
        };
        let other = match fault {
            MoveKind::Exit => Command::PowerOff,
            _ => Command::Exit,
        };
        assert!(!used(other), "{fault:?} allowed only: {outcome}");
    }
    assert_eq!(MoveKind::from_slug("power-off"), Some(MoveKind::PowerOff));
    assert_eq!(MoveKind::from_slug("exit"), Some(MoveKind::Exit));
}
