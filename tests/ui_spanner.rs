//! "Spanner: clocks with an error bar" rendered natively with Yew's server
//! renderer: the lead and the button that asks the worker for the story
//! (the story's own markup is tested in `distlock::work`).

#![cfg(not(target_arch = "wasm32"))]

use distlock::ui::spanner::{Spanner, SpannerProps};
use distlock::ui::{App, AppProps};
use yew::{Callback, LocalServerRenderer};

#[tokio::test]
async fn the_section_offers_the_story_before_the_worker_draws_it() {
    let html = LocalServerRenderer::<Spanner>::with_props(SpannerProps {
        dispatch: Callback::noop(),
    })
    .hydratable(false)
    .render()
    .await;
    for words in [
        "Spanner: clocks with an error bar",
        "Leader L1 freezes for 6 s, past its lease",
        "Tell the story: TrueTime against a clock that runs slow",
    ] {
        assert!(html.contains(words), "missing {words:?} in {html}");
    }
    assert!(!html.contains("spanner__svg"), "drawn only when asked");
}

#[tokio::test]
async fn the_page_shows_it_below_the_comparison() {
    let html = LocalServerRenderer::<App>::with_props(AppProps::default())
        .hydratable(false)
        .render()
        .await;
    let compare = html.find("id=\"compare-title\"").expect("the comparison");
    let spanner = html
        .find("id=\"spanner-title\"")
        .expect("the Spanner section");
    assert!(compare < spanner);
}
