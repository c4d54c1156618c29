//! The Properties panel, rendered natively with Yew's server renderer:
//! each property holds so far or names the moment it broke, against runs
//! that break some and runs that break none; the check kept between frames
//! agrees with a check of the whole history; the search is offered below.
//!

#![cfg(not(target_arch = "wasm32"))]

use distlock::lesson::presets::first_scenario_config;
use distlock::lesson::properties::{Properties, Property};
use distlock::sim::{Backend, Fencing, Seed, Sim};
use distlock::ui::properties::{PropertiesPanel, PropertiesPanelProps, PropertyCache};
use distlock::ui::{App, AppProps};
use std::rc::Rc;
use yew::{Callback, LocalServerRenderer};

use crate::common;
use common::first_scenario_clicked;

const SEED: u64 = 1;

fn panel_props(sim: &Sim, shown_ms: Option<u64>) -> PropertiesPanelProps {
    let mut cache = PropertyCache::default();
    PropertiesPanelProps {
        found: cache.found(sim.history(), 0),
        shown_ms,
        dropped: sim.history_dropped(),
        dispatch: Callback::noop(),
        run_link: Callback::from(|()| String::new()),
    }
}

async fn render_panel(props: PropertiesPanelProps) -> String {
    LocalServerRenderer::<PropertiesPanel>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

/// The list item of the property titled `title`.
fn item<'a>(html: &'a str, title: &str) -> &'a str {
    let name = format!(r#"<span class="properties__name">{title}</span>"#);
    let at = html
        .find(&name)
        .unwrap_or_else(|| panic!("{title} is not listed"));
    let start = html[..at].rfind("<li").expect("inside an item");
    let end = at + html[at..].find("</li>").expect("the item closes");
    &html[start..end]
}

#[tokio::test(flavor = "current_thread")]
async fn a_fresh_run_holds_every_property_so_far() {
    let sim = Sim::new(first_scenario_config(Seed(SEED))).unwrap();
    let html = render_panel(panel_props(&sim, None)).await;
    assert!(html.contains(r#"aria-labelledby="properties-title""#));
    assert!(html.contains(r#"<h2 id="properties-title" class="panel__title">Properties</h2>"#));
    assert_eq!(html.matches("holds so far").count(), 5, "{html}");
    assert_eq!(html.matches("properties__item--holds").count(), 5);
    assert!(!html.contains("violated at"));
}

#[tokio::test(flavor = "current_thread")]
async fn the_first_scenario_unfenced_names_what_broke_and_when() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let checked = Properties::of(&sim);
    let stale = checked
        .violation(Property::NoStaleWrite)
        .expect("A's late write is accepted");
    let html = render_panel(panel_props(&sim, None)).await;
    let row = item(&html, "no stale write accepted");
    assert!(row.contains("properties__item--violated"), "{row}");
    assert!(
        row.contains(&format!(">violated at t={}</button>", stale.at)),
        "{row}"
    );
    assert!(row.contains("title=\"Move the playhead to this moment\""));
    assert!(row.contains(" by A"), "{row}");
    for broken in [
        "at most one client believes it holds the lock",
        "no write without a lease",
        // Unfenced, the resource took A's token 2 after B's higher one.
        "tokens accepted at the resource never decrease",
    ] {
        assert!(item(&html, broken).contains("violated at t="), "{broken}");
    }
    let row = item(&html, "no release deletes another client's lock");
    assert!(row.contains("holds so far"), "{row}");
    assert!(!html.contains("after the moment shown"));
}

#[tokio::test(flavor = "current_thread")]
async fn with_fencing_on_the_stale_write_is_refused_yet_was_made_without_a_lease() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::On, SEED, 10_000);
    let html = render_panel(panel_props(&sim, None)).await;
    assert!(item(&html, "no stale write accepted").contains("holds so far"));
    let row = item(&html, "no write without a lease");
    assert!(row.contains("violated at t="), "{row}");
    assert!(row.contains("rejected by fencing"), "{row}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_violation_after_the_moment_shown_says_so() {
    let sim = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000);
    let html = render_panel(panel_props(&sim, Some(3_000))).await;
    let row = item(&html, "no stale write accepted");
    assert!(row.contains("(after the moment shown)"), "{row}");
}

#[tokio::test(flavor = "current_thread")]
async fn the_panel_offers_the_search_for_the_shortest_failure() {
    let sim = Sim::new(first_scenario_config(Seed(SEED))).unwrap();
    let html = render_panel(panel_props(&sim, None)).await;
    assert!(html.contains(
        r#"<h3 id="finder-title" class="panel__subtitle">Find the shortest failure</h3>"#
    ));
    // The question's form is the worker's to draw: the page carries two
    // buttons, the default question at once or the form first.
    assert!(!html.contains("<option "), "{html}");
    assert!(html.contains(">Set the question first</button>"), "{html}");
    assert!(html.contains(">Find the shortest failure</button>"));
    assert!(!html.contains(">Cancel</button>"));
}

#[tokio::test(flavor = "current_thread")]
async fn the_page_places_the_panel_after_the_timeline() {
    let props = AppProps {
        start: Some(distlock::ui::state::StartSim(Rc::new(
            first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 10_000),
        ))),
        request: None,
        on_drawn: None,
    };
    let html = LocalServerRenderer::<App>::with_props(props)
        .hydratable(false)
        .render()
        .await;
    let properties = html.find(r#"aria-labelledby="properties-title""#).unwrap();
    let timeline = html.find(r#"aria-labelledby="timeline-title""#).unwrap();
    let share = html.find(r#"aria-labelledby="share-title""#).unwrap();
    assert!(timeline < properties && properties < share);
    assert_eq!(html[properties..share].matches("violated at t=").count(), 4);
}

#[test]
fn the_check_kept_between_frames_agrees_with_a_whole_check() {
    let whole = first_scenario_clicked(Backend::Etcd, Fencing::Off, SEED, 12_000);
    let history = whole.history();
    let expected: Vec<_> = Property::ALL
        .into_iter()
        .map(|p| Properties::of(&whole).violation(p).cloned())
        .collect();
    // Fed a frame at a time, as the page does.
    let mut cache = PropertyCache::default();
    let mut last = cache.found(&[], 0);
    for end in (0..=history.len()).step_by(3).chain([history.len()]) {
        let found = cache.found(&history[..end], 0);
        if found != last {
            assert!(!Rc::ptr_eq(&found, &last));
        }
        last = found;
    }
    assert_eq!(last.to_vec(), expected, "seed {SEED}");
    // Nothing new: the same rows, not rebuilt.
    assert!(Rc::ptr_eq(&last, &cache.found(history, 0)));
    // Back in its past (a fork): checked again from the start.
    let early = &history[..history.len() / 4];
    let again = cache.found(early, 0);
    assert!(again.iter().all(Option::is_none), "{again:?}");
    // Another run of the same length: checked again too.
    let fenced = first_scenario_clicked(Backend::Etcd, Fencing::On, SEED, 12_000);
    let other = cache.found(fenced.history(), 1);
    assert!(other[Property::NoStaleWrite as usize].is_none());
    assert!(other[Property::NoWriteWithoutLease as usize].is_some());
}
