//! The fuzz targets' bodies: each takes the fuzzer's bytes and panics only
//! on a bug (a crash, a broken invariant, a round trip that does not come
//! back). `fuzz/fuzz_targets/*.rs` hand them to libFuzzer, and
//! `tests/core/fuzz_corpora.rs` replays the committed seeds and every crash
//! found so far through the same functions, natively, in `cargo test`.

use crate::lesson::presets::PRESETS;
use crate::sim::{
    Action, ClientId, Command, Config, Event, FenceRule, Fencing, Millis, NodeCommand, NodeId,
    PartitionScope, Sim, Token, PAUSE_MS_MAX, SLOW_MS_MAX,
};
use crate::wire::link::{self, RunLink};
use arbitrary::{Result as Drawn, Unstructured};
use std::sync::OnceLock;

/// A target: its name (its folder under `fuzz/`) and its body.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by the name `scripts/check/fuzz.sh` and the corpora use.
pub const TARGETS: &[Target] = &[
    ("decode_link", decode_link),
    ("run_file", run_file),
    ("explore_query", explore_query),
    ("worker_message", worker_message),
    ("core_commands", core_commands),
];

/// A link's fragment: it reads into a run that writes back the same link,
/// or it is refused with a message; the same bytes as a link's JSON, so
/// the fuzzer reaches the field checks without finding base64 first. What
/// is fuzzed here is the reader: the run it reads replays for its first
/// `REPLAY_MS_MAX` only (the page replays it all; `core_commands` drives
/// the core itself), so one case costs a reading, not a day of simulation.
pub fn decode_link(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(run) = link::link_fields(&text) {
        assert_eq!(link::link_fields(&link::encode(&run)).as_ref(), Ok(&run));
        replay_start(&run);
    }
    if let Ok(run) = link::link_fields(&format!("v1.{}", link::base64url(data))) {
        replay_start(&run);
    }
}

