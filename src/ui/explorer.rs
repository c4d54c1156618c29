//! "How likely is it?": the hazard explorer's section (`crate::explore`).
//! The page keeps a thin shell and its first load stays the same size:
//! the form, the heatmap, the table and the files are drawn by workers
//! (`crate::work`). The page reads the form's fields as a query string,
//! hands the plan and each cell's result between workers without reading
//! them, deals cells out to one worker per core, and places the markup.
//! Dropping the crew's workers stops a run at once; what arrived stays.

use super::state::Action;
use super::worker::{job_body, Shown, Work};
use crate::wire::json::{self, Json};
use crate::work::{Job, Reply};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// Workers that run cells at most (and one more draws).
const CREW_MAX: usize = 4;
/// The page's address keeps the explorer's settings under this key.
const LINK_KEY: &str = "explore";

/// The explorer's state, shared with the workers' reply handlers.
#[derive(Default)]
struct Desk {
    redraw: Callback<()>,
    /// The worker that draws the form, checks plans and draws results.
    pen: Option<Work>,
    /// The ids of the pen's last form, plan and drawing jobs.
    ids: [u32; 3],
    form: AttrValue,
    /// Run the form's settings as soon as they arrive (a shared link).
    autorun: Option<String>,
    message: String,
    plan: String,
    cells: u32,
    trials: u64,
    next: u32,
    results: Vec<String>,
    /// Trials done in each crew worker's current cell.
    partial: Vec<u64>,
    crew: Vec<Work>,
    /// Runs so far: replies from an earlier run's workers are dropped.
    run: u32,
    started_ms: f64,
    ended_ms: Option<f64>,
    drawing: bool,
    stale: bool,
    map: AttrValue,
    files: String,
}

const FORM: usize = 0;
const PLAN: usize = 1;
const DRAW: usize = 2;

fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::now();
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

impl Desk {
    fn send(&mut self, slot: usize, job: Job) {
        if let Some(pen) = &self.pen {
            self.ids[slot] = pen.send(job);
        }
    }

    fn draw(&mut self) {
        if self.drawing {
            self.stale = true;
            return;
        }
        let job = Job::ExploreDraw {
            plan: self.plan.clone(),
            results: self.results.clone(),
        };
        self.send(DRAW, job);
        (self.drawing, self.stale) = (true, false);
    }

    /// Stops the crew; the caller drops the workers once it lets go of
    /// the desk.
    fn stop(&mut self) -> Vec<Work> {
        self.run = self.run.wrapping_add(1);
        self.partial.clear();
        if !self.crew.is_empty() && self.ended_ms.is_none() {
            self.ended_ms = Some(now_ms());
        }
        std::mem::take(&mut self.crew)
    }

    fn trials_done(&self) -> u64 {
        self.results.len() as u64 * self.trials + self.partial.iter().sum::<u64>()
    }
}

/// Starts the pen if it is not running yet, then hands it `job`.
fn ask(desk: &Rc<RefCell<Desk>>, slot: usize, job: Job) {
    if desk.borrow().pen.is_none() {
        let weak = Rc::downgrade(desk);
        let pen = Work::start(Callback::from(move |reply| {
            if let Some(desk) = weak.upgrade() {
                pen_replied(&desk, reply);
            }
        }));
        desk.borrow_mut().pen = Some(pen);
    }
    desk.borrow_mut().send(slot, job);
}

fn pen_replied(desk: &Rc<RefCell<Desk>>, reply: Result<Reply, String>) {
    let mut d = desk.borrow_mut();
    let redraw = d.redraw.clone();
    match reply {
        Err(why)
        | Ok(Reply {
            error: Some(why), ..
        }) => {
            d.message = why;
            d.drawing = false;
            let _dropped = d.stop();
        }
        Ok(r) if r.id == d.ids[FORM] => {
            d.form = r.html.into();
            if let Some(query) = d.autorun.take() {
                d.send(PLAN, Job::ExplorePlan { query });
            }
        }
        Ok(r) if r.id == d.ids[PLAN] => {
            d.map = r.html.into();
            drop(d);
            start_run(desk, r.data);
            return redraw.emit(());
        }
        Ok(r) if r.id == d.ids[DRAW] => {
            (d.map, d.files, d.drawing) = (r.html.into(), r.data, false);
            if d.stale {
                d.draw();
            }
        }
        Ok(_) => return,
    }
    drop(d);
    redraw.emit(());
}

