//! The explorer's faults besides pauses: each gives the verdict the
//! comparison gives for it (a partitioned PostgreSQL holder can corrupt;
//! Redlock's nodes restarting or their clocks jumping can, fencing on or
//! off), a trial with faults is as reproducible as one without, and the
//! system can be an axis of the grid.

use distlock::sim::{Backend, Fencing, PgOptions, Sim};
use distlock::tools::explore::{
    rebuild_trial, run_cell, Axis, CellResult, Faults, PauseProfile, Pauses, Plan, PlanError,
    Preset,
};

/// No pauses at all: whatever goes wrong is the faults' doing.
fn no_pauses() -> Pauses {
    Pauses::Custom {
        profile: PauseProfile {
            per_kilohour: 0,
            median_us: 1_000,
            p99_us: 1_000,
            ..PauseProfile::default()
        },
    }
}

fn plan(backend: Backend, fencing: Fencing, faults: Faults) -> Plan {
    Plan {
        backend,
        fencing,
        pauses: no_pauses(),
        ttls_ms: vec![5_000],
        axis: Axis::P99Us(vec![1_000]),
        trials: 200,
        faults,
        ..Plan::default()
    }
}

fn cell(plan: &Plan) -> CellResult {
    run_cell(plan, 0).expect("the plan runs")
}

/// Partitions from the lock service, two an hour per client on average
/// (about one in every trial of three clients), lasting up to a minute.
fn partitions() -> Faults {
    Faults {
        partitions_per_kilohour: 120_000,
        longest_ms: 60_000,
        ..Faults::default()
    }
}

/// A PostgreSQL holder working 20 s under its advisory lock.
fn postgres(faults: Faults, pg: PgOptions) -> Plan {
    Plan {
        hold_ms: 20_000,
        pg,
        ..plan(Backend::Postgres, Fencing::Off, faults)
    }
}

#[test]
fn a_partitioned_postgresql_holder_corrupts_where_pauses_alone_never_do() {
    // Pauses alone, even the long network delay's: PostgreSQL's kernel
    // keeps TCP alive, the lock is never lost.
    let paused = Plan {
        pauses: Pauses::Preset {
            preset: Preset::NetworkDelay,
        },
        ..postgres(Faults::default(), PgOptions::TUNED)
    };
    assert_eq!(cell(&paused).corrupted, 0);
    // Cut off from the server, the holder's session ends when the tuned
    // keepalives give up (about 25 s): another client takes lock 42 while
    // the holder, still believing, writes through the pool.
    let tuned = cell(&postgres(partitions(), PgOptions::TUNED));
    assert!(tuned.corrupted > 0, "{tuned:?}");
    assert!(tuned.two_holders > 0, "{tuned:?}");
    // At the OS's keepalives (2 h 11 min) no partition of a trial lasts
    // long enough: the holder keeps its lock, nobody else gets it.
    let linux = cell(&postgres(partitions(), PgOptions::LINUX));
    assert_eq!((linux.corrupted, linux.two_holders), (0, 0), "{linux:?}");
    // The version column (fencing on) rejects a stale write once the new
    // holder has written; one that lands before that still matches the
    // version it read, and is accepted.
    let fenced = cell(&Plan {
        fencing: Fencing::On,
        ..postgres(partitions(), PgOptions::TUNED)
    });
    assert!(fenced.saved > 0, "{fenced:?}");
    assert!(fenced.corrupted < tuned.corrupted, "{fenced:?}");
}

/// Four clients taking the Redlock lock back to back (10 s TTL, 4 s holds,
/// a second of thinking), so a quorum freed early is taken at once.
fn redlock(fencing: Fencing, faults: Faults) -> Plan {
    Plan {
        clients: 4,
        hold_ms: 4_000,
        think_ms: 1_000,
        ttls_ms: vec![10_000],
        ..plan(Backend::Redlock, fencing, faults)
    }
}