/// A run file: read, or refused with a message that says where; a file
/// that reads writes back (with the history of its replayed start) to the
/// same run.
pub fn run_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match link::run_file_fields(&text) {
        Ok(run) => {
            let history = replay_start(&run).map(|sim| sim.history().to_vec());
            let again = link::to_run_file(&run, history.as_deref().unwrap_or(&[]));
            assert_eq!(link::run_file_fields(&again).as_ref(), Ok(&run));
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// The simulated time of a read run that `decode_link` and `run_file`
/// replay: every story ends within it, so their seeds replay whole.
pub const REPLAY_MS_MAX: u64 = 10 * 60 * 1000;

/// A read run replayed up to `REPLAY_MS_MAX`; a replay that fails is the
/// reader's refusal, not a bug (only a panic is).
fn replay_start(run: &RunLink) -> Option<Sim> {
    let end = Millis(run.end_ms.min(REPLAY_MS_MAX));
    Sim::replay(&run.scenario, end).ok()
}

/// The explorer's query, as `?explore&...` carries it. `scripts/check/
/// fuzz.sh` caps it at 4,096 bytes: the form has 30 fields, each read on
/// its own, and its longest values (32 TTLs, 32 histogram lengths) take a
/// few hundred bytes.
pub fn explore_query(data: &[u8]) {
    crate::work::fuzz_explore_query(&String::from_utf8_lossy(data));
}

/// A message from the page to its worker, and one back.
pub fn worker_message(data: &[u8]) {
    crate::work::fuzz_message(&String::from_utf8_lossy(data));
}

/// The core driven by any command, at any time, for any client, with any
/// settings: it refuses or runs each one without panicking (the engine
/// asserts its invariants as it goes), a refused command changes nothing,
/// and the run keeps the safety the settings promise and replays the same.
///
/// A case costs what it simulates (the run and its replay: the engine's
/// events are nearly all of its time), so it simulates no more than its
/// bytes ask for. It stops taking commands when the bytes run out (past
/// them `Unstructured` draws zeros: the same node crash at the same time
/// again and again, which checks nothing new), a long wait between two
/// commands is one draw in 32 rather than one in 10 (most of a case's
/// simulated time was those waits, while a lease's expiry, a pause's end
/// or a partition's timeout needs only one of them), and the run stops
/// taking commands after `EVENTS_MAX` events. The run ends `END_MS` after
/// its last command (it ran on for 40 s, a quarter of a random case's
/// events, run and replay). Every command is still drawn
/// for every client and node, at any time within the case, with any
/// settings; what changed is how much idle time a random case spends.
/// libFuzzer's inputs are capped at 1,024 bytes for it
/// (`scripts/check/fuzz.sh`): the settings and 48 commands take a few
/// hundred, and bytes past what a case reads change nothing.
pub fn core_commands(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(config) = config(&mut u) else { return };
    let Ok(mut sim) = Sim::new(config.clone()) else {
        return;
    };
    let mut t = 0u64;
    for _ in 0..STEPS_MAX {
        if u.is_empty() {
            break;
        }
        let Ok((gap, action)) = step(&mut u) else {
            break;
        };
        t += gap;
        if !run_to(&mut sim, t) {
            break;
        }
        let (before, state) = (sim.history().len(), sim.fingerprint());
        if sim.act(action).is_err() {
            assert_eq!(sim.history().len(), before, "a refused {action} recorded");
            assert_eq!(
                sim.fingerprint(),
                state,
                "a refused {action} changed the run"
            );
        }
    }
    run_to(&mut sim, t + END_MS);
    fenced_writes_stay_in_order(&sim, &config);
    let replayed = Sim::replay(&sim.scenario(), sim.now()).expect("a run replays");
    assert!(replayed.history() == sim.history(), "the replay differs");
    assert_eq!(replayed.fingerprint(), sim.fingerprint());
    // The link reads back; its replay is the one just compared.
    let run = RunLink::of(&sim, Millis(sim.now().ms() / 2));
    assert_eq!(link::link_fields(&link::encode(&run)), Ok(run));
}

/// Runs `sim` to `t` a simulated second at a time, as the page's frames
/// do; false once the case has run `EVENTS_MAX` events.
fn run_to(sim: &mut Sim, t: u64) -> bool {
    loop {
        let next = t.min(sim.now().ms().saturating_add(1_000));
        sim.run_until(Millis(next));
        if sim.events_run() > EVENTS_MAX {
            return false;
        }
        if next >= t {
            return true;
        }
    }
}

/// How long a run goes on after its last command: at the latencies the
/// page offers (an etcd round trip slowed 10x is 50-200 ms, and a link's
/// network round trip at most 1,000 ms) the command's messages arrive and
/// a write lands within it. A case that needs longer (a lease's expiry, a pause's end) asks
/// for it with one more command after a long wait, which any command
/// gives (a refused one changes nothing).
const END_MS: u64 = 5_000;

/// Events after which a case takes no more commands (its replay runs as
/// many again): a random case runs a few hundred (a median of about 600
/// before the long waits were made rarer, with 10% over 4,600), and
/// settings that make a storm of events (a retry every millisecond
/// through a long partition) are checked this far, instead of for up to
/// a million events per command. It was 50,000: the storms cost the most
/// and found nothing the first two thousand events of them do not.
const EVENTS_MAX: u64 = 2_000;

/// Commands in one core run at most: enough for every fault to meet every
/// other, few enough that a case runs in milliseconds.
const STEPS_MAX: usize = 48;

/// With fencing on, no write is accepted with a token below one accepted
/// before (or, where the check is the lock item's owner, from a client
/// the service does not name as holder).
fn fenced_writes_stay_in_order(sim: &Sim, config: &Config) {
    if config.fencing != Fencing::On {
        return;
    }
    let owner_rule = matches!(
        config.backend.fence_rule_in(config),
        FenceRule::LockOwner | FenceRule::Sequencer | FenceRule::LockHeld
    );
    let (mut highest, mut holder): (Option<Token>, Option<ClientId>) = (None, None);
    for record in sim.history() {
        match &record.event {
            Event::HolderChanged { holder: h, .. } => holder = *h,
            Event::WriteAccepted { client, .. } if owner_rule => {
                assert_eq!(
                    holder,
                    Some(*client),
                    "accepted while another owned the item"
                );
            }
            Event::WriteAccepted { token, .. } => {
                let token = token.expect("fencing on never accepts a write without a token");
                assert!(highest.is_none_or(|h| token >= h), "{token} accepted late");
                highest = Some(token);
            }
            _ => {}
        }
    }
}

/// Settings to start from: the default and every story's, on every system
/// it suits, so every option the page offers is among them.
fn bases() -> &'static [Config] {
    static BASES: OnceLock<Vec<Config>> = OnceLock::new();
    BASES.get_or_init(|| {
        let mut bases = vec![Config::default()];
        for p in PRESETS {
            for &backend in p.backends {
                for fencing in [Fencing::Off, Fencing::On] {
                    if let Some(s) = p.scenario(backend, fencing) {
                        bases.push(s.config);
                    }
                }
            }
        }
        bases
    })
}

/// Any settings: a story's, with each number and switch redrawn now and
/// then (in range or far out of it) and each named choice swapped for one
/// another setting uses.
fn config(u: &mut Unstructured) -> Drawn<Config> {
    let base = u.choose(bases())?.clone();
    let Ok(mut json) = serde_json::to_value(&base) else {
        return Ok(base);
    };
    let names = choice_names();
    redraw(&mut json, u, names)?;
    Ok(serde_json::from_value(json).unwrap_or(base))
}

/// Every named choice in the bases' settings (backends, modes, policies).
fn choice_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names = Vec::new();
        for base in bases() {
            if let Ok(json) = serde_json::to_value(base) {
                strings(&json, &mut names);
            }
        }
        names.sort();
        names.dedup();
        names
    })
}

