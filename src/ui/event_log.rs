//! The event log: the run's history as sentences, newest first, coloured by
//! kind. It is for reading, not a live region: the narrator
//! (`super::narrator`) says what happens at a pace a person can follow.

use super::browser::checked_of;
use super::state::Action;
use super::worker::{use_work, Shown};
use super::KeptByWords;
use crate::sim::{Event as SimEvent, EventKind, Record, TokenWords, HISTORY_LEN_MAX};
use crate::work::Job;
use std::collections::VecDeque;
use std::rc::Rc;
use yew::prelude::*;

/// Lines shown at most; older ones stay in the history but are not drawn
/// (the timeline shows them, and moving the playhead back brings them into
/// the log). Enough for every story's events without the network messages
/// (56 at the most). A line added at the top moves every line below it:
/// with 200 lines, a frame that added one spent about 1.2 ms more painting
/// them, enough to put it among the slowest while the clock runs.
pub const LOG_LINES_MAX: usize = 60;
/// Lines that fill the list's box however wide the page (each is at least
/// 1.8rem tall, the box at most 26rem): from then on the box has a fixed
/// height and is contained (`.log__lines--full`), so the browser re-lays
/// out the list alone when it changes. While the clock runs the log draws
/// no more than these, the newest, which are the ones in view: a replayed
/// run brings more than `LOG_LINES_MAX` lines between two renders of
/// time's words, and writing all of them each time was the largest part of
/// such a render. Stopped, it draws `LOG_LINES_MAX`.
pub const LOG_LINES_FULL: usize = 15;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// The record's place in the history: a stable key.
    pub index: usize,
    pub kind: EventKind,
    /// Shared, so a line is formatted once and then only pointed at.
    pub text: Rc<str>,
    /// The message's id, for a line about a network message: its wire
    /// text can be asked for.
    pub message: Option<u64>,
}

impl LogLine {
    fn of(index: usize, record: &Record, words: TokenWords) -> LogLine {
        let message = match record.event {
            SimEvent::MessageSent { id, .. }
            | SimEvent::MessageRetransmitted { id, .. }
            | SimEvent::MessageDropped { id, .. } => Some(id),
            _ => None,
        };
        LogLine {
            index,
            kind: record.event.kind(),
            text: record.said(words).into(),
            message,
        }
    }
}

fn shown(record: &Record, with_messages: bool) -> bool {
    with_messages || record.event.kind() != EventKind::Message
}

/// The newest lines, newest first; network messages only when asked for;
/// tokens worded as the run's lock system words them.
pub fn log_lines(history: &[Record], with_messages: bool, words: TokenWords) -> Vec<LogLine> {
    history
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, r)| shown(r, with_messages))
        .take(LOG_LINES_MAX)
        .map(|(index, r)| LogLine::of(index, r, words))
        .collect()
}

/// The log kept between frames: its lines, and the log as last drawn.
#[derive(Debug, Default)]
pub struct LogCache {
    lines: LineCache,
    /// The log as last drawn, with time's words.
    shown: KeptByWords<ShownLog>,
}

/// The log's lines kept between frames: new records are formatted as they
/// arrive instead of all the lines on every change.
#[derive(Debug, Default)]
struct LineCache {
    run: u64,
    with_messages: bool,
    words: TokenWords,
    /// History records already looked at.
    scanned: usize,
    /// Newest first, at most `LOG_LINES_MAX`.
    lines: VecDeque<LogLine>,
    snapshot: Rc<Vec<LogLine>>,
}

/// What the log draws: its lines (at most `lines_max`), the records in the
/// whole history and those not kept.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownLog {
    pub lines: Rc<Vec<LogLine>>,
    pub lines_max: usize,
    pub total: usize,
    pub dropped: u64,
}

