//! Stories: the presets from `docs/scenarios.md`, one click each, grouped by
//! backend in a menu that stays one line tall until opened. A loaded story
//! plays its script as the clock runs; its tour, docked at the window's
//! foot, stops at each key moment and points at what to look at, and ends
//! by itself once the story has played out; "try this" flips one setting
//! so the difference shows.

use super::browser;
use super::guide::preset_groups;
use super::intro::HINT;
use super::keys::use_tour_dock;
use super::quiz::{verdict, Quiz};
use super::state::{Action, AppState};
use crate::lesson::presets::{self, Preset};
use crate::lesson::tour::{Moment, Question};
use crate::sim::{Backend, Millis};
use crate::wire::json::{self, Json};
use crate::words::seconds_1;
use std::rc::Rc;
use yew::prelude::*;

/// How long, in simulated time, the tour's last caption stays after its
/// moment once the script is done, before the bar folds into one line.
pub const TOUR_LINGER_MS: u64 = 1_000;

/// How far a loaded story has got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub title: &'static str,
    pub done: usize,
    pub total: usize,
    pub next_at_ms: Option<u64>,
}

/// The loaded story as the panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub preset: &'static Preset,
    pub progress: Progress,
    pub tour: Rc<Vec<Moment>>,
    /// Key moments reached so far.
    pub reached: usize,
    /// Whether the suggested change is on.
    pub tried: bool,
    /// Whether the break the story shows has happened (a stale write
    /// accepted, or two clients believing they hold the lock), or the
    /// story has run every step without one: only then is the fix offered.
    pub broke: bool,
    /// Whether the visitor closed the tour's bar.
    pub closed: bool,
    /// Whether the story has played out: every key moment reached, every
    /// step of its script run, and the last moment a little behind.
    pub ended: bool,
    /// The visitor's predictions, and the question that is up, if any.
    pub quiz: Quiz,
}

impl Loaded {
    /// Whether the tour's bar is up.
    pub fn touring(&self) -> bool {
        !self.closed && !self.ended
    }

    /// The question up before the next moment, with that moment's index.
    pub fn asking(&self) -> Option<(usize, &Question)> {
        let index = self.quiz.asking.filter(|&i| i == self.reached)?;
        Some((index, self.tour.get(index)?.question.as_ref()?))
    }

