//! What the core's tests share: the seeds a seed loop runs (and the
//! `DISTLOCK_SEED` line that runs one again), a scenario replayed to a
//! time, a run's story in words (without the messages on the wire), the
//! grants one client got, the comparison's partitioned-holder script,
//! PostgreSQL's session ends, every story as a run, and a text compared
//! with its copy kept in `tests/golden/`; with what every test crate
//! shares (`tests/common/`): a client by its letter and the scenario to
//! run first as a script.

pub use crate::shared::{client, first_scenario};
use distlock::lesson::presets::{Preset, PRESETS};
use distlock::sim::{
    Backend, ClientId, Command, Config, Event, Fencing, Millis, PgSessionEnd, Scenario,
    ServiceEvent, Sim, Token,
};
use distlock::tools::compare;

/// The seeds a test that loops over seeds runs: `defaults`, or only the
/// one in `DISTLOCK_SEED` when it is set. Such a test names the seed of a
/// failing run as `DISTLOCK_SEED=n`, the line that runs it again alone
/// (`DISTLOCK_SEED=7 cargo test --test core_dynamodb other_seeds`).
pub fn seeds(defaults: impl IntoIterator<Item = u64>) -> Vec<u64> {
    match std::env::var("DISTLOCK_SEED") {
        Ok(text) => vec![text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("DISTLOCK_SEED={text:?} is not a seed"))],
        Err(_) => defaults.into_iter().collect(),
    }
}

/// A failing seeded run's story, headed by the line that runs it again.
pub fn seeded_story(sim: &Sim) -> String {
    format!("DISTLOCK_SEED={}\n{}", sim.config().seed, story(sim))
}

/// Replays `scenario` to `until_ms`: a step the run refuses fails the test.
pub fn run(scenario: &Scenario, until_ms: u64) -> Sim {
    Sim::replay(scenario, Millis(until_ms))
        .unwrap_or_else(|e| panic!("the script runs (seed {}): {e}", scenario.config.seed))
}

/// The run's history, a line a record, without the messages sent.
pub fn story(sim: &Sim) -> String {
    sim.history()
        .iter()
        .filter(|r| !matches!(r.event, Event::MessageSent { .. }))
        .map(|r| format!("{r}\n"))
        .collect()
}

/// Grants to `who`: (time, token).
pub fn grants(sim: &Sim, who: char) -> Vec<(Millis, Option<Token>)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Acquired {
                client: c, token, ..
            } if c == client(who) => Some((r.at, token)),
            _ => None,
        })
        .collect()
}

/// The comparison's partitioned-holder script (`tools::compare::scenario`)
/// run with `config`: A is cut off from the service at 1 s and writes at
/// 2.1 s; B asks every 5 s and writes every 200 ms once it holds; A heals
/// at 41 s and writes at once. `a_writes_at` adds a write of A's (after
/// any of B's at the same time). Play it with `Sim::play`, which skips
/// B's refused writes.
pub fn partitioned_holder(config: Config, a_writes_at: Option<u64>) -> Scenario {
    let mut s = compare::scenario("partitioned-holder", config.backend, config.fencing)
        .expect("every system runs the partitioned-holder script");
    s.config = config;
    if let Some(t) = a_writes_at {
        s = s.client(t, 'A', Command::Write);
        // Scripts run in time order; same-time actions keep their order.
        s.actions.sort_by_key(|a| a.at);
    }
    s
}

/// PostgreSQL's session ends: when, whose, why, and whether it freed the lock.
pub fn pg_session_ends(sim: &Sim) -> Vec<(Millis, ClientId, PgSessionEnd, bool)> {
    sim.history()
        .iter()
        .filter_map(|r| match r.event {
            Event::Service(ServiceEvent::PgSessionEnded {
                client,
                why,
                freed_lock,
                ..
            }) => Some((r.at, client, why, freed_lock)),
            _ => None,
        })
        .collect()
}

/// One story as a run: a preset on one system it suits, with fencing off or
/// on, replayed to 5 s past its last command (`end`).
pub struct StoryRun {
    pub preset: &'static Preset,
    pub backend: Backend,
    pub fencing: Fencing,
    pub whole: Sim,
    pub end: Millis,
}

/// Every preset on every system it suits, fencing off and on.
pub fn story_runs() -> Vec<StoryRun> {
    let mut runs = Vec::new();
    for preset in PRESETS {
        for &backend in preset.backends {
            for fencing in [Fencing::Off, Fencing::On] {
                let scenario = preset
                    .scenario(backend, fencing)
                    .expect("the preset suits its backends");
                let end = scenario.last_at().plus(5_000);
                let whole = Sim::replay(&scenario, end).expect("presets replay");
                runs.push(StoryRun {
                    preset,
                    backend,
                    fencing,
                    whole,
                    end,
                });
            }
        }
    }
    runs
}

/// Compares `text` with `tests/golden/NAME.txt` byte for byte, or writes
/// it there when `DISTLOCK_WRITE_GOLDEN` is set: for text a person reads
/// whole (the wire, the Code view), where a change should be seen in a
/// diff and made on purpose.
pub fn golden(name: &str, text: &str) {
    let path = format!("{}/tests/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("DISTLOCK_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    if kept != text {
        let line = kept
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(kept.lines().count().min(text.lines().count()));
        panic!(
            "{path} differs from the text now, first at line {}: if the change is meant, \
             write it anew with `DISTLOCK_WRITE_GOLDEN=1 cargo test` and read the diff",
            line + 1
        );
    }
}
