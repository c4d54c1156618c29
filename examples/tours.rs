//! Prints every story's tour on every system it suits, fencing off, one
//! key moment a line, for reading the captions side by side:
//! `cargo run --example tours`.

use distlock::lesson::presets::PRESETS;
use distlock::lesson::tour;
use distlock::sim::{Fencing, Millis};

fn main() {
    for p in PRESETS {
        for &backend in p.backends {
            let Some(scenario) = p.scenario(backend, Fencing::Off) else {
                continue;
            };
            for m in tour::moments(p, &scenario, Millis(p.run_ms_on(backend))) {
                println!("{} {backend:?} {} {:?}: {}", p.id, m.at, m.look, m.caption);
            }
        }
    }
}
