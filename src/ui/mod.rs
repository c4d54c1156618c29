//! The page: Yew function components over the simulation core. The core is
//! the state; every view here is drawn from a snapshot of it.

pub mod browser;
pub mod client_card;
pub mod code_view;
pub mod controls;
pub mod embed;
pub mod embed_builder;
pub mod event_log;
pub mod find;
pub mod guide;
pub mod host;
pub mod intro;
pub mod keys;
pub mod messages;
pub mod narrator;
pub mod pacing;
pub mod properties;
pub mod quiz;
pub mod resource_panel;
pub mod service_panel;
pub mod share;
pub mod stage;
pub mod state;
pub mod status;
pub mod stories;
pub mod timeline;
pub mod timeline_draw;
pub mod travel;
pub mod views;
pub mod work_section;
pub mod worker;

use browser::FrameLoop;
use client_card::{ClientCard, ClientCardProps};
use code_view::{code_job, code_view, toggle_button, use_code_work};
use controls::{Controls, ControlsProps};
use embed::{use_height_report, PageRequest};
use event_log::{EventLog, LogCache, ShownLog};
use intro::{Intro, Masthead, PageFoot};
use keys::{use_focus_keeper, use_shortcuts, use_spotlight_scroll, KeyboardHelp};
use messages::{Messages, MessagesProps};
use narrator::{use_narration, NarrationControls};
use properties::{use_properties, PropertiesPanel};
use resource_panel::{resource_line, ResourceLineProps, ResourcePanel, ResourcePanelProps};
use service_panel::{ServiceBooks, ServicePanelProps};
use share::Share;
use stage::{ServiceLine, ServiceLineProps};
use state::{Action, AppState, StartSim};
use status::{Status, StatusProps};
use stories::{Stories, StoriesProps};
use timeline::{PictureCache, Timeline};
use views::{View, ViewTabs};
use work_section::{Kind, WorkSection};

use crate::lesson::tour::Look;
use crate::sim::{Backend, ClientId, Millis, Sim};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Default, Properties)]
pub struct AppProps {
    /// A run to start from instead of a fresh one (tests and shared runs).
    #[prop_or_default]
    pub start: Option<StartSim>,
    /// What the address asks for; `None` reads the browser's address.
    #[prop_or_default]
    pub request: Option<PageRequest>,
    /// Given, the first screen is built one part a task, off the document
    /// (src/main.rs renders into a detached element while the screen drawn
    /// at build time stays on show), and this is called once it is whole:
    /// on a slow phone one long task held back any press made meanwhile.
    #[prop_or_default]
    pub on_drawn: Option<Callback<()>>,
}