#[test]
fn redlock_breaks_when_a_node_restarts_or_its_clock_jumps_fencing_or_not() {
    // No pause, no fault: never two holders.
    let calm = cell(&redlock(Fencing::On, Faults::default()));
    assert_eq!((calm.corrupted, calm.two_holders), (0, 0), "{calm:?}");
    let restarts = Faults {
        node_restarts_per_kilohour: 300_000,
        longest_ms: 5_000,
        ..Faults::default()
    };
    let jumps = Faults {
        node_jumps_per_kilohour: 300_000,
        longest_ms: 20_000,
        ..Faults::default()
    };
    for (name, faults) in [("restarts", restarts), ("clock jumps", jumps)] {
        for fencing in [Fencing::Off, Fencing::On] {
            let r = cell(&redlock(fencing, faults));
            // A node that forgets the key (restarted empty) or expires it
            // early (its wall clock jumped) lets a second client reach a
            // quorum while the first still holds.
            assert!(r.two_holders > 0, "{name}, fencing {fencing:?}: {r:?}");
            // A stale write reaches the resource, accepted or refused.
            assert!(
                r.corrupted + r.saved > 0,
                "{name}, fencing {fencing:?}: {r:?}"
            );
            // With fencing by the highest token seen, the first holder's
            // write that lands before the new holder's first write is
            // accepted: the gap etcd has under pauses. After a clock jump
            // that is common (the old holder writes on, unaware); after a
            // restart it is rare with fencing on (about 1 in 200 trials),
            // so only fencing off is held to it there.
            if name == "clock jumps" || fencing == Fencing::Off {
                assert!(r.corrupted > 0, "{name}, fencing {fencing:?}: {r:?}");
            }
        }
    }
}

#[test]
fn crashed_clients_restart_and_lost_messages_time_out() {
    let faults = Faults {
        exits_per_kilohour: 120_000,
        host_deaths_per_kilohour: 120_000,
        losses_per_kilohour: 120_000,
        longest_ms: 20_000,
        ..Faults::default()
    };
    for backend in [Backend::Etcd, Backend::Postgres, Backend::Redlock] {
        let plan = Plan {
            trials: 40,
            ..plan(backend, Fencing::Off, faults)
        };
        let r = cell(&plan);
        // Every trial ran to its end: crashed clients came back, and a
        // write lost with its messages did not hang its client.
        assert_eq!(r.cut_short, 0, "{backend}: {r:?}");
        let calm = cell(&Plan {
            faults: Faults::default(),
            ..plan.clone()
        });
        assert!(r.holds > 0 && r.holds < calm.holds, "{backend}: {r:?}");
        // The trial's script has the faults, each ended.
        let run = rebuild_trial(&plan, 0, 0).expect("trial 0 rebuilds");
        let said: Vec<String> = run
            .scenario
            .actions
            .iter()
            .map(|a| a.action.to_string())
            .collect();
        let count = |words: &str| said.iter().filter(|s| s.contains(words)).count();
        assert!(
            count("crash (process exits)") + count("power off") + count("start losing") > 0,
            "{backend}: {said:?}"
        );
        // A fault still under way when every client is done is left so:
        // the trial is over.
        assert!(count("start losing") >= count("stop losing"), "{backend}");
    }
}

