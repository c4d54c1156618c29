//! Stories: the presets from `docs/scenarios.md`, one click each, grouped by
//! backend. A loaded story plays its script as the clock runs; its tour
//! stops at each key moment and points at what to look at; "try this"
//! flips one setting so the difference shows.

use super::guide::preset_groups;
use super::state::{seconds_1, Action, AppState};
use crate::lesson::presets::{self, Preset};
use crate::lesson::tour::Moment;
use crate::sim::{Backend, Millis};
use std::rc::Rc;
use yew::prelude::*;

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
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StoriesProps {
    pub backend: Backend,
    pub loaded: Option<Loaded>,
    pub dispatch: Callback<Action>,
    /// Embedded: only the loaded story's title and its tour.
    #[prop_or_default]
    pub compact: bool,
}

impl StoriesProps {
    pub fn from_state(state: &AppState, backend: Backend, dispatch: Callback<Action>) -> Self {
        let sim = state.sim.borrow();
        let now: Millis = sim.now();
        let loaded = state.story.as_ref().map(|s| Loaded {
            preset: s.preset,
            progress: Progress {
                title: s.preset.title,
                done: s.script.done(),
                total: s.script.actions().len(),
                next_at_ms: s.next_at().map(Millis::ms),
            },
            tour: s.tour.clone(),
            reached: s.reached(now),
            tried: s.preset.try_this.tweak.is_applied(sim.config()),
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
    if props.compact {
        return match &props.loaded {
            Some(loaded) => html! {
                <section class="panel stories stories--compact" aria-label="Story">
                    { tour(props, loaded) }
                </section>
            },
            None => Html::default(),
        };
    }
    let loaded_id = props.loaded.as_ref().map(|l| l.preset.id);
    html! {
        <section class="panel stories" aria-labelledby="stories-title">
            <h2 id="stories-title" class="panel__title">{ "Stories" }</h2>
            <p class="panel__note stories__intro">
                { "One click loads a scripted run. Next plays it to its next key moment and says what to look at; Start plays it all. A story for every backend stays on yours." }
            </p>
            <nav class="stories__menu" aria-label="Stories by backend">
                { for preset_groups().into_iter().map(|(group, presets)| html! {
                    <div class="stories__group">
                        <h3 class="stories__group-title">{ group }</h3>
                        <ul class="stories__list">
                            { for presets.into_iter().map(|p| story_button(props, p, loaded_id == Some(p.id))) }
                        </ul>
                    </div>
                }) }
            </nav>
            if let Some(loaded) = &props.loaded {
                { loaded_story(props, loaded) }
            }
        </section>
    }
}

fn story_button(props: &StoriesProps, p: &'static Preset, loaded: bool) -> Html {
    let onclick = props
        .dispatch
        .reform(move |_: MouseEvent| Action::LoadPreset(p));
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

fn loaded_story(props: &StoriesProps, loaded: &Loaded) -> Html {
    let p = loaded.preset;
    let told = presets::told(p, props.backend);
    let on_unload = props.dispatch.reform(|_: MouseEvent| Action::UnloadStory);
    html! {
        <div class="stories__loaded">
            <h3 class="stories__title">{ p.title }</h3>
            <dl class="stories__text">
                <dt>{ "What happens" }</dt>
                <dd>{ told.story }</dd>
                <dt>{ "What fixes it" }</dt>
                <dd>{ told.fix }</dd>
            </dl>
            { tour(props, loaded) }
            { try_this(props, loaded) }
            <div class="stories__foot">
                { progress(&loaded.progress) }
                <button type="button" class="button" onclick={on_unload}
                    title="Stop the script; the run goes on by hand">
                    { "Unload story" }
                </button>
            </div>
        </div>
    }
}

fn tour(props: &StoriesProps, loaded: &Loaded) -> Html {
    let total = loaded.tour.len();
    let current = loaded
        .reached
        .checked_sub(1)
        .and_then(|i| loaded.tour.get(i));
    let on_next = props.dispatch.reform(|_: MouseEvent| Action::TourNext);
    let on_back = props.dispatch.reform(|_: MouseEvent| Action::TourBack);
    let (where_, caption) = match current {
        Some(m) => (
            format!(
                "Key moment {} of {total}, t={}",
                loaded.reached,
                seconds_1(m.at.ms())
            ),
            html! {
                <>
                    { m.caption.clone() }
                    <span class="tour__look">{ format!(" Look at {}.", m.look.name()) }</span>
                </>
            },
        ),
        None => (
            format!("{total} key moments"),
            html! { { "Press Next to play to the first key moment." } },
        ),
    };
    let at_end = loaded.reached >= total;
    html! {
        <div class="tour" role="group" aria-label="Tour">
            <p class="tour__where">
                // Embedded, the story's title heads its docked tour.
                if props.compact {
                    <strong class="stories__title">{ loaded.preset.title }</strong>
                    { " · " }
                }
                { where_ }
            </p>
            <p class="tour__caption" aria-live="polite">{ caption }</p>
            <div class="tour__buttons">
                <button type="button" class="button" onclick={on_back}
                    disabled={loaded.reached == 0 && loaded.progress.done == 0}
                    title="Back to the previous key moment, by replaying the run">
                    { "Back" }
                </button>
                <button type="button" class="button button--primary" onclick={on_next}
                    disabled={at_end}
                    title={if at_end { "That was the last key moment" } else { "Play to the next key moment and stop there" }}>
                    { "Next" }
                </button>
            </div>
        </div>
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

fn progress(p: &Progress) -> Html {
    let next = match p.next_at_ms {
        Some(at) => format!("next step at t={}", seconds_1(at)),
        None => "every step has run".into(),
    };
    html! {
        <p class="stories__progress" role="status">
            { format!("Playing \"{}\": {} of {} steps, {next}.", p.title, p.done, p.total) }
        </p>
    }
}
