//! Fencing as its own setting: each mode on each system that offers it,
//! played on the scenario to run first (A acquires, pauses past its lease,
//! B acquires and writes, A's late write lands) and on the case where the
//! new holder has not written yet when A's stale write lands. "Highest
//! token seen" lets that second write through; the check in the same
//! transaction and the new holder's announcement refuse it.

use crate::common;
use common::{client, run, story};
use distlock::lesson::presets::{gc_pause, postgres_partition};
use distlock::sim::{
    Action, Backend, Command, Config, ConsulToken, FenceMode, FenceRule, Fencing, RejectReason,
    Scenario, Sim, StaleWrite, Standing,
};
use distlock::wire::link::{self, RunLink};

/// The scenario to run first, or the same without B's write. A paused
/// PostgreSQL client keeps its lock (the kernel keeps TCP alive), so there
/// A's host is cut off instead, as in the postgres-partition story.
fn scenario(backend: Backend, fence: FenceMode, b_writes: bool) -> Scenario {
    let config = Config {
        backend,
        fencing: Fencing::On,
        fence,
        ..Config::default()
    };
    let mut s = match backend {
        Backend::Postgres => postgres_partition(config),
        _ => gc_pause(config),
    };
    if !b_writes {
        let b = client('B');
        s.actions.retain(
            |a| !matches!(a.action, Action::Client { client, command: Command::Write } if client == b),
        );
    }
    s
}

fn play(backend: Backend, fence: FenceMode, b_writes: bool) -> Sim {
    let s = scenario(backend, fence, b_writes);
    let end = s.last_at().plus(40_000).ms();
    run(&s, end)
}

/// A's late write, which the oracle judges stale: B was granted the lock
/// after A.
fn a_stale(sim: &Sim, what: &str) -> StaleWrite {
    *sim.oracle()
        .stale_writes()
        .iter()
        .find(|s| s.client == client('A') && s.standing == Standing::Stale)
        .unwrap_or_else(|| panic!("{what}: A's late write is stale\n{}", story(sim)))
}

/// Whether `reason` is the one the system's check in the same transaction
/// gives.
fn checked(backend: Backend, reason: Option<RejectReason>) -> bool {
    matches!(
        (backend.fence_check(), reason),
        (
            FenceRule::LockHeld,
            Some(RejectReason::NotLockHolder { .. } | RejectReason::NotSessionHolder { .. })
        ) | (FenceRule::LockOwner, Some(RejectReason::NotOwner { .. }))
    )
}

#[test]
fn every_system_offers_its_documented_mode_and_redlock_has_nothing_to_check() {
    for backend in Backend::ALL {
        let config = Config {
            backend,
            ..Config::default()
        };
        let modes = backend.fence_modes();
        assert_eq!(modes[0], backend.documented_fence(&config), "{backend}");
        assert_eq!(
            modes.contains(&FenceMode::Check),
            backend != Backend::Redlock,
            "{backend}: only Redlock has no single place to check"
        );
        assert_eq!(
            modes.contains(&FenceMode::Takeover),
            modes.contains(&FenceMode::Highest),
            "{backend}: takeover fencing needs a token to order"
        );
        assert_eq!(
            modes.contains(&FenceMode::Version),
            backend == Backend::Postgres,
            "{backend}: only PostgreSQL keeps the counter as a row of its own server"
        );
    }
    // The documented modes are the rules each system fenced with before
    // the setting: no story's run changes.
    let documented = |backend| {
        let c = Config {
            backend,
            ..Config::default()
        };
        (backend.fence_mode_in(&c), backend.fence_rule_in(&c))
    };
    for backend in [
        Backend::Redis,
        Backend::Redlock,
        Backend::ZooKeeper,
        Backend::Etcd,
        Backend::Chubby,
        Backend::Consul,
    ] {
        assert_eq!(
            documented(backend),
            (FenceMode::Highest, FenceRule::Highest),
            "{backend}"
        );
    }
    assert_eq!(
        documented(Backend::DynamoDb),
        (FenceMode::Check, FenceRule::LockOwner)
    );
    assert_eq!(
        documented(Backend::Postgres),
        (FenceMode::Version, FenceRule::Version)
    );
    let mut sequencer = Config {
        backend: Backend::Consul,
        ..Config::default()
    };
    sequencer.consul.token = ConsulToken::Sequencer;
    assert_eq!(
        Backend::Consul.fence_rule_in(&sequencer),
        FenceRule::Sequencer
    );
}

