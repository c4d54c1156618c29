//! Runs one scenario through the simulator's core and prints, as JSON, what
//! `scripts/fidelity/fidelity.sh` compares with the real servers: the grants and
//! their tokens, every write's verdict, the clients' own signals (lost
//! leases, ZooKeeper connection states) and the stretches in which two
//! clients believed they held the lock.
//!
//! ```sh
//! cargo run --example fidelity -- --list
//! cargo run --example fidelity -- --preset gc-pause --backend etcd --fencing off
//! cargo run --example fidelity -- --preset etcd-first-keepalive --backend etcd --fencing off
//! cargo run --example fidelity -- --scenario run.json --until-ms 12000
//! ```
//!
//! Every use of the core's API is in the `core` module below, so that a
//! change of the core's paths or of its script player touches one place.

use serde_json::{json, Value};
use std::process::ExitCode;

/// The core's API, in one place.
mod core {
    use distlock::lesson::presets::{self, PRESETS};
    use distlock::sim::{
        AcquireFailure, Backend, Command, Config, Event, Fencing, Millis, PartitionScope, Scenario,
        Sim,
    };
    use serde_json::{json, Value};

    /// A case the real-server check plays that is no story of the page's:
    /// one reading of a client library's source, checked against the real
    /// client.
    struct Case {
        id: &'static str,
        backend: Backend,
        run_ms: u64,
        script: fn(Config) -> Scenario,
    }

    const CASES: &[Case] = &[Case {
        id: "etcd-first-keepalive",
        backend: Backend::Etcd,
        run_ms: 14_000,
        script: etcd_first_keepalive,
    }];

    /// etcd at TTL 10 s: A is cut off from etcd right after its grant and
    /// B queues. When does A's session end (`Done()`)? client/v3/lease.go
    /// says at the first tick of its once-a-second deadline loop after
    /// its last keepalive reply + the TTL: about 11 s, after the server
    /// has let the lease go and B holds. (The first keepalive, sent when
    /// KeepAlive starts, is answered before the lock's Txn, so A has heard
    /// it: the 5 s first deadline does not apply.) A writes at 9 s, still
    /// the holder.
    fn etcd_first_keepalive(config: Config) -> Scenario {
        Scenario::new(Config {
            ttl_ms: 10_000,
            ..config
        })
        .client(0, 'A', Command::Acquire)
        .client(
            300,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        )
        .client(1_000, 'B', Command::Acquire)
        .client(9_000, 'A', Command::Write)
        .client(12_000, 'B', Command::Write)
    }

    /// The stories and the backends each suits, with how long each plays,
    /// then the cases.
    pub fn list() -> Value {
        let stories = PRESETS.iter().map(|p| {
            let backends: Vec<Value> = p.backends.iter().map(|b| json!(b)).collect();
            json!({ "id": p.id, "backends": backends, "run_ms": p.run_ms })
        });
        let cases = CASES
            .iter()
            .map(|c| json!({ "id": c.id, "backends": [c.backend], "run_ms": c.run_ms }));
        json!(stories.chain(cases).collect::<Vec<_>>())
    }

    /// A preset's (or a case's) script for one backend, with its playing time.
    pub fn preset(id: &str, backend: &str, fencing: &str) -> Result<(Value, u64), String> {
        let backend: Backend = serde_json::from_value(json!(backend))
            .map_err(|_| format!("unknown backend {backend:?}"))?;
        let fencing: Fencing = serde_json::from_value(json!(fencing))
            .map_err(|_| format!("fencing is on or off, not {fencing:?}"))?;
        if let Some(case) = CASES.iter().find(|c| c.id == id) {
            if case.backend != backend {
                return Err(format!("case {id:?} runs on {} only", case.backend.name()));
            }
            let scenario = (case.script)(Config {
                backend,
                fencing,
                ..Config::default()
            });
            let value = serde_json::to_value(&scenario).map_err(|e| e.to_string())?;
            return Ok((value, case.run_ms));
        }
        let p = presets::preset(id).ok_or_else(|| format!("no preset {id:?}"))?;
        let run_ms = p.run_ms_on(backend);
        let scenario = p
            .scenario(backend, fencing)
            .ok_or_else(|| format!("preset {id:?} does not suit {backend}"))?;
        let value = serde_json::to_value(&scenario).map_err(|e| e.to_string())?;
        Ok((value, run_ms))
    }

