//! The DynamoDB lock client: the scenario to run first, its own story
//! (systems.md, "dynamodb-takeover") step by step, and each of its
//! mechanics on its own. Times are at the page's 5 s lease, a quarter of the
//! library's 20 s: heartbeat 1.25 s, a waiter's poll 0.25 s.

use distlock::lesson::presets::{self, gc_pause};
use distlock::lesson::tour::{self, Look};
use distlock::sim::{
    rvn_text, AcquireFailure, Action, Backend, ClientId, Command, CommandError, Config,
    DynamoOptions, Event, Fencing, LossReason, Millis, NodeCommand, NodeId, Picture, RejectReason,
    Scenario, Seed, ServiceDetail, ServiceEvent, Sim, Standing,
};
use distlock::wire::link::{self, RunLink};

use crate::common;
use common::{client, run, seeded_story, seeds, story};

fn config(fencing: Fencing) -> Config {
    Config {
        backend: Backend::DynamoDb,
        fencing,
        ..Config::default()
    }
}

/// When `who` came to believe it holds the lock, each time.
fn grants(sim: &Sim, who: char) -> Vec<Millis> {
    common::grants(sim, who)
        .into_iter()
        .map(|(at, token)| {
            assert_eq!(token, None, "DynamoDB hands out no token");
            at
        })
        .collect()
}

/// Every RVN the lock item carried, in order, with when it was written.
fn rvns(sim: &Sim) -> Vec<(Millis, u64)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Service(ServiceEvent::DynamoItemPut { rvn, .. })
            | Event::Service(ServiceEvent::DynamoRvnChanged { to: rvn, .. }) => Some((r.at, rvn)),
            _ => None,
        })
        .collect()
}

fn item_puts(sim: &Sim) -> Vec<(Millis, ClientId, Option<u64>, Option<ClientId>)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Service(ServiceEvent::DynamoItemPut {
                client,
                expected,
                replaced,
                ..
            }) => Some((r.at, client, expected, replaced)),
            _ => None,
        })
        .collect()
}

fn lost(sim: &Sim, who: char) -> Vec<(Millis, LossReason)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Lost { client, reason } if client.letter() == who => Some((r.at, reason)),
            _ => None,
        })
        .collect()
}

fn first_scenario(fencing: Fencing, seed: u64) -> Sim {
    let config = Config {
        seed: Seed(seed),
        ..config(fencing)
    };
    run(&gc_pause(config), 12_000)
}

// ---------------------------------------------------------------------------
// The scenario to run first.

#[test]
fn the_scenario_to_run_first_b_takes_the_item_after_a_whole_lease_of_the_same_rvn() {
    let sim = first_scenario(Fencing::Off, 1);
    let text = story(&sim);
    // A's put at 0.11 s; A believes from 0.137 s, its lease counted from
    // when it sent the put.
    assert_eq!(grants(&sim, 'A'), vec![Millis(137)], "{text}");
    // B first read A's RVN just after 1 s, and took the item over with a
    // put conditioned on that RVN a whole lease later.
    assert_eq!(grants(&sim, 'B'), vec![Millis(6_370)], "{text}");
    let puts = item_puts(&sim);
    assert_eq!(puts.len(), 2, "{text}");
    let a_rvn = rvns(&sim)[0].1;
    assert_eq!(puts[0], (Millis(110), client('A'), None, None), "{text}");
    assert_eq!(
        puts[1],
        (Millis(6_327), client('B'), Some(a_rvn), Some(client('A'))),
        "{text}"
    );
    // Paused from 0.5 s, A never heartbeat: the RVN B watched is A's first.
    assert!(
        !text.contains("A's heartbeat replaced"),
        "A sent no heartbeat\n{text}"
    );
    let holder = sim.holder().expect("the item names B");
    assert_eq!((holder.client, holder.token), (client('B'), None));
    // A learns only after its write left, when its library looks.
    assert_eq!(
        lost(&sim, 'A'),
        vec![(Millis(8_501), LossReason::LocalDeadline)],
        "{text}"
    );
}

