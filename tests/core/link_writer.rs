//! The page writes a run's JSON by hand (`wire::run_json`), without serde's
//! serializer in its first load. Links and run files must keep their bytes:
//! an old page reads a new link, and every link a page wrote before reads
//! the same. These tests hold the hand-written JSON to what serde_json
//! writes from the same run (the writer the page used until then), for
//! every setting's every value, every command, every preset's run and its
//! history.

use distlock::lesson::presets::PRESETS;
use distlock::sim::{
    Action, Backend, ClientId, Command, Config, ConsulToken, ExtendMode, Fencing, KeyCleanup,
    Millis, NodeCommand, NodeId, PartitionScope, Persistence, ReleaseMode, ReplicaWait,
    RestartPolicy, Scenario, Seed, Sim, TimedAction, ZkClient, SCENARIO_VERSION,
};
use distlock::wire::link::{self, base64url, RunLink};
use serde::Serialize;

/// The run as the page serialized it with serde, field for field.
#[derive(Serialize)]
struct SerdeRun<'a> {
    version: u32,
    config: &'a Config,
    actions: &'a [TimedAction],
    playhead_ms: u64,
    end_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<Vec<Line>>,
}

#[derive(Serialize)]
struct Line {
    at_ms: u64,
    text: String,
}

fn serde_json_of(run: &RunLink, history: Option<Vec<Line>>) -> String {
    serde_json::to_string(&SerdeRun {
        version: run.scenario.version,
        config: &run.scenario.config,
        actions: &run.scenario.actions,
        playhead_ms: run.playhead_ms,
        end_ms: run.end_ms,
        history,
    })
    .expect("plain data serializes")
}

/// The link and the bare run file, each against serde's.
fn assert_same_as_serde(name: &str, run: &RunLink) {
    let json = serde_json_of(run, None);
    assert_eq!(
        link::encode(run),
        format!("v1.{}", base64url(json.as_bytes())),
        "{name}: the link differs from serde's ({json})"
    );
    let empty = serde_json_of(run, Some(Vec::new()));
    assert_eq!(link::to_run_file(run, &[]), empty, "{name}: the run file");
}

fn run_of(config: Config, actions: Vec<TimedAction>) -> RunLink {
    RunLink {
        scenario: Scenario {
            version: SCENARIO_VERSION,
            config,
            actions,
        },
        playhead_ms: 1_500,
        end_ms: 86_400_000,
    }
}

fn client(at: u64, letter: char, command: Command) -> TimedAction {
    TimedAction {
        at: Millis(at),
        action: Action::Client {
            client: ClientId::from_letter(letter).expect("A to D"),
            command,
        },
    }
}

fn node(at: u64, number: u8, command: NodeCommand) -> TimedAction {
    TimedAction {
        at: Millis(at),
        action: Action::Node {
            node: NodeId::new(number).expect("1 to 5"),
            command,
        },
    }
}

/// Every command and node command, with negative, zero and large numbers.
fn every_action() -> Vec<TimedAction> {
    use Command as C;
    use NodeCommand as N;
    let commands = [
        C::Acquire,
        C::Write,
        C::WriteDelayed { extra_ms: 7_000 },
        C::Release,
        C::GcPause { pause_ms: 8_000 },
        C::Partition {
            scope: PartitionScope::Service,
        },
        C::Partition {
            scope: PartitionScope::ServiceAndResource,
        },
        C::Heal,
        C::PowerOff,
        C::Exit,
        C::Restart,
        C::Renewal { on: true },
        C::Renewal { on: false },
        C::ClockJump { jump_ms: -12_345 },
        C::ClockJump { jump_ms: i64::MAX },
        C::ClockRate { rate_pct: -50 },
        C::ClockRate { rate_pct: 0 },
        C::LoseMessages { on: true },
        C::LoseMessages { on: false },
    ];
    let nodes = [
        N::Crash,
        N::Restart,
        N::ClockJump { jump_ms: -1 },
        N::ClockJump { jump_ms: 60_000 },
        N::Slow { extra_ms: 0 },
        N::Slow { extra_ms: u64::MAX },
        N::Failover,
    ];
    let letters = ['A', 'B', 'C', 'D'];
    let mut actions: Vec<TimedAction> = commands
        .into_iter()
        .enumerate()
        .map(|(i, c)| client(i as u64 * 100, letters[i % 4], c))
        .collect();
    actions.extend(
        nodes
            .into_iter()
            .enumerate()
            .map(|(i, c)| node(5_000 + i as u64, (i % 5) as u8 + 1, c)),
    );
    actions
}

