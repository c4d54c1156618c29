//! What the core's and the page's test crates share (each includes this
//! file as its module `shared`): a client by its letter, and the scenario
//! to run first as a script. What one crate alone uses stays in that
//! crate's `common.rs`.

use distlock::sim::{ClientId, Command, Config, Scenario};

pub fn client(letter: char) -> ClientId {
    ClientId::from_letter(letter).expect("clients are A to D")
}

/// The scenario to run first, as a script on `config`: A takes the lock,
/// pauses 8 s at 1 s with a write clicked during the pause (sent as it
/// wakes), and B asks at 6 s and writes at 7 s.
pub fn first_scenario(config: Config) -> Scenario {
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(1_000, 'A', Command::Write)
        .client(6_000, 'B', Command::Acquire)
        .client(7_000, 'B', Command::Write)
}