    /// How the current moment's caption opens: the prediction made before
    /// it, and why it missed. A prediction that held has no why of its own:
    /// the caption says what happened, and saying it twice (the answer's
    /// why, then the caption) told the rejection twice.
    pub fn verdict(&self) -> Option<(String, Option<&str>)> {
        let index = self.reached.checked_sub(1)?;
        let question = self.tour.get(index)?.question.as_ref()?;
        let picked = self.quiz.picked(index)?;
        let (lead, why) = verdict(question, picked)?;
        Some((lead, (picked != question.right).then_some(why)))
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StoriesProps {
    pub backend: Backend,
    pub loaded: Option<Loaded>,
    pub dispatch: Callback<Action>,
    /// Embedded: the hint, the menu and the tour, nothing else.
    #[prop_or_default]
    pub compact: bool,
}

impl StoriesProps {
    pub fn from_state(state: &AppState, backend: Backend, dispatch: Callback<Action>) -> Self {
        let sim = state.sim.borrow();
        let now: Millis = sim.now();
        let loaded = state.story.as_ref().map(|s| {
            let reached = s.reached(now);
            let ended = s.tour.last().is_some_and(|last| {
                reached == s.tour.len()
                    && s.next_at().is_none()
                    && now.ms() >= last.at.ms().saturating_add(TOUR_LINGER_MS)
            });
            Loaded {
                preset: s.preset,
                progress: Progress {
                    title: s.preset.title,
                    done: s.script.done(),
                    total: s.script.actions().len(),
                    next_at_ms: s.next_at().map(Millis::ms),
                },
                tour: s.tour.clone(),
                reached,
                tried: s.preset.try_this.tweak.is_applied(sim.config()),
                broke: sim.oracle().corruptions() > 0
                    || !sim.oracle().overlaps().is_empty()
                    || s.next_at().is_none(),
                closed: s.tour_closed,
                ended,
                quiz: s.quiz.clone(),
            }
        });
        StoriesProps {
            backend,
            loaded,
            dispatch,
            compact: false,
        }
    }
}

fn backends_words(p: &Preset) -> String {
    let names: Vec<&str> = p.backends.iter().map(|b| b.name()).collect();
    names.join(", ")
}

#[component]
pub fn Stories(props: &StoriesProps) -> Html {
    let open = use_state(|| false);
    let button_ref = use_node_ref();
    let docked = props
        .loaded
        .as_ref()
        .filter(|l| l.touring())
        .map(|l| l.preset.id);
    use_tour_dock(docked);
    let wanted = props.loaded.as_ref().filter(|_| !props.compact);
    let words = use_story_words(wanted.map(|l| l.preset.id));
    let menu = Menu {
        open: open.clone(),
        button_ref,
    };
    let ui = use_tour_ui(
        props
            .loaded
            .as_ref()
            .and_then(|l| l.asking().map(|(i, _)| i)),
    );
    let tour_part = props.loaded.as_ref().map(|l| tour_or_done(props, l, &ui));
    if props.compact {
        return html! {
            <section class="stories stories--compact" aria-label="Stories">
                <div class="stories__bar">
                    <p class="stories__hint" title={HINT}>{ HINT }</p>
                    { menu.button() }
                </div>
                { menu.list(props) }
                { tour_part.unwrap_or_default() }
            </section>
        };
    }
    html! {
        <section class="stories" aria-label="Stories">
            <div class="stories__bar">
                { menu.button() }
                if let Some(loaded) = &props.loaded {
                    { loaded_line(props, loaded) }
                } else {
                    <span class="stories__idle">{ format!("{} scripted runs, each with a guided tour", presets::PRESETS.len()) }</span>
                }
            </div>
            { menu.list(props) }
            if let Some(loaded) = &props.loaded {
                { loaded_story(props, loaded, &words) }
            }
            { tour_part.unwrap_or_default() }
        </section>
    }
}

/// The stories menu: a button that opens the grouped list; Escape or a
/// pick closes it and puts the focus back on the button.
struct Menu {
    open: UseStateHandle<bool>,
    button_ref: NodeRef,
}

impl Menu {
    fn button(&self) -> Html {
        let open = *self.open;
        let toggle = {
            let state = self.open.clone();
            Callback::from(move |_: MouseEvent| state.set(!open))
        };
        html! {
            <button ref={self.button_ref.clone()} type="button" class="button stories__toggle"
                aria-expanded={if open { "true" } else { "false" }} aria-controls="stories-menu"
                onclick={toggle}>
                { "Stories" }<span class="stories__caret" aria-hidden="true">{ if open { " ▴" } else { " ▾" } }</span>
            </button>
        }
    }

    /// The grouped list, in the page but hidden while the menu is closed
    /// (the button's `aria-controls` names it either way).
    fn list(&self, props: &StoriesProps) -> Html {
        let loaded_id = props.loaded.as_ref().map(|l| l.preset.id);
        let onkeydown = {
            let (state, button) = (self.open.clone(), self.button_ref.clone());
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    // Handled here: the page's own Escape (closing the tour) waits.
                    e.prevent_default();
                    state.set(false);
                    browser::focus(&button);
                }
            })
        };
        html! {
            <nav id="stories-menu" class="stories__menu" aria-label="Stories by backend" {onkeydown}
                hidden={!*self.open}>
                { for preset_groups().into_iter().map(|(group, presets)| html! {
                    <div class="stories__group">
                        <h3 class="stories__group-title">{ group }</h3>
                        <ul class="stories__list">
                            { for presets.into_iter().map(|p| self.story_button(props, p, loaded_id == Some(p.id))) }
                        </ul>
                    </div>
                }) }
            </nav>
        }
    }

    fn story_button(&self, props: &StoriesProps, p: &'static Preset, loaded: bool) -> Html {
        let (state, button, dispatch) = (
            self.open.clone(),
            self.button_ref.clone(),
            props.dispatch.clone(),
        );
        let onclick = Callback::from(move |_: MouseEvent| {
            dispatch.emit(Action::LoadPreset(p));
            state.set(false);
            browser::focus(&button);
        });
        let title = if p.backends.contains(&props.backend) {
            format!("Load \"{}\" on {}", p.title, props.backend.name())
        } else {
            format!("Load \"{}\" (switches to {})", p.title, backends_words(p))
        };
        html! {
            <li>
                <button type="button" class="button button--story" {onclick} {title}
                    aria-pressed={if loaded { "true" } else { "false" }}>
                    { p.title }
                </button>
            </li>
        }
    }
}

