//! The core's limits, reached: each says what happens, and the run goes on.

use distlock::sim::{
    Action, ClientId, Command, CommandError, Config, Millis, Sim, HISTORY_LEN_MAX, SCRIPT_LEN_MAX,
    SCRIPT_TIME_MS_MAX,
};

#[test]
fn a_full_script_refuses_more_commands_in_its_own_words_and_the_clock_runs_on() {
    let mut sim = Sim::new(Config::default()).unwrap();
    let a = ClientId::ALL[0];
    for i in 0..SCRIPT_LEN_MAX {
        sim.run_until(Millis(i as u64 * 10));
        let on = i % 2 == 1;
        sim.act(Action::Client {
            client: a,
            command: Command::Renewal { on },
        })
        .unwrap_or_else(|e| panic!("command {i}: {e}"));
    }
    let more = Action::Client {
        client: a,
        command: Command::Acquire,
    };
    let refused = sim.act(more).unwrap_err();
    assert_eq!(refused, CommandError::ScriptFull);
    let words = refused.to_string();
    assert!(
        words.contains(&format!("holds {SCRIPT_LEN_MAX} commands")),
        "{words}"
    );
    assert!(
        words.contains("the clock still runs") && words.contains("Reset"),
        "{words}"
    );
    let before = sim.now();
    sim.run_until(before.plus(60_000));
    assert_eq!(sim.now(), before.plus(60_000));
}

#[test]
fn the_history_keeps_its_limit_and_counts_what_it_dropped() {
    // Four clients taking turns for a long while: more records than the
    // history keeps. The run goes on; the dropped ones are counted.
    let mut sim = Sim::new(Config::default()).unwrap();
    for c in ClientId::ALL {
        sim.act(Action::Client {
            client: c,
            command: Command::Acquire,
        })
        .unwrap();
    }
    let mut t = 0;
    while sim.history().len() < HISTORY_LEN_MAX && t < 200_000_000 {
        t += 3_600_000;
        sim.run_until(Millis(t));
    }
    assert_eq!(sim.history().len(), HISTORY_LEN_MAX, "at {t} ms");
    let dropped = sim.history_dropped();
    sim.run_until(Millis(t + 3_600_000));
    assert_eq!(sim.history().len(), HISTORY_LEN_MAX);
    assert!(sim.history_dropped() > dropped);
}

#[test]
fn past_one_day_the_run_refuses_commands_as_its_link_would_and_the_clock_runs_on() {
    let mut sim = Sim::new(Config::default()).unwrap();
    let a = ClientId::ALL[0];
    sim.run_until(Millis(SCRIPT_TIME_MS_MAX));
    // The last moment a link's command may carry still takes one.
    sim.act(Action::Client {
        client: a,
        command: Command::Acquire,
    })
    .unwrap();
    sim.run_until(Millis(SCRIPT_TIME_MS_MAX + 1));
    let refused = sim
        .act(Action::Client {
            client: a,
            command: Command::Release,
        })
        .unwrap_err();
    assert_eq!(refused, CommandError::DayOver);
    let words = refused.to_string();
    assert!(
        words.contains("one day") && words.contains("Reset"),
        "{words}"
    );
    assert_eq!(
        sim.check_node(
            distlock::sim::NodeId::new(1).unwrap(),
            distlock::sim::NodeCommand::Crash
        ),
        Err(CommandError::DayOver)
    );
    // Its link keeps the run to the one day a link holds, every command in it.
    let link = distlock::wire::link::encode(&distlock::wire::link::RunLink::of(&sim, sim.now()));
    let back = distlock::wire::link::decode(&link).map_err(|e| e.to_string());
    assert_eq!(
        back.map(|run| (run.scenario.actions.len(), run.end_ms, run.playhead_ms)),
        Ok((1, SCRIPT_TIME_MS_MAX, SCRIPT_TIME_MS_MAX))
    );
    let before = sim.now();
    sim.run_until(before.plus(60_000));
    assert_eq!(sim.now(), before.plus(60_000));
}

/// The extremes of a clock's jump and drift have no positive twin
/// (`i64::MIN`, `i32::MIN`): they are refused as out of range, on a client
/// and on a Redlock node alike, and change nothing. Found by the
/// `core_commands` fuzz target (fuzz/regressions/core_commands/).
#[test]
fn a_clock_jump_or_rate_at_the_integer_extremes_is_refused_and_changes_nothing() {
    use distlock::sim::{Backend, NodeCommand, NodeId};
    let mut sim = Sim::new(Config {
        backend: Backend::Redlock,
        ..Config::default()
    })
    .unwrap();
    let a = ClientId::ALL[0];
    let before = sim.history().len();
    for jump_ms in [i64::MIN, i64::MAX] {
        assert_eq!(
            sim.command(a, Command::ClockJump { jump_ms }),
            Err(CommandError::ClockJumpOutOfRange { jump_ms })
        );
        let node = NodeId::all().next().expect("Redlock has nodes");
        assert_eq!(
            sim.node_command(node, NodeCommand::ClockJump { jump_ms }),
            Err(CommandError::ClockJumpOutOfRange { jump_ms })
        );
    }
    for rate_pct in [i32::MIN, i32::MAX] {
        assert_eq!(
            sim.command(a, Command::ClockRate { rate_pct }),
            Err(CommandError::ClockRateOutOfRange { rate_pct })
        );
    }
    assert_eq!(sim.history().len(), before);
}
