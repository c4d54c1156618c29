//! "Compare the systems": the articles' comparison table, but every cell is
//! a run of the core. The eight systems are put through the same stories
//! with fencing off and on; a click on a cell opens that run above. The
//! runs and the table are the worker's (`crate::work`): about a hundred
//! runs stay off the page's frames, and their code out of its first load.

use super::state::Action;
use super::worker::{job_body, use_job, Shown};
use crate::sim::Backend;
use crate::work::Job;
use yew::prelude::*;

/// Runs per system: six stories, fencing off and on.
const RUNS_PER_SYSTEM: usize = 12;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CompareProps {
    /// The system the page runs now: its row is marked.
    pub backend: Backend,
    pub dispatch: Callback<Action>,
}

/// The section: a button that runs the comparison (about a hundred short
/// runs, so only on request), then the table as the worker draws it.
#[component]
pub fn Compare(props: &CompareProps) -> Html {
    let job = use_job(Job::Compare);
    let runs = Backend::ALL.len() * RUNS_PER_SYSTEM;
    html! {
        <section class="panel compare" aria-labelledby="compare-title" data-current={props.backend.slug()}>
            <h2 id="compare-title" class="panel__title">{ "Compare the systems" }</h2>
            <p class="compare__lead">
                { "The same stories on all eight lock systems, with fencing off and on. No cell is typed in: each is a run of this simulator, judged by what the resource accepted. Click a cell to open its run above." }
            </p>
            if job.shown == Shown::Asked {
                <button type="button" class="button button--primary" onclick={job.run}>
                    { format!("Run the comparison ({runs} runs)") }
                </button>
            }
            { job_body(&job.shown, &props.dispatch) }
        </section>
    }
}
