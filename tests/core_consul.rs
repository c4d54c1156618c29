//! Consul's lock as systems.md describes it (api/lock.go, `consul lock`):
//! the scenario to run first, Consul's own story, and each mechanic on its
//! own. Times are the page's: the 5 s TTL stands for Consul's 15 s.

use distlock::lesson::presets;
use distlock::sim::{
    AcquireFailure, Backend, ClientId, Command, CommandError, Config, ConsulDetail, ConsulOptions,
    ConsulToken, Event, Fencing, KeyCleanup, LossReason, Millis, NodeCommand, NodeId,
    PartitionScope, RejectReason, Scenario, ServiceDetail, ServiceEvent, Sim, Token,
};
use distlock::wire::link::{self, RunLink};

mod common;
use common::{client, grants, run, story};

fn consul(options: ConsulOptions) -> Config {
    Config {
        backend: Backend::Consul,
        consul: options,
        ..Config::default()
    }
}

/// The first service event `pick` accepts, with its time.
fn service<T>(sim: &Sim, pick: impl Fn(&ServiceEvent) -> Option<T>) -> Option<(Millis, T)> {
    sim.history().iter().find_map(|r| match &r.event {
        Event::Service(e) => pick(e).map(|t| (r.at, t)),
        _ => None,
    })
}

fn count(sim: &Sim, pick: impl Fn(&Event) -> bool) -> usize {
    sim.history().iter().filter(|r| pick(&r.event)).count()
}

fn lost(sim: &Sim, who: char) -> Option<(Millis, LossReason)> {
    sim.history().iter().find_map(|r| match r.event {
        Event::Lost { client: c, reason } if c == client(who) => Some((r.at, reason)),
        _ => None,
    })
}

fn detail(sim: &Sim) -> ConsulDetail {
    match sim.service_detail() {
        ServiceDetail::Consul(d) => d,
        other => panic!("Consul's detail, got {other:?}"),
    }
}

fn session_created(sim: &Sim, who: char) -> Millis {
    service(sim, |e| match e {
        ServiceEvent::ConsulSessionCreated { client: c, .. } if *c == client(who) => Some(()),
        _ => None,
    })
    .map(|(at, ())| at)
    .unwrap_or_else(|| panic!("{who} has a session\n{}", story(sim)))
}

/// When A's session was invalidated for want of renewals, and how long it
/// had gone silent.
fn expired(sim: &Sim, who: char) -> (Millis, u64, Option<Millis>) {
    service(sim, |e| match e {
        ServiceEvent::ConsulSessionExpired {
            client: c,
            silent_ms,
            lock_delay_until,
            ..
        } if *c == client(who) => Some((*silent_ms, *lock_delay_until)),
        _ => None,
    })
    .map(|(at, (silent, delay))| (at, silent, delay))
    .unwrap_or_else(|| panic!("{who}'s session expires\n{}", story(sim)))
}

// ---- 1. The scenario to run first -----------------------------------------

fn first(fencing: Fencing) -> Sim {
    let scenario = presets::gc_pause(Config {
        fencing,
        ..consul(ConsulOptions::default())
    });
    run(&scenario, 22_000)
}