#[test]
fn the_scenario_to_run_first_without_fencing_corrupts_the_counter() {
    let sim = first_scenario(Fencing::Off, 1);
    let text = story(&sim);
    assert_eq!(sim.resource().accepted(), 2, "{text}");
    assert_eq!(sim.resource().rejected(), 0, "{text}");
    // A read 0 when granted and writes 1 over B's 1: B's increment is lost.
    assert_eq!(sim.resource().value(), 1, "{text}");
    assert_eq!(sim.resource().lost(), 1, "{text}");
    assert_eq!(sim.resource().highest(), None, "no token ever reached it");
    assert_eq!(sim.oracle().corruptions(), 1, "{text}");
    let stale = sim.oracle().last_stale_write().expect("A's write is stale");
    assert_eq!(
        (stale.at, stale.client, stale.token, stale.holder),
        (Millis(8_507), client('A'), None, Some(client('B')))
    );
    assert!(stale.accepted && stale.standing == Standing::Stale);
    assert_eq!(sim.oracle().overlaps()[0].from, Millis(6_370), "{text}");
    assert!(text.contains("A's late write"), "{text}");
}

#[test]
fn the_scenario_to_run_first_with_fencing_rejects_by_the_lock_items_owner() {
    let sim = first_scenario(Fencing::On, 1);
    let text = story(&sim);
    assert_eq!(sim.resource().accepted(), 1, "B's write only\n{text}");
    assert_eq!(sim.resource().rejected(), 1, "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    assert_eq!(sim.oracle().saves(), 1, "{text}");
    let rejected = sim
        .history()
        .iter()
        .find_map(|r| match r.event {
            Event::WriteRejected {
                client,
                token,
                reason,
                standing,
            } => Some((r.at, client, token, reason, standing)),
            _ => None,
        })
        .expect("A's write is rejected");
    assert_eq!(
        rejected,
        (
            Millis(8_507),
            client('A'),
            None,
            RejectReason::NotOwner {
                writer: client('A'),
                owner: Some(client('B')),
            },
            Standing::Stale
        ),
        "{text}"
    );
}

#[test]
fn the_scenario_to_run_first_tells_the_same_story_on_other_seeds() {
    for seed in seeds([2, 7, 42, 1_000]) {
        for fencing in [Fencing::Off, Fencing::On] {
            let sim = first_scenario(fencing, seed);
            let text = seeded_story(&sim);
            let b = grants(&sim, 'B');
            assert_eq!(b.len(), 1, "{text}");
            // A whole lease after B's first read (just after 1 s), plus
            // at most one poll.
            assert!((6_000..6_700).contains(&b[0].ms()), "{text}");
            let off = fencing == Fencing::Off;
            assert_eq!(sim.oracle().corruptions(), u64::from(off), "{text}");
            assert_eq!(sim.resource().rejected(), u64::from(!off), "{text}");
        }
    }
}

#[test]
fn the_first_storys_tour_speaks_of_rvns_and_the_items_owner() {
    for (fencing, last) in [
        (Fencing::Off, "stale write"),
        (Fencing::On, "conditional check on the lock item"),
    ] {
        let scenario = gc_pause(config(fencing));
        let moments = tour::moments(&presets::GC_PAUSE, &scenario, Millis(12_000));
        assert_eq!(moments.len(), 8, "{moments:#?}");
        assert!(moments[0].caption.contains("no token"), "{moments:#?}");
        assert_eq!(moments[1].at, Millis(500));
        assert!(moments[3].caption.contains("whole lease"), "{moments:#?}");
        assert_eq!(moments[5].at, Millis(8_500), "A wakes");
        assert_eq!(moments[6].look, Look::Card(client('A')));
        assert!(moments[6].caption.contains("isExpired()"), "{moments:#?}");
        assert!(moments[7].caption.contains(last), "{moments:#?}");
        assert!(moments[7].caption.contains("RVN"), "{moments:#?}");
        assert_eq!(moments[7].look, Look::Resource);
    }
}

// ---------------------------------------------------------------------------
// The story: dynamodb-takeover.

fn takeover(fencing: Fencing) -> Sim {
    let p = &presets::DYNAMODB_TAKEOVER;
    assert_eq!(p.backends, &[Backend::DynamoDb]);
    let scenario = p
        .scenario(Backend::DynamoDb, fencing)
        .expect("for DynamoDB");
    assert_eq!(
        scenario.config.dynamo.extra_wait_pct, 300,
        "B waits 3 leases"
    );
    run(&scenario, p.run_ms)
}

#[test]
fn the_story_heartbeats_write_new_random_rvns_that_are_not_ordered() {
    let sim = takeover(Fencing::Off);
    let text = story(&sim);
    let written = rvns(&sim);
    // A's put and two heartbeats before its pause at 3 s, 1.25 s apart.
    let before_pause: Vec<_> = written.iter().filter(|(at, _)| at.ms() < 3_000).collect();
    assert_eq!(before_pause.len(), 3, "{text}");
    let gap = before_pause[2].0.ms() - before_pause[1].0.ms();
    assert!(
        (1_150..1_350).contains(&gap),
        "heartbeat every 1.25 s\n{text}"
    );
    // Unique, not ordered: the numbers go down as well as up.
    let values: Vec<u64> = written.iter().map(|&(_, rvn)| rvn).collect();
    let mut unique = values.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), values.len(), "every RVN is new");
    assert!(
        values.windows(2).any(|w| w[1] < w[0]) && values.windows(2).any(|w| w[1] > w[0]),
        "{values:x?}"
    );
}