/// Runs the clock while it runs, paced by wall time (`pacing`): it sleeps
/// until the next thing due or the next render of time's words, and each
/// wake moves the run as far as the wall time since the last one says.
/// After every render the wake is set again, from the state drawn (an
/// action may have made something due sooner); after a wake that drew
/// nothing, from the run moved in place. The alarm is dropped when the
/// clock stops or the page goes.
///
/// Returns the page's dispatch, one callback for its whole life: before
/// any action it brings a running clock to the wall time, so the action
/// lands where the moving parts showed the run.
#[hook]
fn use_clock(state: &UseReducerHandle<AppState>) -> Callback<Action> {
    let pace = use_mut_ref(pacing::Pace::default);
    // The clock's rate at the speed last drawn, for the dispatch below. It
    // lives as long as the page, so it holds the reducer's dispatcher, not
    // its handle: a handle keeps every state it has read.
    let rate = use_mut_ref(|| 0.0);
    *rate.borrow_mut() = clock_rate(state);
    let dispatch = use_memo((), {
        let (dispatcher, pace, rate) = (state.dispatcher(), pace.clone(), rate.clone());
        move |_| {
            Callback::from(move |action: Action| {
                let now = browser::wall_ms() as f64;
                let caught_up = pace.borrow_mut().catch_up(now, *rate.borrow());
                if let Some(tick) = caught_up {
                    dispatcher.dispatch(tick);
                }
                dispatcher.dispatch(action);
            })
        }
    });
    // The alarm lives as long as the page: each render sets its wake
    // again, where making one anew made two closures a render. Its wakes
    // read the state through the handle of the last render, replaced at
    // each (a handle keeps every state it has read).
    let alarm = use_mut_ref(|| None::<browser::Alarm>);
    let handle = use_mut_ref(|| None::<UseReducerHandle<AppState>>);
    *handle.borrow_mut() = Some(state.clone());
    // The state drawn, by address: a new one is a render.
    let drawn = &**state as *const AppState as usize;
    use_effect_with((state.running, drawn), move |&(running, _)| {
        let drawn = handle.borrow().clone();
        let delay = drawn.filter(|_| running).and_then(|drawn| {
            let now = browser::wall_ms() as f64;
            let mut pace = pace.borrow_mut();
            if !pace.running() {
                pace.start(now);
            }
            pace.plan(now, drawn.until_due(), clock_rate(&drawn))
        });
        let Some(delay) = delay else {
            pace.borrow_mut().stop();
            // Dropping the alarm cancels the pending wake.
            alarm.borrow_mut().take();
            return;
        };
        let mut slot = alarm.borrow_mut();
        if let Some(alarm) = slot.as_ref() {
            alarm.set_again(delay);
            return;
        }
        *slot = browser::Alarm::start(delay, move |at_ms| {
            let drawn = handle.borrow().clone()?;
            let rate = clock_rate(&drawn);
            let tick = pace.borrow_mut().wake(at_ms, rate);
            let before = &*drawn as *const AppState;
            drawn.dispatch(tick);
            // A new state is rendered, and its render sets the next wake.
            if !std::ptr::eq(before, &*drawn) || !drawn.running {
                return None;
            }
            let now = browser::wall_ms() as f64;
            pace.borrow_mut().plan(now, drawn.until_due(), rate)
        });
    });
    (*dispatch).clone()
}

/// Virtual milliseconds a wall millisecond at the state's speed.
fn clock_rate(state: &AppState) -> f64 {
    pacing::virtual_per_wall_ms(state.frame_ms())
}

/// How many of the first screen's parts are drawn: all at once, or with
/// `on_drawn` one part a task (`FirstScreen`), after which `on_drawn` is
/// called, once. Each task also compiles the code its part runs for the
/// first time, so on a slow phone no task holds a press back for long.
#[hook]
fn use_first_screen(on_drawn: Option<Callback<()>>) -> FirstScreen {
    let parts = use_state(|| {
        if on_drawn.is_none() {
            FirstScreen::Whole
        } else {
            FirstScreen::Frame
        }
    });
    let next = parts.clone();
    use_effect_with(*parts, move |&parts| {
        let task = match parts.next() {
            None => {
                if let Some(drawn) = &on_drawn {
                    drawn.emit(());
                }
                None
            }
            Some(more) => browser::NextTask::start(move || next.set(more)),
        };
        move || {
            let _cancelled = task;
        }
    });
    *parts
}

/// The first screen's parts, in the order the start-up's tasks draw them
/// (`use_first_screen`): each holds the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum FirstScreen {
    /// The masthead, the views' bar, the lead and the status strip.
    Frame,
    /// The stories menu and the controls.
    SetUp,
    /// The four cards.
    Cards,
    /// The stage under them: the screen is whole.
    Whole,
}

impl FirstScreen {
    fn next(self) -> Option<FirstScreen> {
        match self {
            FirstScreen::Frame => Some(FirstScreen::SetUp),
            FirstScreen::SetUp => Some(FirstScreen::Cards),
            FirstScreen::Cards => Some(FirstScreen::Whole),
            FirstScreen::Whole => None,
        }
    }
}

