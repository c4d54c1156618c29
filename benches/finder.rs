//! Prints the shortest-failure finder's figures, natively:
//! `cargo bench --bench finder`.
//!
//! 1. Distinct states per second on a search that finds nothing (etcd,
//!    fencing on, accepted tokens in order, up to 8 moves): the states
//!    within 8 moves, each once, over the whole search's time (and,
//!    beside it, every deepening pass's own count added up); and where
//!    the time of one state goes: the copy, the fingerprint, the move
//!    itself. Then the same search on every core, as `find` runs it.
//! 2. The time to the shortest stale write from the scenario to run first's
//!    settings (fencing off), on every system with a lease.
//! 3. With fencing on, on the systems whose tokens only grow: the time to
//!    the shortest stale write (a late write that lands before the new
//!    holder's first), and the time to show that accepted tokens never
//!    decrease within 8 moves.
//! 4. PostgreSQL's lock, with no lease, through pauses alone: one believer
//!    within 8 moves.

use distlock::lesson::presets::gc_pause;
use distlock::lesson::properties::Property;
use distlock::sim::{Backend, Config, Fencing, Millis, Sim};
use distlock::tools::finder::{self, Finder, MoveKind, Outcome, Progress, Request};
use distlock::words::thousands;
use std::hint::black_box;
use std::time::Instant;

fn config(backend: Backend, fencing: Fencing) -> Config {
    Config {
        backend,
        fencing,
        ..Config::default()
    }
}

/// Runs a search; its outcome, seconds, and states explored in all.
fn timed(request: &Request) -> (Outcome, f64, u64) {
    let (outcome, secs, progress) = timed_progress(request);
    (outcome, secs, progress.explored)
}

/// Runs a search; its outcome, seconds, and its counts at the end.
fn timed_progress(request: &Request) -> (Outcome, f64, Progress) {
    let started = Instant::now();
    let mut finder = Finder::new(request).expect("a valid request");
    let outcome = finder
        .run(u64::MAX)
        .expect("a search without a budget ends");
    (outcome, started.elapsed().as_secs_f64(), finder.progress())
}

/// Seconds of processor time this process has used (Linux), to set beside
/// the wall time on a machine shared with other work.
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name in parentheses; utime and stime are
    // the 14th and 15th of the whole line, in clock ticks (100 a second).
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn outcome_words(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Found(t) => format!(
            "found: {} moves, {} actions, at t={}",
            t.depth, t.actions, t.violation.at
        ),
        other => other.to_string(),
    }
}

/// Distinct states per second over one whole search to depth 8. The
/// search deepens one move at a time and each pass starts its own count,
/// so two figures: the states within 8 moves, each counted once (the
/// last pass's count: the figure set against the aim), and the distinct
/// states of every pass added up (a state within 3 moves is met again by
/// each of passes 3 to 8). Both are divided by the same search's time,
/// which includes every pass.
fn states_per_second() {
    let mut request = Request::new(
        config(Backend::Etcd, Fencing::On),
        Property::TokensNeverDecrease,
    );
    request.depth_max = 8;
    let cpu_before = cpu_secs();
    let (outcome, secs, progress) = timed_progress(&request);
    let cpu = cpu_secs()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let Outcome::NoneWithin { states, .. } = outcome else {
        panic!("the search to depth 8 finds nothing: {outcome}");
    };
    println!(
        "  etcd, fencing on, token order, one search of depths 1 to 8 in {secs:.2} s: {}",
        outcome_words(&outcome)
    );
    println!(
        "  {:.0} distinct states/s ({} states within 8 moves, each once); {:.0} a second counting each pass's own ({} over the 8 passes); {:.0} states explored/s ({} explored, duplicates included)",
        states as f64 / secs,
        thousands(states),
        progress.distinct as f64 / secs,
        thousands(progress.distinct),
        progress.explored as f64 / secs,
        thousands(progress.explored)
    );
    if let Some(cpu) = cpu {
        println!(
            "  by processor time ({cpu:.2} s; the machine may be shared): {:.0} distinct states/s ({:.0} counting each pass's own)",
            states as f64 / cpu,
            progress.distinct as f64 / cpu
        );
    }
    // The same search on every core, as `find` runs it; the one thread
    // above is the page's (a Web Worker).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let started = Instant::now();
    let several = finder::parallel::find(&request, threads, |_| true).expect("a valid request");
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(several, outcome, "the same outcome on {threads} threads");
    println!(
        "  on {threads} threads (`find`'s default), the same search in {secs:.2} s: {:.0} distinct states/s",
        states as f64 / secs
    );
}