#[test]
fn the_story_b_takes_over_a_lease_after_the_last_rvn_it_saw_and_a_writes_late() {
    let sim = takeover(Fencing::Off);
    let text = story(&sim);
    let written = rvns(&sim);
    // The RVN A's last heartbeat wrote before the pause, at about 2.6 s.
    let last_of_a = *written
        .iter()
        .rfind(|(at, _)| at.ms() < 3_000)
        .expect("A heartbeats");
    let puts = item_puts(&sim);
    let (at, who, expected, replaced) = puts[1];
    assert_eq!(
        (who, expected, replaced),
        (client('B'), Some(last_of_a.1), Some(client('A'))),
        "{text}"
    );
    // A whole lease after B first saw that RVN (within one poll of its
    // writing), not before.
    let after = at.ms() - last_of_a.0.ms();
    assert!((5_000..5_500).contains(&after), "{after} ms\n{text}");
    // A's own clock ended its lease a lease after it *sent* that heartbeat:
    // before B took over. Only the pause kept A from knowing.
    let a_until = sim
        .history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Renewed {
                client,
                until: Some(u),
            } if client.letter() == 'A' => Some(u),
            _ => None,
        })
        .next_back()
        .expect("A renewed");
    assert!(a_until < at, "{a_until} before {at}\n{text}");
    assert_eq!(grants(&sim, 'B').len(), 1, "{text}");
    // B's write at 9 s is the holder's; A's at 13 s is the corruption.
    assert_eq!(sim.resource().accepted(), 2, "{text}");
    assert_eq!(sim.oracle().corruptions(), 1, "{text}");
    let stale = sim.oracle().last_stale_write().expect("A's late write");
    assert_eq!(stale.client, client('A'));
    assert!(stale.at >= Millis(13_000), "{text}");
    assert_eq!(lost(&sim, 'A')[0].0, Millis(13_001), "{text}");
}

#[test]
fn the_story_with_fencing_the_condition_on_the_item_rejects_a() {
    let sim = takeover(Fencing::On);
    let text = story(&sim);
    assert_eq!(sim.resource().accepted(), 1, "{text}");
    assert_eq!(sim.resource().rejected(), 1, "{text}");
    assert_eq!(sim.oracle().saves(), 1, "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    assert!(
        text.contains("the lock item names B as owner, not A"),
        "{text}"
    );
}

#[test]
fn the_story_with_the_default_wait_b_gives_up_and_nothing_is_corrupted() {
    let mut scenario = presets::DYNAMODB_TAKEOVER
        .scenario(Backend::DynamoDb, Fencing::Off)
        .unwrap();
    scenario.config.dynamo = DynamoOptions::default();
    let mut sim = Sim::play(&scenario, Millis(15_000)).expect("refusals skipped");
    sim.run_until(Millis(15_000));
    let text = story(&sim);
    // A heartbeat restarted B's count at about 2.6 s, and B's time (a lease
    // plus 1/20) ran out at 6 s: LockNotGrantedException, no queue.
    let failed = sim
        .history()
        .iter()
        .find_map(|r| match r.event {
            Event::AcquireFailed {
                client,
                failure: AcquireFailure::NotGranted { waited_ms },
            } if client.letter() == 'B' => Some((r.at, waited_ms)),
            _ => None,
        })
        .expect("B gives up");
    assert!((6_000..6_500).contains(&failed.0.ms()), "{text}");
    assert!(failed.1 > 5_250, "{text}");
    assert!(grants(&sim, 'B').is_empty(), "{text}");
    // A's late write finds the item still its own: nobody was harmed.
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    assert_eq!(sim.holder().map(|h| h.client), Some(client('A')));
}

