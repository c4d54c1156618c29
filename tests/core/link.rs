//! Links and run files: every preset survives the trip through a link, and
//! every bad link in `tests/core/bad_links.txt` (and a few made here) is refused
//! with a message that names what is wrong.

use distlock::sim::Config;
use distlock::sim::Millis;
use distlock::wire::link::{self, base64url, RunLink, LINK_LEN_MAX};
use proptest::prelude::*;

use crate::common;
/// A page address in front of the fragment, as long as a real one.
const PAGE_URL: &str = "https://example.github.io/distributed-lock-simulator/#";
const LINK_CHARS_MAX: usize = 2_000;

/// Every preset on every backend it suits, fencing off and on, run for a
/// while past its last command, with the playhead half way.
fn preset_runs() -> Vec<(String, RunLink)> {
    common::story_runs()
        .into_iter()
        .map(|r| {
            let name = format!("{} on {}, fencing {:?}", r.preset.id, r.backend, r.fencing);
            (name, RunLink::of(&r.whole, Millis(r.end.ms() / 2)))
        })
        .collect()
}
#[test]
fn every_preset_survives_a_link_and_stays_under_2000_characters() {
    let mut longest = (0, String::new());
    for (name, run) in preset_runs() {
        let fragment = link::encode(&run);
        let decoded = link::decode(&fragment).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(decoded, run, "{name}: link -> run");
        assert_eq!(
            link::encode(&decoded),
            fragment,
            "{name}: link -> run -> link"
        );
        let url_len = PAGE_URL.len() + fragment.len();
        assert!(url_len < LINK_CHARS_MAX, "{name}: {url_len} characters");
        if url_len > longest.0 {
            longest = (url_len, name);
        }
    }
    println!(
        "longest preset link: {} characters ({})",
        longest.0, longest.1
    );
}

#[test]
fn a_run_file_reads_back_as_the_same_run() {
    for (name, run) in preset_runs().into_iter().step_by(5) {
        let whole = run.replay().expect("replays");
        let file = link::to_run_file(&run, whole.history());
        assert!(
            file.contains("\"history\""),
            "{name}: the file carries the history"
        );
        assert_eq!(link::from_run_file(&file), Ok(run), "{name}");
    }
}

/// A link whose JSON is `json` as it stands, written the way real links are.
fn pack(json: &str) -> String {
    format!("v1.{}", base64url(json.as_bytes()))
}

fn expect_refused(name: &str, fragment: &str, words: &str) {
    match link::decode(fragment) {
        Ok(run) => panic!("{name}: opened a bad link as {run:?}"),
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("This link "), "{name}: {message}");
            assert!(
                message.contains(words),
                "{name}: expected \"{words}\" in \"{message}\""
            );
        }
    }
}

#[test]
fn every_bad_link_in_the_corpus_says_what_is_wrong() {
    let config = serde_json::to_string(&Config::default()).expect("serializes");
    let corpus = include_str!("bad_links.txt");
    let mut checked = 0;
    for line in corpus
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, kind, payload, words] = fields[..] else {
            panic!("a corpus line has four tab-separated fields: {line:?}");
        };
        let fragment = match kind {
            "raw" => payload.to_string(),
            "json" => pack(&payload.replace("$CONFIG", &config)),
            other => panic!("{name}: unknown kind {other}"),
        };
        expect_refused(name, &fragment, words);
        checked += 1;
    }
    assert!(checked >= 30, "the corpus has {checked} entries");
}

#[test]
fn links_cut_short_changed_oversized_or_nested_too_deep_are_refused() {
    let (_, run) = &preset_runs()[0];
    let good = link::encode(run);
    for cut in [good.len() / 2, good.len() - 3, 5] {
        expect_refused("cut short", &good[..cut], "cut short");
    }
    // One character changed: refused, or (a digit of the seed, say) a run
    // that still replays.
    for at in [3, good.len() / 3, good.len() / 2, good.len() - 2] {
        let flipped = if &good[at..=at] == "A" { "B" } else { "A" };
        let changed = format!("{}{flipped}{}", &good[..at], &good[at + 1..]);
        if let Ok(run) = link::decode(&changed) {
            assert!(run.replay().is_ok());
        }
    }
    let long = format!("v1.{}", "A".repeat(LINK_LEN_MAX));
    expect_refused(
        "too long",
        &long,
        &format!("over the limit of {LINK_LEN_MAX}"),
    );
    let deep = pack(&"[".repeat(50_000));
    expect_refused("nested too deep", &deep, "nesting deeper than a run needs");
    assert_eq!(
        link::decode(&format!("#{good}")),
        Ok(run.clone()),
        "a leading # is fine"
    );
}

