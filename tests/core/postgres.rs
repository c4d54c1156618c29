//! PostgreSQL's advisory lock, as systems.md describes it: no lease (a
//! pause never loses it), a dead or cut-off holder freed only when the
//! server's TCP keepalives give up, waiters blocked in the server in
//! order, no token from the lock and the version column as fencing in the
//! data itself.

use distlock::lesson::presets;
use distlock::sim::{
    AcquireFailure, Action, Backend, ClientId, ClientState, Command, CommandError, Config, Event,
    FenceMode, Fencing, LossReason, Millis, NodeCommand, NodeId, PartitionScope, PgClientConn,
    PgOptions, PgSessionEnd, RejectReason, Scenario, ServiceDetail, ServiceEvent, Sim, Standing,
    Token, PG_MAX_CONNECTIONS,
};

use crate::common;
use common::{client, grants, pg_session_ends, run, story};

/// PostgreSQL with the tuned keepalives (10 s, 5 s, 3 probes, about 25 s):
/// most tests here watch a dead host's session end, which at the default
/// (Linux's 2 h 11 min, `PgOptions::LINUX`) takes hours.
fn config() -> Config {
    Config {
        backend: Backend::Postgres,
        pg: PgOptions::TUNED,
        ..Config::default()
    }
}

/// Writes that landed: (time, writer, token, accepted, standing).
fn landed(sim: &Sim) -> Vec<(Millis, ClientId, Option<Token>, bool, Standing)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::WriteAccepted {
                client,
                token,
                standing,
                ..
            } => Some((r.at, client, token, true, standing)),
            Event::WriteRejected {
                client,
                token,
                standing,
                ..
            } => Some((r.at, client, token, false, standing)),
            _ => None,
        })
        .collect()
}

fn unanswered_probes(sim: &Sim, who: char) -> Vec<Millis> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Service(ServiceEvent::PgProbeUnanswered { client: c, .. })
                if c == client(who) =>
            {
                Some(r.at)
            }
            _ => None,
        })
        .collect()
}

fn detail(sim: &Sim) -> distlock::sim::PgDetail {
    match sim.service_detail() {
        ServiceDetail::Postgres(d) => d,
        other => panic!("PostgreSQL's books, not {other:?}"),
    }
}

fn holder(sim: &Sim) -> Option<ClientId> {
    sim.holder().map(|h| h.client)
}

// 1. The scenario to run first.

/// The scenario to run first on PostgreSQL, as the preset scripts it.
fn first(fencing: Fencing) -> Sim {
    let scenario = presets::GC_PAUSE
        .scenario(Backend::Postgres, fencing)
        .expect("it suits");
    run(&scenario, 12_000)
}

#[test]
fn the_scenario_to_run_first_never_loses_the_lock_fencing_off_or_on() {
    let off = first(Fencing::Off);
    let on = first(Fencing::On);
    for sim in [&off, &on] {
        let text = story(sim);
        // A holds from its first round trips, token = the version it read: 0.
        let a = grants(sim, 'A');
        assert_eq!(a.len(), 1, "{text}");
        assert_eq!(a[0].1, Some(Token(0)), "{text}");
        assert!(a[0].0.ms() < 20, "A holds at once, at {}\n{text}", a[0].0);
        // B blocks at 5 s and gets the lock only when A releases at 9 s.
        let b = grants(sim, 'B');
        assert_eq!(b.len(), 1, "{text}");
        assert!(
            (9_000..9_020).contains(&b[0].0.ms()),
            "B at {}\n{text}",
            b[0].0
        );
        assert_eq!(
            b[0].1,
            Some(Token(1)),
            "B read the version A's write made\n{text}"
        );
        assert!(text.contains("B's pg_advisory_lock(42) blocks"), "{text}");
        // A's late write is the holder's, and accepted; so is B's after it.
        let writes = landed(sim);
        assert_eq!(writes.len(), 2, "{text}");
        let (at, who, token, accepted, standing) = writes[0];
        assert_eq!(
            (who, token, accepted, standing),
            (client('A'), Some(Token(0)), true, Standing::Holder)
        );
        assert!(
            (8_500..8_600).contains(&at.ms()),
            "A's write left as it woke\n{text}"
        );
        let (_, who, token, accepted, standing) = writes[1];
        assert_eq!(
            (who, token, accepted, standing),
            (client('B'), Some(Token(1)), true, Standing::Holder)
        );
        assert_eq!(sim.resource().accepted(), 2);
        assert_eq!(sim.resource().rejected(), 0);
        assert_eq!(sim.resource().value(), 2);
        assert_eq!(sim.oracle().corruptions(), 0, "{text}");
        assert_eq!(sim.oracle().saves(), 0, "{text}");
        assert_eq!(sim.oracle().writes_without_lease(), 0, "{text}");
        assert!(
            sim.oracle().overlaps().is_empty(),
            "never two believed holders\n{text}"
        );
        assert!(
            !text.contains("probe"),
            "A's kernel answered every probe\n{text}"
        );
    }
    assert_eq!(off.history(), on.history(), "fencing has nothing to catch");
}

