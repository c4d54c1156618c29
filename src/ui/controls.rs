//! The run's settings and the clock: backend, fencing, TTL, seed, speed,
//! Start/Pause, Step and Reset.

use super::browser::{checked_of, take_value, value_of};
use super::state::{speed_words, Action, AppState, Notice};
use crate::sim::latency::{latency_words, preset_of, LATENCY_PRESETS};
use crate::sim::Config;
use crate::sim::Sim;
use crate::sim::{Backend, Fencing};
use crate::sim::{TTL_MS_MAX, TTL_MS_MIN};
use crate::words::seconds_1;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ControlsProps {
    pub config: Config,
    /// The seed and TTL fields as typed.
    pub seed_text: String,
    pub ttl_text: String,
    pub running: bool,
    pub speed_quarters: u32,
    /// Why Step is disabled, `None` when there is an event to run.
    pub step_blocked: Option<String>,
    /// The line under the backend switch: lease flavour, token, time left.
    pub backend_line: String,
    pub notice: Option<Notice>,
    pub dispatch: Callback<Action>,
    /// Embedded: the clock in one row, the run's settings folded.
    #[prop_or_default]
    pub compact: bool,
}

impl ControlsProps {
    pub fn from_sim(sim: &Sim, state: &AppState, dispatch: Callback<Action>) -> Self {
        let story_pending = state.story.as_ref().is_some_and(|s| !s.script.is_done());
        let step_blocked = match sim.next_event_at() {
            Some(_) => None,
            None if story_pending => None,
            None => Some("Nothing is scheduled: click a command on a card first".to_string()),
        };
        ControlsProps {
            config: sim.config().clone(),
            seed_text: state.seed_text.clone(),
            ttl_text: state.ttl_text.clone(),
            running: state.running,
            speed_quarters: state.speed_quarters,
            step_blocked,
            backend_line: backend_line(sim),
            notice: state.notice.clone(),
            dispatch,
            compact: false,
        }
    }
}

/// "etcd: token = create_revision of the lock key, A's lease ends at
/// t=7.0 s". When it ends, not how long is left: the line changes when the
/// lease does, not on every frame, so the controls are not drawn again
/// while the clock runs (the cards count the time left down).
pub fn backend_line(sim: &Sim) -> String {
    let backend = sim.config().backend;
    let word = backend.lease_word();
    let lease = match sim.holder() {
        Some(h) => match h.until {
            Some(until) => format!("{}'s {word} ends at t={}", h.client, seconds_1(until.ms())),
            // A lock with no lease (PostgreSQL's) has a holder and no end.
            None => format!("{}'s {word} holds the lock, with no end", h.client),
        },
        None => "nobody holds the lock".to_string(),
    };
    format!(
        "{}: {}, {lease}",
        backend.name(),
        super::service_panel::words(backend).token_line
    )
}

fn speed_value(quarters: u32) -> String {
    super::state::speed_words(quarters)
        .trim_end_matches('x')
        .to_string()
}

#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    if props.compact {
        return compact(props);
    }
    html! {
        <section class="controls" aria-label="Controls">
            { backend_switch(props) }
            { run_settings(props) }
            { clock(props) }
            { notice(props) }
        </section>
    }
}

/// One row for a frame: the clock, and the settings behind a summary that
/// says what they are.
fn compact(props: &ControlsProps) -> Html {
    let config = &props.config;
    let fencing = match config.fencing {
        Fencing::On => "fencing on",
        Fencing::Off => "fencing off",
    };
    let summary = format!(
        "{}, {fencing}, TTL {} s, latency {}, seed {}",
        config.backend.name(),
        props.ttl_text,
        latency_words(config),
        props.seed_text
    );
    html! {
        <section class="controls controls--compact" aria-label="Controls">
            { clock(props) }
            <details class="controls__settings">
                <summary class="controls__summary">{ summary }</summary>
                { backend_switch(props) }
                { run_settings(props) }
            </details>
            { notice(props) }
        </section>
    }
}

fn backend_switch(props: &ControlsProps) -> Html {
    let current = props.config.backend;
    html! {
        <div class="controls__group controls__group--backend">
            <fieldset class="backend-switch" role="radiogroup" aria-labelledby="backend-legend">
                <legend id="backend-legend" class="backend-switch__legend">{ "Backend" }</legend>
                { for Backend::ALL.iter().map(|&b| {
                    let onchange = props.dispatch.reform(move |_: Event| Action::SetBackend(b));
                    html! {
                        <label class={classes!("backend-switch__option",
                            (b == current).then_some("backend-switch__option--on"))}>
                            <input type="radio" name="backend" value={b.slug()}
                                checked={b == current} {onchange} />
                            <span>{ b.name() }</span>
                        </label>
                    }
                }) }
            </fieldset>
            // Drawn by `tick`: a renewal moves the lease's end several
            // times a second while the clock runs, and in a monospace font
            // the copy with every digit a 0 wraps as the line does.
            <p class="controls__backend-line">{ super::tick(props.backend_line.clone()) }</p>
        </div>
    }
}

/// The TTL field's bounds are written into its markup as text; this keeps
/// them the core's.
const _: () = assert!(TTL_MS_MIN == 1_000 && TTL_MS_MAX == 60_000);

