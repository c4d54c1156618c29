//! "Spanner: clocks with an error bar" rendered natively with Yew's server
//! renderer, with L1's clock as TrueTime and as a clock that runs slow.

#![cfg(not(target_arch = "wasm32"))]

use distlock::lesson::spanner::L1Clock;
use distlock::ui::spanner::{Spanner, SpannerProps};
use distlock::ui::{App, AppProps};
use yew::LocalServerRenderer;

async fn render(clock: L1Clock) -> String {
    LocalServerRenderer::<Spanner>::with_props(SpannerProps { clock })
        .hydratable(false)
        .render()
        .await
}

#[tokio::test]
async fn truetime_tells_l1_its_lease_is_over() {
    let html = render(L1Clock::TrueTime).await;
    for words in [
        "Spanner: clocks with an error bar",
        "L1's clock",
        "TrueTime (error bar ±4 ms)",
        "runs 20% slow, no error bar",
        "<title id=\"spanner-svg-title\">",
        "<desc id=\"spanner-svg-desc\">",
        "viewBox=\"0 0 400 130\"",
        "TT.before(9.996 s) is false",
        "serves nothing",
        "✗ refuses",
        "✓ No stale read, no stale write",
        "No fencing switch is needed",
    ] {
        assert!(html.contains(words), "missing {words:?} in {html}");
    }
    assert!(!html.contains("stale read at"), "{html}");
    assert!(
        !html.contains("spanner__overlap"),
        "the leases do not overlap"
    );
    assert_eq!(html.matches("type=\"radio\"").count(), 2);
}

#[tokio::test]
async fn a_slow_clock_serves_a_stale_read() {
    let html = render(L1Clock::Slow).await;
    for words in [
        "its clock reads 8.800 s, before 10.000 s",
        "a stale read, missing L2's x=2",
        "⚠ Stale read at 11.000 s: two leaders from 10.011 s to 12.500 s.",
        "⚠ two leaders for 2.489 s",
        "spanner__overlap",
        "spanner__event--alarm",
    ] {
        assert!(html.contains(words), "missing {words:?} in {html}");
    }
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