#[test]
fn the_scenario_to_run_first_by_hand_refuses_b_s_write_while_it_waits() {
    let mut sim = Sim::new(config()).unwrap();
    let (a, b) = (client('A'), client('B'));
    sim.command(a, Command::Acquire).unwrap();
    sim.run_until(Millis(500));
    sim.command(a, Command::GcPause { pause_ms: 8_000 })
        .unwrap();
    sim.command(a, Command::Write).unwrap();
    sim.run_until(Millis(5_000));
    sim.command(b, Command::Acquire).unwrap();
    sim.run_until(Millis(7_000));
    assert_eq!(holder(&sim), Some(a), "the pause lost nothing");
    assert_eq!(sim.client_view(b).state, ClientState::Waiting);
    assert_eq!(
        sim.command(b, Command::Write),
        Err(CommandError::NotYetGranted { client: b }),
        "B waits: it has no lock to write with yet"
    );
    sim.run_until(Millis(10_000));
    assert_eq!(holder(&sim), Some(a));
    assert!(!sim.client_view(a).stale);
    assert_eq!(sim.resource().accepted(), 1);
    assert_eq!(sim.oracle().corruptions(), 0);
}

// 2. The stories.

fn partition_story(fencing: Fencing) -> Sim {
    let scenario = presets::POSTGRES_PARTITION
        .scenario(Backend::Postgres, fencing)
        .unwrap();
    run(&scenario, 45_000)
}

#[test]
fn a_cut_off_holder_keeps_the_lock_until_keepalives_give_up_and_the_version_column_fences() {
    for fencing in [Fencing::Off, Fencing::On] {
        let sim = partition_story(fencing);
        let text = story(&sim);
        // t=0 A locks and reads version 0; t=1 its write makes version 1.
        assert_eq!(grants(&sim, 'A')[0].1, Some(Token(0)), "{text}");
        let writes = landed(&sim);
        assert_eq!((writes[0].1, writes[0].3), (client('A'), true), "{text}");
        // t=2 the partition; A's connection, idle since t=0, fails its
        // probes at 10, 15 and 20 s; the backend exits at 25 s.
        let probes: Vec<u64> = unanswered_probes(&sim, 'A')
            .iter()
            .map(|t| t.ms() / 1_000)
            .collect();
        assert_eq!(probes, vec![10, 15, 20], "{text}");
        let ends = pg_session_ends(&sim);
        assert_eq!(ends.len(), 1, "{text}");
        let (at, who, why, freed) = ends[0];
        assert_eq!(
            (who, why, freed),
            (client('A'), PgSessionEnd::KeepalivesGaveUp, true)
        );
        assert_eq!(at.ms() / 1_000, 25, "{text}");
        // B, blocked since 3 s, gets 42 then, reading version 1, and writes 2.
        let b = grants(&sim, 'B');
        assert_eq!(b.len(), 1, "{text}");
        assert!(b[0].0 >= at && b[0].0.ms() < 25_100, "{text}");
        assert_eq!(b[0].1, Some(Token(1)), "{text}");
        assert_eq!((writes[1].1, writes[1].3), (client('B'), true), "{text}");
        // A was never told: two believed holders from 25 s on.
        let overlap = &sim.oracle().overlaps()[0];
        assert_eq!(overlap.clients, vec![client('A'), client('B')], "{text}");
        assert!(sim.client_view(client('A')).belief.is_holding());
        assert!(sim.client_view(client('A')).stale);
        // t=41 A writes with the version it read last: 1; the row is at 2.
        assert_eq!(writes.len(), 3, "{text}");
        let (at, who, token, accepted, standing) = writes[2];
        assert!(at.ms() > 41_000, "{text}");
        assert_eq!(
            (who, token, standing),
            (client('A'), Some(Token(1)), Standing::Stale)
        );
        if fencing.is_on() {
            assert!(!accepted, "WHERE version = 1 matches no row\n{text}");
            assert_eq!(sim.oracle().corruptions(), 0);
            assert_eq!(sim.oracle().saves(), 1);
            assert_eq!(sim.resource().rejected(), 1);
            assert_eq!(sim.resource().value(), 2);
            let reason = sim.history().iter().find_map(|r| match r.event {
                Event::WriteRejected { reason, .. } => Some(reason),
                _ => None,
            });
            assert_eq!(
                reason,
                Some(RejectReason::VersionMoved {
                    version: Token(1),
                    current: Token(2)
                })
            );
        } else {
            assert!(accepted, "a plain UPDATE\n{text}");
            assert_eq!(sim.oracle().corruptions(), 1, "{text}");
            // A read 1 after its own write and sets 2 over B's 2: B's
            // increment is lost.
            assert_eq!(sim.resource().value(), 2);
            assert_eq!((sim.resource().expected(), sim.resource().lost()), (3, 1));
        }
    }
}

