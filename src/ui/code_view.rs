//! The Code view, beside the cards: the client code a real application
//! runs on the page's system, with the line each client is at. Closed
//! until a visitor opens it, so the lesson keeps its first screen; its
//! listings come from the worker on first opening (`crate::work::code`),
//! not the page's first load. The page only names each client's
//! operation (`data-a`..`data-d`, from `lesson::code::ops`) on the
//! listing's box; the worker's stylesheet shows that client's letter in
//! the gutter of the line tagged with that operation, and marks the line.

use super::state::Action;
use super::worker::{job_body, use_work};
use crate::lesson::code::Op;
use crate::sim::{Backend, FenceRule};
use crate::work::Job;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CodeViewProps {
    pub system: Backend,
    /// ZooKeeper's client is the native one (kazoo's listing), not Curator.
    pub kazoo: bool,
    /// The resource's check; `None` with fencing off.
    pub fence: Option<FenceRule>,
    pub ttl_ms: u64,
    /// Each client's operation at the playhead, A to D.
    pub ops: [Option<Op>; 4],
    pub dispatch: Callback<Action>,
}

#[component]
pub fn CodeView(props: &CodeViewProps) -> Html {
    let open = use_state(|| false);
    let work = use_work();
    let job = Job::Code {
        system: props.system,
        kazoo: props.kazoo,
        fence: props.fence,
        ttl_ms: props.ttl_ms,
    };
    // Asked when opened, and again when the system or its settings change.
    {
        let send = work.send.clone();
        use_effect_with((*open, job), move |(open, job)| {
            if *open {
                send.emit(job.clone());
            }
        });
    }
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let [a, b, c, d] = props.ops.map(|op| op.map(Op::slug));
    html! {
        <section class={classes!("code", open.then_some("is-open"))} aria-label="Code">
            <button type="button" class="button code__toggle" aria-expanded={open.to_string()}
                aria-controls="code-body" onclick={toggle}>
                { "Code: the calls each client is in" }
            </button>
            if *open {
                <div id="code-body" class="code__body" data-a={a} data-b={b} data-c={c} data-d={d}>
                    { job_body(&work.shown, &work.send, &props.dispatch) }
                </div>
            }
        </section>
    }
}
