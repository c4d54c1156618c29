//! The event log: the run's history as sentences, newest first, coloured by
//! kind and announced politely to screen readers.

use super::dom::checked_of;
use super::state::Action;
use crate::sim::history::{EventKind, Record};
use std::rc::Rc;
use yew::prelude::*;

/// Lines shown at most; older ones stay in the history but are not drawn.
pub const LOG_LINES_MAX: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// The record's place in the history: a stable key.
    pub index: usize,
    pub kind: EventKind,
    pub text: String,
}

/// The newest lines, newest first; network messages only when asked for.
pub fn log_lines(history: &[Record], with_messages: bool) -> Vec<LogLine> {
    history
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, r)| with_messages || r.event.kind() != EventKind::Message)
        .take(LOG_LINES_MAX)
        .map(|(index, r)| LogLine {
            index,
            kind: r.event.kind(),
            text: r.to_string(),
        })
        .collect()
}

/// The history index of the newest line the log would show.
pub fn newest_shown(history: &[Record], with_messages: bool) -> Option<usize> {
    history
        .iter()
        .rposition(|r| with_messages || r.event.kind() != EventKind::Message)
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct EventLogProps {
    pub lines: Rc<Vec<LogLine>>,
    /// Records in the whole history, shown or not.
    pub total: usize,
    pub with_messages: bool,
    pub dispatch: Callback<Action>,
}

#[component]
pub fn EventLog(props: &EventLogProps) -> Html {
    let on_messages = props
        .dispatch
        .reform(|e: Event| Action::ShowLogMessages(checked_of(&e)));
    html! {
        <section class="panel log" aria-labelledby="log-title">
            <div class="log__head">
                <h2 id="log-title" class="panel__title">{ "Event log" }</h2>
                <label class="toggle" for="log-messages">
                    <input id="log-messages" type="checkbox" class="toggle__input"
                        checked={props.with_messages} onchange={on_messages} />
                    <span class="toggle__text">{ "Show network messages" }</span>
                </label>
            </div>
            <ol class="log__lines" aria-live="polite" aria-label="Event log" tabindex="0">
                { for props.lines.iter().map(|line| html! {
                    <li key={line.index} class={classes!("log__line", format!("log__line--{}", line.kind.slug()))}>
                        <span class="log__kind">{ line.kind.slug() }</span>
                        { " " }
                        <span class="log__text">{ &line.text }</span>
                    </li>
                }) }
            </ol>
            if props.lines.is_empty() {
                <p class="panel__empty">{ "Nothing has happened yet. Click Acquire on a card, then Start." }</p>
            }
            if props.total > LOG_LINES_MAX {
                <p class="panel__note">{ format!("Showing the newest {LOG_LINES_MAX} lines of {} events.", props.total) }</p>
            }
        </section>
    }
}