#[test]
fn the_storys_tour_shows_the_rvn_changing_and_ends_on_a_dropping_the_lock() {
    for fencing in [Fencing::Off, Fencing::On] {
        let scenario = presets::DYNAMODB_TAKEOVER
            .scenario(Backend::DynamoDb, fencing)
            .unwrap();
        let moments = tour::moments(&presets::DYNAMODB_TAKEOVER, &scenario, Millis(15_000));
        assert_eq!(moments.len(), 9, "{moments:#?}");
        assert!(
            moments[2].caption.contains("unique is not ordered")
                || moments[2].caption.contains("Unique is not ordered")
        );
        assert!(moments[4].caption.contains("whole lease"), "{moments:#?}");
        let words = if fencing.is_on() {
            "rejected"
        } else {
            "stale write"
        };
        assert!(moments[7].caption.contains("isExpired()"), "{moments:#?}");
        assert!(moments[8].caption.contains(words), "{moments:#?}");
    }
}

// ---------------------------------------------------------------------------
// Mechanics.

#[test]
fn behind_a_live_holder_a_waiter_restarts_its_count_and_gives_up() {
    let scenario = Scenario::new(config(Fencing::Off))
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire);
    let sim = run(&scenario, 12_000);
    let text = story(&sim);
    assert!(grants(&sim, 'B').is_empty(), "{text}");
    let failures: Vec<_> = sim
        .history()
        .iter()
        .filter_map(|r| match r.event {
            Event::AcquireFailed { client, failure } if client.letter() == 'B' => {
                Some((r.at, failure))
            }
            _ => None,
        })
        .collect();
    assert_eq!(failures.len(), 1, "{text}");
    // Its time is a lease plus the default 1/20 of one, from its start.
    let (at, AcquireFailure::NotGranted { waited_ms }) = failures[0] else {
        panic!("{text}");
    };
    assert!(
        waited_ms > 5_250 && waited_ms < 5_700,
        "{waited_ms}\n{text}"
    );
    assert!((5_750..6_300).contains(&at.ms()), "{text}");
    assert!(text.contains("there is no queue"), "{text}");
}

#[test]
fn a_crashed_holder_costs_a_whole_lease_from_the_waiters_first_look() {
    let scenario = Scenario::new(config(Fencing::Off))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::PowerOff)
        .client(1_500, 'B', Command::Acquire);
    let sim = run(&scenario, 10_000);
    let text = story(&sim);
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "{text}");
    assert!((6_500..7_000).contains(&b[0].ms()), "{text}");
    // The item stayed A's all along: DynamoDB expires nothing.
    let put = item_puts(&sim)[1];
    assert_eq!((put.1, put.3), (client('B'), Some(client('A'))));
}

#[test]
fn a_release_deletes_the_item_and_the_next_put_needs_no_wait() {
    let scenario = Scenario::new(config(Fencing::Off))
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .client(2_000, 'A', Command::Release);
    let sim = run(&scenario, 4_000);
    let text = story(&sim);
    assert!(text.contains("DynamoDB deleted A's lock item"), "{text}");
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "{text}");
    // At B's next poll after the delete: a put if absent.
    assert!((2_000..2_600).contains(&b[0].ms()), "{text}");
    assert_eq!(item_puts(&sim)[1].2, None, "conditioned on absence");
}

#[test]
fn the_heartbeat_period_is_a_choice_of_the_lease() {
    for (per_lease, gap_ms) in [(2u32, 2_500u64), (4, 1_250), (10, 500)] {
        let config = Config {
            dynamo: DynamoOptions {
                heartbeats_per_lease: per_lease,
                ..DynamoOptions::default()
            },
            ..config(Fencing::Off)
        };
        let sim = run(
            &Scenario::new(config).client(0, 'A', Command::Acquire),
            10_000,
        );
        let written = rvns(&sim);
        let gaps: Vec<u64> = written
            .windows(2)
            .skip(1)
            .map(|w| w[1].0.ms() - w[0].0.ms())
            .collect();
        assert!(!gaps.is_empty());
        for g in &gaps {
            // The thread sleeps what is left of the period after each call.
            assert!(g.abs_diff(gap_ms) <= 60, "{per_lease}: {gaps:?}");
        }
        let ServiceDetail::DynamoDb(detail) = sim.service_detail() else {
            panic!("a DynamoDB run")
        };
        assert_eq!(detail.heartbeat_ms, gap_ms);
        assert_eq!(detail.refresh_ms, 250, "a twentieth of the lease");
    }
}

