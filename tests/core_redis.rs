//! Single Redis with a replica and Sentinel, as systems.md §1 describes it:
//! `SET NX PX` with an `INCR` fence in one script, no queue, value-checked
//! release and extension, and a failover that loses what the replica had
//! not copied.

use distlock::lesson::presets::{self, scenario};
use distlock::sim::{
    AcquireFailure, Backend, ClientId, Command, Config, Event, Fencing, Millis, NodeCommand,
    RedisOptions, Scenario, ServiceEvent, Sim, Standing, Token,
};

mod common;
use common::{client, grants, story};

fn config() -> Config {
    Config {
        backend: Backend::Redis,
        ..Config::default()
    }
}

fn play(scenario: &Scenario, until_ms: u64) -> Sim {
    Sim::play(scenario, Millis(until_ms)).unwrap_or_else(|e| panic!("the script runs: {e}"))
}

/// Writes that landed: (client, accepted, standing).
fn landings(sim: &Sim) -> Vec<(ClientId, bool, Standing)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::WriteAccepted {
                client, standing, ..
            } => Some((client, true, standing)),
            Event::WriteRejected {
                client, standing, ..
            } => Some((client, false, standing)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_scenario_to_run_first_corrupts_without_fencing() {
    let s = scenario("gc-pause", Backend::Redis, Fencing::Off).expect("gc-pause runs on Redis");
    let sim = play(&s, 12_000);
    let text = story(&sim);
    assert_eq!(grants(&sim, 'A').len(), 1, "{text}");
    assert_eq!(grants(&sim, 'A')[0].1, Some(Token(1)), "{text}");
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "B gets the lock once A's key expired\n{text}");
    assert!(
        b[0].0 >= Millis(5_000),
        "not before A's key expired\n{text}"
    );
    assert_eq!(b[0].1, Some(Token(2)), "{text}");
    assert_eq!(
        landings(&sim),
        vec![
            (client('B'), true, Standing::Holder),
            (client('A'), true, Standing::Stale)
        ],
        "{text}"
    );
    assert_eq!(sim.oracle().corruptions(), 1, "{text}");
}

#[test]
fn the_scenario_to_run_first_is_fenced_by_the_incr_token() {
    let s = scenario("gc-pause", Backend::Redis, Fencing::On).expect("gc-pause runs on Redis");
    let sim = play(&s, 12_000);
    let text = story(&sim);
    assert_eq!(
        landings(&sim),
        vec![
            (client('B'), true, Standing::Holder),
            (client('A'), false, Standing::Stale)
        ],
        "{text}"
    );
    assert_eq!(sim.resource().rejected(), 1, "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
}

#[test]
fn a_failover_repeats_the_token_and_fencing_accepts_both() {
    let s = scenario("redis-failover", Backend::Redis, Fencing::On).expect("the story");
    let sim = play(&s, 12_000);
    let text = story(&sim);
    assert_eq!(
        grants(&sim, 'A'),
        vec![(grants(&sim, 'A')[0].0, Some(Token(1)))],
        "{text}"
    );
    let promoted = sim.history().iter().find_map(|r| match r.event {
        Event::Service(ServiceEvent::RedisPromoted { lost_writes, .. }) => {
            Some((r.at, lost_writes))
        }
        _ => None,
    });
    let (at, lost) = promoted.expect("Sentinel promotes the replica");
    assert_eq!(
        at,
        Millis(5_510),
        "down-after 5 s plus 0.5 s after the crash at 10 ms\n{text}"
    );
    assert!(
        lost >= 1,
        "the key and the INCR had not reached the replica\n{text}"
    );
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "{text}");
    assert_eq!(b[0].1, Some(Token(1)), "B gets the same token\n{text}");
    assert_eq!(
        landings(&sim),
        vec![
            // The key died with the master: nobody holds until B.
            (client('A'), true, Standing::WithoutLease),
            (client('B'), true, Standing::Holder),
            (client('A'), true, Standing::Stale)
        ],
        "fencing with >= accepts the repeated token\n{text}"
    );
    assert_eq!(sim.oracle().corruptions(), 1, "{text}");
    let lost_at = sim.history().iter().find_map(|r| match r.event {
        Event::Lost { client: c, .. } if c == client('A') => Some(r.at),
        _ => None,
    });
    let lost_at = lost_at.expect("A learns at its next extension");
    assert!(
        (Millis(10_000)..Millis(10_100)).contains(&lost_at),
        "at t=10 s, a third of the 30 s TTL\n{text}"
    );
}

