//! Prints simulated events per second over a long randomized run, runs
//! per second of the scenario to run first, and the hazard explorer's
//! sixty-second trials per second on one core and on every core.
//! `cargo bench --bench sim`; `cargo bench --bench sim -- hazard etcd`
//! prints only the parts named (random, virtual, snapshot, scenario,
//! hazard), for the systems named (by slug) if any.

use distlock::lesson::presets::gc_pause;
use distlock::sim::rng::ChaCha8Rng;
use distlock::sim::{Backend, ClientId, Command, Config, Millis, Seed, Sim};
use distlock::tools::explore::{run_cell, run_trials, Axis, Plan};
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::time::Instant;

/// Events a randomized run processes before it is timed.
const EVENTS_TARGET: u64 = 5_000_000;
const SCENARIO_RUNS: u32 = 20_000;
/// Hazard trials per backend, run once on one core and once on every core.
const HAZARD_TRIALS: u32 = 20_000;
const HAZARD_CHUNK: u32 = 500;

/// Runs fresh simulations of up to `COMMANDS_PER_RUN` random clicks each
/// (a run keeps at most 1,000 commands) until `EVENTS_TARGET` events ran.
fn random_run(backend: Backend) -> (u64, f64) {
    const COMMANDS_PER_RUN: u32 = 900;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut events = 0;
    let started = Instant::now();
    let mut run = 0;
    while events < EVENTS_TARGET {
        run += 1;
        let config = Config {
            backend,
            seed: Seed(run),
            ..Config::default()
        };
        let mut sim = Sim::new(config).expect("default config is valid");
        let mut t = 0;
        for _ in 0..COMMANDS_PER_RUN {
            t += rng.random_range(50..=2_000);
            sim.run_until(Millis(t));
            let client = ClientId::new(rng.random_range(0..4)).unwrap();
            // Many random clicks are refused in some state; that is fine.
            let _ = sim.command(client, random_command(&mut rng));
        }
        events += sim.events_run();
    }
    (events, started.elapsed().as_secs_f64())
}

fn random_command(rng: &mut ChaCha8Rng) -> Command {
    match rng.random_range(0..10) {
        0..=3 => Command::Acquire,
        4..=6 => Command::Write,
        7 => Command::Release,
        8 => Command::GcPause {
            pause_ms: rng.random_range(100..=8_000),
        },
        _ => Command::Renewal {
            on: rng.random_range(0..2) == 0,
        },
    }
}

/// Virtual seconds simulated per wall second: four clients clicking at
/// random (acquire, write, release, short pauses) at latency scale 1.
fn virtual_speed(backend: Backend) -> (u64, f64) {
    const VIRTUAL_MS: u64 = 3_600_000;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let config = Config {
        backend,
        latency_scale: 1,
        seed: Seed(5),
        ..Config::default()
    };
    let started = Instant::now();
    let mut virtual_ms = 0;
    while virtual_ms < VIRTUAL_MS {
        // A run keeps at most 1,000 commands: start a fresh one after 900.
        let mut sim = Sim::new(config.clone()).expect("valid config");
        let mut t = 0;
        for _ in 0..900 {
            t += rng.random_range(50..=1_000);
            sim.run_until(Millis(t));
            let client = ClientId::new(rng.random_range(0..4)).unwrap();
            let _ = sim.command(client, random_command(&mut rng));
        }
        virtual_ms += t;
    }
    (virtual_ms, started.elapsed().as_secs_f64())
}

/// Snapshots (a copy without the history) plus a state fingerprint, per
/// second, of a run in the middle of the scenario to run first.
fn snapshot_speed(backend: Backend) -> f64 {
    const SNAPSHOTS: u32 = 200_000;
    let scenario = gc_pause(Config {
        backend,
        ..Config::default()
    });
    let sim = Sim::replay(&scenario, Millis(7_500)).expect("the scenario runs");
    let started = Instant::now();
    let mut sum = 0u64;
    for _ in 0..SNAPSHOTS {
        let copy = std::hint::black_box(&sim).snapshot();
        sum = sum.wrapping_add(copy.fingerprint());
    }
    std::hint::black_box(sum);
    f64::from(SNAPSHOTS) / started.elapsed().as_secs_f64()
}