/// PostgreSQL holds the lock and the data in one server, so the write can
/// check the lock in its own transaction: on the session that holds
/// advisory lock 42, or after `pg_advisory_xact_lock(42)` in the same
/// transaction (https://www.postgresql.org/docs/current/functions-admin.html
/// #FUNCTIONS-ADVISORY-LOCKS: a session-level lock "is held until explicitly
/// released or the session ends"; a transaction-level one is released at
/// the transaction's end). Once keepalives have ended A's session, A's late
/// write is refused whether or not B has written: the version column
/// (an ORM's optimistic lock, Rails `lock_version`, Hibernate `@Version`)
/// lets it through while the row is still at the version A read.
#[test]
fn checked_in_the_same_transaction_a_cut_off_holder_s_late_write_is_refused_before_b_writes() {
    for mode in [FenceMode::Check, FenceMode::Version] {
        let mut scenario = presets::POSTGRES_PARTITION
            .scenario(Backend::Postgres, Fencing::On)
            .unwrap();
        scenario.config.fence = mode;
        let b = client('B');
        scenario.actions.retain(|a| {
            !matches!(a.action, Action::Client { client, command: Command::Write } if client == b)
        });
        let sim = run(&scenario, 45_000);
        let text = story(&sim);
        // A's first write, at 1 s, is on the session that holds the lock.
        let writes = landed(&sim);
        assert_eq!((writes[0].1, writes[0].3), (client('A'), true), "{text}");
        // No token at all in the check: the grant is the session.
        let expected_token = (mode == FenceMode::Version).then_some(Token(0));
        assert_eq!(grants(&sim, 'A')[0].1, expected_token, "{text}");
        let (_, who, _, accepted, standing) = *writes.last().unwrap();
        assert_eq!((who, standing), (client('A'), Standing::Stale), "{text}");
        if mode == FenceMode::Check {
            assert!(!accepted, "{text}");
            let reason = sim.history().iter().find_map(|r| match r.event {
                Event::WriteRejected { reason, .. } => Some(reason),
                _ => None,
            });
            assert_eq!(
                reason,
                Some(RejectReason::NotSessionHolder {
                    writer: client('A'),
                    holder: Some(b),
                })
            );
            assert_eq!(
                reason.unwrap().to_string(),
                "A's session does not hold the advisory lock: B's does"
            );
        } else {
            assert!(accepted, "the row is still at the version A read\n{text}");
        }
    }
}