#[test]
fn bad_run_files_get_the_same_messages() {
    let message = link::from_run_file("{\"version\":1,\"config\":")
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "This file is cut short: part of the run is missing."
    );
    let message = link::from_run_file("[]").unwrap_err().to_string();
    assert!(
        message.starts_with("This file does not hold a run"),
        "{message}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the address holds, reading it returns; it never panics.
    #[test]
    fn any_text_is_read_without_panicking(text in "\\PC{0,200}") {
        let _ = link::decode(&text);
        let _ = link::from_run_file(&text);
    }

    #[test]
    fn any_bytes_behind_the_version_are_read_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = link::decode(&format!("v1.{}", base64url(&bytes)));
        let _ = link::decode(&pack(&String::from_utf8_lossy(&bytes)));
    }

    #[test]
    fn damaged_preset_links_are_read_without_panicking(which in 0usize..40, at in 0usize..2_000, cut in any::<bool>(), c in "[A-Za-z0-9_#%.-]") {
        let runs = preset_runs();
        let good = link::encode(&runs[which % runs.len()].1);
        let at = at % good.len();
        let damaged = if cut {
            good[..at].to_string()
        } else {
            format!("{}{c}{}", &good[..at], &good[at..])
        };
        if let Ok(run) = link::decode(&damaged) {
            // A change that still reads must still be a run that replays.
            prop_assert!(run.replay().is_ok());
        }
    }
}

/// A run file's refusal names where in its JSON the field is, first, as a
/// reader would look for it: `config.ttl_ms: ...`, `actions[2].at_ms: ...`.
#[test]
fn every_refused_field_of_a_run_file_names_its_path() {
    let (_, run) = &preset_runs()[0];
    let whole = run.replay().expect("replays");
    let good: serde_json::Value =
        serde_json::from_str(&link::to_run_file(run, whole.history())).unwrap();
    let cases: &[(&str, serde_json::Value, &str)] = &[
        ("/config/ttl_ms", "ten".into(), "config.ttl_ms: "),
        ("/config/ttl_ms", 0.into(), "config: "),
        ("/config/fencing", "maybe".into(), "config.fencing: "),
        (
            "/config/redis/release",
            "drop".into(),
            "config.redis.release: ",
        ),
        (
            "/config/pg/keepalives_count",
            (-1).into(),
            "config.pg.keepalives_count: ",
        ),
        (
            "/config/renewal",
            serde_json::json!([true]),
            "config.renewal: ",
        ),
        ("/actions/0/at_ms", (-5).into(), "actions[0].at_ms: "),
        ("/actions/1/client", "E".into(), "actions[1].client: "),
        (
            "/actions/0/command/do",
            "fly".into(),
            "actions[0].command.do: ",
        ),
        ("/end_ms", "soon".into(), "end_ms: "),
    ];
    for (pointer, value, path) in cases {
        let mut file = good.clone();
        *file
            .pointer_mut(pointer)
            .expect("the story's file has the field") = value.clone();
        let e = link::from_run_file(&file.to_string()).expect_err(pointer);
        assert!(e.to_string().contains(path), "{pointer}: {e}");
    }
    // A command's own field, and an order the scenario's check refuses.
    let mut file = good.clone();
    file["actions"][1] = serde_json::json!({"at_ms": 10, "client": "A",
        "command": {"do": "gc-pause", "pause_ms": "long"}});
    let e = link::from_run_file(&file.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("actions[1].command.pause_ms: "), "{e}");
    let mut file = good.clone();
    let last = file["actions"].as_array().unwrap().len() - 1;
    file["actions"][last]["at_ms"] = 0.into();
    let e = link::from_run_file(&file.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("actions[{last}].at_ms: ")), "{e}");
}
