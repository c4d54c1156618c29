//! The stories' long words (what happens, what fixes it) are left out of
//! the page's first load: the page fetches them from `stories.json`
//! (assets/, copied beside the page by trunk) when a visitor first loads a
//! story. The file is written from `lesson::presets`, the words' one
//! source: this test fails when the two differ, and writes the file anew
//! when run with DISTLOCK_WRITE_STORIES=1.

use distlock::lesson::presets::{self, PRESETS};
use distlock::sim::Backend;
use distlock::wire::json;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/stories.json");

#[test]
fn stories_json_holds_the_words_of_lesson_presets() {
    let written = presets::words_file();
    if std::env::var_os("DISTLOCK_WRITE_STORIES").is_some() {
        std::fs::write(FILE, &written).expect("assets/ is writable");
    }
    let committed = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        committed == written,
        "assets/stories.json differs from the stories in src/lesson/presets.rs: \
         write it anew with `DISTLOCK_WRITE_STORIES=1 cargo test --test core stories_file`"
    );
}

#[test]
fn the_page_finds_every_story_s_words_as_each_system_tells_it() {
    let file = json::parse(&presets::words_file()).expect("the file is JSON");
    for p in PRESETS {
        for backend in Backend::ALL {
            let told = presets::told(p, backend);
            let found = presets::words_in(&file, p, backend);
            assert_eq!(
                found,
                Some((told.story.to_string(), told.fix.to_string())),
                "{} on {backend}",
                p.id
            );
            assert!(!told.story.is_empty() && !told.fix.is_empty(), "{}", p.id);
        }
    }
    // PostgreSQL tells the GC pause its own way, under its own key.
    let gc = &presets::GC_PAUSE;
    let (story, _) = presets::words_in(&file, gc, Backend::Postgres).expect("found");
    assert!(story.contains("advisory lock 42"), "{story}");
    let key = |b: Backend| format!("gc-pause/{}", b.slug());
    assert!(file.get(&key(Backend::Postgres)).is_some());
    assert!(
        file.get(&key(Backend::Etcd)).is_none(),
        "etcd tells it as the preset does"
    );
}

#[test]
fn a_file_without_the_story_finds_nothing_rather_than_another_story() {
    let gc = &presets::GC_PAUSE;
    let empty = json::parse("{}").expect("JSON");
    assert_eq!(presets::words_in(&empty, gc, Backend::Etcd), None);
    let other = json::parse(r#"{"delayed-write": {"story": "s", "fix": "f"}}"#).expect("JSON");
    assert_eq!(presets::words_in(&other, gc, Backend::Etcd), None);
    let partial = json::parse(r#"{"gc-pause": {"story": "s"}}"#).expect("JSON");
    assert_eq!(presets::words_in(&partial, gc, Backend::Etcd), None);
}
