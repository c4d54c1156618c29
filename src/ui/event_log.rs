//! The event log: the run's history as sentences, newest first, coloured by
//! kind and announced politely to screen readers.

use super::browser::checked_of;
use super::state::Action;
use super::worker::Work;
use crate::sim::{Event as SimEvent, EventKind, Record, TokenWords, HISTORY_LEN_MAX};
use crate::work::{Job, Reply};
use std::collections::{BTreeMap, VecDeque};
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
/// out the list alone when it changes.
const LOG_LINES_FULL: usize = 15;

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

/// The log's lines kept between frames: new records are formatted as they
/// arrive instead of all the lines on every change.
#[derive(Debug, Default)]
pub struct LogCache {
    run: u64,
    with_messages: bool,
    words: TokenWords,
    /// History records already looked at.
    scanned: usize,
    /// Newest first, at most `LOG_LINES_MAX`.
    lines: VecDeque<LogLine>,
    snapshot: Rc<Vec<LogLine>>,
}

impl LogCache {
    /// Brings the cache up to date and returns the lines to show.
    pub fn lines(
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

/// What the log knows of its run's wire text, asked of the worker when a
/// visitor first opens a message's "wire" (so the templates are not in
/// the page's first load).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum WireText {
    #[default]
    Unasked,
    Asking,
    Failed(Rc<str>),
    Known(Rc<str>),
}

/// The wire texts of one run, by message id.
#[derive(Debug, Default)]
pub struct WireBook {
    run: u64,
    /// Records in the history when asked: a history that shrank was
    /// rewound and played differently, so its texts are dropped.
    len: usize,
    /// The job asked for and not answered yet.
    asking: Option<u32>,
    failed: Option<Rc<str>>,
    texts: BTreeMap<u64, Rc<str>>,
}

impl WireBook {
    fn shown(&self, message: u64) -> WireText {
        match (self.texts.get(&message), &self.failed) {
            (Some(text), _) => WireText::Known(text.clone()),
            (None, Some(why)) => WireText::Failed(why.clone()),
            (None, None) if self.asking.is_some() => WireText::Asking,
            (None, None) => WireText::Unasked,
        }
    }

    /// Reads the worker's `[[id, text], ...]`; a reply to a job asked for
    /// another run (or replaced since) is dropped.
    fn heard(&mut self, reply: Result<Reply, String>) {
        let data = match reply {
            Ok(r) if Some(r.id) != self.asking => return,
            Ok(Reply {
                error: None, data, ..
            }) => data,
            Ok(Reply {
                error: Some(why), ..
            })
            | Err(why) => {
                self.asking = None;
                self.failed = Some(why.into());
                return;
            }
        };
        self.asking = None;
        let json = crate::wire::json::parse(&data).ok();
        let pairs = json.as_ref().and_then(|j| j.as_array()).unwrap_or_default();
        for pair in pairs {
            if let Some([id, text]) = pair.as_array() {
                if let (Some(id), Some(text)) = (id.as_u64(), text.as_str()) {
                    self.texts.insert(id, text.into());
                }
            }
        }
    }
}

/// The log's line to the worker for wire text: the book of what is known,
/// and a callback that asks for a message's text (the whole run's at
/// once), the same callback on every render.
#[hook]
fn use_wire(
    run: u64,
    len: usize,
    run_link: &Callback<(), String>,
) -> (Rc<std::cell::RefCell<WireBook>>, Callback<u64>) {
    let book = use_mut_ref(WireBook::default);
    let redraw = use_force_update();
    let work = use_mut_ref(|| None::<Work>);
    {
        let mut book = book.borrow_mut();
        if book.run != run || len < book.len {
            *book = WireBook {
                run,
                ..WireBook::default()
            };
        }
        book.len = len;
    }
    let ask = {
        let (book, work, run_link) = (book.clone(), work.clone(), run_link.clone());
        use_memo((), move |_| {
            Callback::from(move |message: u64| {
                let (texts_known, asking) = {
                    let known = book.borrow();
                    (known.texts.contains_key(&message), known.asking.is_some())
                };
                if texts_known || asking {
                    return;
                }
                // A worker that failed is not asked again: a new one is.
                if book.borrow().failed.is_some() {
                    *work.borrow_mut() = None;
                }
                let (heard, redraw_heard) = (book.clone(), redraw.clone());
                let on_reply = Callback::from(move |reply: Result<Reply, String>| {
                    heard.borrow_mut().heard(reply);
                    redraw_heard.force_update();
                });
                let id = work
                    .borrow_mut()
                    .get_or_insert_with(|| Work::start(on_reply))
                    .send(Job::Wire {
                        run: run_link.emit(()),
                    });
                let mut book = book.borrow_mut();
                book.asking = Some(id);
                book.failed = None;
                redraw.force_update();
            })
        })
    };
    (book, (*ask).clone())
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct EventLogProps {
    pub lines: Rc<Vec<LogLine>>,
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
    let (book, ask) = use_wire(props.run, props.total, &props.run_link);
    let book = book.borrow();
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
            <ol class={classes!("log__lines", (props.lines.len() >= LOG_LINES_FULL).then_some("log__lines--full"))} aria-live="polite" aria-label="Event log" tabindex="0">
                { for props.lines.iter().map(|line| html! {
                    <LogItem key={line.index} line={line.clone()}
                        wire={line.message.map(|m| book.shown(m))} ask={ask.clone()} />
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
            if props.total > LOG_LINES_MAX {
                <p class="panel__note">{ super::tick(format!("Showing the newest {LOG_LINES_MAX} lines of {} events; the timeline has them all.", props.total)) }</p>
            }
        </section>
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct LogItemProps {
    pub line: LogLine,
    /// A message's wire text, as far as it is known; `None` for a line
    /// that is not about a message.
    #[prop_or_default]
    pub wire: Option<WireText>,
    #[prop_or_default]
    pub ask: Callback<u64>,
}

/// One line; a component so unchanged lines skip re-rendering.
#[component]
pub fn LogItem(props: &LogItemProps) -> Html {
    let line = &props.line;
    html! {
        <li class={classes!("log__line", format!("log__line--{}", line.kind.slug()))}>
            <span class="log__kind">{ line.kind.slug() }</span>
            { " " }
            <span class="log__text">{ &*line.text }</span>
            if let (Some(message), Some(wire)) = (line.message, &props.wire) {
                { wire_disclosure(message, wire, &props.ask) }
            }
        </li>
    }
}

/// "Wire": a disclosure that shows the message as the real client sends
/// it, asked of the worker the first time one is opened.
fn wire_disclosure(message: u64, wire: &WireText, ask: &Callback<u64>) -> Html {
    let onclick = ask.reform(move |_: MouseEvent| message);
    let body = match wire {
        WireText::Known(text) => html! { <pre class="log__wire-text">{ &**text }</pre> },
        WireText::Failed(why) => {
            html! { <p class="log__wire-note" role="alert">{ format!("The wire text could not be made: {why}") }</p> }
        }
        WireText::Asking | WireText::Unasked => {
            html! { <p class="log__wire-note">{ "Asking the background worker for the wire text…" }</p> }
        }
    };
    html! {
        <details class="log__wire">
            <summary class="log__wire-toggle" {onclick}>{ "wire" }</summary>
            { body }
        </details>
    }
}
