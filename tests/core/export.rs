//! The run as a history other tools read (src/wire/export.rs): the
//! scenario to run first written as a Jepsen history, a Porcupine log and
//! an ITF trace, each read back with a reader of its format and checked
//! against the format's published shape and against the run's events.

use crate::common;
use common::client;
use distlock::lesson::presets::gc_pause;
use distlock::sim::{Backend, Command, Config, Event, Fencing, Millis, Scenario, Sim};
use distlock::wire::export::{self, Format};
use distlock::wire::link::{self, RunLink};
use distlock::work::{Job, Reply, Request, Station, PROTOCOL_VERSION};
use edn_format::{Keyword, Value};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// The scenario to run first on `backend`, as a link of the whole run.
fn first_link(backend: Backend, fencing: Fencing) -> String {
    let config = Config {
        backend,
        fencing,
        ..Config::default()
    };
    link_of(&gc_pause(config), 12_000)
}

fn link_of(scenario: &Scenario, end_ms: u64) -> String {
    let sim = common::run(scenario, end_ms);
    link::encode(&RunLink::of(&sim, sim.now()))
}

fn replayed(fragment: &str) -> Sim {
    link::open_link(fragment).expect("the link opens").1
}

fn kw(name: &str) -> Value {
    Value::Keyword(Keyword::from_name(name))
}

/// The EDN history read back, a map per line, keyed by keyword name.
fn read_edn(text: &str) -> Vec<BTreeMap<String, Value>> {
    assert!(text.ends_with('\n'));
    text.lines()
        .map(|line| match edn_format::parse_str(line) {
            Ok(Value::Map(map)) => map
                .into_iter()
                .map(|(k, v)| match k {
                    Value::Keyword(k) => (k.name().to_string(), v),
                    other => panic!("a key that is not a keyword: {other:?}"),
                })
                .collect(),
            other => panic!("not one EDN map: {line}\n{other:?}"),
        })
        .collect()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(n) => *n,
        other => panic!("not an integer: {other:?}"),
    }
}

fn word(v: &Value) -> String {
    match v {
        Value::Keyword(k) => k.name().to_string(),
        other => panic!("not a keyword: {other:?}"),
    }
}

#[test]
fn the_jepsen_history_has_jepsens_shape_and_tells_the_scenario() {
    for fencing in [Fencing::Off, Fencing::On] {
        let text = export::from_link(&first_link(Backend::Etcd, fencing), Format::Edn).unwrap();
        let ops = read_edn(&text);
        let mut last_time = -1;
        for (i, op) in ops.iter().enumerate() {
            for key in ["type", "f", "value", "process", "time", "index"] {
                assert!(op.contains_key(key), "{key} missing in op {i}: {op:?}");
            }
            assert!(["invoke", "ok", "fail", "info"].contains(&word(&op["type"]).as_str()));
            word(&op["f"]);
            assert_eq!(int(&op["index"]), i as i64, "indices count from 0");
            let time = int(&op["time"]);
            assert!(
                time > last_time,
                "times strictly increase: {time} after {last_time}"
            );
            last_time = time;
            match &op["process"] {
                Value::Integer(p) => assert!(*p >= 0),
                p => assert_eq!(p, &kw("nemesis")),
            }
        }
        let find = |kind: &str, f: &str, process: i64| {
            ops.iter()
                .find(|o| {
                    word(&o["type"]) == kind
                        && word(&o["f"]) == f
                        && o["process"] == Value::Integer(process)
                })
                .unwrap_or_else(|| panic!("no {kind} {f} by {process}\n{text}"))
        };
        // etcd: A holds with revision 2, B with 3 (tests/core/scenario.rs).
        assert_eq!(find("ok", "acquire", 0)["value"], Value::Integer(2));
        assert_eq!(find("ok", "acquire", 1)["value"], Value::Integer(3));
        let b_write = find("ok", "write", 1);
        assert_eq!(
            b_write["value"],
            Value::Map(
                [
                    (kw("token"), Value::Integer(3)),
                    (kw("value"), Value::Integer(1))
                ]
                .into()
            )
        );
        match fencing {
            Fencing::Off => {
                let a_write = find("ok", "write", 0);
                assert_eq!(int(&a_write["time"]) / 1_000_000, 8_5_0_0 + 16);
            }
            Fencing::On => {
                let a_write = find("fail", "write", 0);
                assert_eq!(a_write["error"], kw("token-below-highest"));
            }
        }
        // A's pause is the nemesis's: an info pair, and its resume.
        let nemesis: Vec<_> = ops
            .iter()
            .filter(|o| o["process"] == kw("nemesis"))
            .map(|o| (word(&o["type"]), word(&o["f"])))
            .collect();
        let info = |f: &str| ("info".to_string(), f.to_string());
        assert_eq!(
            nemesis,
            [info("pause"), info("pause"), info("resume"), info("resume")]
        );
        assert!(text.contains(
            ":f :pause, :value {:client \"A\", :until-ms 8500}, :process :nemesis, :time 500000000,"
        ));
    }
}