#[test]
fn a_trial_with_faults_reproduces_from_its_seed_and_its_script() {
    let faults = Faults {
        partitions_per_kilohour: 60_000,
        exits_per_kilohour: 30_000,
        host_deaths_per_kilohour: 30_000,
        losses_per_kilohour: 30_000,
        node_restarts_per_kilohour: 60_000,
        node_jumps_per_kilohour: 60_000,
        longest_ms: 15_000,
    };
    let plan = Plan {
        pauses: Pauses::Preset {
            preset: Preset::JvmG1,
        },
        trials: 30,
        ..redlock(Fencing::On, faults)
    };
    assert_eq!(cell(&plan), cell(&plan));
    for trial in [0, 7, 29] {
        let run = rebuild_trial(&plan, 0, trial).unwrap();
        let replayed = Sim::replay(&run.scenario, run.end).expect("the script replays");
        assert_eq!(
            (
                replayed.oracle().grants(),
                replayed.oracle().corruptions(),
                replayed.oracle().saves()
            ),
            (run.counts.holds, run.counts.corrupted, run.counts.saved),
            "trial {trial}"
        );
    }
    // A plan without faults writes none: its JSON is what it was before
    // faults existed, so old plans mean what they meant.
    let json = serde_json::to_string(&Plan::default()).unwrap();
    assert!(
        !json.contains("faults") && !json.contains("\"pg\""),
        "{json}"
    );
    let back: Plan = serde_json::from_str(&json).unwrap();
    assert_eq!(back, Plan::default());
    let json = serde_json::to_string(&plan).unwrap();
    assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
}

#[test]
fn the_system_is_an_axis_and_each_cell_names_its_system() {
    let systems = vec![Backend::Redlock, Backend::Etcd, Backend::Postgres];
    let alone = Plan {
        trials: 20,
        ..plan(Backend::Redlock, Fencing::Off, partitions())
    };
    let plan = Plan {
        backend: Backend::Etcd,
        axis: Axis::System(systems.clone()),
        ..alone.clone()
    };
    plan.validate()
        .expect("one TTL: PostgreSQL may be on the axis");
    assert_eq!(plan.cells(), 3);
    for (row, &system) in systems.iter().enumerate() {
        let cell = plan.cell(row as u32).unwrap();
        assert_eq!(cell.backend, system);
        let r = run_cell(&plan, row as u32).unwrap();
        assert!(r.holds > 0, "{system}: {r:?}");
        let csv = distlock::tools::explore::csv_row(&plan, &r, None);
        assert_eq!(csv.split(',').nth(1), Some(system.slug()), "{csv}");
    }
    // The first row runs the same trials as a plan of its system alone.
    assert_eq!(run_cell(&plan, 0).unwrap(), run_cell(&alone, 0).unwrap());
}

#[test]
fn settings_that_do_not_apply_are_refused_by_name() {
    let not_applicable = |plan: Plan, field: &str| match plan.validate() {
        Err(e @ PlanError::NotApplicable { .. }) => {
            assert!(e.to_string().starts_with(field), "{e}");
        }
        other => panic!("{field}: {other:?}"),
    };
    // PostgreSQL has no lease: a TTL axis means nothing for it, alone or
    // as a row of the system axis.
    let pg = Plan {
        ttls_ms: vec![5_000, 10_000],
        ..postgres(Faults::default(), PgOptions::LINUX)
    };
    not_applicable(pg.clone(), "TTL (ms)");
    not_applicable(
        Plan {
            backend: Backend::Etcd,
            axis: Axis::System(vec![Backend::Etcd, Backend::Postgres]),
            ..pg
        },
        "TTL (ms)",
    );
    // Only Redis and Redlock have nodes to restart or whose clocks jump.
    let jumps = Faults {
        node_jumps_per_kilohour: 1_000,
        ..Faults::default()
    };
    not_applicable(
        plan(Backend::Etcd, Fencing::On, jumps),
        "Redis node clock jumps",
    );
    let mixed = Plan {
        axis: Axis::System(vec![Backend::Etcd, Backend::Redlock]),
        ..plan(Backend::Etcd, Fencing::On, jumps)
    };
    assert_eq!(mixed.validate(), Ok(()));
    // Rates and lengths have ranges, named too.
    let e = plan(
        Backend::Etcd,
        Fencing::Off,
        Faults {
            longest_ms: 0,
            ..Faults::default()
        },
    )
    .validate()
    .unwrap_err();
    assert!(e.to_string().starts_with("longest fault (ms) is 0"), "{e}");
}