/// The loaded story in one line beside the menu: its title, how far its
/// script has got, and the way to unload it.
fn loaded_line(props: &StoriesProps, loaded: &Loaded) -> Html {
    let on_unload = props.dispatch.reform(|_: MouseEvent| Action::UnloadStory);
    html! {
        <>
            <h2 class="stories__title">{ loaded.preset.title }</h2>
            { progress(&loaded.progress) }
            <button type="button" class="button button--small" onclick={on_unload}
                title="Stop the script; the run goes on by hand">
                { "Unload story" }
            </button>
        </>
    }
}

/// Where the page fetches the stories' long words (`presets::words_in`).
pub const STORIES_URL: &str = "./stories.json";

/// The stories' long words as the page has them: `None` until they
/// arrive, then the parsed `stories.json` or why it could not be had.
type Words = Option<Result<Rc<Json>, String>>;

/// Fetches `stories.json` when a story is first `wanted` on the full page:
/// the stories' long words are left out of the page's first load (see
/// `presets`), and a visitor who loads no story never fetches them. A
/// fetch that failed is tried again when another story is loaded.
#[hook]
fn use_story_words(wanted: Option<&'static str>) -> Words {
    let words = use_state(|| None::<Result<Rc<Json>, String>>);
    let asked = use_mut_ref(|| false);
    {
        let words = words.setter();
        use_effect_with(wanted, move |wanted| {
            if wanted.is_some() && !asked.replace(true) {
                let on_text = Callback::from(move |text: Result<String, String>| {
                    let read = text.and_then(|text| {
                        json::parse(&text)
                            .map(Rc::new)
                            .map_err(|e| format!("it is damaged ({e})"))
                    });
                    if read.is_err() {
                        asked.replace(false);
                    }
                    words.set(Some(read));
                });
                browser::fetch_text(STORIES_URL, on_text);
            }
        });
    }
    (*words).clone()
}

/// The story's long words for `backend`: the program's own natively; in
/// the page, from `stories.json` once it arrived. `Err` is the line shown
/// in their place meanwhile, or why they could not be had.
fn story_words(p: &Preset, backend: Backend, words: &Words) -> Result<(String, String), String> {
    let told = presets::told(p, backend);
    if !told.story.is_empty() {
        return Ok((told.story.to_string(), told.fix.to_string()));
    }
    match words {
        None => Err("Loading the story's words…".into()),
        Some(Ok(file)) => presets::words_in(file, p, backend)
            .ok_or_else(|| "This page's stories.json lacks this story: reload the page.".into()),
        Some(Err(why)) => Err(format!(
            "The story's words could not be loaded: {why}. Load another story, or reload the page, to try again."
        )),
    }
}

/// The story's words, folded, and its "try this".
fn loaded_story(props: &StoriesProps, loaded: &Loaded, words: &Words) -> Html {
    html! {
        <div class="stories__loaded">
            <details class="stories__about">
                <summary>{ "What happens, and what fixes it" }</summary>
                { match story_words(loaded.preset, props.backend, words) {
                    Ok((story, fix)) => html! {
                        <dl class="stories__text">
                            <dt>{ "What happens" }</dt>
                            <dd>{ story }</dd>
                            <dt>{ "What fixes it" }</dt>
                            <dd>{ fix }</dd>
                        </dl>
                    },
                    Err(line) => html! { <p class="stories__text" role="status">{ line }</p> },
                } }
            </details>
            // The fix is offered once the break is on screen, not before.
            if loaded.broke || loaded.tried {
                { try_this(props, loaded) }
            }
        </div>
    }
}