impl LogCache {
    /// The log to draw with time's words drawn `words_drawn` times
    /// (`AppState::words_drawn`): the log of the last render with the same
    /// words, else the run's as it stands. While the clock runs, the lines
    /// an event brings wait for the next render of time's words (a few
    /// times a second of the reader's time): a replayed run records
    /// something nearly every frame, and each line written then was most
    /// of the page's writes. Every other change (Pause, Step, a tour's key
    /// moment, moving in time) draws time's words, and so the log exactly.
    /// While the clock runs (`running`) only the lines that fill the box
    /// are drawn (`LOG_LINES_FULL`).
    pub fn shown(
        &mut self,
        (words_drawn, running): (u64, bool),
        history: &[Record],
        dropped: u64,
        (run, with_messages, words): (u64, bool, TokenWords),
    ) -> ShownLog {
        let LogCache { lines, shown } = self;
        shown.drawn(words_drawn, true, || {
            let all = lines.lines(history, run, with_messages, words);
            let lines_max = if running {
                LOG_LINES_FULL
            } else {
                LOG_LINES_MAX
            };
            let lines = if all.len() > lines_max {
                Rc::new(all[..lines_max].to_vec())
            } else {
                all
            };
            ShownLog {
                lines,
                lines_max,
                total: history.len(),
                dropped,
            }
        })
    }
}

impl LineCache {
    /// Brings the cache up to date and returns the lines to show.
    fn lines(
        &mut self,
        history: &[Record],
        run: u64,
        with_messages: bool,
        words: TokenWords,
    ) -> Rc<Vec<LogLine>> {
        let fresh = run != self.run || with_messages != self.with_messages || words != self.words;
        if fresh || history.len() < self.scanned {
            self.run = run;
            self.with_messages = with_messages;
            self.words = words;
            self.scanned = history.len();
            self.lines = log_lines(history, with_messages, words).into();
            self.snapshot = Rc::new(self.lines.iter().cloned().collect());
            return self.snapshot.clone();
        }
        let mut changed = false;
        for (index, record) in history.iter().enumerate().skip(self.scanned) {
            if shown(record, with_messages) {
                self.lines.push_front(LogLine::of(index, record, words));
                changed = true;
            }
        }
        self.scanned = history.len();
        if changed {
            self.lines.truncate(LOG_LINES_MAX);
            self.snapshot = Rc::new(self.lines.iter().cloned().collect());
        }
        self.snapshot.clone()
    }
}