/// How much of the page below its first screen is drawn. The first render
/// draws what a visitor sees first (the lead with the stories menu, the
/// controls, the status strip, the cards and the stage under them); once
/// that screen is painted the timeline follows, then a task each for the
/// event log with the folded detail and for the tools' views, so the
/// simulator shows sooner and no one task draws it all. `whole` draws it all at once;
/// the count of frames starts once `first_screen` is whole.
#[hook]
fn use_below_first_screen(whole: bool, first_screen: bool) -> Below {
    let drawn = use_state(|| {
        if whole || !browser::first_screen_first() {
            Below::All
        } else {
            Below::Nothing
        }
    });
    let later = drawn.clone();
    use_effect_with((*drawn, first_screen), move |&(drawn, first_screen)| {
        // Animation frames come before their paint: the first one paints
        // the first screen, and the second draws the timeline. A tab opened
        // in the background gets no frames, and draws the rest once shown.
        let mut seen = 0;
        let frames = (drawn == Below::Nothing && first_screen)
            .then(|| {
                let timeline = later.clone();
                FrameLoop::start(move |_| {
                    seen += 1;
                    if seen == 2 {
                        timeline.set(Below::Timeline);
                    }
                })
            })
            .flatten();
        let rest = drawn
            .next()
            .filter(|_| drawn != Below::Nothing)
            .and_then(|more| browser::NextTask::start(move || later.set(more)));
        move || {
            let _stopped = (frames, rest);
        }
    });
    *drawn
}

/// How much of the page below its first screen is drawn
/// (`use_below_first_screen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Below {
    Nothing,
    Timeline,
    /// The event log and the folded detail.
    Detail,
    /// The tools' views too.
    All,
}

impl Below {
    fn next(self) -> Option<Below> {
        match self {
            Below::Nothing => Some(Below::Timeline),
            Below::Timeline => Some(Below::Detail),
            Below::Detail => Some(Below::All),
            Below::All => None,
        }
    }
}

/// `draw`'s markup once its part of the page is drawn (`drawn`): the page
/// below the first screen, or the first screen's second task.
fn below(drawn: bool, draw: impl FnOnce() -> Html) -> Html {
    if drawn {
        draw()
    } else {
        Html::default()
    }
}