/// The docked tour while it runs; once closed or ended, one line that
/// brings it back.
fn tour_or_done(props: &StoriesProps, loaded: &Loaded, ui: &TourUi) -> Html {
    if loaded.touring() {
        return tour(props, loaded, ui);
    }
    let (said, again, action) = if loaded.ended {
        ("The tour is over.", "Replay the tour", Action::ReplayTour)
    } else {
        ("Tour closed.", "Show the tour", Action::ShowTour(true))
    };
    let onclick = props.dispatch.reform(move |_: MouseEvent| action.clone());
    html! {
        // Its button gone (the tour shown again), the focus goes to Next.
        <p class="tour-done" data-focus-home=".tour__buttons button[type=submit]:enabled|.tour__buttons button:enabled">
            if props.compact {
                <strong class="stories__title">{ loaded.preset.title }</strong>
                { ": " }
            }
            { said }{ " " }
            <button type="button" class="button button--small" {onclick}>{ again }</button>
            if loaded.ended && !loaded.tried {
                { " " }{ try_in_tour(props, loaded) }
            }
        </p>
    }
}

/// The tour's buttons and answers the focus moves between: into the
/// question when it comes up, back to Next once it is sent.
#[derive(Clone)]
struct TourUi {
    next_ref: NodeRef,
    radio_ref: NodeRef,
}

#[hook]
fn use_tour_ui(asking: Option<usize>) -> TourUi {
    let ui = TourUi {
        next_ref: use_node_ref(),
        radio_ref: use_node_ref(),
    };
    let radio = ui.radio_ref.clone();
    use_effect_with(asking, move |asking| {
        if asking.is_some() {
            browser::focus(&radio);
        }
    });
    ui
}

fn tour(props: &StoriesProps, loaded: &Loaded, ui: &TourUi) -> Html {
    let total = loaded.tour.len();
    let asking = loaded.asking();
    let picked = asking.and(loaded.quiz.pick);
    let onsubmit = {
        let (dispatch, asked, next) = (
            props.dispatch.clone(),
            asking.is_some(),
            ui.next_ref.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            // The button stays; the answer the focus may be on goes.
            browser::focus(&next);
            dispatch.emit(if asked {
                Action::TourAnswer(picked)
            } else {
                Action::TourNext
            });
        })
    };
    let on_back = props.dispatch.reform(|_: MouseEvent| Action::TourBack);
    let on_close = props
        .dispatch
        .reform(|_: MouseEvent| Action::ShowTour(false));
    let (where_, caption) = where_and_caption(loaded, picked, ui, props);
    let at_end = loaded.reached >= total;
    let (next_label, next_title) = match (asking, picked) {
        (Some(_), Some(_)) => (
            "See what happens",
            "Play to the moment and see if your prediction holds",
        ),
        (Some(_), None) => ("Skip and see", "Play to the moment without predicting"),
        (None, _) if at_end => ("Next", "That was the last key moment"),
        (None, _) => ("Next", "Play to the next key moment and stop there"),
    };
    // Where the focus goes when its control goes away (`browser::FocusKeeper`):
    // the line that shows the tour again once closed, else the tour's next
    // step (its fix, or Back once Next is done).
    let home = ".tour-done button|.tour__buttons button:enabled:not(:first-child)|.tour__buttons button:enabled";
    html! {
        <div class="tour tour--docked" role="group" aria-label="Tour" data-focus-home={home}>
            <p class="tour__where">
                // The story's title heads its docked tour.
                <strong class="stories__title">{ loaded.preset.title }</strong>
                { " · " }
                { where_ }
            </p>
            // One form, so Enter on an answer sends it; its buttons stay
            // the same elements whether a question is up or not.
            <form class="tour__form" {onsubmit}>
                <div class="tour__caption" aria-live="polite">{ caption }</div>
                <div class="tour__buttons">
                    <button type="button" class="button" onclick={on_back}
                        disabled={loaded.reached == 0 && loaded.progress.done == 0}
                        title="Back to the previous key moment, by replaying the run">
                        { "Back" }
                    </button>
                    <button ref={ui.next_ref.clone()} type="submit" class="button button--primary"
                        disabled={at_end && asking.is_none()} title={next_title}>
                        { next_label }
                    </button>
                    // The last step: the story again with its fix.
                    if at_end && !loaded.tried {
                        { try_in_tour(props, loaded) }
                    }
                </div>
            </form>
            <button type="button" class="tour__close" onclick={on_close}
                aria-label="Close tour" title="Close the tour (Escape); the story plays on">
                <span aria-hidden="true">{ "×" }</span>
            </button>
        </div>
    }
}

