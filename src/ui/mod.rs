//! The page: Yew function components over the simulation core. The core is
//! the state; every view here is drawn from a snapshot of it.

pub mod browser;
pub mod client_card;
pub mod controls;
pub mod embed;
pub mod event_log;
pub mod explorer;
pub mod find;
pub mod guide;
pub mod intro;
pub mod keys;
pub mod messages;
pub mod properties;
pub mod resource_panel;
pub mod service_panel;
pub mod share;
pub mod state;
pub mod status;
pub mod stories;
pub mod timeline;
pub mod timeline_draw;
pub mod travel;
pub mod work_section;
pub mod worker;

use browser::FrameLoop;
use client_card::{ClientCard, ClientCardProps};
use controls::{Controls, ControlsProps};
use embed::{use_height_report, PageRequest};
use event_log::{EventLog, LogCache};
use explorer::Explorer;
use intro::{Intro, Masthead};
use keys::{use_shortcuts, use_spotlight_scroll, KeyboardHelp};
use messages::{Messages, MessagesProps};
use properties::{use_properties, PropertiesPanel};
use resource_panel::{ResourcePanel, ResourcePanelProps};
use service_panel::{ServicePanel, ServicePanelProps};
use share::Share;
use state::{Action, AppState, StartSim};
use status::{Status, StatusProps};
use stories::{Stories, StoriesProps};
use timeline::{PictureCache, Timeline};
use work_section::{Kind, WorkSection};

use crate::lesson::tour::Look;
use crate::sim::ClientId;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Default, Properties)]
pub struct AppProps {
    /// A run to start from instead of a fresh one (tests and shared runs).
    #[prop_or_default]
    pub start: Option<StartSim>,
    /// What the address asks for; `None` reads the browser's address.
    #[prop_or_default]
    pub request: Option<PageRequest>,
}

/// Advances the clock one frame at a time while it runs. The frame loop is
/// owned by the effect and dropped when the clock stops or the page goes.
#[hook]
fn use_ticker(running: bool, dispatch: Callback<Action>) {
    use_effect_with(running, move |&running| {
        let frames = running
            .then(|| FrameLoop::start(move || dispatch.emit(Action::Tick)))
            .flatten();
        // Dropping the loop on cleanup cancels the pending frame.
        move || {
            let _stopped = frames;
        }
    });
}

