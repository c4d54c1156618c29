//! The page's side of its background worker (`crate::work`): start it
//! when a visitor first asks for a job, send jobs, hear replies, and open
//! the runs its markup links to.
//!
//! Written on `web_sys::Worker` directly rather than with `gloo-worker`:
//! that crate's bridge would bring its own serializer into the page's
//! first load, and the page budgets its bytes; the messages here are a
//! few JSON strings.

use super::state::Action;
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
    #[cfg(target_arch = "wasm32")]
    inner: browser::Inner,
    next_id: std::cell::Cell<u32>,
}

impl Work {
    /// Starts a worker; `on_reply` hears every reply, or why the worker
    /// could not start or run (an embedding page that forbids workers).
    pub fn start(on_reply: Callback<Result<Reply, String>>) -> Work {
        #[cfg(not(target_arch = "wasm32"))]
        let _ = on_reply;
        Work {
            #[cfg(target_arch = "wasm32")]
            inner: browser::Inner::start(on_reply),
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
        #[cfg(target_arch = "wasm32")]
        self.inner
            .send(serde_json::to_string(&request).unwrap_or_default());
        #[cfg(not(target_arch = "wasm32"))]
        let _ = request;
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
            shown.set(Shown::Running {
                progress: progress.into(),
                html: AttrValue::default(),
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

/// A section's job: what it shows, and the callback that starts the job
/// (and the worker, the first time).
pub struct UseJob {
    pub shown: Shown,
    pub run: Callback<MouseEvent>,
}

#[hook]
pub fn use_job(job: Job) -> UseJob {
    let work = use_work();
    let send = work.send;
    UseJob {
        shown: work.shown,
        run: Callback::from(move |_: MouseEvent| send.emit(job.clone())),
    }
}

/// The job's progress or failure, and the markup the worker drew, where a
/// click on a run link opens that run.
pub fn job_body(shown: &Shown, dispatch: &Callback<Action>) -> Html {
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
    html! {
        <>
            { status }
            <div class="work__body" onclick={open_clicked(dispatch)}>
                { Html::from_html_unchecked(html) }
            </div>
        </>
    }
}

/// A click inside a worker's markup on an element carrying `data-open`
/// (a run link's fragment) opens that run, saying `data-say`; one on
/// `data-png` saves the SVG that the markup's `a[data-svg]` links to as a
/// PNG of that name (a worker cannot draw SVG).
fn open_clicked(dispatch: &Callback<Action>) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |e: MouseEvent| {
        #[cfg(target_arch = "wasm32")]
        if let Some((fragment, say)) = browser::opened(&e) {
            super::dom::show_simulation();
            dispatch.emit(Action::OpenWorkRun { fragment, say });
        } else if let Some((svg_url, name)) = browser::png_asked(&e) {
            super::timeline_dom::save_png_of(&svg_url, &name);
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = (e, &dispatch);
    })
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{MessageEvent, Worker};

    /// Requests wait here until the worker says it is ready: one sent
    /// while its wasm is still loading would be lost.
    #[derive(Default)]
    struct Line {
        ready: bool,
        waiting: Vec<String>,
    }

    pub struct Inner {
        worker: Option<Worker>,
        line: Rc<RefCell<Line>>,
        _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
        _on_error: Option<Closure<dyn FnMut(web_sys::Event)>>,
    }

    impl Inner {
        pub fn start(on_reply: Callback<Result<Reply, String>>) -> Inner {
            let line = Rc::new(RefCell::new(Line::default()));
            let worker = match Worker::new(WORKER_URL) {
                Ok(w) => {
                    link_style();
                    w
                }
                Err(_) => {
                    on_reply.emit(Err(NO_WORKER.into()));
                    return Inner {
                        worker: None,
                        line,
                        _on_message: None,
                        _on_error: None,
                    };
                }
            };
            let on_message = {
                let (line, worker, on_reply) = (line.clone(), worker.clone(), on_reply.clone());
                Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                    let text = e.data().as_string().unwrap_or_default();
                    if text == "ready" {
                        let mut line = line.borrow_mut();
                        line.ready = true;
                        for request in line.waiting.drain(..) {
                            let _ = worker.post_message(&JsValue::from_str(&request));
                        }
                        return;
                    }
                    on_reply.emit(Reply::read(&text));
                })
            };
            let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                on_reply.emit(Err(NO_WORKER.into()))
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            Inner {
                worker: Some(worker),
                line,
                _on_message: Some(on_message),
                _on_error: Some(on_error),
            }
        }

        pub fn send(&self, request: String) {
            let Some(worker) = &self.worker else { return };
            let mut line = self.line.borrow_mut();
            if line.ready {
                let _ = worker.post_message(&JsValue::from_str(&request));
            } else {
                line.waiting.push(request);
            }
        }
    }

    impl Drop for Inner {
        fn drop(&mut self) {
            if let Some(worker) = &self.worker {
                // No reply already on its way reaches a handler that is
                // about to be freed.
                worker.set_onmessage(None);
                worker.set_onerror(None);
                worker.terminate();
            }
        }
    }

    /// Turns on the worker's stylesheet: the page names it disabled, so
    /// that it is not fetched before a worker starts.
    fn link_style() {
        let style = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(WORKER_STYLE).ok().flatten());
        if let Some(link) = style {
            let _ = link.remove_attribute("disabled");
        }
    }

    const NO_WORKER: &str = "This runs in a background worker, which could not start here (a page that embeds this one may forbid workers). Open the simulator on its own page to run it.";

    /// The SVG's address and the PNG's name, for a click on `data-png`.
    pub fn png_asked(e: &MouseEvent) -> Option<(String, String)> {
        let target = e.target()?.dyn_into::<web_sys::Element>().ok()?;
        let button = target.closest("[data-png]").ok()??;
        let body = button.closest(".work__body").ok()??;
        let svg = body.query_selector("a[data-svg]").ok()??;
        Some((
            svg.get_attribute("href")?,
            button.get_attribute("data-png")?,
        ))
    }

    /// The run link and its sentence on the element clicked, if any.
    pub fn opened(e: &MouseEvent) -> Option<(String, String)> {
        let target = e.target()?.dyn_into::<web_sys::Element>().ok()?;
        let element = target.closest("[data-open]").ok()??;
        let fragment = element.get_attribute("data-open")?;
        let say = element.get_attribute("data-say").unwrap_or_default();
        Some((fragment, say))
    }
}
