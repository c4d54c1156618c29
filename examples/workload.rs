//! A fixed workload for instruction counts (valgrind --tool=callgrind).
use distlock::sim::rng::ChaCha8Rng;
use distlock::sim::{Backend, ClientId, Command, Config, Millis, Seed, Sim};
use rand::{RngExt, SeedableRng};
fn main() {
    let mut total = 0u64;
    let only = std::env::args().nth(1);
    for backend in [Backend::Redlock, Backend::ZooKeeper, Backend::Etcd] {
        if only.as_deref().is_some_and(|o| o != backend.slug()) {
            continue;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for run in 0..4u64 {
            let config = Config {
                backend,
                latency_scale: 1,
                seed: Seed(run),
                ..Config::default()
            };
            let mut sim = Sim::new(config).unwrap();
            let mut t = 0;
            for _ in 0..900 {
                t += rng.random_range(50..=1_000);
                sim.run_until(Millis(t));
                let client = ClientId::new(rng.random_range(0..4)).unwrap();
                let command = match rng.random_range(0..10) {
                    0..=3 => Command::Acquire,
                    4..=6 => Command::Write,
                    7 => Command::Release,
                    8 => Command::GcPause {
                        pause_ms: rng.random_range(100..=8_000),
                    },
                    _ => Command::Renewal {
                        on: rng.random_range(0..2) == 0,
                    },
                };
                let _ = sim.command(client, command);
            }
            total += sim.events_run();
        }
    }
    println!("{total} events");
}
