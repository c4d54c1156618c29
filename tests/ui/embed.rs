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
        on_drawn: None,
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
        "Skip past the simulator",
        "Keyboard shortcuts (?)",
        "id=\"embed-end\"",
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

#[test]
fn the_address_names_a_story_on_a_system_with_its_change_tried() {
    let asked = PageRequest::parse("?embed=1&preset=gc-pause&system=redis&try=1", "", false);
    assert_eq!(asked.system.as_deref(), Some("redis"));
    assert!(asked.tried);
    let state = AppState::opened(None, &asked);
    assert_eq!(state.config().backend, Backend::Redis);
    assert_eq!(state.config().fencing, distlock::sim::Fencing::On, "try=1");
    assert_eq!(state.story.as_ref().map(|s| s.preset.id), Some("gc-pause"));

    let unknown = PageRequest::parse("?preset=gc-pause&system=paxos", "", false);
    let state = AppState::opened(None, &unknown);
    match &state.notice {
        Some(Notice::Refused(text)) => assert!(text.contains("\"paxos\""), "{text}"),
        other => panic!("the page says what is wrong, got {other:?}"),
    }
    assert!(state.story.is_none());
}

#[test]
fn embed_code_is_an_iframe_for_the_story_or_the_run() {
    use distlock::ui::embed::{full_page_href, EmbedSpec, FrameSize, Opens};
    use distlock::ui::share::page_base;
    let base = page_base("https://example.org/sim/?view=share#v1.abc");
    assert_eq!(base, "https://example.org/sim/");
    let loaded = AppState::opened(
        None,
        &PageRequest::parse("?preset=gc-pause&system=zookeeper", "", false),
    );
    let story = loaded.story_address();
    let spec = EmbedSpec::of(story, Backend::ZooKeeper, false);
    assert_eq!(
        spec.src(base, "v1.ignored"),
        "https://example.org/sim/?embed=1&preset=gc-pause&system=zookeeper&fencing=0",
        "a story opens from its start: no run link"
    );
    let code = spec.code(base, "");
    assert_eq!(
        code,
        "<iframe src=\"https://example.org/sim/?embed=1&amp;preset=gc-pause&amp;system=zookeeper&amp;fencing=0\" title=\"Distributed Lock Simulator: A GC pause outlives the lease, on ZooKeeper, fencing off\" style=\"width:100%;height:500px;border:0\" loading=\"lazy\"></iframe>"
    );
    assert!(!code.contains("sandbox"), "nothing that blocks the tour");
    // At a key moment, with its tour closed, fixed, named for the host.
    let at5 = EmbedSpec {
        opens: Opens::Moment(5),
        tour: false,
        questions: false,
        autoplay: true,
        fencing: true,
        size: FrameSize::Fixed {
            width: 640,
            height: 480,
        },
        id: "lesson-2".into(),
        ..spec.clone()
    };
    assert_eq!(
        at5.src(base, ""),
        "https://example.org/sim/?embed=1&preset=gc-pause&system=zookeeper&fencing=1&moment=5&tour=off&questions=off&autoplay=1&id=lesson-2"
    );
    assert!(at5
        .code(base, "")
        .contains("width=\"640\" height=\"480\" style=\"border:0\""));
    assert!(at5.title().ends_with("on ZooKeeper, fencing on"));
    // At this moment: the story with the run's link.
    let now = EmbedSpec {
        opens: Opens::Now,
        ..spec.clone()
    };
    assert_eq!(
        now.src(base, "v1.abc"),
        "https://example.org/sim/?embed=1&preset=gc-pause&system=zookeeper&fencing=0#v1.abc"
    );
    // Without a story, the run itself.
    let run = EmbedSpec::of(None, Backend::Etcd, true);
    assert_eq!(
        run.src(base, "v1.abc"),
        "https://example.org/sim/?embed=1#v1.abc"
    );
    assert_eq!(
        run.title(),
        "Distributed Lock Simulator: a shared run on etcd, fencing on"
    );
    // The embed's way out keeps the run and the story.
    assert_eq!(
        full_page_href("v1.abc", story),
        "./?preset=gc-pause&system=zookeeper#v1.abc"
    );
    assert_eq!(full_page_href("v1.abc", None), "./#v1.abc");
}

