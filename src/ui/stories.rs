//! More stories: the presets from `docs/scenarios.md`, each a fresh run
//! with a script that plays as the clock passes its steps.

use super::dom::value_of;
use super::state::{seconds_1, Action, AppState};
use crate::sim::presets::{Preset, PRESETS};
use crate::sim::types::Backend;
use yew::prelude::*;

/// How far a loaded story has got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub title: &'static str,
    pub done: usize,
    pub total: usize,
    pub next_at_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StoriesProps {
    pub backend: Backend,
    pub choice: &'static str,
    pub progress: Option<Progress>,
    pub dispatch: Callback<Action>,
}

impl StoriesProps {
    pub fn from_state(state: &AppState, backend: Backend, dispatch: Callback<Action>) -> Self {
        let progress = state.story.as_ref().map(|s| Progress {
            title: s.preset.title,
            done: s.next,
            total: s.actions.len(),
            next_at_ms: s.actions.get(s.next).map(|a| a.at_ms),
        });
        StoriesProps {
            backend,
            choice: state.story_choice,
            progress,
            dispatch,
        }
    }
}

fn backends_words(p: &Preset) -> String {
    let names: Vec<&str> = p.backends.iter().map(|b| b.name()).collect();
    names.join(", ")
}

#[component]
pub fn Stories(props: &StoriesProps) -> Html {
    let chosen = PRESETS
        .iter()
        .find(|p| p.id == props.choice)
        .or(PRESETS.first());
    let on_choose = props
        .dispatch
        .reform(|e: Event| Action::ChooseStory(value_of(&e)));
    let on_load = props.dispatch.reform(|_: MouseEvent| Action::LoadStory);
    let on_unload = props.dispatch.reform(|_: MouseEvent| Action::UnloadStory);
    let blocked = chosen
        .filter(|p| !p.backends.contains(&props.backend))
        .map(|p| {
            format!(
                "This story needs {}: switch the backend first",
                backends_words(p)
            )
        });
    html! {
        <details class="panel stories" open={props.progress.is_some()}>
            <summary class="stories__summary">
                <span class="panel__title stories__title">{ "More stories" }</span>
                <span class="stories__count">
                    { match &props.progress {
                        Some(p) => format!("playing \"{}\"", p.title),
                        None => format!("{} scripted stories to load and watch", PRESETS.len()),
                    } }
                </span>
            </summary>
            <p class="panel__note stories__intro">
                { "Each loads a fresh run with a script that plays as the clock runs. Fencing and the Redis options stay yours: change one and the script replays from t=0." }
            </p>
            <div class="stories__pick">
                <label class="field" for="story">
                    <span class="field__label">{ "Story" }</span>
                    <select id="story" class="field__select" onchange={on_choose}>
                        { for PRESETS.iter().map(|p| html! {
                            <option value={p.id} selected={p.id == props.choice}>
                                { format!("{} ({})", p.title, backends_words(p)) }
                            </option>
                        }) }
                    </select>
                </label>
                <button type="button" class="button button--primary" onclick={on_load}
                    disabled={blocked.is_some()}
                    title={blocked.clone().unwrap_or_else(|| "A fresh run that plays this story".into())}>
                    { "Load story" }
                </button>
                if props.progress.is_some() {
                    <button type="button" class="button" onclick={on_unload}
                        title="Stop the script; the run goes on by hand">
                        { "Unload story" }
                    </button>
                }
            </div>
            if let Some(p) = chosen {
                <dl class="stories__text">
                    <dt>{ "What happens" }</dt>
                    <dd>{ p.story }</dd>
                    <dt>{ "What fixes it" }</dt>
                    <dd>{ p.fix }</dd>
                </dl>
            }
            { progress(props) }
        </details>
    }
}

fn progress(props: &StoriesProps) -> Html {
    let Some(p) = &props.progress else {
        return html! {};
    };
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