#[test]
fn every_call_in_the_history_is_one_event_of_the_run_and_has_one_completion() {
    for backend in [
        Backend::Etcd,
        Backend::ZooKeeper,
        Backend::Redlock,
        Backend::Postgres,
    ] {
        for fencing in [Fencing::Off, Fencing::On] {
            let fragment = first_link(backend, fencing);
            let sim = replayed(&fragment);
            let ops = read_edn(&export::from_link(&fragment, Format::Edn).unwrap());
            check_pairs(&ops, &sim, &format!("{backend} {fencing:?}"));
        }
    }
}

/// Each invocation is completed exactly once, by its own process, later
/// and before that process invokes again; the calls and their outcomes
/// count as the run's events do.
fn check_pairs(ops: &[BTreeMap<String, Value>], sim: &Sim, what: &str) {
    let mut open: BTreeMap<i64, (String, usize)> = BTreeMap::new();
    let mut retired = Vec::new();
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        let Value::Integer(p) = op["process"] else {
            continue;
        };
        let (kind, f) = (word(&op["type"]), word(&op["f"]));
        *counts.entry((kind.clone(), f.clone())).or_default() += 1;
        assert!(
            !retired.contains(&p),
            "{what}: process {p} ran after its info"
        );
        if kind == "invoke" {
            let before = open.insert(p, (f, i));
            assert!(before.is_none(), "{what}: process {p} invoked twice at {i}");
        } else {
            let (asked, _) = open
                .remove(&p)
                .unwrap_or_else(|| panic!("{what}: {kind} at {i} completes nothing"));
            assert_eq!(asked, f, "{what}: the completion names its call");
            if kind == "info" {
                retired.push(p);
            }
        }
    }
    assert!(open.is_empty(), "{what}: calls never completed: {open:?}");
    let events = |pick: fn(&Event) -> bool| sim.history().iter().filter(|r| pick(&r.event)).count();
    let count = |kind: &str, f: &str| {
        counts
            .get(&(kind.to_string(), f.to_string()))
            .copied()
            .unwrap_or(0)
    };
    let calls = [
        (
            "acquire",
            events(|e| matches!(e, Event::AcquireStarted { .. })),
        ),
        ("write", events(|e| matches!(e, Event::WriteSent { .. }))),
        ("release", events(|e| matches!(e, Event::Released { .. }))),
    ];
    for (f, made) in calls {
        assert_eq!(count("invoke", f), made, "{what}: one {f} per call made");
    }
    // A call that ended with info may still take effect after (a grant
    // that reaches a client after its pause): the run shows the outcome,
    // the history only that it was unknown.
    let outcomes = [
        (
            "ok",
            "acquire",
            events(|e| matches!(e, Event::Acquired { .. })),
        ),
        (
            "ok",
            "write",
            events(|e| matches!(e, Event::WriteAccepted { .. })),
        ),
        (
            "fail",
            "write",
            events(|e| matches!(e, Event::WriteRejected { .. })),
        ),
    ];
    for (kind, f, seen) in outcomes {
        let (told, unknown) = (count(kind, f), count("info", f));
        assert!(
            told <= seen && seen <= told + unknown,
            "{what}: {told} {kind} {f}, {unknown} unknown, {seen} in the run"
        );
        if unknown == 0 {
            assert_eq!(told, seen, "{what}: {kind} {f} one for one");
        }
    }
}

