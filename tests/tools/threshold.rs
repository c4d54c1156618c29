//! The shortest pause that can corrupt, found by running the model, and
//! confirmed by the finder's exhaustive search: below it no sequence of
//! moves up to the search's depth breaks the lock with pauses alone.

use distlock::lesson::properties::Property;
use distlock::sim::{Backend, Config, FenceMode, Fencing};
use distlock::tools::explore::{form, run_trials, Check, Plan, Reach, Threshold, Together};
use distlock::tools::finder::{self, MoveKind, Outcome, Request};

fn plan(backend: Backend, ttl_ms: u64) -> Plan {
    Plan {
        backend,
        ttls_ms: vec![ttl_ms],
        check: Check::BeforeWrite,
        ..Plan::default()
    }
}

/// Deep enough for every run with one pause (A asks, B asks, A pauses,
/// A writes, time passes), too shallow for two pauses with time between
/// them: those can add up (a holder paused while its grant came wakes
/// believing in a fresh lease that is older than it thinks), and the
/// threshold's own test checks its bound for pairs
/// (`from_no_start_do_two_pauses_under_the_bound_corrupt`).
const SINGLE_PAUSE_DEPTH: u32 = 5;

/// The finder, from fresh settings, with pauses of at most `pause_max_ms`.
fn finder_finds(config: Config, pause_max_ms: u64, depth: u32) -> bool {
    let mut r = Request::new(config, Property::NoStaleWrite);
    r.moves = vec![
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::Pause,
        MoveKind::Wait,
    ];
    r.pause_max_ms = Some(pause_max_ms);
    r.depth_max = depth;
    match finder::find(&r, |_| true).expect("a valid request") {
        Outcome::Found(_) => true,
        Outcome::NoneWithin { .. } | Outcome::OutOfStates { .. } | Outcome::Cancelled { .. } => {
            false
        }
    }
}

/// Every lease: the finder finds no single pause under the threshold that
/// breaks the lock (among the lengths and moments it tries), and pauses
/// of twice it and a period of the server's expiry checks do.
#[test]
fn below_the_threshold_the_finder_finds_no_stale_write_and_at_it_the_model_does() {
    for (backend, ttl_ms) in [
        (Backend::Etcd, 10_000),
        (Backend::Redis, 5_000),
        (Backend::ZooKeeper, 1_000),
        (Backend::ZooKeeper, 10_000),
        (Backend::Consul, 10_000),
        (Backend::Chubby, 12_000),
        (Backend::DynamoDb, 10_000),
    ] {
        let plan = plan(backend, ttl_ms);
        let t = Threshold::find(&plan, backend, ttl_ms);
        let Reach::From { pause_ms } = t.reach else {
            panic!("{backend}: a lease can be outlived");
        };
        // etcd and Redis renew every third of the lease: a pause must
        // outlast what is left of it after the last renewal, at least two
        // thirds.
        if matches!(backend, Backend::Etcd | Backend::Redis) {
            assert!(
                pause_ms > ttl_ms * 2 / 3 - 200 && pause_ms <= ttl_ms + 1_000,
                "{backend} at {ttl_ms} ms: {pause_ms} ms"
            );
        }
        let config = Config {
            backend,
            ..plan.config(ttl_ms, plan.seed)
        };
        assert!(
            !finder_finds(config.clone(), pause_ms - 1, SINGLE_PAUSE_DEPTH),
            "{backend} at {ttl_ms} ms: the finder broke the lock with pauses under {pause_ms} ms"
        );
        // The threshold's pause starts where the lease runs out just on
        // one of the server's expiry checks; the finder's run starts at
        // the server's start and reaches other phases of those checks,
        // where a pause must outlast up to one period more.
        let checks_ms = backend.expiry_checks_ms(&config).unwrap_or(0);
        assert!(
            finder_finds(config, pause_ms * 2 + checks_ms, SINGLE_PAUSE_DEPTH),
            "{backend}: pauses of twice the threshold and a period of the server's expiry checks break the lock"
        );
        let why = t.why(&plan);
        assert!(why.starts_with("a pause shorter than"), "{why}");
    }
}

#[test]
fn postgresql_and_a_check_against_the_lock_are_never_broken_by_a_pause() {
    let pg = plan(Backend::Postgres, 10_000);
    let t = Threshold::find(&pg, Backend::Postgres, 10_000);
    assert_eq!(t.reach, Reach::Never);
    assert!(t.why(&pg).contains("connection"), "{}", t.why(&pg));
    let fenced = Plan {
        fencing: Fencing::On,
        fence: FenceMode::Check,
        ..plan(Backend::DynamoDb, 5_000)
    };
    let t = Threshold::find(&fenced, Backend::DynamoDb, 5_000);
    assert_eq!(t.reach, Reach::Never);
    assert!(t.why(&fenced).contains("against"), "{}", t.why(&fenced));
}

