#![cfg(not(target_arch = "wasm32"))]
//! Property tests over random command sequences, per backend. The number of
//! cases comes from PROPTEST_CASES (CI sets 1000). A failing case prints the
//! whole input, seed included.

use distlock::sim::{
    Action, Backend, ClientId, Command, Config, Event, Fencing, Millis, NodeCommand, NodeId,
    PartitionScope, PgOptions, Scenario, Seed, Sim, Token,
};
use distlock::wire::link::{self, RunLink};
use proptest::prelude::*;

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        6 => Just(Command::Acquire),
        5 => Just(Command::Write),
        1 => (0u64..8_000).prop_map(|extra_ms| Command::WriteDelayed { extra_ms }),
        3 => Just(Command::Release),
        2 => (0u64..12_000).prop_map(|pause_ms| Command::GcPause { pause_ms }),
        1 => Just(Command::Partition { scope: PartitionScope::Service }),
        1 => Just(Command::Partition { scope: PartitionScope::ServiceAndResource }),
        2 => Just(Command::Heal),
        1 => Just(Command::Crash),
        1 => Just(Command::Restart),
        1 => any::<bool>().prop_map(|on| Command::Renewal { on }),
        1 => (-20_000i64..20_000).prop_map(|jump_ms| Command::ClockJump { jump_ms }),
        1 => (-30i32..=30).prop_map(|rate_pct| Command::ClockRate { rate_pct }),
        1 => any::<bool>().prop_map(|on| Command::LoseMessages { on }),
    ]
}

fn node_command() -> impl Strategy<Value = NodeCommand> {
    prop_oneof![
        Just(NodeCommand::Crash),
        Just(NodeCommand::Restart),
        (-20_000i64..20_000).prop_map(|jump_ms| NodeCommand::ClockJump { jump_ms }),
        (0u64..6_000).prop_map(|extra_ms| NodeCommand::Slow { extra_ms }),
    ]
}

fn action(backend: Backend) -> BoxedStrategy<Action> {
    let client = (0u8..4, command()).prop_map(|(c, command)| Action::Client {
        client: ClientId::new(c).unwrap(),
        command,
    });
    if backend == Backend::Postgres {
        // Failover on the primary (node 1); anything else is refused.
        let node = (1u8..=5, node_command()).prop_map(|(n, command)| Action::Node {
            node: NodeId::new(n).unwrap(),
            command,
        });
        let failover = Just(Action::Node {
            node: NodeId::new(1).unwrap(),
            command: NodeCommand::Failover,
        });
        return prop_oneof![16 => client, 1 => failover, 1 => node].boxed();
    }
    if backend != Backend::Redlock {
        return client.boxed();
    }
    let node = (1u8..=5, node_command()).prop_map(|(n, command)| Action::Node {
        node: NodeId::new(n).unwrap(),
        command,
    });
    prop_oneof![8 => client, 1 => node].boxed()
}

fn config(backend: Backend) -> impl Strategy<Value = Config> {
    (any::<u64>(), any::<bool>(), 1u64..=30, 1u32..=30).prop_map(
        move |(seed, fencing, ttl_s, latency_scale)| Config {
            backend,
            fencing: if fencing { Fencing::On } else { Fencing::Off },
            ttl_ms: ttl_s * 1_000,
            seed: Seed(seed),
            latency_scale,
            ..Config::default()
        },
    )
}

/// PostgreSQL with keepalives short enough to give up inside a run.
fn pg_config() -> impl Strategy<Value = Config> {
    (config(Backend::Postgres), 1u64..=20, 1u64..=10, 1u64..=5).prop_map(
        |(config, keepalives_idle_s, keepalives_interval_s, keepalives_count)| Config {
            pg: PgOptions {
                keepalives_idle_s,
                keepalives_interval_s,
                keepalives_count,
            },
            ..config
        },
    )
}