fn strings(json: &serde_json::Value, out: &mut Vec<String>) {
    match json {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn redraw(json: &mut serde_json::Value, u: &mut Unstructured, names: &[String]) -> Drawn<()> {
    use serde_json::Value;
    match json {
        Value::Object(o) => o.values_mut().try_for_each(|v| redraw(v, u, names)),
        Value::Array(a) => a.iter_mut().try_for_each(|v| redraw(v, u, names)),
        Value::Bool(b) if u.ratio(1, 4)? => {
            *b = u.arbitrary()?;
            Ok(())
        }
        Value::Number(n) if u.ratio(1, 4)? => {
            let was = n.as_u64().unwrap_or(0);
            *n = amount(u, was.saturating_mul(2).max(100))?.into();
            Ok(())
        }
        Value::String(s) if u.ratio(1, 8)? => {
            *s = u.choose(names)?.clone();
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A number of milliseconds (or a count): mostly within `0..=usual`, now
/// and then at a limit's edge or anywhere at all.
fn amount(u: &mut Unstructured, usual: u64) -> Drawn<u64> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => u.arbitrary()?,
        1 => PAUSE_MS_MAX + u.int_in_range(0..=2)? - 1,
        _ => u.int_in_range(0..=usual)?,
    })
}

/// The wait before a command and the command: any client, any command,
/// any node of the service, amounts in and out of range. The wait is
/// mostly up to 5 s (a message's round trip, a renewal, a short pause),
/// now and then none (two commands at once), and one draw in 32 up to
/// two minutes, past any TTL (60 s at most), so a lease can expire, a
/// pause end or a partition time out between two commands.
fn step(u: &mut Unstructured) -> Drawn<(u64, Action)> {
    let gap = match u.int_in_range(0..=31u8)? {
        0..=3 => 0,
        4 => u.int_in_range(0..=120_000)?,
        _ => u.int_in_range(0..=5_000)?,
    };
    let action = if u.ratio(1, 8)? {
        Action::Node {
            node: NodeId::new(u.int_in_range(1..=5)?).unwrap_or(NodeId::all().next().unwrap()),
            command: node_command(u)?,
        }
    } else {
        Action::Client {
            client: ClientId::ALL[usize::from(u.int_in_range(0..=3u8)?)],
            command: command(u)?,
        }
    };
    Ok((gap, action))
}

fn command(u: &mut Unstructured) -> Drawn<Command> {
    Ok(match u.int_in_range(0..=15u8)? {
        0 | 1 => Command::Acquire,
        2 | 3 => Command::Write,
        4 => Command::WriteDelayed {
            extra_ms: amount(u, 10_000)?,
        },
        5 => Command::Release,
        6 => Command::GcPause {
            pause_ms: amount(u, 20_000)?,
        },
        7 => Command::Partition {
            scope: PartitionScope::Service,
        },
        8 => Command::Partition {
            scope: PartitionScope::ServiceAndResource,
        },
        9 => Command::Heal,
        10 => Command::PowerOff,
        11 => Command::Exit,
        12 => Command::Restart,
        13 => Command::Renewal { on: u.arbitrary()? },
        14 => match u.int_in_range(0..=2u8)? {
            0 => Command::ClockJump {
                jump_ms: u.arbitrary()?,
            },
            1 => Command::ClockJump {
                jump_ms: u.int_in_range(-30_000..=30_000)?,
            },
            _ => Command::ClockRate {
                rate_pct: u.int_in_range(-120..=120)?,
            },
        },
        _ => Command::LoseMessages { on: u.arbitrary()? },
    })
}

fn node_command(u: &mut Unstructured) -> Drawn<NodeCommand> {
    Ok(match u.int_in_range(0..=4u8)? {
        0 => NodeCommand::Crash,
        1 => NodeCommand::Restart,
        2 => NodeCommand::Failover,
        3 => NodeCommand::ClockJump {
            jump_ms: u.int_in_range(-30_000..=30_000)?,
        },
        _ => NodeCommand::Slow {
            extra_ms: amount(u, SLOW_MS_MAX + 1)?,
        },
    })
}
