//! Sharing a run through the page: a link or file opens the very same run
//! at the same moment, and a bad one says why and opens the default page.

#![cfg(not(target_arch = "wasm32"))]

use distlock::lesson::presets::{self, PRESETS};
use distlock::sim::Sim;
use distlock::sim::{Fencing, Millis};
use distlock::ui::embed::PageRequest;
use distlock::ui::state::{Action, AppState, Notice, StartSim};
use distlock::ui::{App, AppProps};
use distlock::wire::link;
use std::rc::Rc;
use yew::{LocalServerRenderer, Reducible};

fn opened(fragment: &str) -> AppState {
    AppState::opened(
        None,
        &PageRequest {
            link: Some(fragment.to_string()),
            ..PageRequest::default()
        },
    )
}

fn state_of(sim: Sim) -> Rc<AppState> {
    Rc::new(AppState::new(Some(StartSim(Rc::new(sim)))))
}

#[test]
fn every_preset_goes_link_state_link_unchanged() {
    for preset in PRESETS {
        for &backend in preset.backends {
            let scenario = preset.scenario(backend, Fencing::On).expect("suits");
            let end = scenario.last_at().plus(3_000);
            let at_end = state_of(Sim::replay(&scenario, end).expect("replays"));
            // Looking back half way, the whole run kept.
            let state = at_end.clone().reduce(Action::Seek(end.ms() / 2));
            let fragment = state.link();
            let reopened = opened(&fragment);
            let name = format!("{} on {backend}", preset.id);
            assert_eq!(reopened.link(), fragment, "{name}: link -> state -> link");
            assert_eq!(
                reopened.sim.borrow().now(),
                Millis(end.ms() / 2),
                "{name}: the playhead"
            );
            assert_eq!(reopened.end(), end, "{name}: the whole run");
            let whole = reopened.future.as_ref().expect("the future is kept");
            assert_eq!(
                whole.history(),
                at_end.sim.borrow().history(),
                "{name}: the same run"
            );
            assert!(matches!(reopened.notice, Some(Notice::Info(_))), "{name}");
        }
    }
}

#[test]
fn a_bad_link_says_what_is_wrong_and_opens_the_default_page() {
    for (fragment, words) in [
        ("v9.AAAA", "version 9 of the page"),
        ("v1.@@@", "damaged"),
        ("nonsense", "should start with"),
    ] {
        let state = opened(fragment);
        match &state.notice {
            Some(Notice::Refused(text)) => {
                assert!(text.contains(words), "{fragment}: {text}");
                assert!(
                    text.ends_with("The default page is open instead."),
                    "{text}"
                );
            }
            other => panic!("{fragment}: expected a refusal, got {other:?}"),
        }
        let default = AppState::default();
        assert_eq!(state.config(), default.config());
        assert_eq!(state.sim.borrow().history().len(), 0);
        assert!(state.future.is_none() && state.story.is_none() && !state.running);
    }
}

#[test]
fn a_run_file_imports_and_a_bad_one_is_refused() {
    let scenario = presets::GC_PAUSE
        .scenario(distlock::sim::Backend::Etcd, Fencing::Off)
        .expect("suits");
    let state = state_of(Sim::replay(&scenario, Millis(12_000)).expect("replays"));
    let file = state.run_file();
    let imported = Rc::new(AppState::default()).reduce(Action::ImportRun(Ok(file)));
    assert_eq!(
        imported.link(),
        state.link(),
        "the same run at the same moment"
    );
    let refused = imported.reduce(Action::ImportRun(Ok("{\"version\": 1".into())));
    match &refused.notice {
        Some(Notice::Refused(text)) => {
            assert!(text.starts_with("This file is cut short"), "{text}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(refused.sim.borrow().history().len(), 0, "the default page");
}

#[test]
fn a_link_pasted_into_an_open_page_opens_it() {
    let scenario = presets::CRASHED_HOLDER
        .scenario(distlock::sim::Backend::ZooKeeper, Fencing::Off)
        .expect("suits");
    let shared = state_of(Sim::replay(&scenario, Millis(9_000)).expect("replays"));
    let fragment = link::encode(&shared.run_link());
    let page = Rc::new(AppState::default()).reduce(Action::OpenLink(fragment.clone()));
    assert_eq!(page.link(), fragment);
}

#[tokio::test]
async fn the_page_offers_copy_link_and_import() {
    let html = LocalServerRenderer::<App>::with_props(AppProps::default())
        .hydratable(false)
        .render()
        .await;
    assert!(html.contains(">Copy link</button>"));
    assert!(html.contains(">Import a run (JSON)</button>"));
    assert!(html.contains("accept=\".json,application/json\""));
}