/// A callback that makes the page's current run link, the same callback
/// on every render: a panel given it is not drawn again for every frame.
#[hook]
fn use_run_link(state: &UseReducerHandle<AppState>) -> Callback<(), String> {
    let latest = use_mut_ref(|| state.clone());
    *latest.borrow_mut() = state.clone();
    let made = use_memo((), move |_| {
        Callback::from(move |()| latest.borrow().link())
    });
    (*made).clone()
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let request = use_memo((), {
        let asked = props.request.clone();
        move |_| asked.unwrap_or_else(PageRequest::from_location)
    });
    let start = props.start.clone();
    let state = use_reducer({
        let request = request.clone();
        move || AppState::opened(start, &request)
    });
    let embed = request.embed;
    use_height_report(embed);
    let dispatch = state.dispatcher().to_callback();
    use_ticker(state.running, dispatch.clone());
    use_shortcuts(dispatch.clone());

    let sim = state.sim.borrow();
    let history_len = sim.history().len();
    let history_dropped = sim.history_dropped();
    let log_cache = use_mut_ref(LogCache::default);
    let lines = log_cache
        .borrow_mut()
        .lines(sim.history(), state.run, state.log_messages);

    let controls = ControlsProps::from_sim(&sim, &state, dispatch.clone());
    let status = StatusProps::from_sim(&sim, state.running);
    // What a story's tour points at, once the run has reached a key moment.
    let moment = state.story.as_ref().and_then(|s| {
        let reached = s.reached(sim.now());
        s.current(sim.now()).map(|m| (reached, m.look))
    });
    let look = moment.map(|(_, look)| look);
    // The timeline marks the moment a tour stopped on.
    let key_moment = state
        .story
        .as_ref()
        .and_then(|s| s.current(sim.now()))
        .map(|m| m.at.ms());
    let cards: Vec<ClientCardProps> = ClientId::ALL
        .iter()
        .map(|&c| ClientCardProps {
            selected: state.selected == c,
            spotlit: look == Some(Look::Card(c)),
            ..ClientCardProps::from_sim(&sim, c, state.pause_s[c.index()], dispatch.clone())
        })
        .collect();
    let service = ServicePanelProps::from_sim(&sim, dispatch.clone());
    let resource = ResourcePanelProps::from_sim(&sim);
    let messages = MessagesProps::from_sim(&sim);
    let stories = StoriesProps::from_state(&state, sim.config().backend, dispatch.clone());
    let backend = sim.config().backend;
    let now_ms = sim.now().ms();
    drop(sim);
    // The timeline draws the whole run, also while the page shows its past.
    let picture_cache = use_mut_ref(PictureCache::default);
    let picture =
        state.with_whole(|whole| picture_cache.borrow_mut().get(whole.history(), state.run));
    let (found, dropped) = use_properties(&state);
    let shown_ms = state.future.is_some().then_some(now_ms);
    let run_link = use_run_link(&state);
    let run_file = {
        let state = state.clone();
        Callback::from(move |()| state.run_file())
    };
    let make_link = {
        let state = state.clone();
        Callback::from(move |()| state.link())
    };
    // Embedded, the page never scrolls its host to a spotlight.
    use_spotlight_scroll(
        moment
            .filter(|_| !embed)
            .map(|(reached, _)| (reached, state.run)),
    );
    let spot = |part: Look| classes!("spot", (look == Some(part)).then_some("is-spotlit"));

    let cards = html! {
        <div class="clients">
            // Headings stay in order (the cards' names are h3) without a visible title.
            <h2 class="visually-hidden">{ "Clients" }</h2>
            { for cards.into_iter().map(|card| html! { <ClientCard ..card /> }) }
        </div>
    };
    let timeline = html! {
        <Timeline {picture} {now_ms} end_ms={state.end().ms()} running={state.running}
            {backend} dispatch={dispatch.clone()} {run_file} {key_moment} />
    };
    let log = html! {
        <EventLog {lines} total={history_len} dropped={history_dropped}
            with_messages={state.log_messages} dispatch={dispatch.clone()} />
    };
    if embed {
        // The compact layout for a frame: no header or long text, the
        // controls in one row, and a story's tour docked at the frame's foot
        // over the picture instead of above it.
        return html! {
            <div class="page page--embed">
                <main class="page__main">
                    <div class="embed__bar">
                        <h1 class="embed__name">{ "Distributed Lock Simulator" }</h1>
                        <a class="embed__open" href={embed::full_page_href("")} target="_blank" rel="noopener"
                            onclick={embed::open_full_page(make_link.clone())}>
                            { "Open the full page" }
                        </a>
                    </div>
                    <Controls compact=true ..controls />
                    <div class={spot(Look::Status)}><Status ..status /></div>
                    { cards }
                    { timeline }
                    <Stories compact=true ..stories />
                    <div class={spot(Look::Resource)}><ResourcePanel ..resource /></div>
                    <details class="panel embed__log">
                        <summary>{ "Event log: the run in sentences" }</summary>
                        { log }
                    </details>
                </main>
            </div>
        };
    }

    // The simulation first: the lead line, the controls, the status strip,
    // the cards and the timeline; the stories and the panels after them.
    html! {
        <div class="page">
            <Masthead />
            <main class="page__main">
                <Intro dispatch={dispatch.clone()}>
                    <KeyboardHelp open={state.help} dispatch={dispatch.clone()} />
                </Intro>
                <Controls ..controls />
                <div class={spot(Look::Status)}><Status ..status /></div>
                { cards }
                { timeline }
                <PropertiesPanel {found} {shown_ms} {dropped} dispatch={dispatch.clone()} {run_link} />
                <Share dispatch={dispatch.clone()} {make_link} />
                <Stories ..stories />
                <div class="page__pair">
                    <div class={spot(Look::Service)}><ServicePanel ..service /></div>
                    <div class={spot(Look::Resource)}><ResourcePanel ..resource /></div>
                </div>
                <WorkSection kind={Kind::Compare(backend)} dispatch={dispatch.clone()} />
                <Explorer dispatch={dispatch.clone()} />
                <WorkSection kind={Kind::Spanner} dispatch={dispatch.clone()} />
                <Messages ..messages />
                { log }
            </main>
        </div>
    }
}