/// Keeps the view on show in the page's address (`?view=compare`), so a
/// copied address or a reload opens it again. The address the page was
/// opened with stands until the visitor changes the view.
#[hook]
fn use_view_address(view: View) {
    let first = use_mut_ref(|| true);
    use_effect_with(view, move |&view| {
        if !std::mem::replace(&mut *first.borrow_mut(), false) {
            browser::show_view_in_address(&view.query());
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
        move || AppState::opened(start, &request).with_words_now()
    });
    let embed = request.embed;
    // The frame's name in its messages to the host page.
    let frame_id = use_memo((), {
        let named = request.id.clone();
        move |_| -> std::rc::Rc<str> { named.unwrap_or_else(browser::made_up_id).into() }
    });
    let dispatch = use_clock(&state);
    host::use_host(embed, &state, (*frame_id).clone(), dispatch.clone());
    // Whether the Code view is open: its toggle is in the page's bar too.
    let code_open = use_state(|| false);
    // Whether the folded books are open, and what they last drew.
    let books_open = use_state(|| false);
    let books_kept = use_mut_ref(KeptByWords::default);
    use_shortcuts(dispatch.clone());
    use_focus_keeper();
    use_view_address(state.view);
    worker::use_cell_address(dispatch.clone());

    // Where the embed's skip link moves the focus: its last stop.
    let embed_end = use_node_ref();
    let parts = use_first_screen(props.on_drawn.clone());
    let first_screen = parts == FirstScreen::Whole;
    use_height_report(embed && first_screen, (*frame_id).clone());
    // A frame's size is its host's choice: it is drawn whole at once.
    let below_drawn = use_below_first_screen(embed, first_screen);
    let drawn = below_drawn == Below::All;

    // A render while the clock runs that keeps time's words is one for
    // something the run recorded (`AppState::reduce`).
    let clock = state.clock();
    browser::mark_render(state.running && clock.words < clock.now);
    // Everything drawn is read from one borrow of the simulation.
    let sim = state.sim.borrow();
    let narration = use_narration(&state, &sim);
    let code_work = use_code_work(*code_open, code_job(&sim));
    let log_cache = use_mut_ref(LogCache::default);
    let run_link = use_run_link(&state);
    let log = below(below_drawn >= Below::Detail, || {
        event_log(&sim, &state, &log_cache, &dispatch, &run_link)
    });
    let moment = tour_moment(&state, &sim);
    let look = moment.map(|(_, look)| {
        if embed {
            embed::look_in_frame(look)
        } else {
            look
        }
    });
    let picture_cache = use_mut_ref(PictureCache::default);
    let (found, dropped) = use_properties(&state);
    // Embedded, the page never scrolls its host to a spotlight. A spotlit
    // part below the first screen is looked for again once it is drawn.
    use_spotlight_scroll(
        moment
            .filter(|_| !embed)
            .map(|(reached, _)| (reached, state.run, drawn)),
    );
    let now_ms = sim.now().ms();
    let backend = sim.config().backend;
    let both = Both {
        look,
        controls: below(parts >= FirstScreen::SetUp, || {
            controls_part(&sim, &state, embed, &dispatch)
        }),
        status: html! {
            <Status clock={state.clock()} ..StatusProps::from_sim(&sim, state.running) />
        },
        cards: below(parts >= FirstScreen::Cards, || {
            clients(&sim, &state, look, &dispatch)
        }),
        timeline: below(below_drawn >= Below::Timeline, || {
            timeline_part(&state, &sim, &picture_cache, &dispatch, &run_link)
        }),
        // In the first screen, beside the set-up: drawn with it, so nothing
        // under it moves when it comes.
        stories: below(parts >= FirstScreen::SetUp, || {
            stories_part(&state, backend, embed, &dispatch)
        }),
        log,
        narration,
        narration_controls: html! {
            <NarrationControls narration={state.narration} dispatch={dispatch.clone()} />
        },
    };
    if embed {
        let way = EmbedWay {
            run_link,
            story: state.story_address(),
            help: state.help,
            end: embed_end,
            dispatch,
        };
        return compact_page(both, way);
    }
    let shown_ms = state.future.is_some().then_some(now_ms);
    let toggle_code = {
        let open = code_open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let full = Full {
        properties: below(drawn, || {
            html! {
                <PropertiesPanel {found} {shown_ms} {dropped} dispatch={dispatch.clone()} run_link={run_link.clone()} />
            }
        }),
        stage: below(first_screen, || {
            stage_part(&sim, look, state.gliding_frame_ms(), state.clock())
        }),
        books: below(below_drawn >= Below::Detail, || {
            let kept = (&*books_kept, state.words_drawn);
            books_part(&sim, &books_open, kept, &dispatch)
        }),
        code: code_view(&sim, &code_work, *code_open, &toggle_code, &dispatch),
        code_toggle: toggle_button(*code_open, &toggle_code, "code__toggle--bar"),
        run_link,
        embed: embed::EmbedSpec::of(state.story_address(), backend, sim.config().fencing.is_on()),
        help: state.help,
        backend,
        drawn,
        view: state.view,
        dispatch,
    };
    full_page(both, full)
}

// Each part of the page is drawn by a function of its own, never inlined
// into `App`'s render: V8 compiles a wasm function whole the first time it
// is called, so one render holding every part (92 KB of code) cost a slow
// phone's first task about 20 ms of compiling, even for the parts the
// first task does not draw. Apart, each part's code is compiled in the
// task that first draws it.

#[inline(never)]
fn controls_part(sim: &Sim, state: &AppState, embed: bool, dispatch: &Callback<Action>) -> Html {
    html! {
        <Controls compact={embed} ..ControlsProps::from_sim(sim, state, dispatch.clone()) />
    }
}

#[inline(never)]
fn stories_part(
    state: &AppState,
    backend: Backend,
    embed: bool,
    dispatch: &Callback<Action>,
) -> Html {
    html! {
        <Stories compact={embed} ..StoriesProps::from_state(state, backend, dispatch.clone()) />
    }
}

/// The timeline draws the whole run, also while the page shows its past.
#[inline(never)]
fn timeline_part(
    state: &UseReducerHandle<AppState>,
    sim: &Sim,
    picture_cache: &RefCell<PictureCache>,
    dispatch: &Callback<Action>,
    run_link: &Callback<(), String>,
) -> Html {
    let backend = sim.config().backend;
    let picture = state.with_whole(|whole| {
        picture_cache.borrow_mut().get(
            whole.history(),
            state.run,
            crate::sim::TokenWords::of(backend),
        )
    });
    let run_file = made_by(state, AppState::run_file);
    html! {
        <Timeline {picture} now_ms={sim.now().ms()} words_ms={state.words_ms.ms()} end_ms={state.end().ms()} running={state.running}
            frame_ms={state.gliding_frame_ms()}
            {backend} dispatch={dispatch.clone()} {run_file} key_moment={key_moment(state, sim)}
            run={state.run} run_link={run_link.clone()} />
    }
}

/// What the clients act on, under their cards.
#[inline(never)]
fn stage_part(sim: &Sim, look: Option<Look>, frame_ms: u64, clock: Clock) -> Html {
    html! {
        <div class="stage">
            <div class={spot(look, Look::Service)}>
                <ServiceLine {clock} ..ServiceLineProps::from_sim(sim) />
            </div>
            <Messages ..MessagesProps::from_sim(sim, frame_ms) />
            <div class={spot(look, Look::Resource)}>
                { resource_line(&ResourceLineProps::from_sim(sim)) }
            </div>
        </div>
    }
}

/// The lock service's and the resource's panels in full, folded.
#[inline(never)]
fn books_part(
    sim: &Sim,
    open: &UseStateHandle<bool>,
    (kept, words_drawn): (&RefCell<KeptByWords<Rc<ServicePanelProps>>>, u64),
    dispatch: &Callback<Action>,
) -> Html {
    let backend = sim.config().backend;
    // Folded, the service's books are drawn again only with time's words
    // (a few times a second while the clock runs, and at every change that
    // is not a frame of the running clock): in a frame drawn for an event
    // they keep what they drew, so their rows are not written into the
    // page unseen at every message. Open, they follow every event.
    let service = kept.borrow_mut().drawn(words_drawn, !**open, || {
        Rc::new(ServicePanelProps::from_sim(sim, dispatch.clone()))
    });
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| open.set(browser::opened_of(&e)))
    };
    html! {
        <details class="panel books" ontoggle={on_toggle}>
            <summary class="books__summary">
                { format!("In detail: {}'s own books, and everything the resource accepted and refused", backend.name()) }
            </summary>
            <div class="books__pair">
                <ServiceBooks {service} drawn={words_drawn} open={**open} />
                <ResourcePanel ..ResourcePanelProps::from_sim(sim).with_dispatch(dispatch.clone()) />
            </div>
        </details>
    }
}