#[test]
fn with_linux_default_keepalives_the_cut_off_holder_keeps_the_lock_for_over_two_hours() {
    let scenario = presets::POSTGRES_PARTITION
        .scenario(Backend::Postgres, Fencing::Off)
        .unwrap();
    let scenario = Scenario {
        config: Config {
            pg: PgOptions::LINUX,
            ..scenario.config.clone()
        },
        ..scenario
    };
    // B's write at 26 s is refused (B still waits), as the page skips it.
    let play = |until_ms| Sim::play(&scenario, Millis(until_ms)).unwrap();
    let sim = play(45_000);
    assert_eq!(holder(&sim), Some(client('A')), "{}", story(&sim));
    assert!(grants(&sim, 'B').is_empty());
    // Healed at 40 s, A's kernel answers the first probe at 7200 s: it keeps the lock.
    let sim = play(7_900_000);
    assert!(pg_session_ends(&sim).is_empty(), "{}", story(&sim));
    assert_eq!(holder(&sim), Some(client('A')));
}

#[test]
fn no_lease_story_a_pause_loses_nothing_and_a_dead_host_costs_the_keepalive_time() {
    let scenario = presets::POSTGRES_NO_LEASE
        .scenario(Backend::Postgres, Fencing::Off)
        .unwrap();
    let sim = run(&scenario, 9_500);
    let text = story(&sim);
    assert_eq!(holder(&sim), Some(client('A')), "{text}");
    assert_eq!(sim.client_view(client('B')).state, ClientState::Waiting);
    assert_eq!(landed(&sim)[0].4, Standing::Holder, "{text}");
    // A's host dies at 9 s; it was last heard at t=0: the session ends at 25 s.
    let sim = run(&scenario, 30_000);
    let text = story(&sim);
    let ends = pg_session_ends(&sim);
    assert_eq!(ends.len(), 1, "{text}");
    assert_eq!(ends[0].0.ms() / 1_000, 25);
    let b = grants(&sim, 'B');
    assert_eq!(b[0].1, Some(Token(1)), "{text}");
    assert_eq!(sim.oracle().corruptions(), 0, "{text}");
    assert!(
        sim.oracle().overlaps().is_empty(),
        "a crashed client believes nothing"
    );
    assert_eq!(sim.resource().accepted(), 2, "{text}");
    // With Linux's defaults: 7200 + 9 x 75 s after t=0.
    let linux = Scenario {
        config: Config {
            pg: PgOptions::LINUX,
            ..scenario.config.clone()
        },
        ..scenario.clone()
    };
    let sim = Sim::play(&linux, Millis(30_000)).unwrap();
    assert!(grants(&sim, 'B').is_empty(), "{}", story(&sim));
    let sim = Sim::play(&linux, Millis(7_880_000)).unwrap();
    let b = grants(&sim, 'B');
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].0.ms() / 1_000, 7_875, "2 h 11 min 15 s");
}

// 3. The mechanics.

#[test]
fn renewal_is_refused_and_the_ttl_changes_nothing() {
    let sim = Sim::new(config()).unwrap();
    let refused = sim.check(client('A'), Command::Renewal { on: false });
    let Err(CommandError::Unsupported { why }) = refused else {
        panic!("renewal refused, got {refused:?}");
    };
    assert!(why.contains("no lease"), "{why}");
    let with_ttl = |ttl_ms| {
        let scenario = presets::gc_pause(Config { ttl_ms, ..config() });
        run(&scenario, 12_000).history().to_vec()
    };
    assert_eq!(with_ttl(1_000), with_ttl(30_000));
}

#[test]
fn a_paused_holder_answers_every_probe_and_keeps_the_lock() {
    let scenario = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 60_000 })
        .client(1_000, 'B', Command::Acquire);
    let sim = run(&scenario, 60_000);
    assert_eq!(holder(&sim), Some(client('A')));
    assert!(unanswered_probes(&sim, 'A').is_empty());
    let d = detail(&sim);
    let a = d.backends.iter().find(|b| b.client == client('A')).unwrap();
    assert_eq!(a.probes_sent, 5, "at 10, 20, ... 50 s: {d:?}");
    assert_eq!(a.probes_failed, 0);
    assert_eq!(d.locks.len(), 2);
    assert!(d.locks[0].granted && !d.locks[1].granted, "{d:?}");
}