/// The grid's size and trials per cell, read from the plan's JSON with
/// the page's small reader.
fn plan_size(plan: &str) -> (u32, u64) {
    let parsed = json::parse(plan).unwrap_or(Json::Null);
    let len = |j: Option<&Json>| j.and_then(Json::as_array).map_or(0, <[Json]>::len);
    let cells = len(parsed.get("ttls_ms")) * len(parsed.get("axis").and_then(|a| a.get("values")));
    let trials = parsed.get("trials").and_then(Json::as_u64).unwrap_or(0);
    (u32::try_from(cells).unwrap_or(0), trials)
}

fn crew_size() -> usize {
    #[cfg(target_arch = "wasm32")]
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    #[cfg(not(target_arch = "wasm32"))]
    let cores = 1.0;
    (cores as usize).clamp(1, CREW_MAX)
}

fn start_run(desk: &Rc<RefCell<Desk>>, plan: String) {
    let (cells, trials) = plan_size(&plan);
    let (old, run) = {
        let mut d = desk.borrow_mut();
        let old = d.stop();
        (d.cells, d.trials, d.next) = (cells, trials, 0);
        (d.started_ms, d.ended_ms) = (now_ms(), None);
        d.results.clear();
        d.files.clear();
        d.message.clear();
        d.plan = plan;
        (old, d.run)
    };
    drop(old);
    let crew: Vec<Work> = (0..crew_size().min(cells as usize))
        .map(|i| {
            let weak = Rc::downgrade(desk);
            Work::start(Callback::from(move |reply| {
                if let Some(desk) = weak.upgrade() {
                    cell_replied(&desk, run, i, reply);
                }
            }))
        })
        .collect();
    let mut d = desk.borrow_mut();
    d.partial = vec![0; crew.len()];
    d.crew = crew;
    for i in 0..d.crew.len() {
        deal(&mut d, i);
    }
}

/// Hands crew worker `i` the next cell, if one is left.
fn deal(d: &mut Desk, i: usize) {
    if d.next < d.cells {
        let job = Job::ExploreCell {
            plan: d.plan.clone(),
            cell: d.next,
        };
        d.crew[i].send(job);
        d.next += 1;
    }
}

fn cell_replied(desk: &Rc<RefCell<Desk>>, run: u32, i: usize, reply: Result<Reply, String>) {
    let mut d = desk.borrow_mut();
    if run != d.run || i >= d.crew.len() {
        return;
    }
    let mut stopped = Vec::new();
    match reply {
        Err(why)
        | Ok(Reply {
            error: Some(why), ..
        }) => {
            d.message = why;
            stopped = d.stop();
        }
        Ok(r) if !r.done => d.partial[i] = r.progress.parse().unwrap_or(0),
        Ok(r) => {
            d.results.push(r.data);
            d.partial[i] = 0;
            deal(&mut d, i);
            if d.results.len() as u32 >= d.cells {
                stopped = d.stop();
            }
            d.draw();
        }
    }
    let redraw = d.redraw.clone();
    drop(d);
    drop(stopped);
    redraw.emit(());
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
    let form_ref = use_node_ref();
    desk.borrow_mut().redraw = Callback::from(move |()| update.force_update());
    use_effect_with((), {
        let (desk, section) = (desk.clone(), section.clone());
        move |_| {
            if let Some(query) = linked_query() {
                desk.borrow_mut().autorun = Some(query.clone());
                ask(&desk, FORM, Job::ExploreForm { query });
                browser::scroll_to(&section);
            }
        }
    });
    let open = {
        let desk = desk.clone();
        Callback::from(move |_: MouseEvent| {
            ask(
                &desk,
                FORM,
                Job::ExploreForm {
                    query: String::new(),
                },
            )
        })
    };
    let submit = {
        let (desk, form_ref) = (desk.clone(), form_ref.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let query = browser::form_query(&form_ref);
            browser::keep_in_link(&query);
            ask(&desk, PLAN, Job::ExplorePlan { query });
        })
    };
    let cancel = {
        let desk = desk.clone();
        Callback::from(move |_: MouseEvent| {
            let mut d = desk.borrow_mut();
            let stopped = d.stop();
            d.message = format!(
                "Cancelled: {} of {} cells ran and are shown.",
                d.results.len(),
                d.cells
            );
            let redraw = d.redraw.clone();
            drop(d);
            drop(stopped);
            redraw.emit(());
        })
    };
    let d = desk.borrow();
    html! {
        <section ref={section} class="panel explorer" aria-label="Hazard explorer">
            <h2 class="panel__title">{ "How likely is it?" }</h2>
            <p class="explorer__lead">
                { "Not whether a lock can break, but how often it will: pick a system, a TTL and your runtime's pauses, and thousands of seeded 60 s runs per cell estimate the chance of a corrupted write per lock hold, with fencing off or on. It runs in background workers, one per core." }
            </p>
            if d.form.is_empty() {
                <button type="button" class="button button--primary" onclick={open}
                    disabled={d.pen.is_some() && d.message.is_empty()}>
                    { "Open the hazard explorer" }
                </button>
            } else {
                <form ref={form_ref} class="explorer__form" onsubmit={submit}>
                    { Html::from_html_unchecked(d.form.clone()) }
                    <div class="explorer__actions">
                        <button type="submit" class="button button--primary">{ "Run" }</button>
                        if !d.crew.is_empty() {
                            <button type="button" class="button" onclick={cancel}>{ "Cancel" }</button>
                        }
                    </div>
                </form>
            }
            if !d.message.is_empty() {
                <p class="work__status" role="alert">{ d.message.clone() }</p>
            }
            { progress(&d) }
            { downloads(&d.files) }
            { job_body(&Shown::Done(d.map.clone()), &props.dispatch) }
        </section>
    }
}

