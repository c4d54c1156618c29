//! The explorer's numbers as a design document quotes them: pauses with a
//! longest length, pauses drawn from an observed histogram, an interval
//! that counts trials (not holds) as independent, and a cell that gives
//! the same number in any grid.

use distlock::sim::{Action, Backend, Command, Fencing};
use distlock::tools::explore::{
    cell_key, csv_comment, csv_header, csv_row, rebuild_trial, run_cell, run_trials, trial_seed,
    Axis, CellResult, Estimate, Histogram, PauseProfile, Pauses, Plan, PlanError, Preset,
    CSV_COLUMNS,
};
use distlock::tools::explore::{workload_text, Clusters};

/// Every pause a trial of `plan`'s cell issued, in ms.
fn pauses_in(plan: &Plan, cell: u32, trial: u32) -> Vec<u64> {
    let run = rebuild_trial(plan, cell, trial).unwrap();
    run.scenario
        .actions
        .iter()
        .filter_map(|a| match a.action {
            Action::Client {
                command: Command::GcPause { pause_ms },
                ..
            } => Some(pause_ms),
            _ => None,
        })
        .collect()
}

/// One cell: `ttl_ms`, pauses `profile`, the plan's defaults otherwise.
fn one_cell(profile: PauseProfile, ttl_ms: u64, trials: u32) -> Plan {
    let axis = Axis::PerKilohour(vec![profile.per_kilohour]);
    grid(profile, vec![ttl_ms], axis, trials)
}

/// A grid of `ttls_ms` by `axis` over `profile`'s pauses, a client
/// thinking 2 s between holds.
fn grid(profile: PauseProfile, ttls_ms: Vec<u64>, axis: Axis, trials: u32) -> Plan {
    Plan {
        pauses: Pauses::Custom { profile },
        ttls_ms,
        axis,
        think_ms: 2_000,
        trials,
        ..Plan::default()
    }
}

#[test]
fn no_pause_outlasts_the_longest_and_a_capped_cell_breaks_less() {
    // Pauses of a median 10 s and a p99 60 s, ten an hour, on a 5 s lease.
    let wild = one_cell(
        PauseProfile::log_normal(10_000, 10_000_000, 60_000_000),
        5_000,
        40,
    );
    let capped = Plan {
        pause_max_us: Some(2_000_000),
        ..wild.clone()
    };
    let mut longest = 0;
    for trial in 0..40 {
        let pauses = pauses_in(&capped, 0, trial);
        longest = longest.max(pauses.iter().copied().max().unwrap_or(0));
    }
    // Capped, not drawn again: the long draws land at the cap exactly.
    assert_eq!(longest, 2_000, "seed {:?}", capped.seed);
    let (free, held) = (run_cell(&wild, 0).unwrap(), run_cell(&capped, 0).unwrap());
    assert!(free.corrupted > 0, "{free:?}");
    assert_eq!((held.corrupted, held.two_holders), (0, 0), "{held:?}");
    assert_eq!(held.profile.max_us, Some(2_000_000));
    // A cap outside the range is refused, naming it.
    let bad = Plan {
        pause_max_us: Some(0),
        ..capped
    };
    assert!(matches!(
        bad.validate(),
        Err(PlanError::OutOfRange {
            field: "longest pause (µs)",
            ..
        })
    ));
}

#[test]
fn the_longest_pause_as_an_axis_caps_each_row() {
    let plan = Plan {
        pauses: Pauses::Preset {
            preset: Preset::JvmCmsFull,
        },
        ttls_ms: vec![5_000],
        axis: Axis::MaxUs(vec![1_000_000, 30_000_000]),
        think_ms: 2_000,
        trials: 10,
        ..Plan::default()
    };
    assert_eq!(plan.validate(), Ok(()));
    assert_eq!(plan.cell(0).unwrap().profile.max_us, Some(1_000_000));
    assert_eq!(plan.cell(1).unwrap().profile.max_us, Some(30_000_000));
    for trial in 0..10 {
        assert!(pauses_in(&plan, 0, trial).iter().all(|&ms| ms <= 1_000));
    }
}