#[test]
fn wait_for_the_replica_makes_the_acquisition_fail_instead() {
    let mut s = scenario("redis-failover", Backend::Redis, Fencing::On).expect("the story");
    s.config.redis = RedisOptions {
        wait_replica: true,
        ..s.config.redis
    };
    let sim = play(&s, 12_000);
    let text = story(&sim);
    assert!(grants(&sim, 'A').is_empty(), "A never holds\n{text}");
    let failed = sim.history().iter().any(|r| {
        matches!(r.event, Event::AcquireFailed { client: c, failure: AcquireFailure::NoReplicaAck } if c == client('A'))
    });
    assert!(failed, "A is told why\n{text}");
    // The promoted master has no replica left to ack: nobody gets the
    // lock until one comes back. Safety bought with availability.
    assert!(grants(&sim, 'B').is_empty(), "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
}

#[test]
fn a_taken_key_means_try_again_later_not_a_queue() {
    let s = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'B', Command::Acquire)
        .client(2_000, 'A', Command::Release);
    let sim = play(&s, 3_000);
    let text = story(&sim);
    assert!(
        sim.history()
            .iter()
            .all(|r| !matches!(r.event, Event::Waiting { .. })),
        "nobody queues\n{text}"
    );
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "{text}");
    // B polls every 100 ms: it gets the key within one sleep of the release.
    assert!(b[0].0 > Millis(2_000) && b[0].0 < Millis(2_200), "{text}");
}

#[test]
fn with_wait_and_a_healthy_replica_the_lock_is_granted() {
    let mut c = config();
    c.redis.wait_replica = true;
    let sim = play(&Scenario::new(c).client(0, 'A', Command::Acquire), 1_000);
    let a = grants(&sim, 'A');
    assert_eq!(a.len(), 1, "{}", story(&sim));
    assert!(
        a[0].0 >= Millis(20),
        "after the replica's copy, 20 ms behind"
    );
}

#[test]
fn a_restarted_old_master_rejoins_as_a_replica() {
    let s = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .node(10, 1, NodeCommand::Crash)
        .node(7_000, 1, NodeCommand::Restart);
    let sim = play(&s, 8_000);
    let text = story(&sim);
    assert!(
        sim.history()
            .iter()
            .any(|r| matches!(r.event, Event::Service(ServiceEvent::RedisRejoined { .. }))),
        "{text}"
    );
    assert!(
        sim.holder().is_none(),
        "the promoted master never had A's key\n{text}"
    );
}

#[test]
fn failover_is_refused_where_it_cannot_happen() {
    let sim = Sim::new(config()).expect("a run");
    assert!(sim
        .check_node(
            distlock::sim::NodeId::new(2).unwrap(),
            NodeCommand::Failover
        )
        .is_err());
    assert!(sim
        .check_node(distlock::sim::NodeId::new(3).unwrap(), NodeCommand::Crash)
        .is_err());
    assert!(sim
        .check_node(
            distlock::sim::NodeId::new(1).unwrap(),
            NodeCommand::Failover
        )
        .is_ok());
    let _ = presets::preset("redis-failover").expect("the story is a preset");
}

/// When A is told its acquisition failed for want of a replica's ack.
fn no_ack_at(sim: &Sim, who: char) -> Option<Millis> {
    sim.history().iter().find_map(|r| match r.event {
        Event::AcquireFailed {
            client: c,
            failure: AcquireFailure::NoReplicaAck,
        } if c == client(who) => Some(r.at),
        _ => None,
    })
}

#[test]
fn wait_answers_none_at_its_timeout_when_the_replica_is_down() {
    // The replica is down and the master slow, so A's WAIT reaches the
    // master after the key's copy would have reached a live replica. A
    // down replica never acknowledges: WAIT blocks for its whole timeout
    // and answers 0, and A gives the key back.
    let mut c = config();
    c.redis.wait_replica = true;
    let s = Scenario::new(c)
        .node(0, 2, NodeCommand::Crash)
        .node(0, 1, NodeCommand::Slow { extra_ms: 100 })
        .client(10, 'A', Command::Acquire);
    let sim = play(&s, 2_000);
    let text = story(&sim);
    assert!(grants(&sim, 'A').is_empty(), "{text}");
    let failed = no_ack_at(&sim, 'A').expect("A is told no replica acked");
    // The SET's answer leaves the master 100 ms late; WAIT then blocks
    // for its 100 ms timeout.
    assert!(failed >= Millis(210), "not before the timeout\n{text}");
    assert!(
        failed < Millis(500),
        "the answer, not the client's own timeout\n{text}"
    );
}

#[test]
fn a_replica_that_resyncs_during_wait_acknowledges_it() {
    // The replica comes back while A's WAIT is blocked: it resyncs the
    // whole data set from the master, key included, and acknowledges.
    let mut c = config();
    c.redis.wait_replica = true;
    let s = Scenario::new(c)
        .node(0, 2, NodeCommand::Crash)
        .client(10, 'A', Command::Acquire)
        .node(60, 2, NodeCommand::Restart);
    let sim = play(&s, 2_000);
    let text = story(&sim);
    let a = grants(&sim, 'A');
    assert_eq!(a.len(), 1, "{text}");
    assert!(
        a[0].0 >= Millis(60),
        "not before the replica is back\n{text}"
    );
    assert_eq!(no_ack_at(&sim, 'A'), None, "{text}");
}
