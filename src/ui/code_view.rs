//! The Code view, beside the cards: the client code a real application
//! runs on the page's system, with the line each client is at. Closed
//! until a visitor opens it, so the lesson keeps its first screen; its
//! listings come from the worker on first opening (`crate::tools::code::draw`),
//! not the page's first load. The page only names each client's
//! operation (`data-a`..`data-d`, from `tools::code::ops`) on the
//! listing's box; the worker's stylesheet shows that client's letter in
//! the gutter of the line tagged with that operation, and marks the line.

use super::state::Action;
use super::worker::{job_body, use_work, UseWork};
use crate::sim::{Sim, ZkClient};
use crate::tools::code::{ops, Op};
use crate::work::Job;
use yew::prelude::*;

/// The view's toggle. Two are drawn and the stylesheet shows one: in the
/// page's bar on wide screens, where it costs the first screen no height
/// (the verdict at the moment of corruption must stay in it), and under
/// the cards on narrow ones, where the bar's tabs scroll sideways.
pub fn toggle_button(open: bool, toggle: &Callback<MouseEvent>, place: &'static str) -> Html {
    html! {
        <button type="button" class={classes!("button", "button--small", "code__toggle", place)}
            aria-expanded={open.to_string()} aria-controls="code-body" onclick={toggle.clone()}>
            { "Show the code" }
        </button>
    }
}

/// The view's line to the worker, kept by the page itself (a component of
/// its own would cost the first load more): the listings are asked for
/// when the view opens, and again when the system or its settings change.
#[hook]
pub fn use_code_work(open: bool, job: Job) -> UseWork {
    let work = use_work();
    let send = work.send.clone();
    use_effect_with((open, job), move |(open, job)| {
        if *open {
            send.emit(job.clone());
        }
    });
    work
}

/// The listings' job for the sim's system and settings: ZooKeeper's
/// native client is kazoo's listing, and fencing off has no check.
pub fn code_job(sim: &Sim) -> Job {
    let config = sim.config();
    Job::Code {
        system: config.backend,
        kazoo: config.zk.client == ZkClient::Native,
        fence: config
            .fencing
            .is_on()
            .then(|| config.backend.fence_rule_in(config)),
        ttl_ms: config.ttl_ms,
    }
}

/// The view under or beside the cards, with each client's operation at
/// the playhead (the same sim the cards read, so time travel moves it).
pub fn code_view(
    sim: &Sim,
    work: &UseWork,
    open: bool,
    toggle: &Callback<MouseEvent>,
    dispatch: &Callback<Action>,
) -> Html {
    let [a, b, c, d] = ops(sim).map(|op| op.map(Op::slug));
    html! {
        <section class={classes!("code", open.then_some("is-open"))} aria-label="Code">
            { toggle_button(open, toggle, "code__toggle--below") }
            if open {
                <div id="code-body" class="code__body" data-a={a} data-b={b} data-c={c} data-d={d}>
                    { job_body(&work.shown, &work.send, dispatch) }
                </div>
            }
        </section>
    }
}