#[test]
fn pauses_drawn_from_a_histogram_follow_it() {
    // Three in four pauses last 1 s, one in four 3 s; one a second.
    let h = Histogram::parse("length_ms,count\n1000,3\n3000,1\n").unwrap();
    let plan = one_cell(PauseProfile::empirical(3_600_000, h), 5_000, 30);
    assert_eq!(plan.validate(), Ok(()));
    let profile = plan.profile();
    assert_eq!((profile.median_us, profile.p99_us), (1_000_000, 3_000_000));
    let mut counts = [0u64; 2];
    for trial in 0..30 {
        for ms in pauses_in(&plan, 0, trial) {
            match ms {
                1_000 => counts[0] += 1,
                3_000 => counts[1] += 1,
                other => panic!("trial {trial}: a pause of {other} ms is not in the histogram"),
            }
        }
    }
    let all = counts[0] + counts[1];
    assert!(all > 1_000, "{counts:?}");
    let share = counts[1] as f64 / all as f64;
    assert!(
        (0.22..0.28).contains(&share),
        "3 s share {share}: {counts:?}"
    );
    // A histogram has its own lengths: a p99 axis cannot replace them.
    let p99 = Plan {
        axis: Axis::P99Us(vec![2_000_000]),
        ..plan.clone()
    };
    assert_eq!(p99.validate(), Err(PlanError::P99OfHistogram));
    // The plan travels as JSON (to the workers) with its histogram.
    let json = serde_json::to_string(&plan).unwrap();
    assert!(
        json.contains(r#""histogram":[[1000000,3],[3000000,1]]"#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
}

/// The result of the cell at `ttl_ms` and p99 `p99_us` in `plan`.
fn cell_at(plan: &Plan, ttl_ms: u64, p99_us: u64) -> CellResult {
    let index = (0..plan.cells())
        .find(|&i| {
            let c = plan.cell(i).unwrap();
            c.ttl_ms == ttl_ms && c.profile.p99_us == p99_us
        })
        .expect("the grid holds the cell");
    run_cell(plan, index).unwrap()
}

#[test]
fn a_cell_gives_the_same_number_in_any_grid() {
    let small = grid(
        PauseProfile::log_normal(60_000, 10_000_000, 60_000_000),
        vec![1_000, 5_000],
        Axis::P99Us(vec![20_000_000, 60_000_000]),
        30,
    );
    let other = Plan {
        ttls_ms: vec![10_000, 5_000, 2_000],
        axis: Axis::P99Us(vec![5_000_000, 60_000_000]),
        ..small.clone()
    };
    let (a, b) = (
        cell_at(&small, 5_000, 60_000_000),
        cell_at(&other, 5_000, 60_000_000),
    );
    assert_ne!(a.cell, b.cell, "the cell sits elsewhere in the other grid");
    assert_eq!(CellResult { cell: 0, ..a }, CellResult { cell: 0, ..b });
    assert!(a.corrupted > 0, "a cell with something to compare: {a:?}");
    assert_eq!(a.corruption(), b.corruption());
    // A preset and the same numbers typed in are the same cell.
    let preset = Plan {
        pauses: Pauses::Preset {
            preset: Preset::JvmCmsFull,
        },
        ..small.clone()
    };
    let typed = Plan {
        pauses: Pauses::Custom {
            profile: Preset::JvmCmsFull.profile(),
        },
        ..small.clone()
    };
    assert_eq!(key_of(&typed, 3), key_of(&preset, 3));
    assert_ne!(key_of(&typed, 3), key_of(&small, 3));
    // The environment makes the key: the pauses and the workload. What is
    // compared (system, fencing, TTL) meets the same pauses; what changes
    // no trial (seed aside) changes nothing.
    let key = |p: &Plan| cell_key(p, &p.cell(0).unwrap());
    let busier = Plan {
        think_ms: 3_000,
        ..small.clone()
    };
    let capped = Plan {
        pause_max_us: Some(30_000_000),
        ..small.clone()
    };
    let compared = Plan {
        fencing: Fencing::On,
        backend: Backend::Redis,
        ttls_ms: vec![9_000, 1_000],
        ..small.clone()
    };
    let longer = Plan {
        trials: 99,
        locks_per_hour: 7,
        ..small.clone()
    };
    assert_ne!(key(&small), key(&busier));
    assert_ne!(key(&small), key(&capped));
    assert_eq!(key(&small), key(&compared));
    assert_eq!(key(&small), key(&longer));
    // Fencing on and off meet the same pauses, trial by trial.
    let fenced = Plan {
        fencing: Fencing::On,
        ..small.clone()
    };
    for trial in 0..5 {
        assert_eq!(pauses_in(&small, 0, trial), pauses_in(&fenced, 0, trial));
    }
    // A trial opened from either grid is the same run, at the same seed.
    let trial = a.first_corrupted.unwrap();
    let from_small = rebuild_trial(&small, 3, trial).unwrap();
    let index = (0..other.cells())
        .find(|&i| {
            other.cell(i).unwrap()
                == distlock::tools::explore::Cell {
                    index: i,
                    ..small.cell(3).unwrap()
                }
        })
        .unwrap();
    let from_other = rebuild_trial(&other, index, trial).unwrap();
    assert_eq!(from_small.scenario, from_other.scenario);
    assert_eq!(
        from_small.scenario.config.seed,
        trial_seed(small.seed, key_of(&small, 3), trial)
    );
}

fn key_of(plan: &Plan, cell: u32) -> u64 {
    cell_key(plan, &plan.cell(cell).unwrap())
}

#[test]
fn events_clustered_in_trials_widen_the_interval() {
    // Long pauses against a short lease, rarely: while one client sleeps
    // through its lease, each grant to another is a new stretch of two
    // believed holders, all in the same trial.
    let plan = one_cell(
        PauseProfile::log_normal(2_000, 20_000_000, 90_000_000),
        1_000,
        200,
    );
    let r = run_cell(&plan, 0).unwrap();
    assert!(
        r.two_holders > 3 * u64::from(r.two_holder_trials),
        "clustered: {} stretches in {} trials",
        r.two_holders,
        r.two_holder_trials
    );
    let (clustered, wilson) = (r.two_holder(), Estimate::wilson(r.two_holders, r.holds));
    assert_eq!(clustered.p, wilson.p, "the same point estimate");
    assert!(clustered.design_effect > 1.5, "{clustered:?}");
    assert!(
        clustered.high - clustered.low > (wilson.high - wilson.low) * 1.2,
        "clustered {clustered:?}, Wilson {wilson:?}"
    );
    assert!(clustered.low < wilson.low && wilson.high < clustered.high);
}

#[test]
fn the_design_effect_follows_how_events_fall() {
    // 100 trials of 10 holds; 10 events.
    let spread = Clusters {
        trials: 100,
        n: 1_000,
        y: 10,
        yy: 10,        // one event in each of ten trials
        yn: 10 * 10,   // Σ y·n
        nn: 100 * 100, // Σ n²
    };
    let lumped = Clusters {
        yy: 100, // all ten in one trial
        ..spread
    };
    let even = Estimate::clustered(&spread);
    let clumped = Estimate::clustered(&lumped);
    // Spread out, the holds are as good as independent: Wilson's.
    assert_eq!(even.design_effect, 1.0);
    assert_eq!((even.low, even.high), {
        let w = Estimate::wilson(10, 1_000);
        (w.low, w.high)
    });
    // Lumped into one trial, the interval knows it saw one cluster.
    assert!(clumped.design_effect > 9.0, "{clumped:?}");
    assert!(clumped.high > 0.04 && clumped.low < 0.003, "{clumped:?}");
    // Nothing seen: the bound over holds, as before.
    let none = Estimate::clustered(&Clusters {
        y: 0,
        yy: 0,
        yn: 0,
        ..spread
    });
    assert_eq!(none, Estimate::wilson(0, 1_000));
}

#[test]
fn the_clustered_counts_add_up_the_same_however_the_trials_are_split() {
    let plan = one_cell(
        PauseProfile::log_normal(6_000, 5_000_000, 40_000_000),
        2_000,
        48,
    );
    let whole = run_cell(&plan, 0).unwrap();
    let parts = [0..7, 7..30, 30..48]
        .into_iter()
        .map(|r| run_trials(&plan, 0, r).unwrap())
        .rev()
        .reduce(|a, b| a.merge(&b))
        .unwrap();
    assert_eq!(whole, parts);
    assert_eq!(whole, run_cell(&plan, 0).unwrap(), "run twice");
    assert_eq!(whole.corruption(), parts.corruption());
    assert!(whole.sq.holds_holds >= whole.holds);
}

#[test]
fn the_workload_is_written_beside_the_numbers() {
    let h = Histogram::parse("20:5;100:40;2000:3").unwrap();
    let plan = Plan {
        pauses: Pauses::Custom {
            profile: PauseProfile::empirical(120_000, h),
        },
        pause_max_us: Some(1_500_000),
        axis: Axis::PerKilohour(vec![120_000]),
        ..Plan::default()
    };
    let words = workload_text(&plan);
    for said in [
        "3 clients",
        "mean 15 s",
        "holds it 500 ms",
        "120 an hour per client",
        "histogram of 48 observed (20 ms ×5, 100 ms ×40, 2 s ×3)",
        "none longer than 1.5 s",
        "60 s of virtual time",
        "1,000 trials per cell",
    ] {
        assert!(words.contains(said), "{said}: {words}");
    }
    let comment = csv_comment(&plan);
    assert!(comment.lines().all(|l| l.starts_with("# ")), "{comment}");
    assert!(comment.contains("20:5;100:40;2000:3"), "{comment}");
    let r = run_cell(
        &Plan {
            trials: 3,
            ttls_ms: vec![5_000],
            ..plan.clone()
        },
        0,
    )
    .unwrap();
    let row = csv_row(&plan, &r, None);
    assert_eq!(
        row.trim_end().split(',').count(),
        CSV_COLUMNS.len(),
        "{row}"
    );
    assert!(csv_header()
        .trim_end()
        .contains("node_jumps_per_hour,longest_fault_ms,fence_mode,threshold_pause_ms,"));
    assert!(row.contains(",1500000,20:5;100:40;2000:3,"), "{row}");
}

/// Every pause a trial issued in its first 50 s, with its time: the
/// drain after 60 s lasts as long as each system keeps its holders.
fn early_pauses(plan: &Plan, cell: u32, trial: u32) -> Vec<(u64, u64)> {
    let run = rebuild_trial(plan, cell, trial).unwrap();
    run.scenario
        .actions
        .iter()
        .filter_map(|a| match a.action {
            Action::Client {
                command: Command::GcPause { pause_ms },
                ..
            } if a.at.ms() < 50_000 => Some((a.at.ms(), pause_ms)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_system_axis_seeds_each_row_as_its_system_alone_and_all_meet_the_same_pauses() {
    // etcd at TTL 5 s, G1-like pauses with a long tail, in a p99 grid.
    let alone = grid(
        PauseProfile::log_normal(60_000, 2_000_000, 20_000_000),
        vec![2_000, 5_000],
        Axis::P99Us(vec![20_000_000]),
        40,
    );
    // The same cell as the third row of a system axis, at another place
    // in the grid, beside PostgreSQL with tuned keepalives, across
    // regions: none of which is the etcd cell's environment.
    let rows = Plan {
        backend: Backend::Redis,
        axis: Axis::System(vec![Backend::Redlock, Backend::Postgres, Backend::Etcd]),
        ttls_ms: vec![5_000],
        pg: distlock::sim::PgOptions::TUNED,
        ..alone.clone()
    };
    rows.validate().unwrap();
    let (a, b) = (run_cell(&alone, 1).unwrap(), run_cell(&rows, 2).unwrap());
    assert_eq!((a.cell, b.cell), (1, 2));
    assert!(a.corrupted > 0, "a cell with something to compare: {a:?}");
    assert_eq!(CellResult { cell: 0, ..a }, CellResult { cell: 0, ..b });
    assert_eq!(key_of(&alone, 1), key_of(&rows, 2));
    // Common random numbers: every row meets the same pauses at the same
    // times, so the systems differ by what they do with them.
    for trial in 0..4 {
        let etcd = early_pauses(&rows, 2, trial);
        assert!(!etcd.is_empty());
        for row in 0..2 {
            assert_eq!(
                early_pauses(&rows, row, trial),
                etcd,
                "row {row}, trial {trial}"
            );
        }
    }
    // The latency is compared like the TTL: the same pauses, other numbers.
    let far = Plan {
        network_rtt_ms: 70,
        ..alone.clone()
    };
    assert_eq!(key_of(&far, 1), key_of(&alone, 1));
    assert_eq!(early_pauses(&far, 1, 0), early_pauses(&alone, 1, 0));
    assert_ne!(run_cell(&far, 1).unwrap(), run_cell(&alone, 1).unwrap());
}

#[test]
fn a_fencing_mode_runs_where_its_system_offers_it_and_the_csv_says_which() {
    use distlock::sim::FenceMode;
    let plan = Plan {
        fencing: Fencing::On,
        fence: FenceMode::Takeover,
        axis: Axis::System(vec![Backend::Etcd, Backend::DynamoDb]),
        ttls_ms: vec![5_000],
        trials: 3,
        ..Plan::default()
    };
    plan.validate().unwrap();
    let rows: Vec<String> = (0..2)
        .map(|c| csv_row(&plan, &run_cell(&plan, c).unwrap(), None))
        .collect();
    assert!(rows[0].contains(",takeover,"), "{}", rows[0]);
    // DynamoDB offers only the check against the lock item: its own.
    assert!(rows[1].contains(",check,"), "{}", rows[1]);
    // The mode is the system's option: it meets the same pauses.
    let documented = Plan {
        fence: FenceMode::Documented,
        ..plan.clone()
    };
    assert_eq!(key_of(&plan, 0), key_of(&documented, 0));
    // Alone on a system that lacks it, it is refused by name.
    let alone = Plan {
        backend: Backend::DynamoDb,
        axis: Axis::P99Us(vec![2_000_000]),
        ..plan.clone()
    };
    let why = alone.validate().unwrap_err().to_string();
    assert!(
        why.starts_with("fencing check does not apply here"),
        "{why}"
    );
}