    /// Plays `scenario` up to `until_ms` as the page plays a story (a step
    /// the run refuses is skipped) and returns the rows and the findings.
    pub fn run(scenario: &Value, until_ms: u64) -> Result<Value, String> {
        let scenario: Scenario =
            Scenario::from_json(&scenario.to_string()).map_err(|e| e.to_string())?;
        let sim = Sim::play(&scenario, Millis(until_ms)).map_err(|e| e.to_string())?;
        let rows: Vec<Value> = sim.history().iter().filter_map(row).collect();
        let overlaps: Vec<Value> = sim
            .oracle()
            .overlaps()
            .iter()
            .map(|o| {
                json!({
                    "from_ms": o.from.ms(),
                    "to_ms": o.to.map(|t| t.ms()),
                    "clients": o.clients.iter().map(|c| c.letter().to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        Ok(json!({
            "rows": rows,
            "overlaps": overlaps,
            // Which ZooKeeper client the story runs: kazoo plays the native
            // client, or Curator with a listener that declares LOST itself.
            "zk_client": serde_json::to_value(scenario.config.zk.client).unwrap_or_default(),
        }))
    }

    /// Why a Redlock attempt failed, in the words the real client uses.
    fn failure_kind(failure: &AcquireFailure) -> &'static str {
        match failure {
            AcquireFailure::NoQuorum { .. } => "no-quorum",
            AcquireFailure::NoValidity { .. } => "no-validity",
            _ => "other",
        }
    }

    /// One history record as a comparison row, or `None` if not compared.
    fn row(r: &distlock::sim::Record) -> Option<Value> {
        let t = r.at.ms();
        let who = |c: &distlock::sim::ClientId| c.letter().to_string();
        let tok = |t: &Option<distlock::sim::Token>| t.map(|t| t.0);
        Some(match &r.event {
            Event::Acquired { client, token, .. } => {
                json!({ "t_ms": t, "what": "granted", "client": who(client), "token": tok(token) })
            }
            Event::AcquireFailed { client, .. } => {
                json!({ "t_ms": t, "what": "failed", "client": who(client) })
            }
            // Compared only when the time ran out (slow-acquire): how many
            // no-quorum retries a waiter makes depends on its random delays.
            Event::AcquireRetry {
                client, failure, ..
            } => json!({
                "t_ms": t, "what": "retry", "client": who(client), "failure": failure_kind(failure),
            }),
            Event::WriteSent {
                client,
                token,
                value,
            } => json!({
                "t_ms": t, "what": "write-sent", "client": who(client), "token": tok(token),
                "value": value,
            }),
            Event::WriteAccepted {
                client,
                token,
                standing,
                value,
                ..
            } => json!({
                "t_ms": t, "what": "write", "client": who(client), "token": tok(token),
                "verdict": "accepted", "stale": standing.is_stale(), "value": value,
            }),
            Event::WriteRejected {
                client,
                token,
                standing,
                ..
            } => json!({
                "t_ms": t, "what": "write", "client": who(client), "token": tok(token),
                "verdict": "rejected", "stale": standing.is_stale(),
            }),
            Event::Lost { client, reason } => {
                json!({ "t_ms": t, "what": "lost", "client": who(client), "reason": reason })
            }
            Event::ZkState { client, state } => {
                json!({ "t_ms": t, "what": "zk", "client": who(client), "state": state })
            }
            // Not compared (the real servers' side is not watched), but it
            // says why a token or a time came out as it did.
            Event::Service(e) => json!({ "t_ms": t, "what": "service", "said": e.to_string() }),
            _ => return None,
        })
    }
}

fn usage() -> String {
    "usage: fidelity --list | --preset ID --backend etcd|zookeeper|redlock|redis|postgresql --fencing on|off \
     | --scenario FILE --until-ms N"
        .to_string()
}

fn arg(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn main_result(args: &[String]) -> Result<Value, String> {
    if args.iter().any(|a| a == "--list") {
        return Ok(core::list());
    }
    let (scenario, until_ms) = if let Some(id) = arg(args, "--preset") {
        let backend = arg(args, "--backend").ok_or_else(usage)?;
        let fencing = arg(args, "--fencing").unwrap_or_else(|| "off".into());
        core::preset(&id, &backend, &fencing)?
    } else if let Some(path) = arg(args, "--scenario") {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let scenario: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        let until_ms = arg(args, "--until-ms")
            .ok_or_else(usage)?
            .parse()
            .map_err(|_| usage())?;
        (scenario, until_ms)
    } else {
        return Err(usage());
    };
    let mut out = core::run(&scenario, until_ms)?;
    out["scenario"] = scenario;
    out["run_ms"] = json!(until_ms);
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match main_result(&args) {
        Ok(value) => {
            println!("{value}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("fidelity: {e}");
            ExitCode::from(2)
        }
    }
}