fn progress(d: &Desk) -> Html {
    if d.cells == 0 {
        return Html::default();
    }
    let done = AttrValue::from(d.results.len().to_string());
    let cells = AttrValue::from(d.cells.to_string());
    // Whole trials per second: formatting a float would bring its code
    // into the page's first load.
    let elapsed_ms = (d.ended_ms.unwrap_or_else(now_ms) - d.started_ms).max(0.0) as u64;
    let rate = (d.trials_done() * 1_000)
        .checked_div(elapsed_ms)
        .unwrap_or(0);
    let words = format!(
        "{done} of {} cells, {rate} trials per second{}",
        d.cells,
        if d.crew.is_empty() { "" } else { ", running" }
    );
    html! {
        <div class="explorer__progress">
            <progress role="progressbar" aria-label="Cells done" max={cells.clone()}
                value={done.clone()} aria-valuemin="0" aria-valuemax={cells.clone()}
                aria-valuenow={done.clone()} aria-valuetext={words.clone()} />
            <span>{ words }</span>
        </div>
    }
}

fn downloads(files: &str) -> Html {
    if files.is_empty() {
        return Html::default();
    }
    let parsed = Rc::new(json::parse(files).unwrap_or(Json::Null));
    let save = |key: &'static str, name: &'static str, mime: &'static str| {
        let parsed = parsed.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(text) = parsed.get(key).and_then(Json::as_str) {
                super::timeline_dom::save_file(name, mime, text);
            }
        })
    };
    html! {
        <div class="explorer__actions">
            <button type="button" class="button" onclick={save("csv", "distlock-hazard.csv", "text/csv")}>
                { "Download CSV" }
            </button>
            <button type="button" class="button" onclick={save("svg", "distlock-hazard.svg", "image/svg+xml")}>
                { "Download heatmap (SVG)" }
            </button>
        </div>
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

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::LINK_KEY;
    use yew::NodeRef;

    pub fn search() -> Option<String> {
        web_sys::window()?.location().search().ok()
    }

    /// The form's fields as a query string, however many there are.
    pub fn form_query(form: &NodeRef) -> String {
        let read = || -> Option<String> {
            let form = form.cast::<web_sys::HtmlFormElement>()?;
            let data = web_sys::FormData::new_with_form(&form).ok()?;
            let params = web_sys::UrlSearchParams::new_with_str_sequence_sequence(&data).ok()?;
            Some(params.to_string().into())
        };
        read().unwrap_or_default()
    }

    /// Puts the settings into the page's address, so the link reproduces
    /// the numbers; the fragment (a run) stays.
    pub fn keep_in_link(query: &str) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let hash = window.location().hash().unwrap_or_default();
        let encoded: String = js_sys::encode_uri_component(query).into();
        let url = format!("?{LINK_KEY}={encoded}{hash}");
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }

    pub fn scroll_to(section: &NodeRef) {
        if let Some(e) = section.cast::<web_sys::Element>() {
            e.scroll_into_view();
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod browser {
    use yew::NodeRef;

    pub fn search() -> Option<String> {
        None
    }

    pub fn form_query(_form: &NodeRef) -> String {
        String::new()
    }

    pub fn keep_in_link(_query: &str) {}

    pub fn scroll_to(_section: &NodeRef) {}
}
