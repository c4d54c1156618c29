//! "Find the shortest failure", in the Properties panel: a button that
//! asks the worker (`crate::work`) for the finder's question, whose form
//! and results the worker draws (the failure to find, the longest pause,
//! the faults allowed, the bounds), its progress, and Cancel, which stops
//! the worker at once. A question sent is kept in the page's address
//! (`?find&...`), and an address that carries one asks it as the page opens.

use super::browser;
use super::state::Action;
use super::worker::{job_body_with, use_work, Shown};
use crate::tools::finder::form::FIND_LINK_KEY;
use crate::work::Job;
use yew::prelude::*;

/// The search's section, for the Properties panel: a hook rather than a
/// component of its own, which would cost the page's first load more.
#[hook]
pub fn use_find_shortest(run_link: &Callback<(), String>, dispatch: &Callback<Action>) -> Html {
    let work = use_work();
    let running = work.shown.is_running();
    let submit = {
        let run_link = run_link.clone();
        Callback::from(move |query: String| {
            browser::keep_in_link(FIND_LINK_KEY, &query);
            Job::Find {
                run: run_link.emit(()),
                query,
            }
        })
    };
    // A link with the finder's question asks it, once, as the page opens.
    {
        let (send, submit) = (work.send.clone(), submit.clone());
        use_effect_with((), move |()| {
            if let Some(query) = linked_query() {
                send.emit(submit.emit(query));
            }
        });
    }
    // One click asks the default question; the form, drawn with its
    // answer, asks the next. Or the form first, to set the question.
    let find = submit.reform(|_: MouseEvent| String::new());
    let find = work.send.reform(move |e| find.emit(e));
    let open = work.send.reform(|_: MouseEvent| Job::FindForm {
        query: String::new(),
    });
    // With no drawing of the worker's on show, the page offers both.
    let offer = matches!(
        work.shown,
        Shown::Asked | Shown::Stopped(_) | Shown::Failed(_)
    );
    let on_cancel = work.cancel.reform(|_: MouseEvent| ());
    html! {
        <div class="finder" role="group" aria-labelledby="finder-title">
            <h3 id="finder-title" class="panel__subtitle">{ "Find the shortest failure" }</h3>
            <p class="finder__lead">
                { "Tries every run from the playhead, with these settings, fewest moves first, in the background. Its question names the failure, how long pauses may be and which faults may strike." }
            </p>
            if offer {
                <p class="finder__start">
                    <button type="button" class="button button--primary" onclick={find}>
                        { "Find the shortest failure" }
                    </button>
                    { " " }
                    <button type="button" class="button" onclick={open}>
                        { "Set the question first" }
                    </button>
                </p>
            }
            if running {
                <button type="button" class="button" onclick={on_cancel}>{ "Cancel" }</button>
            }
            { job_body_with(&work.shown, &work.send, dispatch, &submit) }
        </div>
    }
}

/// The finder's question in the page's address (`?find&...`), if any.
fn linked_query() -> Option<String> {
    browser::search().filter(|search| {
        search
            .trim_start_matches('?')
            .split('&')
            .any(|pair| pair.split('=').next() == Some(FIND_LINK_KEY))
    })
}
