//! The page's side of its background worker (`crate::work`): start it
//! when a visitor first asks for a job, send jobs, hear replies, and open
//! the runs its markup links to.
//!
//! Written on `web_sys::Worker` directly (`browser::WorkerPort`) rather
//! than with `gloo-worker`: that crate's bridge would bring its own
//! serializer into the page's first load, and the page budgets its bytes;
//! the messages here are a few JSON strings.

use super::browser;
use super::state::Action;
use crate::markup::PART_BREAK;
use crate::tools::explore::form::EXPLORE_LINK_KEY;
use crate::work::{Job, Reply, Request, PROTOCOL_VERSION};
use yew::prelude::*;

/// Where trunk puts the worker's loader (workers keep unhashed names).
pub const WORKER_URL: &str = "./distlock-worker_loader.js";
/// The stylesheet of the markup the worker draws: `index.html` links it
/// disabled, and the page turns it on when it first starts a worker, so it
/// is not part of the first load either.
pub const WORKER_STYLE: &str = "link[href=\"distlock-worker.css\"]";

/// A running worker. Dropping it stops the worker and its job.
pub struct Work {
    port: browser::WorkerPort,
    next_id: std::cell::Cell<u32>,
}

impl Work {
    /// Starts a worker; `on_reply` hears every reply, or why the worker
    /// could not start or run (an embedding page that forbids workers).
    pub fn start(on_reply: Callback<Result<Reply, String>>) -> Work {
        Work {
            port: browser::WorkerPort::start(on_reply),
            next_id: std::cell::Cell::new(1),
        }
    }

    /// Sends a job and returns its id: replies to older jobs are stale.
    pub fn send(&self, job: Job) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        let request = Request {
            v: PROTOCOL_VERSION,
            id,
            job,
        };
        // Written by hand: serde's serializer stays out of the page.
        self.port.send(request.to_json());
        id
    }
}

/// What a section that asks the worker for its body shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Shown {
    /// Nothing asked yet: the section offers its button.
    #[default]
    Asked,
    Running {
        progress: String,
        html: AttrValue,
    },
    Done(AttrValue),
    Failed(String),
    /// Cancelled by the visitor: the worker is gone, and this says where
    /// the job had got to.
    Stopped(String),
}

impl Shown {
    pub fn is_running(&self) -> bool {
        matches!(self, Shown::Running { .. })
    }

    fn of(reply: Result<Reply, String>) -> Shown {
        match reply {
            Ok(Reply {
                error: Some(why), ..
            })
            | Err(why) => Shown::Failed(why),
            Ok(r) if r.done => Shown::Done(r.html.into()),
            Ok(r) => Shown::Running {
                progress: r.progress,
                html: r.html.into(),
            },
        }
    }
}

/// A section's line to the worker: what it shows, a callback that sends a
/// job (starting the worker the first time), and one that cancels it.
pub struct UseWork {
    pub shown: Shown,
    pub send: Callback<Job>,
    /// Stops the worker at once (it is terminated, not asked), keeping
    /// the last progress in words.
    pub cancel: Callback<()>,
}

#[hook]
pub fn use_work() -> UseWork {
    let shown = use_state(Shown::default);
    let work = use_mut_ref(|| None::<Work>);
    // The job whose replies count: a reply to one replaced since is stale.
    let current = use_mut_ref(|| 0u32);
    let send = {
        let (shown, work, current) = (shown.clone(), work.clone(), current.clone());
        Callback::from(move |job: Job| {
            let (answered, latest) = (shown.clone(), current.clone());
            let on_reply = Callback::from(move |reply: Result<Reply, String>| {
                if reply.as_ref().is_ok_and(|r| r.id != *latest.borrow()) {
                    return;
                }
                answered.set(Shown::of(reply))
            });
            let mut work = work.borrow_mut();
            // A worker that failed is not asked again: a new one is.
            if matches!(*shown, Shown::Failed(_)) {
                *work = None;
            }
            let progress = match *work {
                Some(_) => "Sent to the worker…",
                None => "Starting the worker…",
            };
            // The last drawing stays until the worker's next one replaces
            // it: parts of it that do not change keep their elements.
            let html = match &*shown {
                Shown::Running { html, .. } | Shown::Done(html) => html.clone(),
                _ => AttrValue::default(),
            };
            shown.set(Shown::Running {
                progress: progress.into(),
                html,
            });
            let id = work.get_or_insert_with(|| Work::start(on_reply)).send(job);
            *current.borrow_mut() = id;
        })
    };
    let cancel = {
        let (shown, work) = (shown.clone(), work.clone());
        Callback::from(move |()| {
            // Dropping the worker terminates it, job and all.
            let _stopped = work.borrow_mut().take();
            let progress = match &*shown {
                Shown::Running { progress, .. } => {
                    format!(" Its last report: \u{201c}{progress}\u{201d}")
                }
                _ => String::new(),
            };
            shown.set(Shown::Stopped(format!(
                "Cancelled: the worker is stopped.{progress}"
            )));
        })
    };
    UseWork {
        shown: (*shown).clone(),
        send,
        cancel,
    }
}