/// The explorer's default workload (three clients, 500 ms holds, 15 s of
/// thinking, G1 pauses with a 2 s p99, a 5 s TTL): trials per second on
/// this thread alone, then spread over rayon's pool, and events per trial.
fn hazard_speed(backend: Backend) -> (f64, f64, u64) {
    let plan = Plan {
        backend,
        ttls_ms: vec![5_000],
        axis: Axis::P99Us(vec![2_000_000]),
        trials: HAZARD_TRIALS,
        ..Plan::default()
    };
    let started = Instant::now();
    let one = run_cell(&plan, 0).expect("the default plan is valid");
    let one_core = f64::from(HAZARD_TRIALS) / started.elapsed().as_secs_f64();
    let started = Instant::now();
    let all = (0..HAZARD_TRIALS / HAZARD_CHUNK)
        .into_par_iter()
        .map(|k| run_trials(&plan, 0, k * HAZARD_CHUNK..(k + 1) * HAZARD_CHUNK).unwrap())
        .reduce_with(|a, b| a.merge(&b))
        .expect("some chunks");
    let all_cores = f64::from(HAZARD_TRIALS) / started.elapsed().as_secs_f64();
    assert_eq!(
        all, one,
        "{backend}: the same counts however the trials are spread"
    );
    (one_core, all_cores, one.events / u64::from(HAZARD_TRIALS))
}

/// The words on the command line (cargo adds `--bench`).
fn named() -> Vec<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect()
}

/// Whether the command line asks for `part`: every part when it names none.
fn wanted(part: &str) -> bool {
    let parts = ["random", "virtual", "snapshot", "scenario", "hazard"];
    let named: Vec<String> = named()
        .into_iter()
        .filter(|n| parts.contains(&n.as_str()))
        .collect();
    named.is_empty() || named.iter().any(|n| n == part)
}

/// Whether the command line asks for `backend`: every one when it names none.
fn system_wanted(backend: Backend) -> bool {
    let named: Vec<Backend> = named()
        .iter()
        .filter_map(|n| Backend::from_slug(n))
        .collect();
    named.is_empty() || named.contains(&backend)
}

fn main() {
    println!("distlock simulation benchmark");
    for backend in [Backend::Etcd, Backend::ZooKeeper, Backend::Redlock] {
        if !wanted("random") || !system_wanted(backend) {
            continue;
        }
        let (events, secs) = random_run(backend);
        println!(
            "  {:<9} randomized run: {:>9} events in {:>6.3} s = {:>6.2} million events/s",
            backend.name(),
            events,
            secs,
            events as f64 / secs / 1e6
        );
    }
    for backend in Backend::ALL {
        if !wanted("virtual") || !system_wanted(backend) {
            continue;
        }
        let (virtual_ms, secs) = virtual_speed(backend);
        println!(
            "  {:<9} four clients at random, latency 1x: {:>8.0} virtual s per wall s",
            backend.name(),
            virtual_ms as f64 / 1000.0 / secs
        );
    }
    for backend in Backend::ALL {
        if !wanted("snapshot") || !system_wanted(backend) {
            continue;
        }
        println!(
            "  {:<9} snapshot + fingerprint: {:>9.0} per s",
            backend.name(),
            snapshot_speed(backend)
        );
    }
    for backend in [Backend::Etcd, Backend::ZooKeeper, Backend::Redlock] {
        if !wanted("scenario") || !system_wanted(backend) {
            continue;
        }
        let scenario = gc_pause(Config {
            backend,
            ..Config::default()
        });
        let started = Instant::now();
        let mut events = 0;
        for _ in 0..SCENARIO_RUNS {
            let mut sim = Sim::from_scenario(&scenario).expect("the scenario runs");
            sim.run_until(Millis(12_000));
            events += sim.events_run();
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "  {:<9} scenario to run first: {:>8.0} runs/s ({} events per run)",
            backend.name(),
            f64::from(SCENARIO_RUNS) / secs,
            events / u64::from(SCENARIO_RUNS)
        );
    }
    let threads = rayon::current_num_threads();
    for backend in Backend::ALL {
        if !wanted("hazard") || !system_wanted(backend) {
            continue;
        }
        let (one, all, events) = hazard_speed(backend);
        println!(
            "  {:<9} hazard explorer: {:>7.0} trials/s on one core, {:>7.0} on {} threads ({} events per trial)",
            backend.name(),
            one,
            all,
            threads,
            events
        );
    }
}
