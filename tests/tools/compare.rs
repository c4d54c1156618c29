//! The comparison of the eight systems, recomputed from runs of the core:
//! the cells the articles state must come out of the runs.

use distlock::sim::{Backend, Fencing, Sim, CHUBBY_LEASE_MS, CONSUL_SESSION_TTL_MS};
use distlock::tools::compare::{
    cell, markdown, matrix, run, sides, ttl_ms, write_times, Cell, Outcome, COLUMNS, RUNS, VARIANTS,
};

fn outcome(column: &str, backend: Backend, fencing: Fencing) -> Outcome {
    cell(column, backend, fencing).main.outcome
}

fn waited_ms(cell: &Cell) -> u64 {
    match cell.main.outcome {
        Outcome::Waited { ms } => ms,
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn every_cell_that_ran_names_what_it_depends_on_and_carries_its_runs() {
    let rows = matrix();
    assert_eq!(rows.len(), Backend::ALL.len());
    for row in &rows {
        assert_eq!(row.cells.len(), COLUMNS.len(), "{}", row.backend);
        assert!(row.acquire_ms > 0, "{}: A acquires", row.backend);
        for (c, cells) in COLUMNS.iter().zip(&row.cells) {
            assert_eq!(cells.len(), sides(c).len(), "{} {}", row.backend, c.id);
            for cell in cells {
                let at = format!("{} {} {:?}", row.backend, c.id, cell.fencing);
                assert!(!cell.main.why.is_empty(), "{at}: says why");
                if !cell.main.outcome.ran() {
                    assert!(cell.main.run.is_none() && cell.depends_on.is_none(), "{at}");
                    continue;
                }
                let dep = cell.depends_on.as_deref().unwrap_or_default();
                assert!(dep.starts_with("depends on: "), "{at}: {dep}");
                for (label, judged) in cell.runs() {
                    let played = judged.run.as_ref().expect("a run behind every verdict");
                    // The run replays to what was judged: its link opens it.
                    let again = Sim::replay(&played.scenario, played.end).expect("replays");
                    assert_eq!(again.now(), played.end, "{at} {label:?}");
                }
            }
        }
    }
}

#[test]
fn the_button_counts_every_run_the_table_makes() {
    let mut runs = 0;
    for c in COLUMNS {
        let variants = VARIANTS
            .iter()
            .filter(|s| s.column == "*" || s.column == c.id)
            .count();
        runs += sides(c).len() * write_times(c.id) * (Backend::ALL.len() + variants);
    }
    assert_eq!(RUNS, runs);
    // The columns whose verdict turns on when A writes run A's write at
    // five times, every side and setting; the others at their story's own.
    for c in COLUMNS {
        let turns = ["partitioned-holder", "clock-jump", "failover"].contains(&c.id);
        assert_eq!(write_times(c.id), if turns { 5 } else { 1 }, "{}", c.id);
    }
}

/// The columns that run A's write at one time give the same verdict
/// wherever it falls: the GC pause's and the node restart's write on
/// waking, moved half a second earlier (still paused) or up to 2 s later,
/// and the delayed write held half a second less or up to 2 s more, on
/// every system, with fencing off and on.
#[test]
fn a_column_run_at_one_write_time_gives_its_verdict_at_any() {
    use distlock::sim::{Action, ClientId, Command, Config, Millis};
    use distlock::tools::compare::{judge_scenario, scenario_at};
    for column in COLUMNS
        .iter()
        .filter(|c| c.fenced && write_times(c.id) == 1)
    {
        for backend in Backend::ALL {
            for fencing in [Fencing::Off, Fencing::On] {
                let Some(story) = scenario_at(&Config::default(), column.id, backend, fencing)
                else {
                    continue;
                };
                let word = judge_scenario(column.id, &story).outcome.word();
                for shift in [-500_i64, 500, 2_000] {
                    let mut moved = story.clone();
                    for a in &mut moved.actions {
                        let Action::Client { client, command } = &mut a.action else {
                            continue;
                        };
                        if *client != ClientId::ALL[0] {
                            continue;
                        }
                        match command {
                            Command::Write => a.at = Millis(a.at.ms().saturating_add_signed(shift)),
                            Command::WriteDelayed { extra_ms } => {
                                *extra_ms = extra_ms.saturating_add_signed(shift);
                            }
                            _ => {}
                        }
                    }
                    moved.actions.sort_by_key(|a| a.at);
                    assert_eq!(
                        judge_scenario(column.id, &moved).outcome.word(),
                        word,
                        "{} on {backend}, fencing {fencing:?}, A's write moved {shift} ms",
                        column.id
                    );
                }
            }
        }
    }
}

#[test]
fn the_docs_show_the_table_the_example_prints() {
    // `cargo run --release --example compare` prints `markdown()`; the
    // table in docs/systems.md is pasted from it, never typed.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/systems.md"))
        .expect("docs/systems.md");
    assert!(
        doc.contains(&markdown()),
        "docs/systems.md's comparison differs from `cargo run --release --example compare`:\n{}",
        markdown()
    );
}

#[test]
fn fencing_with_an_ordered_token_rejects_the_late_write() {
    for backend in [
        Backend::ZooKeeper,
        Backend::Etcd,
        Backend::Chubby,
        Backend::Consul,
        Backend::Redis,
    ] {
        assert_eq!(
            outcome("gc-pause", backend, Fencing::Off),
            Outcome::Corrupted,
            "{backend}: unfenced, the late write corrupts"
        );
        // A token the system does not promise to keep growing says what
        // the rejection rests on.
        let fenced = if backend.monotonic_tokens() {
            Outcome::Rejected
        } else {
            Outcome::RejectedWhile("the master keeps its counter")
        };
        assert_eq!(
            outcome("gc-pause", backend, Fencing::On),
            fenced,
            "{backend}: fenced, it is rejected"
        );
    }
}

/// A fencing verdict never claims more than the token promises: Redlock's
/// rejections name the counter on node 1 they rest on, and the column of
/// the node restart that resets it shows the stale write accepted with
/// fencing on; PostgreSQL's version column names what it checks.
#[test]
fn a_rejection_by_a_token_that_can_go_back_says_what_it_rests_on() {
    for column in ["gc-pause", "delayed-write"] {
        let c = cell(column, Backend::Redlock, Fencing::On);
        assert_eq!(
            c.main.outcome,
            Outcome::RejectedWhile("node 1 keeps its counter"),
            "{column}"
        );
        assert_eq!(c.main.word(), "rejected while node 1 keeps its counter");
        assert!(
            c.depends_on
                .as_deref()
                .unwrap()
                .contains("restart without persistence"),
            "{:?}",
            c.depends_on
        );
    }
    let restart = cell("node-restart", Backend::Redlock, Fencing::On);
    assert_eq!(
        restart.main.outcome,
        Outcome::Corrupted,
        "{}",
        restart.main.why
    );
    for backend in Backend::ALL.into_iter().filter(|&b| b != Backend::Redlock) {
        let c = cell("node-restart", backend, Fencing::Off);
        assert!(
            matches!(&c.main.outcome, Outcome::NotApplicable(why) if why.starts_with("Redlock's alone")),
            "{backend}: {:?}",
            c.main.outcome
        );
    }
    let pg = cell("delayed-write", Backend::Postgres, Fencing::On);
    assert_eq!(
        pg.main.outcome,
        Outcome::RejectedWhile("B wrote after A read the version")
    );
    assert!(pg
        .depends_on
        .as_deref()
        .unwrap()
        .contains("not of who holds the lock"));
}

#[test]
fn where_the_token_cannot_be_ordered_the_comparison_says_none() {
    for backend in [Backend::Redlock, Backend::DynamoDb, Backend::Postgres] {
        assert!(
            backend.token_short().starts_with("none"),
            "{backend}: {}",
            backend.token_short()
        );
        assert!(!backend.monotonic_tokens(), "{backend}");
    }
    // DynamoDB is fenced only by a condition on the lock item.
    assert_eq!(
        outcome("gc-pause", Backend::DynamoDb, Fencing::On),
        Outcome::Rejected
    );
}

#[test]
fn a_lock_with_no_lease_is_never_lost_to_a_pause() {
    for fencing in [Fencing::Off, Fencing::On] {
        assert_eq!(
            outcome("gc-pause", Backend::Postgres, fencing),
            Outcome::NeverLost
        );
    }
}

/// A clock jump the model refuses (it cannot move those servers' clocks)
/// is "not modelled", with the model's reason: never "not affected", which
/// would be a claim about the system no run made.
#[test]
fn a_clock_jump_the_model_cannot_make_is_not_modelled() {
    for backend in Backend::ALL {
        let c = cell("clock-jump", backend, Fencing::Off);
        match backend {
            Backend::Redis | Backend::Redlock => {
                assert_eq!(c.main.outcome, Outcome::Corrupted, "{backend}")
            }
            _ => {
                assert!(
                    matches!(c.main.outcome, Outcome::NotModelled(_)),
                    "{backend}: {:?}",
                    c.main.outcome
                );
                assert_eq!(c.words(), "not modelled");
                assert!(c.main.run.is_none());
            }
        }
    }
    let chubby = cell("clock-jump", Backend::Chubby, Fencing::Off);
    assert!(
        chubby.main.why.contains("clock moved"),
        "{}",
        chubby.main.why
    );
}

#[test]
fn a_redis_failover_repeats_the_token_so_fencing_cannot_help() {
    assert_eq!(
        outcome("failover", Backend::Redis, Fencing::On),
        Outcome::Corrupted
    );
    for backend in [Backend::ZooKeeper, Backend::Etcd, Backend::Chubby] {
        assert_eq!(
            outcome("failover", backend, Fencing::Off),
            Outcome::NeverLost,
            "{backend}: the replicated lock survives its leader"
        );
    }
    // Consul's key survives too, but the leader dies while monitorLock's
    // first GET, sent with no index (api/lock.go `monitorLock`), is under
    // way: the agent holds a call that does not block only its 7 s
    // (agent/structs/structs.go `HasTimedOut`: rpcHoldTimeout plus a
    // BlockingTimeout of 0), this seed's election is longer, and with
    // MonitorRetries 0 leaderCh closes: a spurious loss. consul lock's 3
    // retries (command/lock/lock.go) keep the lock.
    let c = cell("failover", Backend::Consul, Fencing::Off);
    assert_eq!(c.main.outcome, Outcome::GaveUp, "{}", c.main.why);
    assert!(
        c.variants
            .iter()
            .any(|v| v.label.starts_with("MonitorRetries 3")
                && v.judged.outcome == Outcome::NeverLost),
        "{:?}",
        c.variants
            .iter()
            .map(|v| (v.label, &v.judged.outcome))
            .collect::<Vec<_>>()
    );
    assert!(matches!(
        outcome("failover", Backend::Redlock, Fencing::Off),
        Outcome::NotApplicable(_)
    ));
}

#[test]
fn a_dead_host_costs_a_lease_or_more() {
    for backend in Backend::ALL {
        let c = cell("crashed-holder", backend, Fencing::Off);
        assert!(waited_ms(&c) >= 3_500, "{backend}: {:?}", c.main.outcome);
    }
}

/// Chubby, Consul and DynamoDB wait in their own real seconds: the crash
/// columns give them their default lease (12 s, 15 s, 20 s), not the
/// page's 5 s scaled.
#[test]
fn the_crash_columns_run_each_lease_at_its_real_default() {
    assert_eq!(ttl_ms("crashed-holder", Backend::Chubby), CHUBBY_LEASE_MS);
    assert_eq!(
        ttl_ms("crashed-holder", Backend::Consul),
        CONSUL_SESSION_TTL_MS
    );
    assert_eq!(ttl_ms("crashed-holder", Backend::DynamoDb), 20_000);
    assert_eq!(ttl_ms("gc-pause", Backend::Chubby), 5_000);
    // DynamoDB: a waiter takes the item over once its RVN stayed the same
    // for a whole lease by the waiter's clock (20 s, leaseDuration).
    let dynamo = waited_ms(&cell("crashed-holder", Backend::DynamoDb, Fencing::Off));
    assert!((20_000..22_000).contains(&dynamo), "{dynamo} ms");
    // Consul: TTL x 2 (the server doubles it), then the 15 s lock-delay.
    let consul = cell("crashed-holder", Backend::Consul, Fencing::Off);
    assert!(waited_ms(&consul) >= 15_000, "{:?}", consul.main.outcome);
}

/// PostgreSQL's server notices a dead host only when its TCP keepalives
/// give up: tcp_keepalives_idle = 0 takes Linux's 7,200 s + 9 x 75 s
/// (tcp(7)), about 2 h 11 min; the tuned 10 s / 5 s / 3 about 25 s. The
/// cell shows both, the real default first.
#[test]
fn postgres_waits_for_keepalives_when_the_host_dies_default_and_tuned() {
    let c = cell("crashed-holder", Backend::Postgres, Fencing::Off);
    let default = waited_ms(&c);
    assert!(
        (7_870_000..7_900_000).contains(&default),
        "{default} ms: Linux's keepalives"
    );
    assert_eq!(c.setting, Some("default keepalives"));
    let tuned = c
        .variants
        .iter()
        .find(|v| v.label == "tuned keepalives 10/5/3 s")
        .expect("the tuned run is beside it");
    assert!(
        matches!(tuned.judged.outcome, Outcome::Waited { ms } if (23_000..27_000).contains(&ms)),
        "{:?}",
        tuned.judged.outcome
    );
    assert!(
        c.words().starts_with(
            "default keepalives: waited 2 h 11 min · tuned keepalives 10/5/3 s: waited 2"
        ),
        "{}",
        c.words()
    );
    assert_eq!(
        c.depends_on.as_deref(),
        Some("depends on: the server's TCP keepalive settings")
    );
}

/// PostgreSQL frees an advisory lock the moment its backend reads EOF
/// (the backend exits and releases its locks): a process that exits costs
/// B almost nothing (src/backend/tcop/postgres.c: a backend that reads EOF
/// exits, and its advisory locks go with it).
#[test]
fn postgres_frees_the_lock_within_a_second_when_the_process_exits() {
    let c = cell("process-exit", Backend::Postgres, Fencing::Off);
    assert!(waited_ms(&c) <= 1_000, "{:?}", c.main.outcome);
    assert!(COLUMNS.iter().any(|c| c.id == "process-exit"));
    assert!(c.main.why.contains("EOF"), "{}", c.main.why);
    assert!(
        c.variants.is_empty(),
        "keepalives play no part: {:?}",
        c.words()
    );
}

/// ZooKeeper, etcd, Chubby, Redis, Redlock and DynamoDB keep the session,
/// lease or key until it runs out whether the process exited or the host
/// died: a closed connection ends nothing server-side (systems.md,
/// "process exit versus host death, per system").
#[test]
fn a_closed_connection_ends_nothing_where_a_lease_runs_out() {
    for backend in [
        Backend::Redis,
        Backend::Redlock,
        Backend::ZooKeeper,
        Backend::Etcd,
        Backend::Chubby,
        Backend::DynamoDb,
    ] {
        let exited = cell("process-exit", backend, Fencing::Off);
        let died = cell("crashed-holder", backend, Fencing::Off);
        assert_eq!(exited.words(), died.words(), "{backend}");
    }
}

/// Consul: serfHealth fails a dead host's node after a few seconds of
/// gossip (memberlist's probe and suspicion), invalidating its session; a
/// process that exits leaves its agent healthy, and its session lives until
/// 2 x TTL without renewal. Either way the 15 s lock-delay follows.
#[test]
fn consul_notices_a_dead_host_sooner_than_a_dead_process() {
    let exited = waited_ms(&cell("process-exit", Backend::Consul, Fencing::Off));
    let died = waited_ms(&cell("crashed-holder", Backend::Consul, Fencing::Off));
    assert!(exited >= 45_000, "2 x 15 s, then 15 s: {exited} ms");
    assert!(
        (19_000..25_000).contains(&died),
        "serf, then 15 s: {died} ms"
    );
}

/// Chubby's partitioned holder stops in time only because the page runs
/// the longest lock-delay (60 s, the bound in OSDI '06 section 2.4, which
/// names no default): with 20 s or 0 B holds while A, in jeopardy, still
/// believes it holds.
#[test]
fn chubby_stops_the_partitioned_holder_in_time_only_with_the_longest_lock_delay() {
    let c = cell("partitioned-holder", Backend::Chubby, Fencing::Off);
    assert_eq!(c.main.outcome, Outcome::Safe);
    assert_eq!(c.setting, Some("lock-delay 60 s"));
    let dep = c.depends_on.as_deref().unwrap();
    assert!(
        dep.contains("lock-delay 60 s") && dep.contains("only this bound"),
        "{dep}"
    );
    // A shorter lock-delay leaves a window in which B holds and A still
    // believes: whether A's write falls in it is timing, so the cell says
    // at how many of its five write times it did, and the others are two
    // holders with no write in the overlap.
    for (label, word) in [
        ("lock-delay 20 s", "corrupted at 1 of 5 write times"),
        ("lock-delay 0 s", "corrupted at 2 of 5 write times"),
    ] {
        let v = c.variants.iter().find(|v| v.label == label).expect(label);
        assert_eq!(v.judged.word(), word, "{}", v.judged.why);
        assert_eq!(v.judged.writes.len(), 5);
        assert!(v
            .judged
            .writes
            .iter()
            .all(|w| matches!(w.outcome, Outcome::Corrupted | Outcome::TwoHolders { .. })));
    }
}

/// The DynamoDB lock client only logs a failed heartbeat: a holder stops in
/// time only if the application polls isExpired() (awslabs
/// dynamodb-lock-client, LockItem.isExpired).
#[test]
fn dynamodb_stopping_in_time_depends_on_polling_is_expired() {
    let c = cell("partitioned-holder", Backend::DynamoDb, Fencing::Off);
    assert_eq!(c.main.outcome, Outcome::Safe);
    assert!(c.depends_on.as_deref().unwrap().contains("isExpired()"));
    let never = c
        .variants
        .iter()
        .find(|v| v.label == "the application never asks isExpired()")
        .expect("the application that never asks is beside it");
    assert_eq!(never.judged.outcome, Outcome::Corrupted);
}

/// Redis replicates asynchronously: a failover right after the grant loses
/// the key and repeats the token. A WAIT for the replica (Redisson's rule,
/// its default, or the application's own WAIT 1) keeps it.
#[test]
fn a_wait_for_the_replica_keeps_the_redis_lock_through_a_failover() {
    let c = cell("failover", Backend::Redis, Fencing::On);
    assert_eq!(c.main.outcome, Outcome::Corrupted);
    assert_eq!(c.setting, Some("no WAIT (redis-py's Lock)"));
    for label in [
        "Redisson's WAIT rule (its default)",
        "the application's WAIT 1",
    ] {
        let v = c.variants.iter().find(|v| v.label == label).expect(label);
        assert_eq!(v.judged.outcome, Outcome::NeverLost, "{label}");
    }
}

/// Consul: a cut-off holder's blocking monitor GET errors only when its
/// connection's yamux keepalive fails (30 s, then a 10 s write timeout), so
/// it still believes for a while after B holds: not "stopped in time".
#[test]
fn consuls_partitioned_holder_believes_after_b_holds() {
    let c = cell("partitioned-holder", Backend::Consul, Fencing::Off);
    assert!(
        matches!(c.main.outcome, Outcome::TwoHolders { .. }),
        "{:?}",
        c.main.outcome
    );
    assert!(c.depends_on.as_deref().unwrap().contains("keepalive"));
}

#[test]
fn a_variant_is_shown_only_where_it_changes_the_verdict() {
    for backend in Backend::ALL {
        for c in COLUMNS {
            for &f in sides(c) {
                let cell = cell(c.id, backend, f);
                for v in &cell.variants {
                    assert_ne!(v.judged.outcome.word(), cell.main.outcome.word());
                }
            }
        }
    }
    // The main run is the real default, whatever Config::default() says.
    let pg = run("partitioned-holder", Backend::Postgres, Fencing::Off, None);
    assert_eq!(
        pg.outcome,
        Outcome::NeverLost,
        "Linux's keepalives outlast the story"
    );
}

/// The failover column asks what happens when the leader or primary fails
/// over 10 ms after A took the lock: on every system that fails over, the
/// fault comes after A's grant (as read from the run), not while A's
/// acquisition is still under way, which would test the acquisition instead.
#[test]
fn the_failover_strikes_a_lock_already_held() {
    use distlock::sim::{Action, ClientId, Event};
    let a = ClientId::ALL[0];
    for backend in Backend::ALL {
        for fencing in [Fencing::Off, Fencing::On] {
            let judged = run("failover", backend, fencing, None);
            let Some(played) = judged.run else { continue };
            let failover_at = played
                .scenario
                .actions
                .iter()
                .find(|t| matches!(t.action, Action::Node { .. }))
                .map(|t| t.at)
                .expect("the failover is in the script");
            let sim = Sim::play(&played.scenario, played.end).expect("the run replays");
            let granted = sim.history().iter().find_map(|r| match r.event {
                Event::Acquired { client, .. } if client == a => Some(r.at),
                _ => None,
            });
            let granted = granted.unwrap_or_else(|| panic!("{backend}: A is granted"));
            assert_eq!(
                failover_at.ms(),
                granted.ms() + 10,
                "{backend}: the failover comes 10 ms after A's grant"
            );
        }
    }
}

/// Single Redis at a failover (systems.md, "Corrected (WAIT)"): with no
/// WAIT the promoted replica never saw A's key and B is granted the same
/// INCR token, so even `>=` fencing accepts A's stale write; a client that
/// WAITs for the replica (Redisson's rule with a replica connected, or the
/// application's own WAIT 1) is granted only once the replica has the key,
/// so the new master keeps A's lock.
#[test]
fn redis_at_a_failover_depends_on_waiting_for_the_replica() {
    let fenced = cell("failover", Backend::Redis, Fencing::On);
    assert_eq!(fenced.main.outcome, Outcome::Corrupted);
    let labels: Vec<_> = fenced
        .variants
        .iter()
        .map(|v| (v.label, v.judged.outcome.clone()))
        .collect();
    assert!(
        labels
            .iter()
            .any(|(l, o)| l.contains("Redisson") && *o == Outcome::NeverLost),
        "{labels:?}"
    );
    assert!(
        labels
            .iter()
            .any(|(l, o)| l.contains("WAIT 1") && *o == Outcome::NeverLost),
        "{labels:?}"
    );
}

/// Consul's cut-off holder (systems.md, Consul "Beliefs (corrected)"): the
/// server invalidates its session after serf's detection and B holds after
/// the lock-delay, while A's leaderCh stays open until its connection's
/// yamux keepalive fails (a 30 s cycle plus a 10 s write timeout): B holds
/// while A believes. The cell gives that span in Consul's own seconds,
/// although the run scales Consul's times to the table's 5 s lease.
#[test]
fn consuls_cut_off_holder_overlaps_b_in_consuls_own_seconds() {
    let cell = cell("partitioned-holder", Backend::Consul, Fencing::Off);
    let Outcome::TwoHolders { ms } = cell.main.outcome else {
        panic!("{:?}", cell.main.outcome)
    };
    assert!((10_000..=40_000).contains(&ms), "{ms} ms");
    assert!(
        cell.main.why.contains("of the run, which scales"),
        "{}",
        cell.main.why
    );
}

/// The comparison at a visitor's settings: TTL 30 s stretches the leases
/// and the stories written for 5 s, the crash columns of the systems that
/// set their own lease keep it, and the words say which settings ran.
#[test]
fn at_the_visitors_ttl_the_leases_and_the_stories_scale_with_it() {
    use distlock::sim::{Command, Config};
    use distlock::tools::compare::{cell_at, lease_words_at, scenario_at, settings_words};
    let base = Config {
        ttl_ms: 30_000,
        ..Config::default()
    };
    // A dead holder's lease runs out at the TTL: etcd's B waits about it.
    let at_5 = waited_ms(&cell("crashed-holder", Backend::Etcd, Fencing::Off));
    let at_30 = waited_ms(&cell_at(
        &base,
        "crashed-holder",
        Backend::Etcd,
        Fencing::Off,
    ));
    assert!(at_5 < 10_000, "{at_5}");
    assert!((29_000..40_000).contains(&at_30), "{at_30}");
    // Chubby waits out its own 12 s lease whatever the page's TTL.
    assert_eq!(
        cell_at(&base, "crashed-holder", Backend::Chubby, Fencing::Off).main,
        cell("crashed-holder", Backend::Chubby, Fencing::Off).main
    );
    // The GC pause outlives the 30 s lease: six times the 5 s story's 8 s.
    let gc = scenario_at(&base, "gc-pause", Backend::Redis, Fencing::Off).unwrap();
    assert_eq!(gc.config.ttl_ms, 30_000);
    assert!(gc.actions.iter().any(|a| matches!(
        a.action,
        distlock::sim::Action::Client {
            command: Command::GcPause { pause_ms: 48_000 },
            ..
        }
    )));
    let redis = cell_at(&base, "gc-pause", Backend::Redis, Fencing::Off);
    assert_eq!(redis.main.outcome, Outcome::Corrupted, "{}", redis.main.why);
    // Times scaled to the TTL say so, by the factor this TTL gives.
    assert!(lease_words_at(30_000, Backend::Chubby)
        .contains("elsewhere 30 s, Chubby's times scaled by 5/2"));
    let dep = cell_at(&base, "crashed-holder", Backend::Redlock, Fencing::Off).depends_on;
    assert_eq!(
        dep.as_deref(),
        Some("depends on: the 30 s lease and how soon B asks again")
    );
    let words = settings_words(&base);
    assert!(
        words.starts_with("TTL 30 s, latency 10x real, seed 1, fencing mode as documented."),
        "{words}"
    );
    assert!(words.contains("stretched by 6x"), "{words}");
}

/// A system whose options the visitor set runs at them, with no tuned
/// runs beside it; the seed and latency are the visitor's in every run.
#[test]
fn a_visitors_own_options_seed_and_latency_are_the_runs_own() {
    use distlock::sim::{Config, PgOptions, Seed};
    use distlock::tools::compare::{cell_at, settings_words};
    let base = Config {
        pg: PgOptions::TUNED,
        seed: Seed(7),
        latency_scale: 1,
        ..Config::default()
    };
    let pg = cell_at(&base, "crashed-holder", Backend::Postgres, Fencing::Off);
    assert!(pg.variants.is_empty(), "{:?}", pg.variants);
    assert!(
        waited_ms(&pg) < 60_000,
        "tuned keepalives give up in seconds"
    );
    let config = &pg.main.run.as_ref().unwrap().scenario.config;
    assert_eq!((config.seed, config.latency_scale), (Seed(7), 1));
    // Another system keeps its real defaults and tuned runs.
    let chubby = cell_at(&base, "crashed-holder", Backend::Chubby, Fencing::Off);
    assert!(!chubby.variants.is_empty());
    let words = settings_words(&base);
    assert!(
        words.starts_with("TTL 5 s, latency real, seed 7, fencing mode as documented."),
        "{words}"
    );
    assert!(
        words.contains("Your options: PostgreSQL keepalives 10 s + 3 x 5 s."),
        "{words}"
    );
}

/// Every system's options, set by the visitor, are named in words.
#[test]
fn the_settings_line_names_each_systems_own_options() {
    use distlock::sim::{Config, ReleaseMode};
    use distlock::tools::compare::settings_words;
    let mut base = Config::default();
    base.redis.release = ReleaseMode::PlainDel;
    base.chubby.lock_delay_ms = 10_000;
    base.consul.lock_delay_s = 0;
    base.dynamo.app_checks_expiry = false;
    base.zk.tick_ms = 1_000;
    let words = settings_words(&base);
    for said in [
        "Your options: Redis and Redlock release plain-del, extend check-value, persistence none, restart immediate, WAIT off",
        "; ZooKeeper tick 1 s, curator client",
        "; Chubby lock-delay 10 s",
        "; DynamoDB 4 heartbeats per lease, 5% extra wait, the application never asks isExpired()",
        "; Consul lock-delay 0 s, MonitorRetries 0, token modify-index, key cleanup keep",
    ] {
        assert!(words.contains(said), "{said:?} in {words}");
    }
    assert!(!words.contains("PostgreSQL"), "{words}");
    assert!(!words.contains("the resource's check"), "{words}");
    base.fence = distlock::sim::FenceMode::Check;
    let words = settings_words(&base);
    assert!(
        words.contains("the resource's check is: checked against the lock in the same transaction"),
        "{words}"
    );
}

/// At the ends of the page's ranges (TTL 1 s at latency 100x, TTL 60 s at
/// 1x) every cell still runs, and every run it shows replays to its verdict.
#[test]
fn the_comparison_runs_at_the_ends_of_the_settings_ranges() {
    use distlock::sim::{Config, TTL_MS_MAX, TTL_MS_MIN};
    use distlock::tools::compare::row_at;
    for (ttl_ms, latency_scale) in [(TTL_MS_MIN, 100), (TTL_MS_MAX, 1)] {
        let base = Config {
            ttl_ms,
            latency_scale,
            ..Config::default()
        };
        for backend in Backend::ALL {
            let row = row_at(&base, backend);
            for cell in row.cells.iter().flatten() {
                for (label, judged) in cell.runs() {
                    let Some(played) = &judged.run else { continue };
                    let again = Sim::replay(&played.scenario, played.end).expect("replays");
                    assert_eq!(
                        again.now(),
                        played.end,
                        "{backend} {label:?} at {ttl_ms} ms"
                    );
                    assert_eq!(played.scenario.config.latency_scale, latency_scale);
                }
            }
        }
    }
}

/// Every run of every cell, by its short address, opens the same run as
/// the table's own: the same fingerprint, for the default table, for one
/// at TTL 30 s across regions, and for one at TTL 10 s across zones with
/// the visitor's options on four systems (which the addresses carry).
#[test]
fn every_cells_short_address_opens_the_same_run_as_the_table() {
    use distlock::sim::{latency::LATENCY_PRESETS, Config, Millis, PgOptions};
    use distlock::tools::compare::address::{cell_query, open_cell, CellRef};
    use distlock::tools::compare::{own_options, row_at, Judged};
    let preset = |name: &str, ttl_ms: u64| {
        LATENCY_PRESETS
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("a latency preset {name}"))
            .apply(&Config {
                ttl_ms,
                ..Config::default()
            })
    };
    let cross_region = preset("Cross-region", 30_000);
    let mut tuned = preset("Cross-zone", 10_000);
    tuned.pg = PgOptions::TUNED;
    tuned.chubby.lock_delay_ms = 20_000;
    tuned.consul.lock_delay_s = 0;
    tuned.consul.monitor_retries = 3;
    tuned.dynamo.app_checks_expiry = false;
    let own = Backend::ALL
        .into_iter()
        .filter(|&b| own_options(&tuned, b))
        .count();
    assert_eq!(own, 4, "options set on four systems");
    for base in [Config::default(), cross_region, tuned] {
        let mut opened = 0;
        let mut at_write_times = std::collections::BTreeMap::new();
        for backend in Backend::ALL {
            let row = row_at(&base, backend);
            for (column, cells) in COLUMNS.iter().zip(&row.cells) {
                for cell in cells {
                    let mut runs: Vec<(Option<&str>, Option<usize>, &Judged)> =
                        vec![(None, None, &cell.main)];
                    for v in &cell.variants {
                        runs.push((Some(v.id), None, &v.judged));
                    }
                    for (id, _, judged) in runs.clone() {
                        for (k, w) in judged.writes.iter().enumerate() {
                            runs.push((id, Some(k), w));
                        }
                    }
                    for (id, write, judged) in runs {
                        let Some(played) = &judged.run else { continue };
                        // The run shown for several write times is one of them.
                        let write = write
                            .or_else(|| judged.writes.iter().position(|w| w.run == judged.run));
                        let at = CellRef {
                            column,
                            backend,
                            fencing: cell.fencing,
                            setting: id.map(|id| {
                                VARIANTS
                                    .iter()
                                    .find(|s| s.id == id && s.backend == backend)
                                    .unwrap()
                            }),
                            write,
                        };
                        let query = cell_query(&base, &at);
                        assert!(query.len() < 200, "{query}");
                        // A system run at the visitor's options carries them.
                        assert_eq!(
                            own_options(&base, backend),
                            query.contains("&pg-")
                                || query.contains("&chubby-")
                                || query.contains("&consul-")
                                || query.contains("&dynamo-"),
                            "{query}"
                        );
                        let (fragment, _) =
                            open_cell(&query).unwrap_or_else(|e| panic!("{query}: {e}"));
                        let (link, sim) = distlock::wire::link::open_link(&fragment).unwrap();
                        assert_eq!(link.end_ms, played.end.ms(), "{query}");
                        let table = Sim::play(&played.scenario, played.end).unwrap();
                        assert_eq!(sim.fingerprint(), table.fingerprint(), "{query}");
                        assert_eq!(sim.now(), Millis(link.end_ms));
                        opened += 1;
                        if write.is_some() {
                            *at_write_times.entry(column.id).or_insert(0) += 1;
                        }
                    }
                }
            }
        }
        assert!(opened > RUNS / 2, "{opened} runs opened");
        // Each write time's run opens, in every column that runs several.
        for c in COLUMNS.iter().filter(|c| write_times(c.id) > 1) {
            let n = at_write_times.get(c.id).copied().unwrap_or(0);
            assert!(n >= 5, "{}: {n} write times' runs opened", c.id);
        }
    }
}

/// An address that names no cell, or one the comparison does not run,
/// says what is wrong with it and runs nothing.
#[test]
fn a_cell_address_that_cannot_be_run_says_why() {
    use distlock::tools::compare::address::{open_cell, read_table};
    for (query, says) in [
        (
            "cell=coffee&system=redis&ttl=5",
            "does not have: one of gc-pause",
        ),
        ("cell=gc-pause&system=mongo&ttl=5", "system is \"mongo\""),
        ("cell=gc-pause&system=redis&ttl=fast", "ttl is \"fast\""),
        ("cell=gc-pause&system=redis&ttl=500", "cannot run"),
        (
            "cell=process-exit&system=redis&fencing=on&ttl=5",
            "fencing off only",
        ),
        (
            "cell=gc-pause&system=redis&ttl=5&setting=pg-tuned",
            "not one the comparison runs",
        ),
        ("cell=gc-pause&system=redis&ttl=5&write=2", "one time only"),
        (
            "cell=partitioned-holder&system=redis&fencing=on&ttl=5&write=6",
            "times 1 to 5",
        ),
        (
            "cell=node-restart&system=etcd&fencing=on&ttl=5",
            "has no run to open: Redlock's alone",
        ),
    ] {
        let why = open_cell(query).expect_err(query);
        assert!(why.contains(says), "{query}: {why}");
    }
    let base = read_table("view=compare&ttl=2.5&scale=1&rtt=70&seed=9&fence=check").unwrap();
    assert_eq!(
        (
            base.ttl_ms,
            base.latency_scale,
            base.network_rtt_ms,
            base.seed.0
        ),
        (2_500, 1, 70, 9)
    );
    assert_eq!(
        distlock::wire::link::table_query(&base),
        "ttl=2.5&scale=1&rtt=70&seed=9&fence=check"
    );
}

/// Each system's options go into the table's address, each under its own
/// key, and come back from it as they were; a wrong one says which key
/// and what it takes, and the ranges are checked as the simulator checks them.
#[test]
fn every_systems_options_go_into_the_tables_address_and_come_back() {
    use distlock::sim::{
        Config, ConsulToken, ExtendMode, KeyCleanup, Persistence, PgOptions, ReleaseMode,
        ReplicaWait, RestartPolicy, ZkClient,
    };
    use distlock::tools::compare::address::{has_table_settings, read_table, table_settings};
    use distlock::wire::link::{table_query, TABLE_KEYS};
    let mut base = Config {
        ttl_ms: 10_000,
        ..Config::default()
    };
    base.redis.release = ReleaseMode::PlainDel;
    base.redis.extend = ExtendMode::BlindSet;
    base.redis.persistence = Persistence::Fsync;
    base.redis.restart = RestartPolicy::Delayed;
    base.redis.wait = ReplicaWait::Redisson;
    base.zk.tick_ms = 1_000;
    base.zk.client = ZkClient::Native;
    base.chubby.lock_delay_ms = 2_500;
    base.dynamo.heartbeats_per_lease = 3;
    base.dynamo.extra_wait_pct = 10;
    base.dynamo.app_checks_expiry = false;
    base.dynamo.session_monitor = true;
    base.consul.lock_delay_s = 0;
    base.consul.monitor_retries = 3;
    base.consul.token = ConsulToken::Sequencer;
    base.consul.cleanup = KeyCleanup::Delete;
    base.pg = PgOptions::TUNED;
    base.seed = distlock::sim::Seed(3);
    base.latency_scale = 1;
    base.network_rtt_ms = 2;
    base.fence = distlock::sim::FenceMode::Check;
    let query = table_query(&base);
    // Every key the address knows is written, once.
    let keys: Vec<&str> = query
        .split('&')
        .map(|p| p.split_once('=').expect("key=value").0)
        .collect();
    assert_eq!(keys, TABLE_KEYS, "{query}");
    assert_eq!(read_table(&query), Ok(base.clone()), "{query}");
    // Among the page's other keys, the table's are kept and read alone.
    let address = format!("view=compare&{query}&narration=off");
    assert!(has_table_settings(&address));
    assert_eq!(table_settings(&address), query);
    assert_eq!(read_table(&address), Ok(base));
    // At the defaults, no option is written.
    assert_eq!(table_query(&Config::default()), "ttl=5");
    for (query, says) in [
        (
            "ttl=5&pg-keepalives-idle=soon",
            "pg-keepalives-idle is \"soon\": give a whole number",
        ),
        (
            "ttl=5&redis-release=del",
            "redis-release is \"del\": give check-value or plain-del",
        ),
        ("ttl=5&dynamo-checks-expiry=yes", "on or off"),
        ("ttl=5&chubby-lock-delay=61", "cannot run"),
        (
            "ttl=5&consul-token=uuid",
            "modify-index or lock-index or sequencer",
        ),
    ] {
        let why = read_table(query).expect_err(query);
        assert!(why.contains(says), "{query}: {why}");
    }
    // A cell's run says the system's options it ran at, and the lease of a
    // story that runs a system at its own rather than the table's TTL.
    let (_, say) = distlock::tools::compare::address::open_cell(
        "cell=crashed-holder&system=postgresql&ttl=5&pg-keepalives-idle=10&pg-keepalives-interval=5&pg-keepalives-count=3",
    )
    .unwrap();
    assert!(
        say.contains(
            "fencing mode as documented, with PostgreSQL keepalives 10 s + 3 x 5 s (waited"
        ),
        "{say}"
    );
    let (_, say) =
        distlock::tools::compare::address::open_cell("cell=process-exit&system=dynamodb&ttl=5")
            .unwrap();
    assert!(
        say.contains("; this story runs DynamoDB at a 20 s lease (waited"),
        "{say}"
    );
    // A rejection says which check made it, at the table's fencing mode.
    let checked = Config {
        fence: distlock::sim::FenceMode::Check,
        ..Config::default()
    };
    let cell = distlock::tools::compare::cell_at(
        &checked,
        "gc-pause",
        Backend::Redis,
        distlock::sim::Fencing::On,
    );
    assert_eq!(
        cell.main.outcome,
        distlock::tools::compare::Outcome::Rejected
    );
    assert_eq!(
        cell.depends_on.as_deref(),
        Some("depends on: the write checked against the lock in the same transaction")
    );
    // A tuned setting is not run beside the visitor's own options.
    let why = distlock::tools::compare::address::open_cell(
        "cell=crashed-holder&system=postgresql&ttl=5&pg-keepalives-idle=10&setting=pg-tuned",
    )
    .expect_err("own options and a tuned setting");
    assert!(why.contains("at your options alone"), "{why}");
}