/// A comparison cell's address (`?cell=gc-pause&system=redis&ttl=5`,
/// `tools::compare::address`): a worker runs the cell again and the page
/// opens its run, as a click on the cell would, saying which; an address
/// that cannot be run says why. The worker is kept until it answers.
#[hook]
pub fn use_cell_address(dispatch: Callback<Action>) {
    let kept = use_mut_ref(|| None::<Work>);
    use_effect_with((), move |()| {
        let cell = |search: &String| {
            search
                .trim_start_matches('?')
                .split('&')
                .any(|pair| pair.starts_with("cell="))
        };
        let Some(query) = browser::search().filter(cell) else {
            return;
        };
        let on_reply = Callback::from(move |reply: Result<Reply, String>| match reply {
            Ok(Reply {
                error: Some(why), ..
            })
            | Err(why) => dispatch.emit(Action::ImportRun(Err(why))),
            Ok(r) if r.done => dispatch.emit(Action::OpenWorkRun {
                fragment: r.html,
                say: r.progress,
            }),
            Ok(_) => {}
        });
        let work = Work::start(on_reply);
        work.send(Job::CompareRun { query });
        *kept.borrow_mut() = Some(work);
    });
}

/// The job's progress or failure, and the markup the worker drew, where a
/// click on a run link opens that run. Each part of the drawing
/// (`PART_BREAK`) is placed on its own, so one that did not change keeps
/// its elements.
pub fn job_body(shown: &Shown, send: &Callback<Job>, dispatch: &Callback<Action>) -> Html {
    job_body_with(shown, send, dispatch, &Callback::from(explore_job))
}

/// The explorer's run of its form's fields, kept in the page's address.
fn explore_job(query: String) -> Job {
    browser::keep_in_link(EXPLORE_LINK_KEY, &query);
    Job::Explore { query }
}

/// `job_body`, where `submit` turns a form's fields (a query string) into
/// the job to send.
pub fn job_body_with(
    shown: &Shown,
    send: &Callback<Job>,
    dispatch: &Callback<Action>,
    submit: &Callback<String, Job>,
) -> Html {
    let (status, html) = match shown {
        Shown::Asked => return Html::default(),
        Shown::Running { progress, html } => (
            html! { <p class="work__status" role="status">{ progress }</p> },
            html.clone(),
        ),
        Shown::Done(html) => (Html::default(), html.clone()),
        Shown::Failed(why) => (
            html! { <p class="work__status" role="alert">{ why }</p> },
            AttrValue::default(),
        ),
        Shown::Stopped(words) => (
            html! { <p class="work__status" role="status">{ words }</p> },
            AttrValue::default(),
        ),
    };
    let parts = html
        .split(PART_BREAK)
        .map(|part| Html::from_html_unchecked(AttrValue::from(part.to_string())));
    html! {
        <>
            { status }
            <div class="work__body" onclick={clicked(send, dispatch, submit)}>
                { for parts }
            </div>
        </>
    }
}

/// A click inside a worker's markup on a form's submit button sends the
/// form's fields as the section's job (the explorer's run, the finder's
/// question), which keeps them in the page's address (no submit listener: pressing Enter in a field clicks that
/// button too, and one listener fewer is bytes the page does not carry);
/// one on `data-stop` stops that run, keeping what arrived; one on an
/// element carrying `data-open` (a run link's fragment) opens that run,
/// one on `data-copy` copies the drawing's text (an export),
/// saying `data-say`; one on `data-png` saves the SVG that the markup's
/// `a[data-svg]` links to as a PNG of that name (a worker cannot draw
/// SVG).
fn clicked(
    send: &Callback<Job>,
    dispatch: &Callback<Action>,
    submit: &Callback<String, Job>,
) -> Callback<MouseEvent> {
    let (send, dispatch, submit) = (send.clone(), dispatch.clone(), submit.clone());
    Callback::from(move |e: MouseEvent| {
        if let Some(query) = browser::run_asked(&e) {
            send.emit(submit.emit(query));
        } else if browser::stop_asked(&e) {
            send.emit(Job::ExploreStop);
        } else if browser::copy_asked(&e) {
        } else if let Some((fragment, say)) = browser::open_asked(&e) {
            browser::show_simulation();
            dispatch.emit(Action::OpenWorkRun { fragment, say });
        } else if let Some((svg_url, name)) = browser::png_asked(&e) {
            browser::save_png_of(&svg_url, &name);
        }
    })
}