/// A callback that makes a string (a link, a run file) from this render's
/// state, only when asked.
fn made_by(
    state: &UseReducerHandle<AppState>,
    make: fn(&AppState) -> String,
) -> Callback<(), String> {
    let state = state.clone();
    Callback::from(move |()| make(&state))
}

/// What a story's tour points at, once the run has reached a key moment:
/// how many moments it has reached, and where it looks.
fn tour_moment(state: &AppState, sim: &Sim) -> Option<(usize, Look)> {
    state.story.as_ref().and_then(|s| {
        let reached = s.reached(sim.now());
        s.current(sim.now()).map(|m| (reached, m.look))
    })
}

/// The key moment the tour stopped on, which the timeline marks.
fn key_moment(state: &AppState, sim: &Sim) -> Option<u64> {
    state
        .story
        .as_ref()
        .and_then(|s| s.current(sim.now()))
        .map(|m| m.at.ms())
}

/// The event log, its lines kept between frames in `cache`.
#[inline(never)]
fn event_log(
    sim: &Sim,
    state: &AppState,
    cache: &RefCell<LogCache>,
    dispatch: &Callback<Action>,
    run_link: &Callback<(), String>,
) -> Html {
    let ShownLog {
        lines,
        lines_max,
        total,
        dropped,
    } = cache.borrow_mut().shown(
        (state.words_drawn, state.running),
        sim.history(),
        sim.history_dropped(),
        (
            state.run,
            state.log_messages,
            crate::sim::TokenWords::of(sim.config().backend),
        ),
    );
    html! {
        <EventLog {lines} {lines_max} {total} {dropped}
            with_messages={state.log_messages} dispatch={dispatch.clone()}
            run={state.run} run_link={run_link.clone()} />
    }
}