#[test]
fn the_first_scenario_on_consul_corrupts_without_fencing_and_is_rejected_with_it() {
    for fencing in [Fencing::Off, Fencing::On] {
        let sim = first(fencing);
        let text = story(&sim);
        // A: session (index 21), acquire (22) -> ModifyIndex 22.
        assert_eq!(
            grants(&sim, 'A'),
            vec![(Millis(381), Some(Token(22)))],
            "{text}"
        );
        // The server waits TTL x 2 = 10 s after the session's creation (A
        // never renewed: it froze first), then a 5 s lock-delay.
        let created = session_created(&sim, 'A');
        let (at, silent, delay) = expired(&sim, 'A');
        assert_eq!((at, silent), (created.plus(10_000), 10_000), "{text}");
        assert_eq!(delay, Some(at.plus(5_000)), "{text}");
        // B's session (23) and A's invalidation (24) come first: ModifyIndex 25.
        let b = grants(&sim, 'B');
        assert_eq!(b, vec![(Millis(16_607), Some(Token(25)))], "{text}");
        assert!(b[0].0 > at.plus(5_000), "not before the lock-delay ends");
        assert_eq!(sim.resource().highest(), Some(Token(25)), "{text}");
        let (lost_at, reason) = lost(&sim, 'A').expect("A learns");
        assert_eq!(reason, LossReason::ConsulSessionChanged, "{text}");
        let a_wrote = sim
            .history()
            .iter()
            .find(|r| matches!(r.event, Event::WriteSent { client: c, .. } if c == client('A')))
            .map(|r| r.at)
            .expect("A's queued write leaves");
        assert_eq!(a_wrote, Millis(20_500), "the instant A wakes\n{text}");
        assert!(lost_at > a_wrote, "the write left before A knew\n{text}");
        match fencing {
            Fencing::Off => {
                assert_eq!(sim.resource().accepted(), 2, "{text}");
                assert_eq!(sim.resource().rejected(), 0, "{text}");
                assert_eq!(sim.oracle().corruptions(), 1, "{text}");
                assert!(text.contains("STALE WRITE ACCEPTED"), "{text}");
            }
            Fencing::On => {
                assert_eq!(sim.resource().accepted(), 1, "{text}");
                assert_eq!(sim.resource().rejected(), 1, "{text}");
                assert_eq!(sim.oracle().corruptions(), 0, "{text}");
                assert_eq!(sim.oracle().saves(), 1, "{text}");
                let rejected = sim.history().iter().find_map(|r| match r.event {
                    Event::WriteRejected { reason, .. } => Some(reason),
                    _ => None,
                });
                assert_eq!(
                    rejected,
                    Some(RejectReason::TokenBelowHighest {
                        token: Token(22),
                        highest: Token(25)
                    })
                );
            }
        }
    }
}

#[test]
fn the_default_8_s_pause_does_not_lose_a_consul_session() {
    // The other systems' first scenario: A wakes at 8.5 s, before the server
    // would let its 5 s session go (at 10 s), so its write is the holder's.
    let scenario = Scenario::new(consul(ConsulOptions::default()))
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(1_000, 'A', Command::Write)
        .client(5_000, 'B', Command::Acquire);
    let sim = run(&scenario, 30_000);
    let text = story(&sim);
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    assert_eq!(sim.oracle().writes_without_lease(), 0, "{text}");
    assert!(grants(&sim, 'B').is_empty(), "A renews on waking\n{text}");
    assert_eq!(sim.holder().map(|h| h.client), Some(client('A')), "{text}");
    assert!(lost(&sim, 'A').is_none(), "{text}");
}

// ---- 2. Consul's story -------------------------------------------------------

fn lock_delay_story(token: ConsulToken) -> Sim {
    let scenario = presets::consul_lock_delay(consul(ConsulOptions::default()), token);
    let p = presets::preset("consul-lock-delay").expect("the story exists");
    run(&scenario, p.run_ms)
}