/// Where the tour is, and what its caption says: the question that is up,
/// or the moment reached (after the verdict on its prediction, if any).
fn where_and_caption(
    loaded: &Loaded,
    picked: Option<usize>,
    ui: &TourUi,
    props: &StoriesProps,
) -> (String, Html) {
    let dispatch = &props.dispatch;
    let total = loaded.tour.len();
    let current = loaded
        .reached
        .checked_sub(1)
        .and_then(|i| loaded.tour.get(i));
    match (loaded.asking(), current) {
        (Some((i, question)), _) => (
            format!("Key moment {} of {total}: predict first", i + 1),
            ask(question, i, picked, ui, dispatch),
        ),
        (None, Some(m)) => (
            format!(
                "Key moment {} of {total}, t={}",
                loaded.reached,
                seconds_1(m.at.ms())
            ),
            html! {
                <>
                    if let Some((lead, why)) = loaded.verdict() {
                        <strong>{ lead }</strong>{ " " }
                        if let Some(why) = why {
                            { why }{ " " }
                        }
                    }
                    { m.caption.clone() }
                    <span class="tour__look">{ format!(" Look at {}.", look_words(m.look, props.compact)) }</span>
                </>
            },
        ),
        (None, None) => (
            format!("{total} key moments"),
            html! { { "Press Next to play to the first key moment." } },
        ),
    }
}

/// What the caption points at: in a frame, at what the frame shows.
fn look_words(look: crate::lesson::tour::Look, compact: bool) -> String {
    if compact {
        super::embed::look_in_frame(look).name()
    } else {
        look.name()
    }
}

/// The question before moment `index`: native radios in a group named by
/// the question, the first (or the chosen one) taking the focus.
fn ask(
    question: &Question,
    index: usize,
    picked: Option<usize>,
    ui: &TourUi,
    dispatch: &Callback<Action>,
) -> Html {
    let legend = format!("tour-ask-{index}");
    let focused = picked.unwrap_or(0);
    html! {
        <fieldset class="tour__ask" role="radiogroup" aria-labelledby={legend.clone()}>
            <legend id={legend} class="tour__question">{ question.ask.clone() }</legend>
            { for question.answers.iter().enumerate().map(|(j, a)| {
                let onchange = dispatch.reform(move |_: Event| Action::TourPick(j));
                let node = if j == focused { ui.radio_ref.clone() } else { NodeRef::default() };
                html! {
                    <label class="tour__answer">
                        <input ref={node} type="radio" name="tour-answer" value={j.to_string()}
                            checked={picked == Some(j)} {onchange} />
                        { a.text.clone() }
                    </label>
                }
            }) }
        </fieldset>
    }
}

/// "Now turn fencing on": the story's suggested change, and its tour again.
fn try_in_tour(props: &StoriesProps, loaded: &Loaded) -> Html {
    let onclick = props.dispatch.reform(|_: MouseEvent| Action::TryThisInTour);
    html! {
        <button type="button" class="button button--primary" {onclick}
            title={presets::told(loaded.preset, props.backend).try_text}>
            { now_words(&loaded.preset.try_this.tweak.label()) }
        </button>
    }
}

/// "Turn fencing on" as the tour's last step says it: "Now turn fencing on".
pub fn now_words(label: &str) -> String {
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => format!("Now {}{}", first.to_lowercase(), chars.as_str()),
        None => String::new(),
    }
}

fn try_this(props: &StoriesProps, loaded: &Loaded) -> Html {
    let t = loaded.preset.try_this;
    let tried = loaded.tried;
    let onclick = props
        .dispatch
        .reform(move |_: MouseEvent| Action::TryThis(!tried));
    let label = if tried {
        "Undo the change".to_string()
    } else {
        t.tweak.label()
    };
    html! {
        <p class="try">
            <strong class="try__head">{ if tried { "Trying: " } else { "Try this: " } }</strong>
            { presets::told(loaded.preset, props.backend).try_text }
            { " " }
            <button type="button" class="button button--small" {onclick}
                title="The story replays from t=0 with this setting">
                { label }
            </button>
        </p>
    }
}

/// How far the script has got, without a count of its steps: the tour's
/// key moments are the one count the page shows.
fn progress(p: &Progress) -> Html {
    let said = match p.next_at_ms {
        Some(at) if p.done == 0 => format!("first step at t={}", seconds_1(at)),
        Some(at) => format!("next step at t={}", seconds_1(at)),
        None => "every step has run".into(),
    };
    html! {
        <p class="stories__progress" role="status">{ said }</p>
    }
}
