//! "Find the shortest failure", in the Properties panel: a property to
//! break, a button that hands the page's run to the worker
//! (`crate::work`, which runs the finder and draws its result), its
//! progress, and Cancel, which stops the worker at once.

use super::browser::value_of;
use super::state::Action;
use super::worker::{job_body, use_work};
use crate::lesson::finder::DEPTH_DEFAULT;
use crate::lesson::properties::Property;
use crate::work::Job;
use yew::prelude::*;

/// The search's section, for the Properties panel: a hook rather than a
/// component of its own, which would cost the page's first load more.
#[hook]
pub fn use_find_shortest(run_link: &Callback<(), String>, dispatch: &Callback<Action>) -> Html {
    let property = use_state(|| Property::NoStaleWrite);
    let work = use_work();
    let running = work.shown.is_running();
    let on_choose = {
        let property = property.clone();
        Callback::from(move |e: Event| {
            // Only the listed properties can be chosen; anything else changes nothing.
            if let Some(p) = Property::from_slug(&value_of(&e)) {
                property.set(p);
            }
        })
    };
    let on_find = {
        let (send, run_link, property) = (work.send.clone(), run_link.clone(), *property);
        Callback::from(move |_: MouseEvent| {
            send.emit(Job::Find {
                run: run_link.emit(()),
                property,
            })
        })
    };
    let on_cancel = work.cancel.reform(|_: MouseEvent| ());
    let options = Property::ALL.into_iter().map(|p| {
        html! { <option value={p.slug()} selected={p == *property}>{ p.title() }</option> }
    });
    html! {
        <div class="finder" role="group" aria-labelledby="finder-title">
            <h3 id="finder-title" class="panel__subtitle">{ "Find the shortest failure" }</h3>
            <p class="finder__lead">
                { format!("Tries every run of up to {DEPTH_DEFAULT} moves from the playhead, with these settings: clicks, faults and waiting, fewest moves first. It runs in the background.") }
            </p>
            <div class="finder__form">
                <label class="field__label" for="finder-property">{ "Property" }</label>
                <select id="finder-property" class="field__select" onchange={on_choose} disabled={running}>
                    { for options }
                </select>
                if running {
                    <button type="button" class="button" onclick={on_cancel}>{ "Cancel" }</button>
                } else {
                    <button type="button" class="button button--primary" onclick={on_find}>
                        { "Find the shortest failure" }
                    </button>
                }
            </div>
            { job_body(&work.shown, &work.send, dispatch) }
        </div>
    }
}
