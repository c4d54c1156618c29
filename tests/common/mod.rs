//! What the core's tests share: a client by its letter, a scenario replayed
//! to a time, a run's story in words (without the messages on the wire),
//! and the grants one client got.

// Each test file is a crate of its own and uses some of these.
#![allow(dead_code)]

use distlock::sim::{ClientId, Event, Millis, Scenario, Sim, Token};

pub fn client(letter: char) -> ClientId {
    ClientId::from_letter(letter).expect("clients are A to D")
}

/// Replays `scenario` to `until_ms`: a step the run refuses fails the test.
pub fn run(scenario: &Scenario, until_ms: u64) -> Sim {
    Sim::replay(scenario, Millis(until_ms))
        .unwrap_or_else(|e| panic!("the script runs (seed {}): {e}", scenario.config.seed))
}

/// The run's history, a line a record, without the messages sent.
pub fn story(sim: &Sim) -> String {
    sim.history()
        .iter()
        .filter(|r| !matches!(r.event, Event::MessageSent { .. }))
        .map(|r| format!("{r}\n"))
        .collect()
}

/// Grants to `who`: (time, token).
pub fn grants(sim: &Sim, who: char) -> Vec<(Millis, Option<Token>)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Acquired {
                client: c, token, ..
            } if c == client(who) => Some((r.at, token)),
            _ => None,
        })
        .collect()
}