#[inline(never)]
fn clients(sim: &Sim, state: &AppState, look: Option<Look>, dispatch: &Callback<Action>) -> Html {
    let cards: Vec<ClientCardProps> = ClientId::ALL
        .iter()
        .map(|&c| ClientCardProps {
            selected: state.selected == c,
            spotlit: look == Some(Look::Card(c)),
            frame_ms: state.gliding_frame_ms(),
            clock: state.clock(),
            ..ClientCardProps::from_sim(sim, c, state.pause_s[c.index()], dispatch.clone())
        })
        .collect();
    html! {
        <div class="clients">
            // Headings stay in order (the cards' names are h3) without a visible title.
            <h2 class="visually-hidden">{ "Clients" }</h2>
            { for cards.into_iter().map(|card| html! { <ClientCard ..card /> }) }
        </div>
    }
}

/// The parts both layouts show, and what a story's tour spotlights.
struct Both {
    look: Option<Look>,
    controls: Html,
    status: Html,
    cards: Html,
    timeline: Html,
    stories: Html,
    log: Html,
    /// The narrator's live regions, and its setting with Describe (shown
    /// with the shortcuts).
    narration: Html,
    narration_controls: Html,
}

/// What only the full page shows, and what it needs to show it.
struct Full {
    properties: Html,
    /// What the clients act on, under their cards: the lock service's and
    /// the resource's lines, and the messages between them.
    stage: Html,
    /// The lock service's and the resource's panels in full, folded.
    books: Html,
    /// The Code view, beside the cards (closed until asked), and its
    /// toggle for the page's bar.
    code: Html,
    code_toggle: Html,
    run_link: Callback<(), String>,
    /// The embed of what the page shows, for the Share view's builder.
    embed: embed::EmbedSpec,
    help: bool,
    backend: Backend,
    /// Whether the page below the first screen is drawn yet.
    drawn: bool,
    /// The view on show.
    view: View,
    dispatch: Callback<Action>,
}

/// The clock as a part of the page is drawn with it: `now`, where the run
/// stands, which the part draws; and `words`, when time's words were last
/// drawn (`AppState::words_ms`), by which alone it compares. A frame drawn
/// because the run recorded something leaves `words` as it was, so a part
/// whose other props did not change is not drawn again for it: what time
/// alone moves there (its countdown, its bars) goes on as between renders.
/// A part that changed is drawn where the clock stands.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub now: Millis,
    pub words: Millis,
}

impl PartialEq for Clock {
    fn eq(&self, other: &Self) -> bool {
        self.words == other.words
    }
}

impl Eq for Clock {}

impl Clock {
    /// Where the clock stands, read for both: a part drawn apart from the
    /// page's state (tests, the frame builder).
    pub fn at(now: Millis) -> Clock {
        Clock { now, words: now }
    }
}

/// What a part draws only with time's words (`AppState::words_drawn`),
/// kept from the render that last drew it: a frame drawn for an event
/// while the clock runs keeps the words of the frame before, and with them
/// what was drawn then.
#[derive(Debug)]
pub struct KeptByWords<T> {
    kept: Option<(u64, T)>,
}

impl<T> Default for KeptByWords<T> {
    fn default() -> Self {
        KeptByWords { kept: None }
    }
}

impl<T: Clone> KeptByWords<T> {
    /// What was kept, if it was drawn with time's words drawn
    /// `words_drawn` times and may be kept (`keep`); else `draw`'s, kept
    /// in its place.
    pub fn drawn(&mut self, words_drawn: u64, keep: bool, draw: impl FnOnce() -> T) -> T {
        match &self.kept {
            Some((at, drawn)) if keep && *at == words_drawn => drawn.clone(),
            _ => {
                let drawn = draw();
                self.kept = Some((words_drawn, drawn.clone()));
                drawn
            }
        }
    }
}