#[test]
fn the_docs_snippets_are_what_the_builder_gives() {
    use distlock::ui::embed::{docs_example, DOCS_BASE};
    let code = docs_example().code(DOCS_BASE, "");
    for file in ["README.md", "docs/page.md", "docs/embed.md"] {
        let text = std::fs::read_to_string(file).expect("the doc");
        assert!(
            text.contains(&code),
            "{file} shows the builder's code:\n{code}"
        );
        assert!(
            !text.contains("sandbox=\"allow-scripts\""),
            "{file}: no sandbox that blocks the tour"
        );
    }
    // The snippet, opened, is the story at its key moment 5, fencing off.
    let src = docs_example().src("", "");
    let request = PageRequest::parse(src.trim_start_matches('?'), "", true);
    let state = AppState::opened(None, &request);
    let story = state.story.as_ref().expect("the story");
    assert_eq!(story.reached(state.sim.borrow().now()), 5);
    assert_eq!(state.config().fencing, distlock::sim::Fencing::Off);
    assert_eq!(request.id.as_deref(), Some("lesson-1"));
}

#[test]
fn a_run_opened_with_its_story_plays_the_rest_of_the_script() {
    use distlock::sim::Millis;
    use distlock::ui::state::Action;
    use std::rc::Rc;
    use yew::Reducible;
    // The story played to its third key moment, as an embed shows it
    // (its questions off: Next plays straight to each moment).
    let mut state = Rc::new(AppState::opened(
        None,
        &PageRequest::parse("?preset=gc-pause&questions=off", "", false),
    ));
    for _ in 0..3 {
        state = state.reduce(Action::TourNext);
        for _ in 0..10_000 {
            if !state.running {
                break;
            }
            let frame_ms = state.frame_ms();
            state = state.reduce(Action::Tick(frame_ms));
        }
    }
    let at = state.sim.borrow().now();
    let fragment = state.link();
    let opened = AppState::opened(
        None,
        &PageRequest::parse("?preset=gc-pause&system=etcd", &fragment, false),
    );
    assert_eq!(opened.sim.borrow().now(), at, "the run, where it stood");
    let story = opened.story.as_ref().expect("its story comes along");
    assert_eq!(story.reached(at), 3, "its tour where it was");
    assert!(
        story.next_at().is_some_and(|t| t > at),
        "the rest of its script"
    );
    assert!(at > Millis(0));
}

#[tokio::test]
async fn the_embed_has_the_hint_the_stories_menu_and_the_tour() {
    let html = render(PageRequest::parse("?embed=1&preset=gc-pause", "", false)).await;
    assert!(
        html.contains("that Write leaves the instant A wakes")
            && html.contains("overwrites B's increment"),
        "the one-line hint"
    );
    assert!(
        html.contains("aria-controls=\"stories-menu\""),
        "a way to pick a story"
    );
    assert!(html.contains("aria-label=\"Tour\""), "the story's tour");
    assert!(html.contains("Press Next to play to the first key moment."));
}

#[test]
fn the_address_opens_a_story_at_a_key_moment_with_fencing_as_asked() {
    let asked = PageRequest::parse(
        "?embed=1&preset=gc-pause&system=etcd&fencing=0&moment=5&id=lesson-a",
        "",
        false,
    );
    assert_eq!(asked.id.as_deref(), Some("lesson-a"));
    assert_eq!(asked.fencing, Some(false));
    let state = AppState::opened(None, &asked);
    let story = state.story.as_ref().expect("the story");
    let now = state.sim.borrow().now();
    assert_eq!(now, story.tour[4].at, "at key moment 5");
    assert_eq!(story.reached(now), 5);
    assert_eq!(state.config().fencing, distlock::sim::Fencing::Off);
    assert!(!state.running);

    let on = AppState::opened(
        None,
        &PageRequest::parse("?preset=gc-pause&system=etcd&fencing=1", "", false),
    );
    assert_eq!(on.config().fencing, distlock::sim::Fencing::On);
    assert_eq!(on.sim.borrow().now().ms(), 0, "at the start");

    let missing = AppState::opened(
        None,
        &PageRequest::parse("?preset=gc-pause&moment=40", "", false),
    );
    match &missing.notice {
        Some(Notice::Refused(text)) => assert!(text.contains("\"40\""), "{text}"),
        other => panic!("the page says what is wrong, got {other:?}"),
    }
    assert_eq!(missing.sim.borrow().now().ms(), 0, "at its start");
    assert!(missing.story.is_some());
}
