#![cfg(not(target_arch = "wasm32"))]
//! Property tests over random command sequences, per backend. The number of
//! cases comes from PROPTEST_CASES (CI sets 1000). A failing case prints the
//! whole input, seed included.

use distlock::sim::{
    Action, Backend, ChubbyOptions, ClientId, Command, Config, ConsulOptions, ConsulToken,
    DynamoOptions, Event, ExtendMode, FenceMode, FenceRule, Fencing, KeyCleanup, Millis,
    NodeCommand, NodeId, PartitionScope, Persistence, PgOptions, RedisOptions, ReleaseMode,
    ReplicaWait, RestartPolicy, Scenario, Seed, Sim, Token, CHUBBY_LOCK_DELAY_MS_MAX,
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
        1 => Just(Command::PowerOff),
        1 => Just(Command::Exit),
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
        Just(NodeCommand::Failover),
        (-20_000i64..20_000).prop_map(|jump_ms| NodeCommand::ClockJump { jump_ms }),
        (0u64..6_000).prop_map(|extra_ms| NodeCommand::Slow { extra_ms }),
        Just(NodeCommand::Failover),
    ]
}

fn action(backend: Backend) -> BoxedStrategy<Action> {
    let client = (0u8..4, command()).prop_map(|(c, command)| Action::Client {
        client: ClientId::new(c).unwrap(),
        command,
    });
    let nodes = match backend {
        Backend::Redlock => 5,
        Backend::Redis => 2,
        Backend::Postgres => {
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
        _ => {
            // A replicated service's one node command: its leader fails
            // over (any node names it; a system without one refuses).
            let failover = (1u8..=5).prop_map(|n| Action::Node {
                node: NodeId::new(n).unwrap(),
                command: NodeCommand::Failover,
            });
            return prop_oneof![12 => client, 1 => failover].boxed();
        }
    };
    let node = (1u8..=nodes, node_command()).prop_map(|(n, command)| Action::Node {
        node: NodeId::new(n).unwrap(),
        command,
    });
    prop_oneof![8 => client, 1 => node].boxed()
}

fn config(backend: Backend) -> impl Strategy<Value = Config> {
    (
        (any::<u64>(), any::<bool>(), 1u64..=30, 1u32..=30),
        (0u64..=CHUBBY_LOCK_DELAY_MS_MAX, 0usize..4),
    )
        .prop_map(
            move |((seed, fencing, ttl_s, latency_scale), (lock_delay_ms, fence))| Config {
                backend,
                fencing: if fencing { Fencing::On } else { Fencing::Off },
                ttl_ms: ttl_s * 1_000,
                seed: Seed(seed),
                latency_scale,
                // Only Chubby reads it; the others keep the default.
                chubby: ChubbyOptions {
                    lock_delay_ms: if backend == Backend::Chubby {
                        lock_delay_ms
                    } else {
                        ChubbyOptions::default().lock_delay_ms
                    },
                },
                // Any mode, offered or not: one a system lacks falls back
                // to its documented mode.
                fence: [
                    FenceMode::Documented,
                    FenceMode::Highest,
                    FenceMode::Check,
                    FenceMode::Takeover,
                ][fence],
                ..Config::default()
            },
        )
}

/// Consul's settings drawn too: which index (or the sequencer) is the
/// token, whether the key is deleted when a lock ends, the lock-delay, and
/// MonitorRetries (the api's 0 or consul lock's 3).
fn consul_config() -> impl Strategy<Value = Config> {
    (
        config(Backend::Consul),
        0u8..3,
        any::<bool>(),
        0u64..=60,
        any::<bool>(),
    )
        .prop_map(|(config, token, delete, lock_delay_s, retries)| Config {
            consul: ConsulOptions {
                token: match token {
                    0 => ConsulToken::ModifyIndex,
                    1 => ConsulToken::LockIndex,
                    _ => ConsulToken::Sequencer,
                },
                cleanup: if delete {
                    KeyCleanup::Delete
                } else {
                    KeyCleanup::Keep
                },
                lock_delay_s,
                monitor_retries: if retries { 3 } else { 0 },
            },
            ..config
        })
}

/// A Redis flavour with its options drawn too: how the client releases and
/// extends, what a crashed server keeps, when it may come back, and (single
/// Redis only) its `WAIT` after taking the key: none, Redisson's, the
/// application's `WAIT 1`.
fn redis_config(backend: Backend) -> impl Strategy<Value = Config> {
    (config(backend), any::<[bool; 4]>(), 0..3usize).prop_map(
        move |(config, [plain_del, blind_set, fsync, delayed], wait)| Config {
            redis: RedisOptions {
                release: if plain_del {
                    ReleaseMode::PlainDel
                } else {
                    ReleaseMode::CheckValue
                },
                extend: if blind_set {
                    ExtendMode::BlindSet
                } else {
                    ExtendMode::CheckValue
                },
                persistence: if fsync {
                    Persistence::Fsync
                } else {
                    Persistence::None
                },
                restart: if delayed {
                    RestartPolicy::Delayed
                } else {
                    RestartPolicy::Immediate
                },
                wait: if backend == Backend::Redis {
                    ReplicaWait::ALL[wait]
                } else {
                    ReplicaWait::Off
                },
            },
            ..config
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

/// A DynamoDB run, its heartbeat period, a waiter's patience, whether
/// the application polls isExpired() and whether it set a session monitor
/// drawn too.
fn dynamo_input() -> impl Strategy<Value = (Config, Vec<(u64, Action)>)> {
    (
        run_input(Backend::DynamoDb),
        2u32..=10,
        0u32..=400,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                (config, steps),
                heartbeats_per_lease,
                extra_wait_pct,
                app_checks_expiry,
                session_monitor,
            )| {
                let dynamo = DynamoOptions {
                    heartbeats_per_lease,
                    extra_wait_pct,
                    app_checks_expiry,
                    session_monitor,
                };
                (Config { dynamo, ..config }, steps)
            },
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

    // With fencing on, no accepted write has a token below the highest;
    // where the check is on the lock item's owner (or Consul's sequencer,
    // checked against the key), every accepted write comes from the client
    // the service names as holder.
    let mut highest: Option<Token> = None;
    let mut grants: Option<Token> = None;
    let mut holder: Option<ClientId> = None;
    let owner_rule = matches!(
        config.backend.fence_rule_in(&config),
        FenceRule::LockOwner | FenceRule::Sequencer | FenceRule::LockHeld
    );
    for record in sim.history() {
        if let Event::HolderChanged { holder: h, .. } = &record.event {
            holder = *h;
        }
        match &record.event {
            Event::WriteAccepted { client, .. } if config.fencing == Fencing::On && owner_rule => {
                prop_assert_eq!(
                    holder,
                    Some(*client),
                    "seed {}: accepted while another owned the item",
                    seed
                );
            }
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
    // So is one copied into another run's state, whose buffers it reuses.
    let mut copied = replayed.clone();
    copied.run_until(Millis(sim.now().ms() + 7_000));
    sim.snapshot_into(&mut copied);
    prop_assert!(copied.history().is_empty());
    prop_assert_eq!(copied.fingerprint(), sim.fingerprint(), "seed {}", seed);
    let mut original = sim.clone();
    let later = Millis(sim.now().ms() + 20_000);
    original.run_until(later);
    snapshot.run_until(later);
    copied.run_until(later);
    prop_assert_eq!(
        snapshot.fingerprint(),
        original.fingerprint(),
        "seed {}",
        seed
    );
    prop_assert!(copied.history() == snapshot.history(), "seed {}", seed);
    prop_assert_eq!(
        copied.fingerprint(),
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
    fn redis_random_runs_hold_the_invariants(
        config in redis_config(Backend::Redis),
        steps in prop::collection::vec((0u64..3_000, action(Backend::Redis)), 1..40),
    ) {
        check_run(config, steps)?;
    }

    #[test]
    fn chubby_random_runs_hold_the_invariants((config, steps) in run_input(Backend::Chubby)) {
        check_run(config, steps)?;
    }

    #[test]
    fn redlock_random_runs_hold_the_invariants(
        config in redis_config(Backend::Redlock),
        steps in prop::collection::vec((0u64..3_000, action(Backend::Redlock)), 1..40),
    ) {
        check_run(config, steps)?;
    }

    #[test]
    fn dynamodb_random_runs_hold_the_invariants((config, steps) in dynamo_input()) {
        check_run(config, steps)?;
    }

    #[test]
    fn consul_random_runs_hold_the_invariants(
        config in consul_config(),
        steps in prop::collection::vec((0u64..3_000, action(Backend::Consul)), 1..40),
    ) {
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