#[test]
fn in_the_scenario_to_run_first_every_mode_refuses_a_s_late_write() {
    for backend in Backend::ALL {
        for &mode in backend.fence_modes() {
            let what = format!("{backend}, {mode:?}");
            let sim = play(backend, mode, true);
            let stale = a_stale(&sim, &what);
            assert!(!stale.accepted, "{what}\n{}", story(&sim));
            assert_eq!(sim.oracle().corruptions(), 0, "{what}");
            if mode == FenceMode::Check {
                assert!(checked(backend, stale.reason), "{what}: {:?}", stale.reason);
            }
            if mode == FenceMode::Version {
                assert!(
                    matches!(stale.reason, Some(RejectReason::VersionMoved { .. })),
                    "{what}: {:?}",
                    stale.reason
                );
            }
        }
    }
}

#[test]
fn before_the_new_holder_writes_only_the_highest_token_lets_a_through() {
    for backend in Backend::ALL {
        for &mode in backend.fence_modes() {
            let what = format!("{backend}, {mode:?}");
            let sim = play(backend, mode, false);
            let stale = a_stale(&sim, &what);
            let text = story(&sim);
            match mode {
                FenceMode::Highest => {
                    assert!(stale.accepted, "{what}\n{text}");
                    assert!(stale.newer_token_unseen(), "{what}: {stale:?}");
                    assert_eq!(sim.oracle().corruptions(), 1, "{what}");
                }
                // The version column checks the data, not the lock: the
                // row is still at the version A read, so nothing is lost by
                // A's UPDATE and it matches. The oracle still counts a write
                // after B's grant.
                FenceMode::Version => {
                    assert!(stale.accepted, "{what}\n{text}");
                    assert_eq!(stale.reason, None);
                }
                FenceMode::Check => {
                    assert!(!stale.accepted, "{what}\n{text}");
                    assert!(checked(backend, stale.reason), "{what}: {:?}", stale.reason);
                }
                _ => {
                    assert!(!stale.accepted, "{what}\n{text}");
                    assert!(
                        matches!(stale.reason, Some(RejectReason::TokenBelowAnnounced { .. })),
                        "{what}: {:?}",
                        stale.reason
                    );
                }
            }
        }
    }
}

#[test]
fn the_check_names_the_lock_s_holder_and_the_words_say_which_check() {
    let sim = play(Backend::Etcd, FenceMode::Check, false);
    let stale = a_stale(&sim, "etcd");
    let (a, b) = (
        stale.token.expect("A's token"),
        stale.newer.and_then(|g| g.token),
    );
    assert_eq!(
        stale.reason,
        Some(RejectReason::NotLockHolder {
            token: Some(a),
            current: b,
        })
    );
    let words = stale.reason.unwrap().to_string();
    assert_eq!(
        words,
        format!(
            "the lock no longer holds this writer's grant (token {a}): it holds token {}",
            b.unwrap()
        )
    );
    assert!(story(&sim).contains(&words), "{}", story(&sim));
    // Nothing was written: the refusal needed no write from B.
    assert_eq!(sim.resource().value(), 0);
    assert_eq!(sim.resource().highest(), None);
}

#[test]
fn a_write_while_nobody_holds_the_lock_fails_the_check_but_passes_the_token() {
    // A pauses past its lease and writes before anyone else asks: a write
    // without a lease. A token still the highest passes; the check asks the
    // lock, which nobody holds.
    let script = |fence| {
        Scenario::new(Config {
            backend: Backend::Etcd,
            fencing: Fencing::On,
            fence,
            ..Config::default()
        })
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(1_000, 'A', Command::Write)
    };
    let highest = run(&script(FenceMode::Highest), 30_000);
    assert_eq!(highest.resource().accepted(), 1, "{}", story(&highest));
    let check = run(&script(FenceMode::Check), 30_000);
    assert_eq!(check.resource().accepted(), 0, "{}", story(&check));
    let w = check.oracle().last_write().copied().expect("A's write");
    assert!(
        matches!(
            w.reason,
            Some(RejectReason::NotLockHolder { current: None, .. })
        ),
        "{w:?}"
    );
    assert_eq!(check.oracle().corruptions(), 0);
}

