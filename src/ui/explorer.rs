//! "How likely is it?": the hazard explorer's section (`crate::explore`).
//! The page keeps a thin shell and its first load stays the same size:
//! one worker (`crate::work`) draws the form, and when Run is pressed it
//! leads the run from there, with a crew of workers of its own, one per
//! core, and sends the drawing as cells arrive. The page reads the form's
//! fields as a query string, sends them, and places the markup; Cancel
//! asks the lead to stop its crew at once, keeping what arrived.

use super::browser;
use super::state::Action;
use super::worker::{job_body, Shown, Work};
use crate::work::{Job, Reply};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page's address keeps the explorer's settings under this key.
pub(crate) const LINK_KEY: &str = "explore";

/// The explorer's state, shared with the worker's reply handler.
#[derive(Default)]
struct Desk {
    pen: Option<Work>,
    /// The ids of the last form job and of the last run (or stop) job.
    form_id: u32,
    run_id: u32,
    form: AttrValue,
    /// The worker's drawing, or why something could not run.
    body: Shown,
    running: bool,
    /// Whether the page's address was read for the explorer's settings.
    linked: bool,
    /// Brought into view when a linked run's first drawing arrives.
    scroll_to: Option<NodeRef>,
}

/// Hands the worker `job`, starting it the first time.
fn ask(desk: &Rc<RefCell<Desk>>, redraw: &Callback<()>, job: Job) {
    let mut d = desk.borrow_mut();
    if d.pen.is_none() {
        let (weak, redraw) = (Rc::downgrade(desk), redraw.clone());
        d.pen = Some(Work::start(Callback::from(move |reply| {
            if let Some(desk) = weak.upgrade() {
                heard(&mut desk.borrow_mut(), reply);
                redraw.emit(());
            }
        })));
    }
    let is_form = matches!(job, Job::ExploreForm { .. });
    let id = d.pen.as_ref().map_or(0, |pen| pen.send(job));
    if is_form {
        d.form_id = id;
    } else {
        (d.run_id, d.running) = (id, true);
    }
}

fn heard(d: &mut Desk, reply: Result<Reply, String>) {
    match reply {
        // The worker could not start: a later click starts a new one.
        Err(why) => {
            (d.body, d.running) = (Shown::Failed(why), false);
            d.pen = None;
        }
        Ok(r) if r.id != d.form_id && r.id != d.run_id => {}
        Ok(Reply {
            error: Some(why), ..
        }) => (d.body, d.running) = (Shown::Failed(why), false),
        Ok(r) if r.id == d.form_id => d.form = r.html.into(),
        Ok(r) => {
            (d.body, d.running) = (Shown::Done(r.html.into()), !r.done);
            if let Some(section) = d.scroll_to.take() {
                browser::scroll_to(&section);
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ExplorerProps {
    pub dispatch: Callback<Action>,
}

#[component]
pub fn Explorer(props: &ExplorerProps) -> Html {
    let desk = use_mut_ref(Desk::default);
    let update = use_force_update();
    let section = use_node_ref();
    let redraw = Callback::from(move |()| update.force_update());
    let send = {
        let desk = desk.clone();
        Callback::from(move |job| ask(&desk, &redraw, job))
    };
    // A link with the explorer's settings restores the form and runs it,
    // once, as the section first appears.
    if !std::mem::replace(&mut desk.borrow_mut().linked, true) {
        if let Some(query) = linked_query() {
            desk.borrow_mut().scroll_to = Some(section.clone());
            send.emit(Job::ExploreForm {
                query: query.clone(),
            });
            send.emit(Job::Explore { query });
        }
    }
    let open = send.reform(|_: MouseEvent| Job::ExploreForm {
        query: String::new(),
    });
    let submit = {
        let send = send.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let query = browser::form_query(&e);
            browser::keep_in_link(&query);
            send.emit(Job::Explore { query });
        })
    };
    let cancel = send.reform(|_: MouseEvent| Job::ExploreStop);
    let d = desk.borrow();
    html! {
        <section ref={section} class="panel explorer" aria-label="Hazard explorer">
            <h2 class="panel__title">{ "How likely is it?" }</h2>
            <p class="explorer__lead">
                { "Not whether a lock can break, but how often: pick a system, a TTL and your runtime's pauses, and thousands of seeded 60 s runs per cell estimate the chance of a corrupted write per lock hold." }
            </p>
            if d.form.is_empty() {
                <button type="button" class="button button--primary" onclick={open}
                    disabled={d.pen.is_some()}>
                    { "Open the hazard explorer" }
                </button>
            } else {
                // The worker's form, with its Run button: a submit bubbles here.
                <div onsubmit={submit}>{ Html::from_html_unchecked(d.form.clone()) }</div>
                if d.running {
                    <button type="button" class="button" onclick={cancel}>{ "Cancel" }</button>
                }
            }
            { job_body(&d.body, &props.dispatch) }
        </section>
    }
}

/// The explorer's settings in the page's address, if a link carries them.
fn linked_query() -> Option<String> {
    browser::search()
        .and_then(|search| {
            search
                .trim_start_matches('?')
                .split('&')
                .find_map(|pair| pair.strip_prefix(LINK_KEY)?.strip_prefix('='))
                .map(crate::wire::link::percent_decoded)
        })
        .filter(|q| !q.is_empty())
}