/// A run: config plus actions at increasing times (gaps of 0-3 s).
fn run_input(backend: Backend) -> impl Strategy<Value = (Config, Vec<(u64, Action)>)> {
    (
        config(backend),
        prop::collection::vec((0u64..3_000, action(backend)), 1..40),
    )
}

fn check_run(config: Config, steps: Vec<(u64, Action)>) -> Result<(), TestCaseError> {
    let seed = config.seed;
    let mut sim = Sim::new(config.clone()).unwrap();
    let mut t = 0;
    for (gap, action) in steps {
        t += gap;
        sim.run_until(Millis(t));
        let (before, state) = (sim.history().len(), sim.fingerprint());
        if sim.act(action).is_err() {
            // A refused command changes nothing.
            prop_assert_eq!(sim.history().len(), before, "seed {}", seed);
            prop_assert_eq!(sim.fingerprint(), state, "seed {}", seed);
        }
    }
    sim.run_until(Millis(t + 40_000));

    // With fencing on, no accepted write has a token below the highest.
    let mut highest: Option<Token> = None;
    let mut grants: Option<Token> = None;
    for record in sim.history() {
        match &record.event {
            Event::WriteAccepted { token, .. } if config.fencing == Fencing::On => {
                let token = token.expect("fencing on never accepts a write without a token");
                if let Some(h) = highest {
                    prop_assert!(token >= h, "seed {}: {} accepted after {}", seed, token, h);
                }
                highest = Some(token);
            }
            Event::HolderChanged {
                token: Some(token), ..
            } if sim.monotonic_tokens() => {
                if let Some(before) = grants {
                    prop_assert!(*token >= before, "seed {}: token went back", seed);
                }
                grants = Some(*token);
            }
            _ => {}
        }
    }

    // Replaying the same seed and commands gives the identical history.
    let scenario: Scenario = sim.scenario();
    let json = scenario.to_json();
    let replayed = Sim::replay(&Scenario::from_json(&json).unwrap(), sim.now()).unwrap();
    prop_assert!(
        replayed.history() == sim.history(),
        "seed {}: replay differs",
        seed
    );
    prop_assert_eq!(
        replayed.fingerprint(),
        sim.fingerprint(),
        "seed {}: same state, same fingerprint",
        seed
    );

    // A snapshot is the same state without the history, and goes on the same.
    let mut snapshot = sim.snapshot();
    prop_assert!(snapshot.history().is_empty());
    prop_assert_eq!(snapshot.fingerprint(), sim.fingerprint(), "seed {}", seed);
    let mut original = sim.clone();
    let later = Millis(sim.now().ms() + 20_000);
    original.run_until(later);
    snapshot.run_until(later);
    prop_assert_eq!(
        snapshot.fingerprint(),
        original.fingerprint(),
        "seed {}",
        seed
    );

    // The same run through a link: read back as written, at any playhead.
    let run = RunLink::of(&sim, Millis(sim.now().ms() / 2));
    let fragment = link::encode(&run);
    prop_assert_eq!(
        link::decode(&fragment),
        Ok(run),
        "seed {}: link round trip",
        seed
    );
    Ok(())
}

proptest! {
    #[test]
    fn etcd_random_runs_hold_the_invariants((config, steps) in run_input(Backend::Etcd)) {
        check_run(config, steps)?;
    }

    #[test]
    fn zookeeper_random_runs_hold_the_invariants((config, steps) in run_input(Backend::ZooKeeper)) {
        check_run(config, steps)?;
    }

    #[test]
    fn redlock_random_runs_hold_the_invariants((config, steps) in run_input(Backend::Redlock)) {
        check_run(config, steps)?;
    }

    #[test]
    fn postgres_random_runs_hold_the_invariants(
        config in pg_config(),
        steps in prop::collection::vec((0u64..3_000, action(Backend::Postgres)), 1..40),
    ) {
        check_run(config, steps)?;
    }
}