#[test]
fn a_dead_host_is_noticed_after_idle_plus_count_intervals_of_the_settings() {
    let pg = PgOptions {
        keepalives_idle_s: 2,
        keepalives_interval_s: 1,
        keepalives_count: 4,
    };
    assert_eq!(pg.dead_after_ms(), 6_000);
    assert_eq!(PgOptions::LINUX.dead_after_ms(), 7_875_000);
    assert_eq!(PgOptions::TUNED.dead_after_ms(), 25_000);
    let scenario = Scenario::new(Config { pg, ..config() })
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::PowerOff)
        .client(600, 'B', Command::Acquire);
    let sim = run(&scenario, 8_000);
    let probes: Vec<u64> = unanswered_probes(&sim, 'A')
        .iter()
        .map(|t| t.ms() / 1_000)
        .collect();
    assert_eq!(probes, vec![2, 3, 4, 5], "{}", story(&sim));
    assert_eq!(pg_session_ends(&sim)[0].0.ms() / 1_000, 6);
    assert_eq!(holder(&sim), Some(client('B')));
}

#[test]
fn a_rebooted_host_resets_its_old_connection_at_the_next_probe() {
    let scenario = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::PowerOff)
        .client(2_000, 'B', Command::Acquire)
        .client(3_000, 'A', Command::Restart)
        .client(4_000, 'A', Command::Acquire);
    let sim = run(&scenario, 12_000);
    let text = story(&sim);
    let ends = pg_session_ends(&sim);
    assert_eq!(ends.len(), 1, "{text}");
    assert_eq!(ends[0].1, client('A'));
    assert_eq!(ends[0].2, PgSessionEnd::ConnectionReset, "{text}");
    assert_eq!(
        ends[0].0.ms() / 1_000,
        10,
        "the first probe after 10 s idle\n{text}"
    );
    // The lock goes in line order: B, then A's new session.
    assert_eq!(holder(&sim), Some(client('B')), "{text}");
    assert_eq!(sim.client_view(client('A')).state, ClientState::Waiting);
}

#[test]
fn waiters_are_served_first_come_first_served() {
    let scenario = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'C', Command::Acquire)
        .client(2_000, 'B', Command::Acquire)
        .client(2_500, 'D', Command::Acquire)
        .client(3_000, 'A', Command::Release)
        .client(4_000, 'C', Command::Release)
        .client(5_000, 'D', Command::Release);
    let sim = run(&scenario, 6_000);
    let first = |who| grants(&sim, who).first().map(|g| g.0.ms() / 1_000);
    assert_eq!(first('C'), Some(3));
    assert_eq!(first('B'), Some(4));
    assert_eq!(first('D'), None, "D gave up its place while waiting");
    assert_eq!(holder(&sim), Some(client('B')));
    assert_eq!(detail(&sim).locks.len(), 1, "{:?}", detail(&sim));
}

#[test]
fn a_cut_off_waiter_loses_its_place_and_learns_only_when_it_uses_the_connection() {
    let scenario = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .client(
            1_000,
            'B',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        );
    let sim = run(&scenario, 30_000);
    let ends = pg_session_ends(&sim);
    assert_eq!(ends.len(), 1, "{}", story(&sim));
    assert_eq!((ends[0].1, ends[0].3), (client('B'), false));
    assert_eq!(detail(&sim).locks.len(), 1, "only A's row is left");
    let b = sim.client_view(client('B'));
    assert_eq!(b.belief, distlock::sim::Belief::Waiting { token: None });
    let note =
        distlock::ui::service_panel::pg_card_note(&detail(&sim), client('B'), false).unwrap();
    assert!(note.contains("has ended this session"), "{note}");
    // Healed, it gives up waiting: the cancel meets a reset; its next
    // acquire opens a new session and waits in line again.
    let scenario = scenario
        .client(31_000, 'B', Command::Heal)
        .client(32_000, 'B', Command::Release)
        .client(33_000, 'B', Command::Acquire);
    let sim = run(&scenario, 34_000);
    let d = detail(&sim);
    assert!(matches!(d.clients[1], PgClientConn::Open { .. }), "{d:?}");
    assert_eq!(d.locks.len(), 2, "{d:?}");
    assert_eq!(sim.client_view(client('B')).state, ClientState::Waiting);
}

