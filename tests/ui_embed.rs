//! Embedding: the address's requests (`?embed=1`, `?preset=…&autoplay=1`,
//! a shared run in the fragment) and the compact layout for a frame.

#![cfg(not(target_arch = "wasm32"))]

use distlock::sim::Backend;
use distlock::ui::embed::PageRequest;
use distlock::ui::state::{AppState, Notice};
use distlock::ui::{App, AppProps};
use yew::LocalServerRenderer;

async fn render(request: PageRequest) -> String {
    let props = AppProps {
        start: None,
        request: Some(request),
    };
    LocalServerRenderer::<App>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

#[test]
fn the_address_says_embed_preset_autoplay_and_link() {
    let plain = PageRequest::parse("", "", false);
    assert_eq!(plain, PageRequest::default());
    let asked = PageRequest::parse("?embed=1&preset=gc-pause&autoplay=1", "#v1.abc", false);
    assert!(asked.embed && asked.autoplay);
    assert_eq!(asked.preset.as_deref(), Some("gc-pause"));
    assert_eq!(asked.link.as_deref(), Some("v1.abc"));
    assert!(
        PageRequest::parse("", "", true).embed,
        "a framed page embeds itself"
    );
    assert!(
        !PageRequest::parse("embed=0", "", true).embed,
        "unless told not to"
    );
    assert!(
        PageRequest::parse("autoplay&embed", "", false).autoplay,
        "a bare key means yes"
    );
    assert_eq!(
        PageRequest::parse("?preset=", "#", false),
        PageRequest::default()
    );
}

#[tokio::test]
async fn the_embedded_page_is_compact() {
    let html = render(PageRequest {
        embed: true,
        ..PageRequest::default()
    })
    .await;
    assert!(html.contains("page--embed"));
    assert!(!html.contains("class=\"masthead\""), "no page header");
    assert!(
        !html.contains("class=\"panel intro"),
        "no long introduction"
    );
    assert!(
        html.contains("Open the full page"),
        "a way out to the whole page"
    );
    for part in [
        "Client A",
        "Client D",
        "class=\"panel timeline\"",
        "Fencing",
    ] {
        assert!(html.contains(part), "the embedded page has {part}");
    }
    let full = render(PageRequest::default()).await;
    assert!(full.contains("class=\"masthead\"") && !full.contains("page--embed"));
}

#[tokio::test]
async fn a_preset_in_the_address_opens_its_story_and_can_play_at_once() {
    let html = render(PageRequest {
        embed: true,
        preset: Some("gc-pause".into()),
        autoplay: true,
        ..PageRequest::default()
    })
    .await;
    assert!(
        html.contains("stories--compact"),
        "the story's title and tour"
    );
    assert!(html.contains("A GC pause outlives the lease"));
    assert!(html.contains(">Pause</button>"), "the clock is running");

    let request = PageRequest {
        preset: Some("redlock-restart".into()),
        ..PageRequest::default()
    };
    let state = AppState::opened(None, &request);
    assert_eq!(
        state.config().backend,
        Backend::Redlock,
        "the story's own backend"
    );
    assert!(!state.running, "without autoplay the clock waits");
}

#[test]
fn an_unknown_preset_says_so_and_opens_the_default_page() {
    let request = PageRequest {
        preset: Some("no-such-story".into()),
        autoplay: true,
        ..PageRequest::default()
    };
    let state = AppState::opened(None, &request);
    match &state.notice {
        Some(Notice::Refused(text)) => assert!(text.contains("\"no-such-story\""), "{text}"),
        other => panic!("the page says what is wrong, got {other:?}"),
    }
    assert!(state.story.is_none() && !state.running);
    assert_eq!(state.config(), AppState::default().config());
}
