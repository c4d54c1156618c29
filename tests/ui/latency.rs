//! The latency field rendered natively: beside the TTL, the default named
//! for what it is, a preset chosen when the run is at one, a link's own
//! latency shown as it is, and the messages strip saying which is in force.

#![cfg(not(target_arch = "wasm32"))]

use distlock::sim::latency::LATENCY_PRESETS;
use distlock::sim::{Config, Sim};

use crate::common;
async fn render_at(config: Config) -> String {
    let sim = Sim::new(config).expect("a valid configuration");
    common::render_app(Some(sim)).await
}

/// The `<select id="latency">` and its options.
fn field(html: &str) -> &str {
    let start = html
        .find(r#"<select id="latency""#)
        .expect("a latency field");
    let end = start + html[start..].find("</select>").expect("it closes");
    &html[start..end]
}

/// The visible name of the chosen option.
fn chosen(select: &str) -> &str {
    let at = select
        .find(r#"selected="selected">"#)
        .expect("an option is chosen");
    let rest = &select[at + r#"selected="selected">"#.len()..];
    &rest[..rest.find('<').expect("the option closes")]
}

#[tokio::test(flavor = "current_thread")]
async fn the_field_stands_beside_the_ttl_with_the_default_named() {
    let html = render_at(Config::default()).await;
    let ttl = html.find(r#"id="ttl""#).expect("the TTL field");
    let latency = html.find(r#"id="latency""#).expect("the latency field");
    let seed = html.find(r#"id="seed""#).expect("the seed field");
    assert!(
        ttl < latency && latency < seed,
        "TTL, latency, seed in order"
    );
    assert!(html.contains(r#"for="latency""#), "the field has its label");
    let select = field(&html);
    for p in LATENCY_PRESETS {
        assert!(select.contains(p.name), "{} is offered", p.name);
    }
    assert_eq!(select.matches("<option").count(), LATENCY_PRESETS.len());
    assert_eq!(chosen(select), "Slowed 10x");
    assert!(html.contains(" · latency 10x real"), "the strip says so");
}

#[tokio::test(flavor = "current_thread")]
async fn a_preset_is_chosen_when_the_run_is_at_it() {
    let region = LATENCY_PRESETS[3];
    let html = render_at(region.apply(&Config::default())).await;
    assert_eq!(chosen(field(&html)), region.name);
    assert!(html.contains(" · latency real + 70 ms round trip"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_links_own_latency_shows_as_it_is_not_as_a_preset() {
    let config = Config {
        latency_scale: 3,
        network_rtt_ms: 5,
        ..Config::default()
    };
    let html = render_at(config).await;
    let select = field(&html);
    assert_eq!(chosen(select), "3x real + 5 ms round trip");
    assert_eq!(select.matches("<option").count(), LATENCY_PRESETS.len() + 1);
}