#[test]
fn a_pause_ends_no_call_and_a_crash_ends_its_calls_with_info_and_a_fresh_process() {
    let config = Config {
        backend: Backend::Etcd,
        ..Config::default()
    };
    // A pauses before its grant arrives: the grant comes after it wakes,
    // and the acquire is an ok with its token. B's write is in flight when
    // B's host powers off, and B's next call is a new process.
    let s = Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(20, 'A', Command::GcPause { pause_ms: 1_000 })
        .client(3_000, 'A', Command::Release)
        .client(4_000, 'B', Command::Acquire)
        .client(5_000, 'B', Command::Write)
        .client(5_001, 'B', Command::PowerOff)
        .client(6_000, 'B', Command::Restart)
        .client(6_500, 'B', Command::Acquire);
    let fragment = link_of(&s, 9_000);
    let sim = replayed(&fragment);
    let text = export::from_link(&fragment, Format::Edn).unwrap();
    let ops = read_edn(&text);
    check_pairs(&ops, &sim, "pause and crash");
    let info: Vec<_> = ops
        .iter()
        .filter(|o| word(&o["type"]) == "info" && o["process"] != kw("nemesis"))
        .map(|o| (int(&o["process"]), word(&o["f"]), word(&o["error"])))
        .collect();
    // B's new acquire waits out its dead session's lease past the run's end.
    assert_eq!(
        info,
        [
            (1, "write".into(), "crashed".into()),
            (5, "acquire".into(), "run-ended".into())
        ],
        "{text}"
    );
    let a_granted = sim
        .history()
        .iter()
        .find_map(|r| match r.event {
            Event::Acquired { client, token, .. } if client == distlock::sim::ClientId::ALL[0] => {
                Some(token.unwrap().0)
            }
            _ => None,
        })
        .expect("A is granted after its pause");
    assert!(
        text.contains(&format!(
            ":type :ok, :f :acquire, :value {a_granted}, :process 0,"
        )),
        "{text}"
    );
    // A's release runs on the same process; B's acquire after its restart
    // on a new one: 1 + 4.
    assert!(
        text.contains(":type :invoke, :f :release, :value nil, :process 0,"),
        "{text}"
    );
    assert!(
        text.contains(":type :invoke, :f :acquire, :value nil, :process 5,"),
        "{text}"
    );
    assert!(text.contains(":f :kill, :value {:client \"B\", :how :power-off}"));
    // Porcupine's log names the clients, never a process past D.
    let log: Vec<Json> =
        serde_json::from_str(&export::from_link(&fragment, Format::Porcupine).unwrap()).unwrap();
    let ids: Vec<u64> = log
        .iter()
        .map(|o| o["ClientId"].as_u64().unwrap())
        .collect();
    assert!(ids.contains(&1) && ids.iter().all(|&id| id < 4), "{ids:?}");
    let _ = client('A');
}

/// Every story on every system, fencing off and on: each grant in the run
/// is an `:ok` acquire in the EDN, with its token, read back by an EDN
/// reader; and Porcupine's log, read as JSON, has one operation per call,
/// each under its client's id (0 to 3).
#[test]
fn every_grant_of_every_story_is_an_ok_with_its_token_and_porcupine_names_only_clients() {
    use distlock::lesson::presets::PRESETS;
    for p in PRESETS {
        for backend in Backend::ALL {
            for fencing in [Fencing::Off, Fencing::On] {
                let Some(s) = p.scenario(backend, fencing) else {
                    continue;
                };
                let fragment = link_of(&s, p.run_ms_on(backend));
                let sim = replayed(&fragment);
                let what = format!("{} on {backend:?}, {fencing:?}", p.id);
                let grants: Vec<(i64, Option<i64>)> = sim
                    .history()
                    .iter()
                    .filter_map(|r| match r.event {
                        Event::Acquired { client, token, .. } => Some((
                            client.index() as i64,
                            token.map(|t| i64::try_from(t.0).unwrap()),
                        )),
                        _ => None,
                    })
                    .collect();
                let ops = read_edn(&export::from_link(&fragment, Format::Edn).unwrap());
                let oks: Vec<(i64, Option<i64>)> = ops
                    .iter()
                    .filter(|o| word(&o["type"]) == "ok" && word(&o["f"]) == "acquire")
                    .map(|o| {
                        let token = match &o["value"] {
                            Value::Nil => None,
                            v => Some(int(v)),
                        };
                        (int(&o["process"]) % 4, token)
                    })
                    .collect();
                assert_eq!(oks, grants, "{what}");
                let log: Vec<Json> =
                    serde_json::from_str(&export::from_link(&fragment, Format::Porcupine).unwrap())
                        .unwrap();
                let invokes = ops
                    .iter()
                    .filter(|o| word(&o["type"]) == "invoke" && o["process"] != kw("nemesis"))
                    .count();
                assert_eq!(log.len(), invokes, "{what}");
                for op in &log {
                    let id = op["ClientId"].as_u64().expect("an int ClientId");
                    assert!(id < 4, "{what}: {op}");
                }
            }
        }
    }
}

