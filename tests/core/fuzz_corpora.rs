#![cfg(not(target_arch = "wasm32"))]
//! Every fuzz target's committed seeds (`fuzz/seeds/TARGET/`) and every
//! input that once crashed one (`fuzz/regressions/TARGET/`), replayed
//! through the targets' bodies (`distlock::fuzzing`) natively: the long
//! runs are `scripts/check/fuzz.sh`'s, on the nightly toolchain; these take
//! seconds. `write_fuzz_seeds` (ignored; the script runs it) writes the
//! seeds from the project's own corpora.

use distlock::fuzzing::TARGETS;
use distlock::sim::{Config, Millis, Sim};
use distlock::wire::link::{self, base64url, RunLink};
use distlock::work::{Job, Request, PROTOCOL_VERSION};
use std::path::{Path, PathBuf};

use crate::common;
fn fuzz_dir(kind: &str, target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target)
}

/// The files of one folder, sorted; none if it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.is_file() && !f.ends_with("README.md"));
    files.sort();
    files
}

#[test]
fn every_target_replays_its_seeds_and_regressions() {
    for &(name, body) in TARGETS {
        let seeds = files(&fuzz_dir("seeds", name));
        assert!(
            !seeds.is_empty(),
            "{name} has no seeds: run write_fuzz_seeds"
        );
        for file in seeds.iter().chain(&files(&fuzz_dir("regressions", name))) {
            let data = std::fs::read(file).expect("a corpus file reads");
            let ran = std::panic::catch_unwind(|| body(&data));
            assert!(ran.is_ok(), "{name} fails on {}", file.display());
        }
    }
}

/// The fuzzer's own corpus (`fuzz/corpus/TARGET/`, not committed), when a
/// long run left one: `cargo test --test core fuzz_corpora:: -- --ignored`.
#[test]
#[ignore = "replays what scripts/check/fuzz.sh found, when it has run here"]
fn every_target_replays_its_grown_corpus() {
    for &(name, body) in TARGETS {
        for file in files(&fuzz_dir("corpus", name)) {
            body(&std::fs::read(&file).expect("a corpus file reads"));
        }
    }
}

/// Every story as a run: each preset on each system it suits, fencing off
/// and on, halfway through.
fn story_runs() -> Vec<(String, RunLink, Sim)> {
    common::story_runs()
        .into_iter()
        .map(|r| {
            let name = format!("{}-{}-{:?}", r.preset.id, r.backend.slug(), r.fencing);
            let link = RunLink::of(&r.whole, Millis(r.end.ms() / 2));
            (name, link, r.whole)
        })
        .collect()
}
/// The bad links of `tests/core/bad_links.txt`, as the address would hold them.
fn bad_links() -> Vec<(String, String)> {
    let config = serde_json::to_string(&Config::default()).expect("serializes");
    include_str!("bad_links.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [name, kind, payload, _] = fields[..] else {
                return None;
            };
            let fragment = match kind {
                "json" => {
                    let json = payload.replace("$CONFIG", &config);
                    format!("v1.{}", base64url(json.as_bytes()))
                }
                _ => payload.to_string(),
            };
            Some((name.replace(' ', "-"), fragment))
        })
        .collect()
}

/// Queries a visitor or a link could bring to the explorer.
const QUERIES: &[&str] = &[
    "",
    "?explore",
    "?explore&system=redlock&ttls=1%2C+2&seed=7",
    "?explore=system%3Dredlock%26ttls%3D1%252C%2B2%26seed%3D7",
    "system=redis&fencing=on&renewal=off&check=before-write&clients=4&hold=250&think=2.5\
     &rate=0.5&pauses=custom&per-hour=60&median=1.5&p99=40&ttls=2%2C+4&axis=rate\
     &values=1%2C10&trials=7&seed=42",
    "?explore&system=%3Cimg+src%3Dx%3E&ttls=1",
    "trials=999999999999&hold=abc&ttls=1%2C+0.5&pauses=gc&clients=9",
    "pauses=custom&median=50&p99=10",
    "values=%22%3E%3Csvg+onload%3Dalert(1)%3E&seed=%3Cscript%3E",
];

