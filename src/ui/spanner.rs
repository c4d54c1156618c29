//! "Spanner: clocks with an error bar": the articles' contrast, told as one
//! story with a switch for L1's clock. Not a ninth backend: Spanner's lock
//! and data are one replicated state, so the lesson here is the clock. The
//! story is drawn by the worker (`crate::work`) when a reader asks for it,
//! so its code stays out of the page's first load.

use super::state::Action;
use super::worker::{job_body, use_job, Shown};
use crate::work::Job;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SpannerProps {
    pub dispatch: Callback<Action>,
}

#[component]
pub fn Spanner(props: &SpannerProps) -> Html {
    let job = use_job(Job::Spanner);
    html! {
        <section class="panel spanner" aria-labelledby="spanner-title">
            <h2 id="spanner-title" class="panel__title">{ "Spanner: clocks with an error bar" }</h2>
            <p class="spanner__lead">
                { "Spanner's Paxos leaders hold 10 s leases too. Leader L1 freezes for 6 s, past its lease; L2 is elected and commits x=2; L1 wakes with a read waiting. Whether it answers depends only on what its clock can tell it." }
            </p>
            if job.shown == Shown::Asked {
                <button type="button" class="button" onclick={job.run}>
                    { "Tell the story: TrueTime against a clock that runs slow" }
                </button>
            }
            { job_body(&job.shown, &props.dispatch) }
        </section>
    }
}
