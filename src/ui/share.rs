//! Sharing a run: a link that reproduces it (copied, and kept in the
//! address bar), the embed builder (`super::embed_builder`) for a course
//! page, a JSON file to export and import, and opening either.
//! A link or file that cannot be read says why and opens the default page.
//! The run can also leave as a history another tool checks (a Jepsen
//! history, a Porcupine log, an ITF trace): the worker writes and draws
//! it (`crate::wire::export`), so none of that code is in the first load.

use super::browser;
use super::embed::EmbedSpec;
use super::embed_builder::EmbedBuilder;
use super::state::{Action, AppState, Notice};
use super::worker::{job_body, use_work};
use crate::sim::Millis;
use crate::sim::Sim;
use crate::wire::export::Format;
use crate::wire::link::{self, ReadRunError, RunLink};
use crate::words::seconds_1;
use crate::work::Job;
use std::rc::Rc;
use yew::prelude::*;

impl AppState {
    /// The whole run (kept future included) with the playhead where it is.
    pub fn run_link(&self) -> RunLink {
        let now = self.sim.borrow().now();
        self.with_whole(|whole| RunLink::of(whole, now))
    }

    /// The fragment (without `#`) that reopens this run at this moment.
    pub fn link(&self) -> String {
        link::encode(&self.run_link())
    }

    /// The whole run as a JSON file: its commands, where the playhead
    /// stands, and the history in the core's own format.
    pub fn run_file(&self) -> String {
        let run = self.run_link();
        self.with_whole(|whole| link::to_run_file(&run, whole.history()))
    }

    /// Opens a shared run (read and replayed by `link::open_link` or
    /// `link::open_run_file`), or says why it cannot and opens the default page.
    pub(crate) fn open_run(&self, read: Result<(RunLink, Sim), ReadRunError>) -> AppState {
        match read {
            Ok((run, whole)) => self.opened_at(whole, run.playhead_ms),
            Err(e) => self.refused_run(&e.to_string()),
        }
    }

    /// A run the worker's markup links to, opened like a shared link but
    /// introduced by the worker's own sentence.
    pub(crate) fn open_work_run(&self, fragment: &str, say: String) -> AppState {
        let opened = self.open_run(link::open_link(fragment));
        match opened.notice {
            Some(Notice::Info(_)) if !say.is_empty() => AppState {
                notice: Some(Notice::Info(say)),
                ..opened
            },
            _ => opened,
        }
    }

    /// A run that could not be opened: the message, and the default page.
    pub(crate) fn refused_run(&self, message: &str) -> AppState {
        AppState {
            run: self.run.wrapping_add(1),
            notice: Some(Notice::Refused(format!(
                "{message} The default page is open instead."
            ))),
            ..AppState::new(None)
        }
    }