fn run_settings(props: &ControlsProps) -> Html {
    let config = &props.config;
    let on_fencing = props
        .dispatch
        .reform(|e: Event| Action::SetFencing(checked_of(&e)));
    // On change (Enter, or leaving the field), not on each keystroke: typing
    // "30" must not run a TTL of 3 s on the way.
    let ttl_shown = props.ttl_text.clone();
    let on_ttl = props
        .dispatch
        .reform(move |e: Event| Action::SetTtl(take_value(&e, &ttl_shown)));
    let seed_shown = props.seed_text.clone();
    let on_seed = props
        .dispatch
        .reform(move |e: Event| Action::SetSeed(take_value(&e, &seed_shown)));
    html! {
        <div class="controls__group controls__group--settings">
            <label class="toggle toggle--fencing" for="fencing"
                title="The resource checks each write; the Resource panel sets how">
                <input id="fencing" type="checkbox" class="toggle__input"
                    checked={config.fencing == Fencing::On} onchange={on_fencing} />
                <span class="toggle__text">{ "Fencing" }</span>
            </label>
            // min="1" max="60": the core's range, checked below.
            <label class="field" for="ttl">
                <span class="field__label">{ "TTL (s)" }</span>
                <input id="ttl" class="field__input field__input--short" type="number"
                    min="1" max="60" step="0.5" inputmode="decimal"
                    value={props.ttl_text.clone()} onchange={on_ttl}
                    aria-describedby="ttl-when" />
            </label>
            { latency_field(props) }
            <label class="field" for="seed">
                <span class="field__label">{ "Seed" }</span>
                <input id="seed" class="field__input" type="text" inputmode="numeric"
                    autocomplete="off" spellcheck="false"
                    value={props.seed_text.clone()} onchange={on_seed}
                    aria-describedby="ttl-when" />
            </label>
            // The TTL's default and what it stands for in each system, beside
            // the field (the hints fold away on wide screens; on a phone the
            // page's foot and the lock-service panel carry the sources).
            <a class="controls__sources" href="docs/sources.html#all" target="_blank" rel="noopener">{ "Sources of the defaults" }</a>
            if config.backend == Backend::Postgres {
                <p class="controls__hint" id="ttl-unused">
                    { "PostgreSQL ignores the TTL: an advisory lock has no lease. How long a dead holder keeps it is set by the keepalive settings in the lock service panel." }
                </p>
            }
            <p class="controls__hint" id="ttl-when">
                { "TTL and seed apply on Enter or on leaving the field. Changing any of these starts a fresh run." }
            </p>
        </div>
    }
}

/// Where the parties are, as presets; a link's own scale shows as one
/// more choice, so the field never claims a preset the run is not at.
fn latency_field(props: &ControlsProps) -> Html {
    let current = preset_of(&props.config);
    let on_latency = props
        .dispatch
        .reform(|e: Event| Action::SetLatency(value_of(&e)));
    html! {
        <label class="field" for="latency" title="Slowed 10x to watch; the others are real (1x), a round trip 2 ms longer across zones, 70 ms across regions">
            <span class="field__label">{ "Latency" }</span>
            <select id="latency" class="field__select" onchange={on_latency}>
                { for LATENCY_PRESETS.iter().enumerate().map(|(i, p)| html! {
                    <option value={i.to_string()} selected={current == Some(p)}>{ p.name }</option>
                }) }
                if current.is_none() {
                    <option selected=true>{ latency_words(&props.config) }</option>
                }
            </select>
        </label>
    }
}

fn clock(props: &ControlsProps) -> Html {
    let (run_name, run_action) = if props.running {
        ("Pause", Action::Pause)
    } else {
        ("Start", Action::Start)
    };
    let on_run = props
        .dispatch
        .reform(move |_: MouseEvent| run_action.clone());
    let on_step = props.dispatch.reform(|_: MouseEvent| Action::Step);
    let on_reset = props.dispatch.reform(|_: MouseEvent| Action::Reset);
    let on_speed = props
        .dispatch
        .reform(|e: InputEvent| Action::SetSpeed(value_of(&e)));
    let step_title = props
        .step_blocked
        .clone()
        .unwrap_or_else(|| "Run the next scheduled event, then stop".into());
    html! {
        <div class="controls__group controls__group--clock" role="group" aria-label="Clock">
            <button type="button" class={classes!("button", "button--primary",
                props.running.then_some("button--running"))} onclick={on_run}>
                { run_name }
            </button>
            <button type="button" class="button" onclick={on_step}
                disabled={props.step_blocked.is_some()} title={step_title}>
                { "Step" }
            </button>
            <button type="button" class="button" onclick={on_reset}
                title="A fresh run with the same settings and seed">
                { "Reset" }
            </button>
            <label class="field field--speed" for="speed">
                <span class="field__label">{ "Speed" }</span>
                <input id="speed" class="field__range" type="range" min="0.25" max="8" step="0.25"
                    value={speed_value(props.speed_quarters)} oninput={on_speed}
                    aria-valuetext={speed_words(props.speed_quarters)} />
            </label>
            <output class="controls__speed" for="speed">{ speed_words(props.speed_quarters) }</output>
        </div>
    }
}

fn notice(props: &ControlsProps) -> Html {
    let Some(notice) = &props.notice else {
        return html! { <p class="notice notice--empty" role="status"></p> };
    };
    let (class, role) = match notice {
        Notice::Refused(_) => ("notice--refused", "alert"),
        Notice::Info(_) => ("notice--info", "status"),
    };
    let dismiss = props.dispatch.reform(|_: MouseEvent| Action::DismissNotice);
    html! {
        <p class={classes!("notice", class)} role={role}>
            <span class="notice__text" title={notice.text().to_string()}>{ notice.text() }</span>
            <button type="button" class="notice__dismiss" aria-label="Dismiss" onclick={dismiss}>
                { "×" }
            </button>
        </p>
    }
}