fn requests() -> Vec<String> {
    let run = link::encode(&story_runs()[0].1);
    let jobs = [
        Job::Compare,
        Job::Spanner,
        Job::ExploreForm {
            query: QUERIES[2].into(),
        },
        Job::Explore {
            query: "ttls=1&values=1&trials=3".into(),
        },
        Job::ExploreStop,
        Job::ExplorePart {
            plan: "{}".into(),
            cell: 0,
            part: r#"{"plain":{"from":0,"to":3}}"#.into(),
        },
        Job::Find {
            run: run.clone(),
            query: "property=stale-write&pause_max_s=20&fault=pause&depth=4".into(),
        },
        Job::Export {
            run: run.clone(),
            format: distlock::wire::export::Format::ALL[0],
        },
        Job::Code {
            system: distlock::sim::Backend::Etcd,
            kazoo: false,
            fence: Some(distlock::sim::FenceRule::Highest),
            ttl_ms: 5_000,
        },
        Job::Wire {
            run: run.clone(),
            message: 3,
        },
        Job::CompareAt {
            run,
            page: "https://example.org/distlock/?view=compare".into(),
        },
        Job::FindForm {
            query: "find&property=two-holders&fault=node-crash".into(),
        },
    ];
    let mut texts: Vec<String> = jobs
        .into_iter()
        .map(|job| {
            let request = Request {
                v: PROTOCOL_VERSION,
                id: 1,
                job,
            };
            serde_json::to_string(&request).expect("a request writes")
        })
        .collect();
    texts.push(r#"{"v":1,"id":2,"html":"<p>done</p>","done":true}"#.into());
    texts.push(r#"{"v":9,"id":1,"job":"compare"}"#.into());
    texts
}

/// Writes the seeds into `fuzz/seeds/` (or `FUZZ_SEEDS_DIR`): the bad
/// links, every story's link and run file, explorer queries, worker
/// messages, and for the core a few byte strings of each length class.
#[test]
#[ignore = "run by scripts/check/fuzz.sh, and by hand when the corpora change"]
fn write_fuzz_seeds() {
    let root = std::env::var("FUZZ_SEEDS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds"));
    let write = |target: &str, name: &str, data: &[u8]| {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir).expect("the seeds folder is writable");
        std::fs::write(dir.join(name), data).expect("a seed writes");
    };
    for (name, fragment) in bad_links() {
        write("decode_link", &format!("bad-{name}"), fragment.as_bytes());
    }
    for (i, (name, run, whole)) in story_runs().iter().enumerate() {
        write(
            "decode_link",
            &format!("story-{name}"),
            link::encode(run).as_bytes(),
        );
        // Run files carry the whole history: every fifth story keeps the
        // committed seeds small.
        if i % 5 == 0 {
            let file = link::to_run_file(run, whole.history());
            write("run_file", &format!("story-{name}.json"), file.as_bytes());
        }
    }
    write("run_file", "empty.json", b"{}");
    for (i, query) in QUERIES.iter().enumerate() {
        write("explore_query", &format!("query-{i:02}"), query.as_bytes());
    }
    for (i, text) in requests().iter().enumerate() {
        write(
            "worker_message",
            &format!("message-{i:02}"),
            text.as_bytes(),
        );
    }
    for (i, len) in [0usize, 16, 64, 256, 1024].into_iter().enumerate() {
        let bytes: Vec<u8> = (0..len).map(|k| (k * 37 + i * 11) as u8).collect();
        write("core_commands", &format!("bytes-{len:04}"), &bytes);
    }
}

/// How long each target's body takes on its seeds, the slowest named:
/// `cargo test --release --test core fuzz_corpora:: -- --ignored --nocapture
/// time_each_target` shows where a target's executions go.
#[test]
#[ignore = "prints timings; the fuzzer's rate follows them"]
fn time_each_target() {
    for &(name, body) in TARGETS {
        let mut times: Vec<(std::time::Duration, PathBuf)> = files(&fuzz_dir("seeds", name))
            .into_iter()
            .map(|file| {
                let data = std::fs::read(&file).expect("a corpus file reads");
                let start = std::time::Instant::now();
                body(&data);
                (start.elapsed(), file)
            })
            .collect();
        times.sort();
        let total: std::time::Duration = times.iter().map(|t| t.0).sum();
        println!(
            "{name}: {} seeds, {:.1} ms in all, {:.2} ms each",
            times.len(),
            total.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3 / times.len().max(1) as f64
        );
        for (time, file) in times.iter().rev().take(3) {
            let file = file.file_name().unwrap_or_default().to_string_lossy();
            println!("  {:.2} ms {file}", time.as_secs_f64() * 1e3);
        }
    }
}