/// The line to the worker for a message's wire text, shared by the log
/// and the timeline's arrows: the worker replays the run and draws the one
/// message asked for, so neither the templates nor the code that fills
/// them are in the page's first load. Returns the message asked for last
/// with its drawing (markup: the worker's, escaped there, or its status),
/// and the callback that asks for a message (again only if it changed).
#[hook]
pub(super) fn use_wire(
    run: u64,
    run_link: &Callback<(), String>,
) -> (Option<(u64, AttrValue)>, Callback<u64>) {
    let work = use_work();
    // A cell rather than a state: asking sets the worker section's own
    // state, which draws the asker again anyway.
    let asked = use_mut_ref(|| None::<(u64, u64)>);
    let ask = {
        let (send, asked, run_link) = (work.send.clone(), asked.clone(), run_link.clone());
        Callback::from(move |message: u64| {
            if *asked.borrow() != Some((run, message)) {
                *asked.borrow_mut() = Some((run, message));
                send.emit(Job::Wire {
                    run: run_link.emit(()),
                    message,
                });
            }
        })
    };
    let markup = match &work.shown {
        Shown::Running { progress, .. } => status_markup("status", progress),
        Shown::Done(html) => format!(r#"<div class="work__body">{html}</div>"#),
        Shown::Failed(why) | Shown::Stopped(why) => status_markup("alert", why),
        Shown::Asked => String::new(),
    };
    let shown = match *asked.borrow() {
        Some((r, message)) if r == run => Some((message, AttrValue::from(markup))),
        _ => None,
    };
    (shown, ask)
}

/// What an open disclosure shows while another message's text is shown.
const WIRE_ELSEWHERE: &str =
    r#"<p class="log__wire-note">Close and open again to see this message's wire text.</p>"#;

fn status_markup(role: &str, words: &str) -> String {
    format!(
        r#"<p class="work__status" role="{role}">{}</p>"#,
        crate::markup::escape(words)
    )
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct EventLogProps {
    pub lines: Rc<Vec<LogLine>>,
    /// How many lines it draws at most (`LogCache::shown`).
    pub lines_max: usize,
    /// Records in the whole history, shown or not.
    pub total: usize,
    /// Records that came after the history was full and were not kept.
    pub dropped: u64,
    pub with_messages: bool,
    pub dispatch: Callback<Action>,
    /// The run's identity (`AppState::run`) and its link, for its wire text.
    pub run: u64,
    pub run_link: Callback<(), String>,
}

#[component]
pub fn EventLog(props: &EventLogProps) -> Html {
    let on_messages = props
        .dispatch
        .reform(|e: Event| Action::ShowLogMessages(checked_of(&e)));
    let (shown, ask) = use_wire(props.run, &props.run_link);
    // One listener for the whole list, rather than one per line: it asks
    // when a message's "wire" is opened.
    let on_click = Callback::from(move |e: MouseEvent| {
        if let Some(message) = super::browser::wire_asked(&e) {
            ask.emit(message);
        }
    });
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
            <ol class={classes!("log__lines", (props.lines.len() >= LOG_LINES_FULL).then_some("log__lines--full"))} aria-label="Event log" tabindex="0" onclick={on_click}>
                { for props.lines.iter().map(|line| html! {
                    <LogItem key={line.index} line={line.clone()}
                        wire={shown.as_ref().filter(|(m, _)| Some(*m) == line.message).map(|(_, html)| html.clone())} />
                }) }
            </ol>
            if props.lines.is_empty() {
                <p class="panel__empty">{ "Nothing has happened yet. Click Acquire on a card, then Start." }</p>
            }
            if props.dropped > 0 {
                <p class="panel__note panel__note--alarm" role="status">{ format!(
                    "The history is full at {HISTORY_LEN_MAX} records: the run goes on, but the last {} events were not recorded. Reset to start a fresh run.",
                    props.dropped
                ) }</p>
            }
            if props.total > props.lines_max {
                <p class="panel__note">{ super::tick(format!("Showing the newest {} lines of {} events; the timeline has them all.", props.lines_max, props.total)) }</p>
            }
        </section>
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct LogItemProps {
    pub line: LogLine,
    /// The markup of the message's wire text (or the worker's status),
    /// if it is the message asked for last.
    #[prop_or_default]
    pub wire: Option<AttrValue>,
}

/// A line's kind as a newcomer reads it: "danger" where two clients hold
/// or a stale write got through, "safe" where fencing or the end of an
/// overlap made it so, "network" for a message.
fn kind_words(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Alarm => "danger",
        EventKind::Save => "safe",
        EventKind::Message => "network",
        EventKind::Command => "action",
        other => other.slug(),
    }
}

/// One line; a component so unchanged lines skip re-rendering.
#[component]
pub fn LogItem(props: &LogItemProps) -> Html {
    let line = &props.line;
    html! {
        <li class={classes!("log__line", format!("log__line--{}", line.kind.slug()))}>
            <span class="log__kind">{ kind_words(line.kind) }</span>
            { " " }
            <span class="log__text">{ &*line.text }</span>
            if let Some(message) = line.message {
                // "Wire": the message as the real client sends it, asked
                // of the worker when opened (`use_wire`). The browser
                // keeps each disclosure open or closed.
                <details class="log__wire">
                    <summary class="log__wire-toggle" data-wire={message.to_string()}>{ "wire" }</summary>
                    { Html::from_html_unchecked(props.wire.clone().unwrap_or(AttrValue::Static(WIRE_ELSEWHERE))) }
                </details>
            }
        </li>
    }
}
