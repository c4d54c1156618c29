//! Prints the link of a long, busy run: four clients taking turns to
//! acquire, write and release through Redlock for about a minute, with
//! every message recorded. The page's benchmark opens it to measure the
//! timeline with more than 10,000 events.
//!
//! `cargo run --release --example big_run` prints the fragment (no `#`);
//! `-- --count` prints the number of history records instead.

use distlock::sim::Sim;
use distlock::sim::{Backend, ClientId, Millis, Seed};
use distlock::sim::{Command, Config, SCRIPT_LEN_MAX};
use distlock::wire::link::{self, RunLink};

/// Virtual time between two commands.
const STEP_MS: u64 = 60;

fn main() {
    let config = Config {
        backend: Backend::Redlock,
        seed: Seed(7),
        latency_scale: 1,
        ..Config::default()
    };
    let mut sim = Sim::new(config).expect("a valid configuration");
    let cycle = [Command::Acquire, Command::Write, Command::Release];
    let mut t = 0;
    let mut turn = 0usize;
    while sim.script().len() < SCRIPT_LEN_MAX {
        t += STEP_MS;
        sim.run_until(Millis(t));
        let client = ClientId::ALL[(turn / cycle.len()) % ClientId::COUNT];
        let command = cycle[turn % cycle.len()];
        turn += 1;
        // Only commands the run accepts go into the script, so it replays.
        let _refused = sim.command(client, command);
    }
    sim.run_until(Millis(t + 2_000));
    if std::env::args().any(|a| a == "--count") {
        println!("{}", sim.history().len());
    } else {
        println!("{}", link::encode(&RunLink::of(&sim, sim.now())));
    }
}