#[test]
fn losing_every_message_looks_like_a_dead_host_to_the_keepalives() {
    let scenario = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::LoseMessages { on: true })
        .client(2_000, 'B', Command::Acquire);
    let sim = run(&scenario, 26_000);
    assert_eq!(pg_session_ends(&sim)[0].2, PgSessionEnd::KeepalivesGaveUp);
    assert_eq!(holder(&sim), Some(client('B')));
}

#[test]
fn a_failover_drops_every_advisory_lock_and_the_holder_still_believes() {
    let scenario = Scenario::new(config())
        .client(0, 'A', Command::Acquire)
        .client(500, 'B', Command::Acquire)
        .node(2_000, 1, NodeCommand::Failover)
        .client(3_000, 'C', Command::Acquire);
    let sim = run(&scenario, 4_000);
    let text = story(&sim);
    assert!(
        text.contains("advisory locks are never WAL-logged"),
        "{text}"
    );
    let d = detail(&sim);
    assert_eq!(d.timeline, 2);
    let a = sim.client_view(client('A'));
    assert!(a.belief.is_holding() && a.stale, "A still believes\n{text}");
    let lost = sim.history().iter().any(|r| {
        matches!(r.event, Event::Lost { client: c, reason: LossReason::ConnectionReset } if c == client('B'))
    });
    assert!(lost, "B's blocked call failed with the reset\n{text}");
    assert_eq!(
        holder(&sim),
        Some(client('C')),
        "the new primary's lock was free\n{text}"
    );
    assert_eq!(sim.oracle().overlaps().len(), 1, "A and C\n{text}");
    // Only the primary fails over, and nothing else is a server command.
    let node = |n| NodeId::new(n).unwrap();
    assert!(sim.check_node(node(2), NodeCommand::Failover).is_err());
    for cmd in [
        NodeCommand::Crash,
        NodeCommand::Restart,
        NodeCommand::Slow { extra_ms: 10 },
    ] {
        let refused = sim.check_node(node(1), cmd);
        assert!(
            matches!(refused, Err(CommandError::Unsupported { .. })),
            "{cmd:?}"
        );
    }
}

#[test]
fn the_token_is_the_version_read_and_each_accepted_write_moves_it_on() {
    let scenario = Scenario::new(Config {
        fencing: Fencing::On,
        ..config()
    })
    .client(0, 'A', Command::Acquire)
    .client(1_000, 'A', Command::Write)
    .client(2_000, 'A', Command::Write)
    .client(3_000, 'A', Command::Release)
    .client(4_000, 'B', Command::Acquire);
    let sim = run(&scenario, 5_000);
    let tokens: Vec<Option<Token>> = landed(&sim).iter().map(|w| w.2).collect();
    assert_eq!(tokens, vec![Some(Token(0)), Some(Token(1))]);
    assert_eq!(
        grants(&sim, 'B')[0].1,
        Some(Token(2)),
        "B reads the row's version"
    );
    assert!(!sim.monotonic_tokens(), "the lock itself has no token");
    assert_eq!(sim.holder().unwrap().token, None);
}

#[test]
fn max_connections_refuses_the_hundred_and_first_session() {
    // Linux keepalives: a dead host's session lives for hours.
    let mut scenario = Scenario::new(Config {
        pg: PgOptions::LINUX,
        ..config()
    });
    let cycles = u64::from(PG_MAX_CONNECTIONS);
    for i in 0..cycles {
        scenario = scenario
            .client(i * 30, 'A', Command::Acquire)
            .client(i * 30 + 10, 'A', Command::PowerOff)
            .client(i * 30 + 20, 'A', Command::Restart);
    }
    scenario = scenario.client(cycles * 30, 'A', Command::Acquire);
    let sim = run(&scenario, cycles * 30 + 100);
    assert_eq!(detail(&sim).backends.len(), PG_MAX_CONNECTIONS as usize);
    let failed = sim.history().iter().any(|r| {
        matches!(
            r.event,
            Event::AcquireFailed {
                failure: AcquireFailure::TooManyConnections { .. },
                ..
            }
        )
    });
    assert!(failed, "sorry, too many clients already");
}