#[test]
fn consul_story_lockindex_restarts_after_a_delete_and_fencing_lets_the_stale_write_through() {
    let sim = lock_delay_story(ConsulToken::LockIndex);
    let text = story(&sim);
    assert_eq!(sim.config().fencing, Fencing::On);
    // t=0: A's session, LockIndex 1.
    let a = grants(&sim, 'A');
    assert_eq!(a.len(), 1, "{text}");
    assert_eq!(a[0].1, Some(Token(1)), "{text}");
    // t=0.3: B's Lock() polls; it is never queued.
    assert_eq!(
        count(&sim, |e| matches!(e, Event::Waiting { .. })),
        0,
        "{text}"
    );
    // t≈5: A renews just before it freezes: the server's timer moves to +10 s.
    let renewed = sim
        .history()
        .iter()
        .filter(|r| {
            r.at.ms() < 5_333
                && matches!(&r.event, Event::MessageSent { body, to, .. }
                    if body.label() == "session renewed" && *to == distlock::sim::Endpoint::Client(client('A')))
        })
        .count();
    assert_eq!(renewed, 2, "renewals at 2.5 s and 5 s\n{text}");
    // t≈15: invalidated TTL x 2 after that renewal; the key is deleted.
    let (at, silent, delay) = expired(&sim, 'A');
    assert_eq!(silent, 10_000, "{text}");
    assert!((15_000..15_400).contains(&at.ms()), "{at}\n{text}");
    let deleted = service(&sim, |e| match e {
        ServiceEvent::ConsulKeyDeleted { by: None, index } => Some(*index),
        _ => None,
    });
    assert_eq!(deleted.map(|d| d.0), Some(at), "Behavior=delete\n{text}");
    // Lock-delay to +5 s; B's acquire is refused meanwhile and retried.
    let until = delay.expect("a lock-delay");
    assert_eq!(until, at.plus(5_000));
    let refused = count(
        &sim,
        |e| matches!(e, Event::Service(ServiceEvent::ConsulLockDelayRefused { client: c, until: u }) if *c == client('B') && *u == until),
    );
    assert!(refused >= 2, "B retries every 1.7 s: {refused}\n{text}");
    // t≈20: B creates the key again: LockIndex 1, the same as A's.
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "{text}");
    assert!(b[0].0 > until, "{text}");
    assert_eq!(b[0].1, Some(Token(1)), "a new key counts from 1\n{text}");
    // B writes 1, A wakes and writes 1: 1 >= 1, accepted: corrupted.
    assert_eq!(sim.resource().accepted(), 2, "{text}");
    assert_eq!(
        sim.oracle().corruptions(),
        1,
        "fencing on, still corrupted\n{text}"
    );
    // Then A's monitor closes leaderCh.
    let (lost_at, reason) = lost(&sim, 'A').expect("A learns");
    assert_eq!(reason, LossReason::ConsulSessionChanged);
    assert!(lost_at.ms() > 35_333, "only after its write left\n{text}");
    assert!(!sim.monotonic_tokens(), "LockIndex with deletes goes back");
}

#[test]
fn consul_story_fenced_with_modifyindex_rejects_the_stale_write() {
    let sim = lock_delay_story(ConsulToken::ModifyIndex);
    let text = story(&sim);
    let a = grants(&sim, 'A')[0].1.expect("a token");
    let b = grants(&sim, 'B')[0].1.expect("a token");
    assert!(b > a, "ModifyIndex grows across the delete: {a} then {b}");
    assert_eq!(sim.resource().rejected(), 1, "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    assert!(sim.monotonic_tokens());
}

#[test]
fn consul_story_as_systems_md_tells_it_keeps_the_key_and_lockindex_grows() {
    // Behavior=release: LockIndex 1 then 2, and A's 1 < 2 is rejected.
    let mut scenario =
        presets::consul_lock_delay(consul(ConsulOptions::default()), ConsulToken::LockIndex);
    scenario.config.consul.cleanup = KeyCleanup::Keep;
    let sim = run(&scenario, 37_000);
    let text = story(&sim);
    assert_eq!(grants(&sim, 'A')[0].1, Some(Token(1)), "{text}");
    assert_eq!(grants(&sim, 'B')[0].1, Some(Token(2)), "{text}");
    assert_eq!(sim.resource().rejected(), 1, "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    // Fencing off: the same run corrupts.
    scenario.config.fencing = Fencing::Off;
    let off = run(&scenario, 37_000);
    assert_eq!(off.oracle().corruptions(), 1, "{}", story(&off));
}

// ---- 3. Consul's mechanics ----------------------------------------------------

#[test]
fn renewals_go_every_half_ttl_and_the_server_waits_twice_the_ttl() {
    let scenario = Scenario::new(consul(ConsulOptions::default())).client(0, 'A', Command::Acquire);
    let sim = run(&scenario, 12_000);
    let sent: Vec<u64> = sim
        .history()
        .iter()
        .filter(|r| matches!(&r.event, Event::MessageSent { body, .. } if body.label() == "session renew"))
        .map(|r| r.at.ms())
        .collect();
    assert!(sent.len() >= 4, "{sent:?}");
    assert!(sent.windows(2).all(|w| w[1] - w[0] == 2_500), "{sent:?}");
    let d = detail(&sim);
    let s = d.sessions[0];
    assert_eq!(s.invalidate_at, s.renewed_at.plus(10_000), "TTL x 2");

    // Renewal off: invalidated exactly TTL x 2 after creation, not TTL.
    let quiet = Scenario::new(Config {
        renewal: [false; 4],
        ..consul(ConsulOptions::default())
    })
    .client(0, 'A', Command::Acquire);
    let sim = run(&quiet, 12_000);
    let created = session_created(&sim, 'A');
    let (at, silent, _) = expired(&sim, 'A');
    assert_eq!(
        (at, silent),
        (created.plus(10_000), 10_000),
        "{}",
        story(&sim)
    );
    assert!(story(&sim).contains("the TTL is only a lower bound"));
}

#[test]
fn an_invalidation_brings_a_lock_delay_and_a_release_does_not() {
    // A's process exits on a live host: its agent stays healthy, so the
    // session ends only at TTL x 2 (Consul's session docs).
    let crash = |lock_delay_s| {
        let scenario = Scenario::new(consul(ConsulOptions {
            lock_delay_s,
            ..ConsulOptions::default()
        }))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::Exit)
        .client(1_500, 'B', Command::Acquire);
        run(&scenario, 25_000)
    };
    let delayed = crash(15);
    let (at, _, until) = expired(&delayed, 'A');
    assert_eq!(until, Some(at.plus(5_000)), "15 s on a 15 s TTL is one TTL");
    let b = grants(&delayed, 'B')[0].0;
    assert!(b > at.plus(5_000), "{}", story(&delayed));
    let none = crash(0);
    let (at, _, until) = expired(&none, 'A');
    assert_eq!(until, None);
    let b = grants(&none, 'B')[0].0;
    assert!(
        b.ms() < at.ms() + 500,
        "B's blocking GET returns at once\n{}",
        story(&none)
    );
    let longest = crash(60);
    let (at, _, until) = expired(&longest, 'A');
    assert_eq!(until, Some(at.plus(20_000)), "60 s is four TTLs");

    let released = Scenario::new(consul(ConsulOptions::default()))
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .client(2_000, 'A', Command::Release);
    let sim = run(&released, 5_000);
    let text = story(&sim);
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1, "{text}");
    assert!(b[0].0.ms() < 2_600, "Unlock frees the key at once\n{text}");
    assert_eq!(
        count(&sim, |e| matches!(
            e,
            Event::Service(ServiceEvent::ConsulLockDelayRefused { .. })
        )),
        0,
        "{text}"
    );
}