/// A straight motion of a part's transform that the browser carries on
/// between two renders while the clock runs (`browser::glide`): from where
/// a render drew it, at the rate the model moves it. A render that asks for
/// the same motion (drawn at the same moment, the same way, at the same
/// clock rate) leaves the one running alone; a render that draws the part
/// at another moment starts it again from the exact state, so it never
/// drifts far from the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// The clock when drawn, in virtual milliseconds.
    pub at_ms: u64,
    pub from: String,
    pub to: String,
    /// Virtual milliseconds a sixtieth of a second while the clock runs.
    pub frame_ms: u64,
    /// How much of the run it takes, in virtual milliseconds.
    pub virtual_ms: u64,
}

impl Motion {
    /// A motion over `virtual_ms` of the run while the clock runs with
    /// `frame_ms` a sixtieth of a second; `None` when it stands (stopped or nothing left).
    pub fn over(
        at_ms: u64,
        frame_ms: u64,
        virtual_ms: u64,
        from: String,
        to: String,
    ) -> Option<Motion> {
        (frame_ms > 0 && virtual_ms > 0).then_some(Motion {
            at_ms,
            from,
            to,
            frame_ms,
            virtual_ms,
        })
    }

    /// How long it takes in wall milliseconds, at the clock's rate.
    pub fn wall_ms(&self) -> f64 {
        (self.virtual_ms as f64 / pacing::virtual_per_wall_ms(self.frame_ms)).round()
    }
}

/// Carries `motion` on for the element behind `node` until a render asks
/// for another.
#[hook]
pub fn use_glide(node: &NodeRef, motion: Option<Motion>) {
    let node = node.clone();
    use_effect_with(motion, move |motion| {
        let glide = motion
            .as_ref()
            .and_then(|m| browser::glide(&node, &m.from, &m.to, m.wall_ms()));
        // Dropping the glide on cleanup cancels it.
        move || {
            let _stopped = glide;
        }
    });
}

/// Text that changes every frame while the clock runs (the clock, a lease's
/// countdown), laid out on its own. The box takes its size from an
/// invisible copy with every digit a 0 (`data-shape`, which changes only
/// when the text's shape does), and the text sits over it, contained: a new
/// digit then re-lays out this box alone, not the page around it.
pub fn tick(text: String) -> Html {
    let shape: String = text
        .chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect();
    html! {
        <span class="tick" data-shape={shape}><span class="tick__text">{ text }</span></span>
    }
}

/// The class of a part a story's tour may spotlight (`look`).
fn spot(look: Option<Look>, part: Look) -> Classes {
    classes!("spot", (look == Some(part)).then_some("is-spotlit"))
}

/// What only the compact layout needs: its way out to the full page, the
/// shortcuts' list, and its skip link's target.
struct EmbedWay {
    run_link: Callback<(), String>,
    story: Option<embed::StoryAddress>,
    help: bool,
    /// The frame's last stop, where the skip link moves the focus: the next
    /// Tab leaves the frame for the host page.
    end: NodeRef,
    dispatch: Callback<Action>,
}

/// The compact layout for a frame: no header or long text, the controls in
/// one row, and a story's tour docked at the frame's foot over the picture
/// instead of above it. A skip link first, for a keyboard reader who wants
/// to go past the frame.
fn compact_page(b: Both, way: EmbedWay) -> Html {
    let skip = {
        let end = way.end.clone();
        Callback::from(move |e: MouseEvent| {
            // Not followed: the page's own address keeps its fragment.
            e.prevent_default();
            browser::focus(&end);
        })
    };
    html! {
        <div class="page page--embed">
            <a class="skip-link" href="#embed-end" onclick={skip}>{ "Skip past the simulator" }</a>
            <main id="main" class="page__main" tabindex="-1">
                { b.narration }
                <div class="embed__bar">
                    <h1 class="embed__name">{ "Distributed Lock Simulator" }</h1>
                    <KeyboardHelp open={way.help} dispatch={way.dispatch.clone()} compact=true
                        narration={b.narration_controls} />
                    <a class="embed__open" href={embed::full_page_href("", way.story)} target="_blank" rel="noopener"
                        onclick={embed::open_full_page(way.run_link, way.story)}>
                        { "Open the full page" }
                    </a>
                </div>
                { b.controls }
                { b.stories }
                <div class={classes!("status-dock", spot(b.look, Look::Status))}>{ b.status }</div>
                { b.cards }
                // A 700 x 500 frame has room for the top of the timeline
                // under the cards, not for the stage: the status strip
                // gives the verdict.
                { b.timeline }
                <details class="panel embed__log">
                    <summary>{ "Event log: the run in sentences" }</summary>
                    { b.log }
                </details>
                <p id="embed-end" ref={way.end} tabindex="-1" class="visually-hidden">{ "End of the simulator" }</p>
            </main>
        </div>
    }
}