/// Configurations that between them give every setting each of its values.
fn every_setting() -> Vec<Config> {
    let base = Config::default;
    let mut configs = Vec::new();
    for backend in Backend::ALL {
        for fencing in [Fencing::On, Fencing::Off] {
            configs.push(Config {
                backend,
                fencing,
                ..base()
            });
        }
    }
    let mut c = base();
    c.seed = Seed(u64::MAX);
    c.ttl_ms = 0;
    c.latency_scale = u32::MAX;
    c.network_rtt_ms = u32::MAX;
    c.renewal = [false, true, false, true];
    configs.push(c);
    for (release, extend, persistence, restart) in [
        (
            ReleaseMode::CheckValue,
            ExtendMode::CheckValue,
            Persistence::None,
            RestartPolicy::Immediate,
        ),
        (
            ReleaseMode::PlainDel,
            ExtendMode::BlindSet,
            Persistence::Fsync,
            RestartPolicy::Delayed,
        ),
    ] {
        for wait in ReplicaWait::ALL {
            let mut c = base();
            c.redis.release = release;
            c.redis.extend = extend;
            c.redis.persistence = persistence;
            c.redis.restart = restart;
            c.redis.wait = wait;
            configs.push(c);
        }
    }
    for client in [ZkClient::Curator, ZkClient::Native] {
        let mut c = base();
        c.zk.client = client;
        c.zk.tick_ms = 2_000;
        c.chubby.lock_delay_ms = 0;
        configs.push(c);
    }
    for (token, cleanup, retries) in [
        (ConsulToken::ModifyIndex, KeyCleanup::Keep, 0),
        (ConsulToken::LockIndex, KeyCleanup::Delete, 3),
        (ConsulToken::Sequencer, KeyCleanup::Keep, u32::MAX),
    ] {
        let mut c = base();
        c.consul.token = token;
        c.consul.cleanup = cleanup;
        c.consul.monitor_retries = retries;
        c.consul.lock_delay_s = 15;
        c.fence = distlock::sim::FenceMode::Check;
        configs.push(c);
    }
    for checks in [true, false] {
        let mut c = base();
        c.dynamo.app_checks_expiry = checks;
        c.dynamo.heartbeats_per_lease = 10;
        c.dynamo.extra_wait_pct = 1_000;
        c.pg = distlock::sim::PgOptions::TUNED;
        c.fence = distlock::sim::FenceMode::Takeover;
        configs.push(c);
    }
    configs
}

#[test]
fn every_setting_and_command_is_written_as_serde_wrote_it() {
    for (i, config) in every_setting().into_iter().enumerate() {
        assert_same_as_serde(&format!("setting {i}"), &run_of(config, Vec::new()));
    }
    for backend in Backend::ALL {
        let config = Config {
            backend,
            ..Config::default()
        };
        assert_same_as_serde(
            &format!("every action on {backend}"),
            &run_of(config, every_action()),
        );
    }
}

#[test]
fn every_preset_link_and_run_file_with_its_history_is_byte_for_byte_serde_s() {
    for preset in PRESETS {
        for &backend in preset.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                let name = format!("{} on {backend}, fencing {fencing:?}", preset.id);
                let scenario = preset.scenario(backend, fencing).expect("suits");
                let end = scenario.last_at().plus(5_000);
                let whole = Sim::replay(&scenario, end).expect("presets replay");
                let run = RunLink::of(&whole, Millis(end.ms() / 2));
                assert_same_as_serde(&name, &run);
                let lines = whole
                    .history()
                    .iter()
                    .map(|r| Line {
                        at_ms: r.at.ms(),
                        text: r.event.to_string(),
                    })
                    .collect();
                assert_eq!(
                    link::to_run_file(&run, whole.history()),
                    serde_json_of(&run, Some(lines)),
                    "{name}: the run file with its history"
                );
            }
        }
    }
}

#[test]
fn what_the_writer_writes_reads_back_as_the_same_run() {
    for backend in Backend::ALL {
        let config = Config {
            backend,
            ..Config::default()
        };
        let scenario = Scenario {
            version: SCENARIO_VERSION,
            config,
            actions: vec![
                client(0, 'A', Command::Acquire),
                client(1_000, 'B', Command::GcPause { pause_ms: 500 }),
                client(2_000, 'A', Command::Write),
            ],
        };
        let end = Millis(4_000);
        let whole = Sim::replay(&scenario, end).expect("replays");
        let run = RunLink::of(&whole, Millis(3_000));
        assert_eq!(
            link::decode(&link::encode(&run)).expect("reads"),
            run,
            "{backend}"
        );
        let file = link::to_run_file(&run, whole.history());
        assert_eq!(link::from_run_file(&file).expect("reads"), run, "{backend}");
    }
}