    /// A fresh page showing `whole` at `playhead_ms`, its future kept.
    fn opened_at(&self, whole: Sim, playhead_ms: u64) -> AppState {
        let end = whole.now();
        let (sim, future) = if playhead_ms < end.ms() {
            // The run is already whole: only the moment shown is replayed.
            match Sim::replay(&whole.scenario(), Millis(playhead_ms)) {
                Ok(at) => (at, Some(Rc::new(whole))),
                Err(e) => return self.refused_run(&e.to_string()),
            }
        } else {
            (whole, None)
        };
        AppState {
            run: self.run.wrapping_add(1),
            future,
            notice: Some(Notice::Info(format!(
                "Opened a shared run of {}, at {}. Start plays it on; the timeline shows all of it.",
                seconds_1(end.ms()),
                seconds_1(playhead_ms)
            ))),
            ..AppState::new(Some(super::state::StartSim(Rc::new(sim))))
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ShareProps {
    pub dispatch: Callback<Action>,
    /// Makes the link when asked (the run changes every frame).
    pub run_link: Callback<(), String>,
    /// The embed of what the page shows, where the embed builder starts.
    pub embed: EmbedSpec,
    /// Whether the view is on show: the builder (and its preview) is drawn
    /// only then, so a page that never shares never runs its code.
    #[prop_or_default]
    pub shown: bool,
}

/// What the last Copy did.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Copied {
    No,
    /// The link, and whether the clipboard took it.
    Yes(String, bool),
}

/// The page's address without its query or fragment.
pub fn page_base(url: &str) -> &str {
    let url = url.split('#').next().unwrap_or_default();
    url.split('?').next().unwrap_or_default()
}

/// Copies `text` and shows it in `copied` as `made` says, marked taken
/// once the clipboard answers.
fn copy_and_show(copied: &UseStateHandle<Copied>, text: String, made: fn(String, bool) -> Copied) {
    copied.set(made(text.clone(), false));
    let (after, shown) = (copied.clone(), text.clone());
    browser::copy(&text, move |ok| after.set(made(shown.clone(), ok)));
}

#[component]
pub fn Share(props: &ShareProps) -> Html {
    let copied = use_state(|| Copied::No);
    let file_ref = use_node_ref();
    use_hash_changes(props.dispatch.clone());
    let on_copy = {
        let (copied, run_link) = (copied.clone(), props.run_link.clone());
        Callback::from(move |_: MouseEvent| {
            let fragment = run_link.emit(());
            browser::show_in_address_bar(&fragment);
            copy_and_show(&copied, browser::page_url(&fragment), Copied::Yes);
        })
    };
    let on_pick = {
        let file_ref = file_ref.clone();
        Callback::from(move |_: MouseEvent| browser::click(&file_ref))
    };
    let on_file = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| browser::read_file(&e, dispatch.clone()))
    };
    let exports = use_exports(&props.run_link, &props.dispatch);
    html! {
        <>
        <section class="panel share" aria-labelledby="share-title">
            <h2 id="share-title" class="panel__title">{ "Share this run" }</h2>
            <div class="share__buttons">
                <button type="button" class="button" onclick={on_copy}
                    title="A link that reopens this run, with the same seed and clicks, at this moment">
                    { "Copy link" }
                </button>
                <button type="button" class="button" onclick={on_pick}
                    title="Open a run saved with the timeline's Run (JSON) download">
                    { "Import a run (JSON)" }
                </button>
                <input ref={file_ref} type="file" accept=".json,application/json" class="visually-hidden"
                    tabindex="-1" aria-label="Run file to import" onchange={on_file} />
            </div>
            { copied_field(&copied) }
            { exports }
        </section>
        if props.shown {
            <EmbedBuilder start={props.embed.clone()} run_link={props.run_link.clone()} />
        }
        </>
    }
}

/// What was copied, shown in a read-only field too: it can be copied from
/// there where the clipboard is refused.
fn copied_field(copied: &Copied) -> Html {
    let (said, text, label, class) = match copied {
        Copied::No => return Html::default(),
        Copied::Yes(url, ok) => (
            if *ok {
                "Link copied. "
            } else {
                "Copy this link: "
            },
            url,
            "Link to this run",
            "share__url",
        ),
    };
    html! {
        <p class="share__link">
            <span role="status">{ said }</span>
            <input {class} type="text" readonly=true value={text.clone()}
                aria-label={label} onfocus={Callback::from(browser::select_all)} />
        </p>
    }
}

/// A link pasted into the address bar of an open page opens too.
#[hook]
fn use_hash_changes(dispatch: Callback<Action>) {
    use_effect_with((), move |_| {
        let listener =
            browser::on_hash_change(move |fragment| dispatch.emit(Action::OpenLink(fragment)));
        move || {
            let _removed = listener;
        }
    });
}

/// The export buttons: each asks the worker for the run in one format;
/// the worker draws it with a link that saves it as a file, a Copy button
/// and the text (`crate::work`), and `job_body` shows its progress or why
/// it failed. A hook rather than a component, which would cost the page's
/// first load more.
#[hook]
fn use_exports(run_link: &Callback<(), String>, dispatch: &Callback<Action>) -> Html {
    let work = use_work();
    let buttons = Format::ALL.into_iter().map(|format| {
        let (send, run_link) = (work.send.clone(), run_link.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            send.emit(Job::Export {
                run: run_link.emit(()),
                format,
            })
        });
        html! { <button type="button" class="button" {onclick}>{ format.title() }</button> }
    });
    html! {
        <div class="share__exports" role="group" aria-label="Check this run in another tool">
            <div class="share__buttons">{ for buttons }</div>
            { job_body(&work.shown, &work.send, dispatch) }
        </div>
    }
}