#[test]
fn the_holders_lease_counts_from_when_its_heartbeat_was_sent() {
    let sim = run(
        &Scenario::new(config(Fencing::Off)).client(0, 'A', Command::Acquire),
        4_000,
    );
    let sent: Vec<Millis> = sim
        .history()
        .iter()
        .filter_map(|r| match &r.event {
            Event::MessageSent { body, .. } if body.label().starts_with("heartbeat") => Some(r.at),
            _ => None,
        })
        .collect();
    let renewed: Vec<Millis> = sim
        .history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Renewed { until: Some(u), .. } => Some(u),
            _ => None,
        })
        .collect();
    assert!(renewed.len() >= 2);
    for (s, u) in sent.iter().zip(&renewed) {
        // isExpired() once more than a lease has passed since the send.
        assert_eq!(*u, s.plus(5_001), "{}", story(&sim));
    }
}

#[test]
fn a_slow_waiter_clock_takes_over_later() {
    let at = |rate_pct: i32| {
        let mut scenario = Scenario::new(config(Fencing::Off))
            .client(0, 'A', Command::Acquire)
            .client(100, 'A', Command::PowerOff);
        if rate_pct != 0 {
            scenario = scenario.client(200, 'B', Command::ClockRate { rate_pct });
        }
        let scenario = scenario.client(300, 'B', Command::Acquire);
        let sim = run(&scenario, 12_000);
        grants(&sim, 'B')[0].ms()
    };
    let (true_rate, slow) = (at(0), at(-20));
    // 5 s on a clock running 20% slow take 6.25 s.
    assert!((5_300..5_800).contains(&true_rate), "{true_rate}");
    assert!((6_600..7_300).contains(&slow), "{slow}");
}

#[test]
fn a_holder_whose_clock_runs_slow_still_believes_after_the_takeover() {
    // A's messages are lost, so its heartbeats never change the RVN; its
    // clock runs 20% slow, so its own lease lasts 6.25 s of true time.
    let scenario = Scenario::new(config(Fencing::Off))
        .client(0, 'A', Command::ClockRate { rate_pct: -20 })
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::LoseMessages { on: true })
        .client(600, 'B', Command::Acquire)
        .client(6_100, 'A', Command::Write);
    let sim = run(&scenario, 8_000);
    let text = story(&sim);
    let b = grants(&sim, 'B')[0];
    let a_lost = lost(&sim, 'A')[0].0;
    assert!(b.ms() < 6_000 && a_lost.ms() > 6_250, "{text}");
    assert!(
        text.contains("A and B both believe they hold the lock now"),
        "no pause at all\n{text}"
    );
    // A's write, sent while it still believed, was lost with its messages;
    // the overlap itself is what a slow clock costs.
    assert!(
        sim.oracle().overlaps()[0].to.is_some_and(|t| t == a_lost),
        "{text}"
    );
}

#[test]
fn a_failed_heartbeat_is_only_logged_and_the_holder_believes_on() {
    // A's clock runs 20% slow; a 5.5 s pause outlasts B's takeover but not
    // A's own lease (6.25 s of true time). On waking, A's heartbeat thread
    // finds the lease unexpired, sends, and fails its condition.
    let scenario = Scenario::new(config(Fencing::Off))
        .client(0, 'A', Command::ClockRate { rate_pct: -20 })
        .client(0, 'A', Command::Acquire)
        .client(200, 'B', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 5_500 });
    let sim = run(&scenario, 9_000);
    let text = story(&sim);
    let b = grants(&sim, 'B');
    assert!(b.len() == 1 && b[0] < Millis(6_000), "{text}");
    let refused = sim
        .history()
        .iter()
        .find(|r| {
            matches!(r.event, Event::Service(ServiceEvent::DynamoHeartbeatRefused { client }) if client.letter() == 'A')
        })
        .unwrap_or_else(|| panic!("A's heartbeat is refused\n{text}"));
    assert!(refused.at > Millis(6_000), "{text}");
    let a_lost = lost(&sim, 'A');
    assert_eq!(a_lost.len(), 1, "{text}");
    // Nothing told A: it believed on until its own clock said so.
    assert!(refused.at < a_lost[0].0, "{text}");
    assert_eq!(a_lost[0].1, LossReason::LocalDeadline);
    assert!((6_250..6_500).contains(&a_lost[0].0.ms()), "{text}");
}

