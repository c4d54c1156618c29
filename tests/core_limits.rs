//! The core's limits, reached: each says what happens, and the run goes on.

use distlock::sim::{
    Action, ClientId, Command, CommandError, Config, Millis, Sim, HISTORY_LEN_MAX, SCRIPT_LEN_MAX,
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