#[test]
fn the_porcupine_log_has_porcupines_operation_fields() {
    let fragment = first_link(Backend::Etcd, Fencing::On);
    let text = export::from_link(&fragment, Format::Porcupine).unwrap();
    let ops: Vec<Json> = serde_json::from_str(&text).expect("a JSON array");
    let edn = read_edn(&export::from_link(&fragment, Format::Edn).unwrap());
    let calls = edn
        .iter()
        .filter(|o| word(&o["type"]) == "invoke" && o["process"] != kw("nemesis"))
        .count();
    assert_eq!(ops.len(), calls, "one operation per call");
    for op in &ops {
        let keys: Vec<&str> = op.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["Call", "ClientId", "Input", "Output", "Return"]);
        let (call, ret) = (op["Call"].as_i64().unwrap(), op["Return"].as_i64().unwrap());
        assert!(call < ret, "{op}");
        assert!(op["ClientId"].as_u64().is_some());
        assert!(["acquire", "release", "write"].contains(&op["Input"]["op"].as_str().unwrap()));
        assert!(["ok", "fail", "unknown"].contains(&op["Output"]["status"].as_str().unwrap()));
    }
    let a_write = ops
        .iter()
        .find(|o| o["ClientId"] == 0 && o["Input"]["op"] == "write")
        .unwrap();
    assert_eq!(a_write["Input"]["token"], 2);
    assert_eq!(a_write["Output"]["status"], "fail");
    assert_eq!(a_write["Output"]["error"], "token-below-highest");
    // B still holds when the run ends: nothing open, so no call is unknown.
    assert!(ops.iter().all(|o| o["Return"].as_i64() != Some(i64::MAX)));
}