#[test]
fn waiters_poll_so_a_later_one_can_win() {
    // B asks long before C; whoever's PUT lands first after A's release wins.
    let winner = |seed| {
        let scenario = Scenario::new(Config {
            seed: distlock::sim::Seed(seed),
            ..consul(ConsulOptions::default())
        })
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .client(1_500, 'C', Command::Acquire)
        .client(3_000, 'A', Command::Release);
        let sim = run(&scenario, 6_000);
        assert_eq!(count(&sim, |e| matches!(e, Event::Waiting { .. })), 0);
        sim.holder().map(|h| h.client)
    };
    let winners: Vec<Option<ClientId>> = (1..40).map(winner).collect();
    assert!(winners.contains(&Some(client('B'))), "{winners:?}");
    assert!(
        winners.contains(&Some(client('C'))),
        "no FIFO: C, asking later, sometimes wins: {winners:?}"
    );
}

#[test]
fn deleting_the_key_restarts_lockindex_but_not_modifyindex() {
    let with = |token| {
        let scenario = Scenario::new(consul(ConsulOptions {
            token,
            cleanup: KeyCleanup::Delete,
            ..ConsulOptions::default()
        }))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::Release)
        .client(2_000, 'B', Command::Acquire);
        run(&scenario, 3_000)
    };
    let lock = with(ConsulToken::LockIndex);
    let text = story(&lock);
    assert!(
        text.contains("A's cleanup deleted the free lock key"),
        "{text}"
    );
    assert_eq!(grants(&lock, 'A')[0].1, Some(Token(1)));
    assert_eq!(grants(&lock, 'B')[0].1, Some(Token(1)), "{text}");
    assert!(!lock.monotonic_tokens());
    let key = detail(&lock).key.expect("B's key");
    assert_eq!(key.create_index, key.modify_index, "a new key\n{text}");
    let modify = with(ConsulToken::ModifyIndex);
    let (a, b) = (grants(&modify, 'A')[0].1, grants(&modify, 'B')[0].1);
    assert!(b > a, "{a:?} then {b:?}");
    assert!(modify.monotonic_tokens());

    let kept = Scenario::new(consul(ConsulOptions {
        token: ConsulToken::LockIndex,
        ..ConsulOptions::default()
    }))
    .client(0, 'A', Command::Acquire)
    .client(1_000, 'A', Command::Release)
    .client(2_000, 'B', Command::Acquire);
    let sim = run(&kept, 3_000);
    assert_eq!(grants(&sim, 'B')[0].1, Some(Token(2)), "{}", story(&sim));
    assert!(sim.monotonic_tokens());
}