#[test]
fn the_keepalive_settings_are_range_checked() {
    for pg in [
        PgOptions {
            keepalives_idle_s: 0,
            ..PgOptions::TUNED
        },
        PgOptions {
            keepalives_count: 128,
            ..PgOptions::TUNED
        },
        PgOptions {
            keepalives_interval_s: 40_000,
            ..PgOptions::TUNED
        },
    ] {
        let refused = Sim::new(Config { pg, ..config() }).err();
        assert!(
            matches!(refused, Some(CommandError::KeepaliveOutOfRange { .. })),
            "{pg:?}: {refused:?}"
        );
    }
    assert!(Sim::new(Config {
        pg: PgOptions::LINUX,
        ..config()
    })
    .is_ok());
}

#[test]
fn where_a_story_s_try_this_changes_nothing_here_the_page_says_so() {
    for p in [
        &presets::GC_PAUSE,
        &presets::CRASHED_HOLDER,
        &presets::PROCESS_EXIT,
    ] {
        let id = p.id;
        let scenario = p.scenario(Backend::Postgres, Fencing::Off).unwrap();
        let tried = Scenario {
            config: p.try_this.tweak.apply(&scenario.config),
            ..scenario.clone()
        };
        let play = |s: &Scenario| Sim::play(s, Millis(p.run_ms)).unwrap().history().to_vec();
        assert_eq!(play(&scenario), play(&tried), "{id}: the same run");
        let told = presets::told(p, Backend::Postgres);
        assert!(
            told.try_text.contains("nothing changes"),
            "{id}: {}",
            told.try_text
        );
        assert_ne!(told.story, p.story, "{id}: told as PostgreSQL's");
        assert_eq!(presets::told(p, Backend::Etcd).story, p.story);
    }
    // The PostgreSQL stories' own "try this" does change their run.
    for p in [&presets::POSTGRES_NO_LEASE, &presets::POSTGRES_PARTITION] {
        let id = p.id;
        assert_eq!(p.backends, &[Backend::Postgres]);
        let scenario = p.scenario(Backend::Postgres, Fencing::Off).unwrap();
        let tried = Scenario {
            config: p.try_this.tweak.apply(&scenario.config),
            ..scenario.clone()
        };
        let play = |s: &Scenario| Sim::play(s, Millis(p.run_ms)).unwrap().history().to_vec();
        assert_ne!(play(&scenario), play(&tried), "{id}");
    }
}

#[test]
fn every_postgres_tour_moment_speaks_of_postgres_not_of_a_lease() {
    use distlock::lesson::tour;
    for p in [
        &presets::GC_PAUSE,
        &presets::DELAYED_WRITE,
        &presets::CRASHED_HOLDER,
        &presets::POSTGRES_NO_LEASE,
        &presets::POSTGRES_PARTITION,
    ] {
        let id = p.id;
        for fencing in [Fencing::Off, Fencing::On] {
            let scenario = p.scenario(Backend::Postgres, fencing).unwrap();
            let moments = tour::moments(p, &scenario, Millis(p.run_ms));
            assert!(moments.len() >= 3, "{id}: {moments:#?}");
            for m in &moments {
                assert!(
                    !m.caption.contains("lease runs") && !m.caption.contains("old lease end"),
                    "{id}: {}",
                    m.caption
                );
            }
        }
    }
    let partition = |fencing| {
        let scenario = presets::POSTGRES_PARTITION
            .scenario(Backend::Postgres, fencing)
            .unwrap();
        tour::moments(&presets::POSTGRES_PARTITION, &scenario, Millis(45_000))
    };
    let last = |m: Vec<tour::Moment>| m.last().unwrap().caption.clone();
    assert!(
        last(partition(Fencing::On)).contains("matched 0 rows"),
        "{}",
        last(partition(Fencing::On))
    );
    assert!(
        last(partition(Fencing::Off)).contains("that increment is lost"),
        "{}",
        last(partition(Fencing::Off))
    );
}
