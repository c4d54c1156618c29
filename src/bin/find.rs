//! Finds the shortest run that breaks a safety property, from given
//! settings, and prints it as a run file the page imports ("Open a run
//! file"); the steps, told in words, and the search's progress go to
//! standard error.
//!
//! ```sh
//! cargo run --release --bin find -- --backend etcd --fencing off --property stale-write --depth 8 > run.json
//! cargo run --release --bin find -- --preset release-other --backend redlock --property foreign-release
//! cargo run --release --bin find -- --from run.json --property two-holders
//! ```
//!
//! Exit status: 0 when a run was found, 1 when none was within the bounds
//! (the bound is printed), 2 when the arguments are wrong.

use distlock::cli::value;
use distlock::lesson::presets;
use distlock::lesson::properties::Property;
use distlock::sim::{
    Backend, Config, FenceMode, Fencing, Persistence, ReleaseMode, RestartPolicy, Seed,
};
use distlock::tools::finder::{self, MoveKind, Outcome, Progress, Request, Trace};
use distlock::wire::link::{self, RunLink};
use distlock::words::thousands;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
find: the shortest run that breaks a safety property

Usage: find [options] > run.json

Settings (the defaults are the page's):
  --backend NAME      redis, redlock, zookeeper, etcd, chubby, consul, dynamodb, postgresql (etcd)
  --fencing on|off    (off)
  --preset ID         a story's settings, the others given on top (its script is not played)
  --ttl-ms N          the TTL in milliseconds (5000)
  --seed N            the run's seed (1)
  --release MODE      Redis release: check-value or plain-del
  --restart MODE      Redis node restart: immediate or delayed
  --persistence MODE  Redis persistence: none or fsync
  --fence MODE        with fencing on, the resource's check: documented, highest, check,
                      takeover (the new holder announces its token as it takes over) or
                      version (PostgreSQL's row version)
  --from FILE         start where a run file's playhead stands, with its settings and script

Search:
  --property NAME     stale-write, two-holders, token-order, foreign-release, write-without-lease (stale-write)
  --depth N           moves at most (8)
  --states N          distinct states at one depth at most (1000000)
  --clients N         clients the search may use, 1 to 4 (2)
  --moves LIST        comma-separated kinds of move: acquire, write, release, pause, partition,
                      crash, clock-jump, node-crash, node-clock-jump, failover, delayed-write,
                      wait, next-event, exit, power-off (all but delayed-write, next-event,
                      exit and power-off: crash is both of the last two)
  --pause-max-ms N    GC pauses last at most N ms (the lengths tried are cut to it)
  --early-release     also runs where a client releases while its write is unacknowledged
  --threads N         threads to search on (every core); the outcome is the same on any number
  --quiet             no progress on standard error
";

/// The setting flags, each taking a value.
const SETTINGS: [&str; 8] = [
    "backend",
    "fencing",
    "ttl-ms",
    "seed",
    "release",
    "restart",
    "persistence",
    "fence",
];

/// The arguments, read.
struct Args {
    request: Request,
    quiet: bool,
    threads: usize,
}

fn main() -> ExitCode {
    let args = match read_args() {
        Ok(Some(args)) => args,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("find: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let config = &args.request.scenario.config;
    eprintln!(
        "Searching {}, fencing {}, for a run that breaks \"{}\", up to {} moves",
        config.backend.name(),
        if config.fencing.is_on() { "on" } else { "off" },
        args.request.property,
        args.request.depth_max
    );
    let started = Instant::now();
    let quiet = args.quiet;
    let outcome = search(&args.request, args.threads, |p| {
        if !quiet {
            report(p, started);
        }
        true
    });
    let secs = started.elapsed().as_secs_f64();
    match outcome {
        Err(e) => {
            eprintln!("find: {e}");
            ExitCode::from(2)
        }
        Ok(Outcome::Found(trace)) if trace.depth == 0 => {
            eprintln!("The starting run breaks it already:");
            eprintln!("\"{}\" {}", trace.violation.property, trace.violation);
            print_run(&trace)
        }
        Ok(Outcome::Found(trace)) => {
            eprintln!(
                "Found in {secs:.2} s: {} moves, {} of them the visitor's actions ({} distinct states at that depth)",
                trace.depth,
                trace.actions,
                thousands(trace.states)
            );
            for line in trace.lines() {
                eprintln!("{line}");
            }
            eprintln!("\"{}\" {}", trace.violation.property, trace.violation);
            if let Some(words) = trace.client_bug() {
                eprintln!("{words}");
            }
            print_run(&trace)
        }
        Ok(other) => {
            eprintln!("After {secs:.2} s: {other}.\n{}", finder::LEFT_OUT);
            ExitCode::from(1)
        }
    }
}

/// The search on `threads` threads.
#[cfg(not(target_arch = "wasm32"))]
fn search(
    request: &Request,
    threads: usize,
    on_progress: impl FnMut(&Progress) -> bool,
) -> Result<Outcome, finder::FindError> {
    finder::parallel::find(request, threads, on_progress)
}

/// A wasm32 build has no threads to start: the search runs on one. (The
/// command line is native; this keeps every bin building for wasm32.)
#[cfg(target_arch = "wasm32")]
fn search(
    request: &Request,
    _threads: usize,
    on_progress: impl FnMut(&Progress) -> bool,
) -> Result<Outcome, finder::FindError> {
    finder::find(request, on_progress)
}

/// The trace as a run file on standard output, its playhead on the violation.
fn print_run(trace: &Trace) -> ExitCode {
    let Ok(whole) = trace.replay() else {
        eprintln!("find: the trace does not replay");
        return ExitCode::from(2);
    };
    let run = RunLink::of(&whole, trace.violation.at);
    println!("{}", link::to_run_file(&run, whole.history()));
    ExitCode::SUCCESS
}

fn report(p: &Progress, started: Instant) {
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    eprintln!(
        "  depth {} ({} done): {} distinct states, {} explored in all, {:.0} explored per second",
        p.depth,
        p.depth_done,
        thousands(p.states),
        thousands(p.explored),
        p.explored as f64 / secs
    );
}

/// The arguments as a request; `None` for --help.
fn read_args() -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut request = Request::new(Config::default(), Property::NoStaleWrite);
    let mut preset = None;
    let mut from = None;
    let mut settings: Vec<(String, String)> = Vec::new();
    let mut quiet = false;
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("help") | Short('h') => return Ok(None),
            Long("quiet") => quiet = true,
            Long("threads") => {
                threads = number(&value(&mut parser)?)?;
                if threads == 0 {
                    return Err("--threads must be 1 or more".into());
                }
            }
            Long("from") => from = Some(value(&mut parser)?),
            Long("preset") => preset = Some(value(&mut parser)?),
            Long("property") => {
                let v = value(&mut parser)?;
                request.property = Property::from_slug(&v).ok_or(format!("no property {v:?}"))?;
            }
            Long("depth") => request.depth_max = number(&value(&mut parser)?)?,
            Long("states") => request.states_max = number(&value(&mut parser)?)?,
            Long("clients") => request.clients_max = number(&value(&mut parser)?)?,
            Long("moves") => request.moves = moves(&value(&mut parser)?)?,
            Long("pause-max-ms") => request.pause_max_ms = Some(number(&value(&mut parser)?)?),
            Long("early-release") => request.early_release = true,
            Long(name) if SETTINGS.contains(&name) => {
                let name = name.to_string();
                settings.push((name, value(&mut parser)?));
            }
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    if let Some(path) = from {
        if preset.is_some() || !settings.is_empty() {
            return Err("a run file carries its own settings: give --from without them".into());
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let run = link::from_run_file(&text).map_err(|e| e.to_string())?;
        request.scenario = run.scenario;
        request.from_ms = Some(run.playhead_ms);
    } else {
        let mut config = Config::default();
        for (name, v) in &settings {
            setting(&mut config, name, v)?;
        }
        // A story's settings on the backend and fencing given, and the
        // other settings given on top of the story's.
        if let Some(id) = preset {
            config = preset_config(&id, &config)?;
            for (name, v) in &settings {
                setting(&mut config, name, v)?;
            }
        }
        request.scenario.config = config;
    }
    Ok(Some(Args {
        request,
        quiet,
        threads,
    }))
}

/// One setting flag applied to `config`.
fn setting(config: &mut Config, name: &str, v: &str) -> Result<(), String> {
    let bad = || format!("--{name} cannot be {v:?}");
    match name {
        "backend" => config.backend = Backend::from_slug(v).ok_or_else(bad)?,
        "fencing" => {
            config.fencing = match v {
                "on" => Fencing::On,
                "off" => Fencing::Off,
                _ => return Err(bad()),
            }
        }
        "ttl-ms" => config.ttl_ms = number(v)?,
        "seed" => config.seed = Seed(number(v)?),
        "release" => {
            config.redis.release = match v {
                "check-value" => ReleaseMode::CheckValue,
                "plain-del" => ReleaseMode::PlainDel,
                _ => return Err(bad()),
            }
        }
        "restart" => {
            config.redis.restart = match v {
                "immediate" => RestartPolicy::Immediate,
                "delayed" => RestartPolicy::Delayed,
                _ => return Err(bad()),
            }
        }
        "persistence" => {
            config.redis.persistence = match v {
                "none" => Persistence::None,
                "fsync" => Persistence::Fsync,
                _ => return Err(bad()),
            }
        }
        "fence" => {
            config.fence = [FenceMode::Documented]
                .into_iter()
                .chain(FenceMode::ALL)
                .find(|m| m.word() == v)
                .ok_or_else(bad)?;
        }
        _ => return Err(format!("there is no option --{name}")),
    }
    Ok(())
}

/// A story's settings on the backend and fencing given so far.
fn preset_config(id: &str, given: &Config) -> Result<Config, String> {
    let p = presets::preset(id).ok_or(format!("no story {id:?}"))?;
    let backend = given.backend;
    let scenario = p.scenario(backend, given.fencing).ok_or(format!(
        "the story {id:?} is not told on {backend}; it is on {}",
        p.backends
            .iter()
            .map(|b| b.slug())
            .collect::<Vec<_>>()
            .join(", ")
    ))?;
    Ok(scenario.config)
}

fn moves(list: &str) -> Result<Vec<MoveKind>, String> {
    list.split(',')
        .map(|s| MoveKind::from_slug(s.trim()).ok_or(format!("no kind of move {s:?}")))
        .collect()
}

fn number<T: std::str::FromStr>(v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{v:?} is not a number in range"))
}