#[test]
fn with_fencing_off_the_mode_changes_nothing() {
    for backend in [Backend::Etcd, Backend::ZooKeeper, Backend::Redis] {
        let off = |fence| {
            let mut s = scenario(backend, fence, false);
            s.config.fencing = Fencing::Off;
            let end = s.last_at().plus(40_000).ms();
            run(&s, end)
        };
        let (plain, check) = (off(FenceMode::Documented), off(FenceMode::Check));
        assert_eq!(plain.history(), check.history(), "{backend}");
        assert_eq!(check.oracle().corruptions(), 1, "{backend}");
    }
}

#[test]
fn links_and_run_files_carry_the_mode_and_leave_the_documented_one_out() {
    let sim = play(Backend::Etcd, FenceMode::Check, false);
    let fragment = link::encode(&RunLink::of(&sim, sim.now()));
    let back = link::decode(&fragment).expect("its own link reads back");
    assert_eq!(back.scenario.config.fence, FenceMode::Check);
    let json = serde_json::to_string(&sim.scenario().config).unwrap();
    assert!(json.contains(r#""fence":"check""#), "{json}");

    let plain = play(Backend::Etcd, FenceMode::Documented, false);
    let json = serde_json::to_string(&plain.scenario().config).unwrap();
    assert!(!json.contains("fence\""), "{json}");
}

fn file(config: serde_json::Value) -> String {
    serde_json::json!({
        "version": 1,
        "config": config,
        "actions": [], "playhead_ms": 0, "end_ms": 0
    })
    .to_string()
}

fn config_json(backend: &str, extra: (&str, &str)) -> serde_json::Value {
    let mut c = serde_json::json!({
        "backend": backend, "fencing": "on", "ttl_ms": 5000, "seed": 1,
        "latency_scale": 10, "renewal": [true, true, true, true],
        "pg": {"keepalives_idle_s": 10, "keepalives_interval_s": 5, "keepalives_count": 3},
    });
    c[extra.0] = extra.1.into();
    c
}

#[test]
fn an_old_link_with_the_announcement_reads_as_takeover_fencing() {
    let etcd = link::from_run_file(&file(config_json("etcd", ("announce", "on"))))
        .expect("an old link reads");
    assert_eq!(etcd.scenario.config.fence, FenceMode::Takeover);
    let off = link::from_run_file(&file(config_json("etcd", ("announce", "off")))).unwrap();
    assert_eq!(off.scenario.config.fence, FenceMode::Documented);
    // Where the resource did not order tokens the option did nothing, and
    // the link keeps meaning that.
    let dynamo = link::from_run_file(&file(config_json("dynamodb", ("announce", "on")))).unwrap();
    assert_eq!(dynamo.scenario.config.fence, FenceMode::Documented);
}

#[test]
fn a_bad_or_unoffered_mode_in_a_link_is_refused_by_name() {
    let err = link::from_run_file(&file(config_json("etcd", ("fence", "loudly"))))
        .expect_err("an unknown mode is refused");
    let words = err.to_string();
    assert!(
        words.contains("config.fence: its fencing mode is \"loudly\""),
        "{words}"
    );

    assert!(
        words.contains("documented, highest, check, takeover, version"),
        "{words}"
    );

    // A mode the system lacks is kept, as the core keeps any setting, and
    // runs as the documented one: Redlock has no single place to check.
    let redlock = link::from_run_file(&file(config_json("redlock", ("fence", "check")))).unwrap();
    let config = &redlock.scenario.config;
    assert_eq!(config.fence, FenceMode::Check);
    assert_eq!(Backend::Redlock.fence_mode_in(config), FenceMode::Highest);
}

/// The resource's banner and the tour's questions name the check "in the same transaction" as the
/// system's clients write it: every system whose resource can check the
/// lock so (with any token it offers) has those words, and no other.
#[test]
fn every_system_that_checks_the_lock_held_names_its_check() {
    use distlock::sim::{ConsulToken, FenceMode, FenceRule};
    for backend in Backend::ALL {
        let checks_held = [
            ConsulToken::ModifyIndex,
            ConsulToken::LockIndex,
            ConsulToken::Sequencer,
        ]
        .into_iter()
        .any(|token| {
            let mut config = Config {
                backend,
                fence: FenceMode::Check,
                ..Config::default()
            };
            config.consul.token = token;
            backend.fence_rule_in(&config) == FenceRule::LockHeld
        });
        assert_eq!(backend.held_check().is_some(), checks_held, "{backend}");
    }
}