#[test]
fn a_failover_keeps_the_key_and_restarts_every_session_timer() {
    // A never renews; B does.
    let scenario = Scenario::new(Config {
        renewal: [false, true, true, true],
        ..consul(ConsulOptions::default())
    })
    .client(0, 'A', Command::Acquire)
    .node(6_000, 1, NodeCommand::Failover)
    .client(6_500, 'B', Command::Acquire);
    let before = run(&scenario, 6_000);
    let held = before.holder().expect("A holds");
    let index = detail(&before).raft_index;
    let sim = run(&scenario, 30_000);
    let text = story(&sim);
    assert!(
        text.contains("the lock service's leader or primary fails over"),
        "{text}"
    );
    let (elected, sessions_until) = service(&sim, |e| match e {
        ServiceEvent::ConsulLeaderElected { sessions_until, .. } => Some(*sessions_until),
        _ => None,
    })
    .expect("a new leader");
    assert_eq!(elected, Millis(6_000 + 5_000 / 3), "a 5 s election, scaled");
    assert_eq!(sessions_until, elected.plus(10_000));
    // A's session, never renewed, lasts TTL x 2 from the election, not
    // from its creation.
    let (at, _, _) = expired(&sim, 'A');
    assert_eq!(at, sessions_until, "{text}");
    let after = run(&scenario, 7_800);
    assert_eq!(
        after.holder().map(|h| (h.client, h.token)),
        Some((held.client, held.token))
    );
    assert_eq!(
        detail(&after).raft_index,
        index + 2,
        "B's session and the new leader"
    );
    // B's session request waited for the new leader.
    let b_session = session_created(&sim, 'B');
    assert_eq!(b_session, elected, "{text}");
    assert!(grants(&sim, 'B')[0].0 > at, "{text}");
}

#[test]
fn a_partitioned_holder_hears_its_lock_is_gone_from_its_agent() {
    let scenario = Scenario::new(consul(ConsulOptions::default()))
        .client(0, 'A', Command::Acquire)
        .client(
            1_000,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        )
        .client(2_000, 'B', Command::Acquire)
        .client(9_000, 'A', Command::Heal);
    let sim = run(&scenario, 12_000);
    let text = story(&sim);
    // serf: a probe each 333 ms, dead after a 1.333 s suspicion.
    let (failed, delay) = service(&sim, |e| match e {
        ServiceEvent::ConsulNodeFailed {
            client: c,
            lock_delay_until,
            ..
        } if *c == client('A') => Some(*lock_delay_until),
        _ => None,
    })
    .unwrap_or_else(|| panic!("serfHealth goes critical\n{text}"));
    assert!((2_300..3_000).contains(&failed.ms()), "{failed}\n{text}");
    assert_eq!(delay, Some(failed.plus(5_000)), "{text}");
    let (lost_at, reason) = lost(&sim, 'A').expect("A learns");
    assert_eq!(reason, LossReason::ConsulMonitorError, "{text}");
    assert_eq!(lost_at, failed, "while still cut off\n{text}");
    assert!(grants(&sim, 'B')[0].0 > failed.plus(5_000), "{text}");
    assert!(
        text.contains("serfHealth passes"),
        "A's node rejoins\n{text}"
    );
}

#[test]
fn a_lock_call_fails_while_the_agent_cannot_reach_the_servers() {
    // A holder that starts losing its messages: node failed, then every
    // new Lock() fails at once.
    let lossy = Scenario::new(consul(ConsulOptions::default()))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::LoseMessages { on: true })
        .client(4_000, 'A', Command::Acquire);
    let sim = run(&lossy, 4_100);
    let text = story(&sim);
    assert_eq!(
        lost(&sim, 'A').map(|l| l.1),
        Some(LossReason::ConsulMonitorError),
        "{text}"
    );
    let failed = sim.history().iter().any(|r| {
        matches!(
            r.event,
            Event::AcquireFailed {
                failure: AcquireFailure::AgentUnreachable,
                ..
            }
        )
    });
    assert!(failed, "{text}");
}