#[test]
fn a_late_write_with_nobody_taking_over_is_still_the_holders() {
    for fencing in [Fencing::Off, Fencing::On] {
        let scenario = Scenario::new(config(fencing))
            .client(0, 'A', Command::Acquire)
            .client(500, 'A', Command::Write)
            .client(1_000, 'A', Command::GcPause { pause_ms: 8_000 })
            .client(1_000, 'A', Command::Write);
        let sim = run(&scenario, 10_000);
        let text = story(&sim);
        // The item names A until a waiter has watched it for a lease: the
        // late write is the owner's, accepted with fencing on too.
        assert_eq!(sim.resource().accepted(), 2, "{text}");
        assert_eq!(sim.oracle().stale_writes().len(), 0, "{text}");
        assert_eq!(sim.holder().map(|h| h.client), Some(client('A')));
        // A's own clock ended its belief on waking.
        assert_eq!(lost(&sim, 'A').len(), 1, "{text}");
    }
}

#[test]
fn a_write_sent_in_time_that_lands_after_the_takeover_is_caught_by_the_owner_check() {
    let scenario = |fencing| {
        presets::DELAYED_WRITE
            .scenario(Backend::DynamoDb, fencing)
            .expect("for every backend")
    };
    let off = run(&scenario(Fencing::Off), 10_000);
    assert_eq!(off.oracle().corruptions(), 1, "{}", story(&off));
    let on = run(&scenario(Fencing::On), 10_000);
    assert_eq!(on.oracle().corruptions(), 0, "{}", story(&on));
    assert_eq!(on.resource().rejected(), 1, "{}", story(&on));
}

#[test]
fn clock_jumps_failover_and_nodes_are_refused_with_the_reason() {
    let mut sim = Sim::new(config(Fencing::Off)).unwrap();
    let jump = sim
        .check(client('A'), Command::ClockJump { jump_ms: 5_000 })
        .unwrap_err();
    assert!(jump.to_string().contains("System.nanoTime"), "{jump}");
    let node = NodeId::new(1).unwrap();
    let failover = sim.check_node(node, NodeCommand::Failover).unwrap_err();
    assert!(
        failover.to_string().contains("managed regional service"),
        "{failover}"
    );
    assert_eq!(
        sim.check_node(node, NodeCommand::Crash),
        Err(CommandError::NoNodes { system: "DynamoDB" })
    );
    let before = sim.fingerprint();
    assert!(sim
        .act(Action::Node {
            node,
            command: NodeCommand::Failover
        })
        .is_err());
    assert_eq!(sim.fingerprint(), before, "a refusal changes nothing");
    // Every other card control works.
    for command in [
        Command::Acquire,
        Command::GcPause { pause_ms: 2_000 },
        Command::Renewal { on: false },
        Command::ClockRate { rate_pct: -20 },
        Command::LoseMessages { on: true },
        Command::PowerOff,
        Command::Restart,
    ] {
        sim.command(client('A'), command)
            .unwrap_or_else(|e| panic!("{command}: {e}"));
    }
}

#[test]
fn renewal_off_stops_the_heartbeat_and_the_rvn_stands_still() {
    let scenario = Scenario::new(config(Fencing::Off))
        .client(0, 'A', Command::Renewal { on: false })
        .client(0, 'A', Command::Acquire)
        .client(100, 'B', Command::Acquire);
    let sim = run(&scenario, 8_000);
    let text = story(&sim);
    let a_beats = sim
        .history()
        .iter()
        .filter(|r| matches!(r.event, Event::Service(ServiceEvent::DynamoRvnChanged { client, .. }) if client.letter() == 'A'))
        .count();
    assert_eq!(a_beats, 0, "A never heartbeats\n{text}");
    assert_eq!(lost(&sim, 'A')[0].1, LossReason::LocalDeadline, "{text}");
    assert!(lost(&sim, 'A')[0].0 < grants(&sim, 'B')[0], "{text}");
}