#[test]
fn a_profile_whose_longest_pause_is_under_the_threshold_cannot_reach_it() {
    use distlock::tools::explore::{Histogram, PauseProfile};
    let plan = plan(Backend::Etcd, 10_000);
    let t = Threshold::find(&plan, Backend::Etcd, 10_000);
    let stalls = Histogram::new(&[(50_000, 900), (800_000, 90), (5_000_000, 10)]).unwrap();
    assert!(!t.reached_by(&PauseProfile::empirical(1_000, stalls)));
    let longer = Histogram::new(&[(50_000, 900), (800_000, 90), (12_000_000, 10)]).unwrap();
    assert!(t.reached_by(&PauseProfile::empirical(1_000, longer)));
}

/// Redis at TTL 10 s: no single pause under 6.7 s corrupts, but two of 4 s
/// do (one while the grant is on its way, one before the first
/// extension), so a profile whose longest pause is 4 s can corrupt, and
/// one whose longest is 3 s cannot, and its cell says why of both.
#[test]
fn a_profile_whose_pauses_add_up_two_at_a_time_can_reach_the_threshold() {
    use distlock::tools::explore::{Histogram, PauseProfile};
    let redis = plan(Backend::Redis, 10_000);
    let t = Threshold::find(&redis, Backend::Redis, 10_000);
    let (Reach::From { pause_ms }, Together::Pairs { pause_ms: pairs }) = (t.reach, t.together)
    else {
        panic!("two of Redis's pauses add up: {t:?}");
    };
    assert!(pairs < 4_000 && 4_000 < pause_ms, "{t:?}");
    let longest =
        |us| PauseProfile::empirical(1_000, Histogram::new(&[(50_000, 990), (us, 10)]).unwrap());
    assert!(t.reached_by(&longest(4_000_000)));
    assert!(!t.reached_by(&longest(3_000_000)));
    assert!(
        t.why(&redis).contains("no two shorter than 3.348 s each"),
        "{}",
        t.why(&redis)
    );
    // No two of etcd's pauses add up: its bound is its threshold.
    let etcd = plan(Backend::Etcd, 10_000);
    let t = Threshold::find(&etcd, Backend::Etcd, 10_000);
    assert_eq!(t.together, Together::Alone, "{t:?}");
    assert!(!t.why(&etcd).contains("two"), "{}", t.why(&etcd));
}

/// ZooKeeper's server negotiates every session timeout under two ticks
/// (4 s at the default 2 s tick) up to 4 s: a TTL of 1, 2 or 3 s runs as
/// 4 s does, so its threshold is 4 s's. Searched at the TTL asked for,
/// the probes renewed at the wrong period and found 4.7, 4.1 and 3.4 s.
#[test]
fn zookeepers_short_ttls_find_the_threshold_of_the_session_it_negotiates() {
    let at = |ttl_ms| {
        let plan = plan(Backend::ZooKeeper, ttl_ms);
        Threshold::find(&plan, Backend::ZooKeeper, ttl_ms).reach
    };
    let negotiated = at(4_000);
    assert!(matches!(negotiated, Reach::From { .. }), "{negotiated:?}");
    for ttl_ms in [1_000, 2_000, 3_000] {
        assert_eq!(at(ttl_ms), negotiated, "TTL {ttl_ms} ms");
    }
}

/// Chubby across regions (a 70 ms round trip), G1's pauses capped at
/// 20 s, seed 1: the threshold is about 60 s, so the cell says a
/// corrupted write cannot happen. Trial 1454 once had one all the same,
/// with no pause over 103 ms: B released and asked again 3 ms later, its
/// acquire overtook its release on the way to the master, and the master
/// granted the lock to A while B still believed. A client's requests now
/// keep their order (TCP), and the trial writes nothing stale.
#[test]
fn a_cell_that_cannot_corrupt_sees_no_corrupted_write() {
    let plan = form::plan_of(
        "system=chubby&ttls=10&values=2&latency=cross-region&max=20000&trials=3000&seed=1",
    )
    .expect("the page's own link");
    let threshold = Threshold::find(&plan, Backend::Chubby, 10_000);
    let cell = plan.cell(0).expect("the plan's one cell");
    assert!(!threshold.reached_by(&cell.profile), "{threshold:?}");
    let seen = run_trials(&plan, 0, 1_440..1_470).expect("the trials run");
    assert_eq!(
        (seen.corrupted, seen.two_holders),
        (0, 0),
        "trials 1440-1469 of a cell no pause can corrupt"
    );
}