#[test]
fn the_itf_trace_has_adr_15s_shape_and_shows_two_holders() {
    let text = export::from_link(&first_link(Backend::Etcd, Fencing::Off), Format::Itf).unwrap();
    let trace: Json = serde_json::from_str(&text).expect("JSON");
    assert_eq!(trace["#meta"]["format"], "ITF");
    let vars: Vec<&str> = trace["vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        vars,
        ["t_ms", "belief", "token", "holder", "highest", "counter"]
    );
    let states = trace["states"].as_array().unwrap();
    let mut last_t = 0;
    for (i, state) in states.iter().enumerate() {
        assert_eq!(state["#meta"]["index"], i, "indices count up from 0");
        for var in &vars {
            assert!(state.get(*var).is_some(), "state {i} lacks {var}");
        }
        assert_eq!(state.as_object().unwrap().len(), vars.len() + 1);
        let t = state["t_ms"].as_u64().unwrap();
        assert!(t >= last_t);
        last_t = t;
        assert_eq!(state["belief"]["#map"].as_array().unwrap().len(), 4);
        assert!(state["holder"]["#set"].as_array().unwrap().len() <= 1);
        assert!(state["highest"]["#set"].as_array().unwrap().len() <= 1);
    }
    let holding = |s: &Json| -> Vec<(String, u64)> {
        s["token"]["#map"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| {
                (
                    pair[0].as_str().unwrap().to_string(),
                    pair[1].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let two = states
        .iter()
        .find(|s| holding(s).len() == 2)
        .expect("a state where A and B both believe they hold");
    assert_eq!(holding(two), [("A".into(), 2), ("B".into(), 3)]);
    assert_eq!(two["holder"]["#set"][0], "B", "the service says B");
    let last = states.last().unwrap();
    assert_eq!(last["highest"]["#set"][0], 3);
    assert_eq!(
        last["counter"], 1,
        "both writes were accepted, A's from a read made before B's: B's increment lost"
    );
    assert_eq!(export::itf_int((1 << 53) - 1), "9007199254740991");
    assert_eq!(
        export::itf_int(1 << 53),
        r##"{"#bigint":"9007199254740992"}"##
    );
}

#[test]
fn the_same_run_gives_the_same_bytes_from_a_link_an_address_or_the_worker() {
    let fragment = first_link(Backend::Redlock, Fencing::On);
    for format in Format::ALL {
        let text = export::from_link(&fragment, format).unwrap();
        assert_eq!(export::from_link(&fragment, format).unwrap(), text);
        let address = format!("https://example.org/distlock/?view=lesson#{fragment}");
        assert_eq!(export::from_link(&address, format).unwrap(), text);
        assert_eq!(
            export::from_link(&format!("#{fragment}"), format).unwrap(),
            text
        );
        // The worker's reply carries the same text in its data.
        let request = serde_json::to_string(&Request {
            v: PROTOCOL_VERSION,
            id: 3,
            job: Job::Export {
                run: fragment.clone(),
                format,
            },
        })
        .unwrap();
        let mut replies = Vec::new();
        Station::new(1).from_page(&request, &|| 0.0, &mut |r| replies.push(r), &mut |_| {});
        let [reply] = replies.as_slice() else {
            panic!("one reply");
        };
        let reply = Reply::read(reply).unwrap();
        assert!(reply.done && reply.error.is_none() && reply.id == 3);
        assert_eq!(reply.data, text, "{format:?}");
        // Drawn for the page: a link that saves it, named after the run,
        // Copy, and the text, escaped.
        let name = format!("distlock-redlock-fencing-on-seed-1{}", format.extension());
        assert!(
            reply.html.contains(&format!(
                r#"download="{name}" href="data:{};charset=utf-8,"#,
                format.mime()
            )),
            "{}",
            reply.html
        );
        assert!(reply
            .html
            .contains("<button type=\"button\" class=\"button\" data-copy>Copy</button>"));
        let shown = reply.html.split("readonly rows=\"8\"").nth(1).unwrap();
        assert!(
            shown.contains(&distlock::markup::escape(&text[..40])),
            "{shown}"
        );
    }
}

#[test]
fn a_bad_link_is_a_clear_error_here_and_from_the_worker() {
    let why = export::from_link("https://example.org/#v1.@@@", Format::Edn).unwrap_err();
    assert!(why.contains("This link is damaged"), "{why}");
    assert!(export::from_link("", Format::Itf)
        .unwrap_err()
        .contains("holds no run"));
    let request = r#"{"v":1,"id":9,"job":{"export":{"run":"v9.x","format":"porcupine"}}}"#;
    let mut replies = Vec::new();
    Station::new(1).from_page(request, &|| 0.0, &mut |r| replies.push(r), &mut |_| {});
    let reply = Reply::read(&replies[0]).unwrap();
    assert!(reply.data.is_empty());
    let error = reply.error.unwrap();
    assert!(
        error.starts_with("The run could not be exported."),
        "{error}"
    );
    assert!(error.contains("version 9"), "{error}");
    assert_eq!(Format::from_slug("itf"), Some(Format::Itf));
    assert_eq!(Format::from_slug("json"), None);
    let _ = Millis(0);
}

#[test]
fn a_second_write_in_flight_runs_as_its_own_process_and_each_completes_its_own() {
    let config = Config {
        backend: Backend::Etcd,
        ..Config::default()
    };
    // A's first write spends 500 ms more in the network: its second, sent
    // 10 ms later, reaches the resource first.
    let s = Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::WriteDelayed { extra_ms: 500 })
        .client(1_010, 'A', Command::Write);
    let fragment = link_of(&s, 3_000);
    let ops = read_edn(&export::from_link(&fragment, Format::Edn).unwrap());
    check_pairs(&ops, &replayed(&fragment), "two writes in flight");
    let writes: Vec<_> = ops
        .iter()
        .filter(|o| word(&o["f"]) == "write")
        .map(|o| {
            (
                word(&o["type"]),
                int(&o["process"]),
                int(&o["time"]) / 1_000_000,
            )
        })
        .collect();
    let [(_, first, sent), (_, second, _), (_, done_first, _), (_, done_last, last)] =
        writes.as_slice()
    else {
        panic!("two invokes, two completions: {writes:?}");
    };
    assert_eq!(
        (*first, *second),
        (0, 4),
        "the second write takes process 0 + 4"
    );
    assert_eq!(*done_first, 4, "the undelayed write lands first");
    assert_eq!(*done_last, 0);
    assert!(
        last - sent >= 500,
        "the delayed write completes when it lands"
    );
}