#[test]
fn options_out_of_range_are_refused_and_links_carry_them() {
    let with = |heartbeats_per_lease, extra_wait_pct| Config {
        dynamo: DynamoOptions {
            heartbeats_per_lease,
            extra_wait_pct,
            ..DynamoOptions::default()
        },
        ..config(Fencing::Off)
    };
    for (h, w) in [(1, 5), (11, 5), (4, 1_001)] {
        let error = Sim::new(with(h, w)).unwrap_err();
        assert!(
            matches!(
                error,
                CommandError::HeartbeatsOutOfRange { .. }
                    | CommandError::ExtraWaitOutOfRange { .. }
            ),
            "{error}"
        );
    }
    let mut sim = Sim::new(with(10, 300)).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(2_000));
    let run = RunLink::of(&sim, Millis(1_000));
    let decoded = link::decode(&link::encode(&run)).expect("the link reads back");
    assert_eq!(decoded.scenario.config.dynamo, with(10, 300).dynamo);
    // A run written before DynamoDB's options reads them as the defaults;
    // one out of range says which range.
    let text = link::to_run_file(&run, &[]);
    let field = r#","dynamo":{"heartbeats_per_lease":10,"extra_wait_pct":300}"#;
    assert!(text.contains(field), "{text}");
    let old = link::from_run_file(&text.replace(field, "")).expect("reads without it");
    assert_eq!(old.scenario.config.dynamo, DynamoOptions::default());
    let wrong = text.replace(
        r#""heartbeats_per_lease":10"#,
        r#""heartbeats_per_lease":1"#,
    );
    let error = link::from_run_file(&wrong).unwrap_err().to_string();
    assert!(error.contains("choose 2 to 10"), "{error}");
}

#[test]
fn the_same_seed_and_script_give_the_same_history() {
    let scenario = presets::DYNAMODB_TAKEOVER
        .scenario(Backend::DynamoDb, Fencing::On)
        .unwrap();
    let (one, two) = (run(&scenario, 15_000), run(&scenario, 15_000));
    assert_eq!(one.history(), two.history());
    assert_eq!(one.fingerprint(), two.fingerprint());
    let other = Scenario {
        config: Config {
            seed: Seed(9),
            ..scenario.config.clone()
        },
        ..scenario
    };
    let three = run(&other, 15_000);
    assert_ne!(rvns(&one), rvns(&three), "another seed, other RVNs");
}

#[test]
fn the_timeline_marks_every_rvn_on_the_service_lane() {
    let sim = takeover(Fencing::Off);
    let picture = Picture::from_history(sim.history());
    let labels: Vec<&str> = picture.service.iter().map(|m| &*m.label).collect();
    for (_, rvn) in rvns(&sim) {
        assert!(labels.contains(&rvn_text(rvn).as_str()), "{labels:?}");
    }
}

/// amazon-dynamodb-lock-client: `AmazonDynamoDBLockClient.sendHeartbeat`
/// failing (or finding the lock expired) is only logged by the heartbeat
/// thread; the application learns its lock is gone only by asking
/// `LockItem.isExpired()` (true once a lease has passed since the last
/// update was sent) or through a SessionMonitor. On the comparison's
/// partitioned-holder script: with the check A stops believing at its own
/// deadline, before B's takeover, and never writes stale; without it A
/// believes on, B takes over, and A's write after the heal lands: accepted
/// unfenced, refused by a ConditionCheck on the lock item fenced.
#[test]
fn a_partitioned_holder_stops_in_time_only_if_its_application_polls_is_expired() {
    for (checks, fencing) in [
        (true, Fencing::Off),
        (false, Fencing::Off),
        (false, Fencing::On),
    ] {
        let mut c = config(fencing);
        c.dynamo.app_checks_expiry = checks;
        let sim = Sim::play(&common::partitioned_holder(c, None), Millis(48_000))
            .expect("the script runs");
        let text = story(&sim);
        let b = grants(&sim, 'B')[0];
        let a_lost = lost(&sim, 'A');
        let unasked = sim.history().iter().find_map(|r| match r.event {
            Event::Service(ServiceEvent::DynamoExpiredUnasked { client: c })
                if c == client('A') =>
            {
                Some(r.at)
            }
            _ => None,
        });
        let stale: Vec<bool> = sim
            .oracle()
            .stale_writes()
            .iter()
            .filter(|w| w.client == client('A') && w.standing == Standing::Stale)
            .map(|w| w.accepted)
            .collect();
        if checks {
            assert_eq!(a_lost[0].1, LossReason::LocalDeadline, "{text}");
            assert!(a_lost[0].0 < b, "A stops before B holds\n{text}");
            assert_eq!(unasked, None, "{text}");
            assert!(stale.is_empty(), "{text}");
        } else {
            assert!(a_lost.is_empty(), "nothing tells A\n{text}");
            let at = unasked.expect("the card says why A believes on");
            assert!(at < b, "{text}");
            assert!(!sim.oracle().overlaps().is_empty(), "two believers\n{text}");
            assert_eq!(stale, vec![!fencing.is_on()], "{text}");
        }
    }
}