#[test]
fn node_commands_other_than_failover_are_refused_with_a_reason() {
    let mut sim = Sim::new(consul(ConsulOptions::default())).unwrap();
    let node = NodeId::new(1).unwrap();
    for command in [
        NodeCommand::Crash,
        NodeCommand::Restart,
        NodeCommand::ClockJump { jump_ms: 1_000 },
        NodeCommand::Slow { extra_ms: 1_000 },
    ] {
        let why = sim
            .check_node(node, command)
            .expect_err("refused")
            .to_string();
        assert!(why.contains("Consul"), "{why}");
    }
    sim.node_command(node, NodeCommand::Failover)
        .expect("a failover");
    let again = sim.node_command(node, NodeCommand::Failover);
    assert!(again
        .expect_err("one election at a time")
        .to_string()
        .contains("already electing"));
    sim.run_until(Millis(2_000));
    assert!(sim.check_node(node, NodeCommand::Failover).is_ok());
}

#[test]
fn every_card_control_works_on_consul() {
    let mut sim = Sim::new(consul(ConsulOptions::default())).unwrap();
    let (a, b) = (client('A'), client('B'));
    sim.command(a, Command::Acquire).unwrap();
    sim.run_until(Millis(1_000));
    for command in [
        Command::Write,
        Command::WriteDelayed { extra_ms: 100 },
        Command::Renewal { on: false },
        Command::Renewal { on: true },
        Command::ClockJump { jump_ms: 3_000 },
        Command::ClockRate { rate_pct: -20 },
        Command::LoseMessages { on: true },
        Command::LoseMessages { on: false },
        Command::Partition {
            scope: PartitionScope::ServiceAndResource,
        },
        Command::Heal,
        Command::GcPause { pause_ms: 1_000 },
        Command::Release,
    ] {
        sim.command(a, command)
            .unwrap_or_else(|e| panic!("{command}: {e}"));
    }
    sim.command(b, Command::PowerOff).unwrap();
    sim.command(b, Command::Restart).unwrap();
    sim.command(b, Command::Exit).unwrap();
    sim.command(b, Command::Restart).unwrap();
    sim.run_until(Millis(5_000));
}

#[test]
fn consul_settings_are_range_checked_and_travel_in_links() {
    let bad = consul(ConsulOptions {
        lock_delay_s: 61,
        ..ConsulOptions::default()
    });
    assert_eq!(
        Sim::new(bad).err(),
        Some(CommandError::ConsulLockDelayOutOfRange { lock_delay_s: 61 })
    );
    let options = ConsulOptions {
        token: ConsulToken::LockIndex,
        cleanup: KeyCleanup::Delete,
        lock_delay_s: 30,
    };
    let mut sim = Sim::new(consul(options)).unwrap();
    sim.command(client('A'), Command::Acquire).unwrap();
    sim.run_until(Millis(2_000));
    let run = RunLink::of(&sim, Millis(1_000));
    let read = link::decode(&link::encode(&run)).expect("the link reads back");
    assert_eq!(read.scenario.config.consul, options);
    // A link from before Consul existed has no "consul": the defaults.
    let json = serde_json::to_string(&sim.scenario()).unwrap();
    let without = json.replace(
        &format!(",\"consul\":{}", serde_json::to_string(&options).unwrap()),
        "",
    );
    assert_ne!(json, without);
    let old = Scenario::from_json(&without).expect("still reads");
    assert_eq!(old.config.consul, ConsulOptions::default());
}

#[test]
fn the_card_says_what_leaderch_says() {
    let scenario = presets::gc_pause(consul(ConsulOptions::default()));
    let holding = run(&scenario, 2_000);
    let line = detail(&holding)
        .card_line(client('A'))
        .expect("A has a session");
    assert!(line.contains("leaderCh open"), "{line}");
    let after = run(&scenario, 22_000);
    let line = detail(&after).card_line(client('A')).expect("A was told");
    assert!(line.contains("leaderCh closed"), "{line}");
    let b = detail(&after).card_line(client('B')).expect("B holds");
    assert!(b.contains("holds"), "{b}");
}
