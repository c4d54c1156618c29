//! Same seed and same timed commands, same history: twice in one process,
//! and across machines. The fingerprint below is checked natively by
//! `cargo test` and in wasm32 by `scripts/test.sh` (wasm-bindgen-test in
//! Node), so the page replays exactly what the tests see.

use distlock::lesson::presets::gc_pause;
use distlock::sim::{
    Action, Backend, ClientId, Command, Config, Fencing, Millis, NodeCommand, NodeId, Scenario,
    Seed, Sim,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// FNV-1a, 64 bits: a fingerprint that needs no extra crate.
fn fingerprint(sim: &Sim) -> u64 {
    let json = serde_json::to_string(sim.history()).expect("history serializes");
    json.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A busy random script: every command kind, on every backend.
fn random_scenario(backend: Backend, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut scenario = Scenario::new(Config {
        backend,
        fencing: Fencing::On,
        seed: Seed(seed),
        ..Config::default()
    });
    let mut t = 0;
    for _ in 0..300 {
        t += rng.random_range(0..1_500);
        let client = ClientId::new(rng.random_range(0..4)).unwrap();
        let command = match rng.random_range(0..12) {
            0..=2 => Command::Acquire,
            3..=4 => Command::Write,
            5 => Command::Release,
            6 => Command::GcPause {
                pause_ms: rng.random_range(1..9_000),
            },
            7 => Command::Partition {
                scope: distlock::sim::PartitionScope::Service,
            },
            8 => Command::Heal,
            9 => Command::Crash,
            10 => Command::Restart,
            _ => Command::WriteDelayed {
                extra_ms: rng.random_range(0..5_000),
            },
        };
        scenario = scenario.at(t, Action::Client { client, command });
        if backend == Backend::Redlock && rng.random_range(0..10) == 0 {
            let node = NodeId::new(rng.random_range(1..=5)).unwrap();
            let command = match rng.random_range(0..3) {
                0 => NodeCommand::Crash,
                1 => NodeCommand::Restart,
                _ => NodeCommand::ClockJump { jump_ms: 3_000 },
            };
            scenario = scenario.at(t, Action::Node { node, command });
        }
    }
    scenario
}

/// Runs the script, skipping what a state refuses (a person clicking).
fn run(scenario: &Scenario) -> Sim {
    let mut sim = Sim::new(scenario.config.clone()).unwrap();
    for timed in &scenario.actions {
        sim.run_until(timed.at);
        let _ = sim.act(timed.action);
    }
    sim.run_until(scenario.last_at().plus(30_000));
    sim
}

const BACKENDS: [Backend; 3] = [Backend::Etcd, Backend::ZooKeeper, Backend::Redlock];

/// Recorded from a native run; a change here means replays and shared links
/// made before it no longer reproduce the same story.
const FINGERPRINTS: [u64; 3] = [
    13_217_355_932_505_229_065,
    15_833_445_710_572_068_988,
    4_942_821_455_743_978_867,
];

#[test]
fn same_seed_same_commands_same_history() {
    for backend in BACKENDS {
        let scenario = random_scenario(backend, 42);
        let one = run(&scenario);
        let two = run(&scenario);
        assert!(one.history().len() > 500, "{backend}: a busy run");
        assert_eq!(one.history(), two.history(), "{backend}");
    }
}

#[test]
fn the_history_fingerprint_is_the_same_on_every_machine() {
    let got: Vec<u64> = BACKENDS
        .iter()
        .map(|&b| fingerprint(&run(&random_scenario(b, 42))))
        .collect();
    assert_eq!(got, FINGERPRINTS, "history fingerprints (seed 42)");
}

#[test]
fn the_scenario_to_run_first_replays_from_its_json() {
    for backend in BACKENDS {
        let scenario = gc_pause(Config {
            backend,
            ..Config::default()
        });
        let from_json = Scenario::from_json(&scenario.to_json()).unwrap();
        let a = Sim::replay(&scenario, Millis(12_000)).unwrap();
        let b = Sim::replay(&from_json, Millis(12_000)).unwrap();
        assert_eq!(fingerprint(&a), fingerprint(&b), "{backend}");
    }
}