/// amazon-dynamodb-lock-client `AcquireLockOptions.withSessionMonitor(
/// safeTimeWithoutHeartbeat, callback)`, the library's opt-in other way:
/// `LockItem.amIAboutToExpire()` is `millisecondsUntilDangerZoneEntered()
/// <= 0`, the "danger zone" being the safe time after the last update, and
/// the callback runs once there. With the page's safe time, half the lease,
/// a partitioned holder stops half a lease before `isExpired()` would
/// have stopped it, and before B's takeover; the link carries the option.
#[test]
fn a_session_monitor_stops_a_partitioned_holder_half_a_lease_before_is_expired() {
    let run_with = |monitor: bool| {
        let mut c = config(Fencing::Off);
        c.dynamo.session_monitor = monitor;
        Sim::play(&common::partitioned_holder(c, None), Millis(48_000)).expect("the script runs")
    };
    let (monitored, polled) = (run_with(true), run_with(false));
    let text = story(&monitored);
    let a = lost(&monitored, 'A');
    assert_eq!(a[0].1, LossReason::SessionMonitor, "{text}");
    let polled_at = lost(&polled, 'A')[0].0;
    let half = monitored.config().ttl_ms / 2;
    assert_eq!(
        a[0].0.ms() + half,
        polled_at.ms(),
        "half a lease sooner\n{text}"
    );
    assert!(a[0].0 < grants(&monitored, 'B')[0], "{text}");
    assert_eq!(
        a[0].1.to_string(),
        "its session monitor's callback ran: no heartbeat succeeded for the safe time, half its lease (the danger zone)"
    );
    let run = RunLink::of(&monitored, Millis(500));
    let file = link::to_run_file(&run, &[]);
    assert!(file.contains(r#""session_monitor":true"#), "{file}");
    let back = link::decode(&link::encode(&run)).expect("reads back");
    assert!(back.scenario.config.dynamo.session_monitor);
}

/// Links and run files from before the option ran the check: they read
/// back with it on, and the page writes the field only when it is off.
#[test]
fn an_old_link_without_the_expiry_option_keeps_the_check() {
    let mut c = config(Fencing::Off);
    c.dynamo.app_checks_expiry = false;
    let mut sim = Sim::new(c).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(1_000));
    let run = RunLink::of(&sim, Millis(500));
    let text = link::to_run_file(&run, &[]);
    assert!(text.contains(r#""app_checks_expiry":false"#), "{text}");
    let back = link::decode(&link::encode(&run)).expect("reads back");
    assert!(!back.scenario.config.dynamo.app_checks_expiry);
    let old = text.replace(r#","app_checks_expiry":false"#, "");
    let old = link::from_run_file(&old).expect("an old file reads");
    assert!(old.scenario.config.dynamo.app_checks_expiry);
    let json = run
        .scenario
        .to_json()
        .replace(r#","app_checks_expiry":false"#, "");
    assert!(
        Scenario::from_json(&json)
            .unwrap()
            .config
            .dynamo
            .app_checks_expiry
    );
    assert!(
        DynamoOptions::default().app_checks_expiry,
        "the page's default"
    );
    let on = Scenario::new(config(Fencing::Off)).to_json();
    assert!(!on.contains("app_checks_expiry"), "{on}");
}