/// The simulation first: the lead line, the controls and stories, the
/// status strip, the cards and the stage under them (the lock service,
/// the messages on the wire, the resource), then the timeline and the
/// detail folded. The tools are views of their own; a view not on show
/// stays mounted (hidden), so its results wait for the visitor's return.
fn full_page(b: Both, f: Full) -> Html {
    let dispatch = f.dispatch;
    let shown = |v: View| f.view == v;
    let simulator = shown(View::Simulator);
    html! {
        <div class="page">
            if simulator {
                <nav class="skip-links" aria-label="Skip links">
                    <a class="skip-link" href="#verdict" onclick={skip_to("verdict")}>{ "Skip to the verdict" }</a>
                    <a class="skip-link" href="#simulator-end" onclick={skip_to("simulator-end")}>{ "Skip past the simulator" }</a>
                </nav>
            }
            <Masthead />
            <div class="page__bar">
                <ViewTabs current={f.view} dispatch={dispatch.clone()} />
                if f.view == View::Simulator { { f.code_toggle } }
                <KeyboardHelp open={f.help} dispatch={dispatch.clone()} narration={b.narration_controls} />
            </div>
            <main id="main" class="page__main" tabindex="-1">
                { b.narration }
                <div class="view view--simulator" hidden={!shown(View::Simulator)}>
                    // The stories menu stands in the lead's row, beside the set-up.
                    <Intro dispatch={dispatch.clone()}>{ b.stories }</Intro>
                    { b.controls }
                    <div id="verdict" tabindex="-1" class={classes!("status-dock", spot(b.look, Look::Status))}>{ b.status }</div>
                    <div class="cards-code">
                        { b.cards }
                        { f.code }
                    </div>
                    { f.stage }
                    { b.timeline }
                    { f.books }
                    { b.log }
                    <p id="simulator-end" tabindex="-1" class="visually-hidden">{ "End of the simulator" }</p>
                </div>
                { below(f.drawn, || html! {
                    <>
                        { tool(View::Find, f.view, f.properties) }
                        { tool(View::Compare, f.view, html! {
                            <WorkSection kind={Kind::Compare(f.backend)} dispatch={dispatch.clone()}
                                run_link={Some(f.run_link.clone())} />
                        }) }
                        { tool(View::Explore, f.view, html! {
                            <WorkSection kind={Kind::Explore} dispatch={dispatch.clone()} />
                        }) }
                        { tool(View::Spanner, f.view, html! {
                            <WorkSection kind={Kind::Spanner} dispatch={dispatch.clone()} />
                        }) }
                        { tool(View::Share, f.view, html! {
                            <Share dispatch={dispatch.clone()} run_link={f.run_link} embed={f.embed}
                                shown={f.view == View::Share} />
                        }) }
                    </>
                }) }
            </main>
            <PageFoot />
        </div>
    }
}

/// A skip link's press: the focus moves to the element `id`, and the link
/// is not followed, so the page's address keeps its fragment (a run).
fn skip_to(id: &'static str) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        e.prevent_default();
        browser::focus_id(id);
    })
}

/// A tool's view: the question it answers, then the tool.
fn tool(view: View, current: View, body: Html) -> Html {
    html! {
        <div class={classes!("view", format!("view--{}", view.slug()))} hidden={view != current}>
            <p class="view__question">{ view.question() }</p>
            { body }
        </div>
    }
}
