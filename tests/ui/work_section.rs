//! The sections whose bodies the worker draws ("Compare the systems",
//! "How likely is it?" and "Spanner: clocks with an error bar"), rendered
//! natively with Yew's
//! server renderer: the lead and the button that asks the worker (the
//! bodies' own markup is tested in `distlock::work`).

#![cfg(not(target_arch = "wasm32"))]

use distlock::sim::Backend;
use distlock::ui::work_section::{Kind, WorkSection, WorkSectionProps};
use distlock::ui::{App, AppProps};
use yew::{Callback, LocalServerRenderer};

async fn render(kind: Kind) -> String {
    LocalServerRenderer::<WorkSection>::with_props(WorkSectionProps {
        kind,
        dispatch: Callback::noop(),
        run_link: None,
    })
    .hydratable(false)
    .render()
    .await
}

#[tokio::test]
async fn the_spanner_section_offers_the_story_before_the_worker_draws_it() {
    let html = render(Kind::Spanner).await;
    for words in [
        "Spanner: clocks with an error bar",
        "Leader L1 freezes for 6 s, past its lease",
        "Tell the story: TrueTime against a clock that runs slow",
    ] {
        assert!(html.contains(words), "missing {words:?} in {html}");
    }
    assert!(!html.contains("spanner__svg"), "drawn only when asked");
    assert!(!html.contains("data-current"));
}

#[tokio::test]
async fn the_comparison_marks_the_system_the_page_runs() {
    let html = render(Kind::Compare(Backend::Consul)).await;
    assert!(html.contains(r#"data-current="consul""#), "{html}");
    let button = format!(
        "Run the comparison (up to {} runs)",
        distlock::tools::compare::RUNS
    );
    assert!(html.contains(&button), "{html}");
    assert!(!html.contains("compare__table"), "drawn only when asked");
}

#[tokio::test]
async fn the_hazard_explorer_is_a_region_of_its_own_that_opens_on_demand() {
    let html = render(Kind::Explore).await;
    assert!(html.contains(r#"aria-label="Hazard explorer""#), "{html}");
    assert!(html.contains("How likely is it?"), "{html}");
    assert!(html.contains("Open the hazard explorer"), "{html}");
    assert!(
        !html.contains("<form"),
        "the worker draws the form when asked"
    );
}

#[tokio::test]
async fn the_page_shows_spanner_below_the_comparison() {
    let html = LocalServerRenderer::<App>::with_props(AppProps::default())
        .hydratable(false)
        .render()
        .await;
    let compare = html.find("id=\"compare-title\"").expect("the comparison");
    let explorer = html
        .find("id=\"explorer-title\"")
        .expect("the hazard explorer");
    let spanner = html
        .find("id=\"spanner-title\"")
        .expect("the Spanner section");
    assert!(compare < explorer && explorer < spanner);
}