/// Microseconds per call of `f`, over `n` calls.
fn micros(n: u32, mut f: impl FnMut() -> u64) -> f64 {
    let started = Instant::now();
    let mut sum = 0u64;
    for _ in 0..n {
        sum = sum.wrapping_add(f());
    }
    black_box(sum);
    started.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

/// What one state costs, on states in the middle of the scenario to run first.
fn where_the_time_goes() {
    const N: u32 = 200_000;
    let scenario = gc_pause(config(Backend::Etcd, Fencing::On));
    let sims: Vec<Sim> = [300, 2_000, 5_600, 7_000]
        .iter()
        .map(|&t| Sim::replay(&scenario, Millis(t)).expect("the story runs"))
        .collect();
    let mut i = 0;
    let mut next = || {
        i = (i + 1) % sims.len();
        &sims[i]
    };
    let copy = micros(N, || next().snapshot().now().ms());
    let fingerprint = micros(N, || next().fingerprint());
    let step = micros(N, || {
        let mut s = next().snapshot();
        s.step();
        s.now().ms()
    });
    let step_only = step - copy;
    println!(
        "  one state: copy (Sim::snapshot) {copy:.2} µs, fingerprint {fingerprint:.2} µs, one event run {step_only:.2} µs"
    );
    println!(
        "  (a move copies the state and runs an action or a wait of several events; the search then fingerprints the result and, when a write or a second client is on its way, runs a copy ahead)"
    );
}

/// The time to the shortest stale write, fencing off, on every system with a lease.
fn to_the_first_stale_write() {
    for backend in Backend::ALL {
        if backend == Backend::Postgres {
            continue;
        }
        let request = Request::new(config(backend, Fencing::Off), Property::NoStaleWrite);
        let (outcome, secs, explored) = timed(&request);
        println!(
            "  {:<9} fencing off, no stale write: {} in {:.3} s ({} states explored)",
            backend.name(),
            outcome_words(&outcome),
            secs,
            thousands(explored)
        );
    }
}

/// With fencing on, on the systems whose tokens only grow.
fn with_fencing_on() {
    for backend in Backend::ALL {
        let c = config(backend, Fencing::On);
        if !backend.monotonic_tokens_in(&c) {
            continue;
        }
        let stale = Request::new(c.clone(), Property::NoStaleWrite);
        let (outcome, secs, _) = timed(&stale);
        println!(
            "  {:<9} fencing on, no stale write: {} in {:.3} s",
            backend.name(),
            outcome_words(&outcome),
            secs
        );
        let order = Request::new(c, Property::TokensNeverDecrease);
        let (outcome, secs, explored) = timed(&order);
        println!(
            "  {:<9} fencing on, tokens never decrease: {} in {:.2} s ({} states explored)",
            backend.name(),
            outcome_words(&outcome),
            secs,
            thousands(explored)
        );
    }
}

/// A lock with no lease keeps one believer through any pauses.
fn no_lease() {
    let mut request = Request::new(
        config(Backend::Postgres, Fencing::Off),
        Property::OneBeliever,
    );
    request.moves = vec![
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::Pause,
        MoveKind::Wait,
    ];
    let (outcome, secs, explored) = timed(&request);
    println!(
        "  PostgreSQL, pauses but no partition or crash, one believer: {} in {secs:.2} s ({} states explored)",
        outcome_words(&outcome),
        thousands(explored)
    );
}

fn main() {
    println!("distlock shortest-failure finder");
    states_per_second();
    where_the_time_goes();
    to_the_first_stale_write();
    with_fencing_on();
    no_lease();
}
