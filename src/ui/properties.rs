//! The Properties panel: the run's five safety properties
//! (`crate::lesson::properties`), each holding so far or violated at a
//! moment the playhead can be moved to, and below them the search for the
//! shortest run that breaks one (`super::find`). It is the timeline's red,
//! in words.

use super::find::use_find_shortest;
use super::state::{Action, AppState};
use crate::lesson::properties::{Properties, Property, Violation};
use crate::sim::Record;
use std::rc::Rc;
use yew::prelude::*;

/// Each property's first violation, in the order of `Property::ALL`.
pub type Found = Rc<[Option<Violation>; 5]>;

/// The check kept between frames: each frame feeds only the records the
/// run added, and the panel's rows are rebuilt only when a property breaks
/// or the run is another one.
#[derive(Debug, Default)]
pub struct PropertyCache {
    run: u64,
    checked: Properties,
    found: Found,
}

impl PropertyCache {
    /// The properties of `history` (the whole run, also while the page
    /// shows an earlier moment) for run number `run`. A shorter history
    /// than the one fed is the same run forked in its past: checked again.
    pub fn found(&mut self, history: &[Record], run: u64) -> Found {
        let again = run != self.run || (history.len() as u64) < self.checked.seen();
        if again {
            self.run = run;
            self.checked = Properties::new();
        }
        self.checked.watch(history);
        let broken = |found: &[Option<Violation>; 5]| found.iter().flatten().count();
        let now = Property::ALL
            .into_iter()
            .filter(|&p| self.checked.violation(p).is_some())
            .count();
        if again || now != broken(&self.found) {
            self.found = Rc::new(Property::ALL.map(|p| self.checked.violation(p).cloned()));
        }
        self.found.clone()
    }
}

/// The properties of the page's whole run, like the timeline's picture (the
/// kept future too, while the page shows an earlier moment), and the
/// records its history had no room for.
#[hook]
pub fn use_properties(state: &AppState) -> (Found, u64) {
    let cache = use_mut_ref(PropertyCache::default);
    state.with_whole(|whole| {
        let found = cache.borrow_mut().found(whole.history(), state.run);
        (found, whole.history_dropped())
    })
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PropertiesPanelProps {
    pub found: Found,
    /// Where the playhead stands while the page shows a moment before the
    /// run's end; `None` at the end.
    pub shown_ms: Option<u64>,
    /// Records the run's history had no room for: not checked.
    pub dropped: u64,
    pub dispatch: Callback<Action>,
    /// The page's run as a link's fragment, made when asked.
    pub run_link: Callback<(), String>,
}

#[component]
pub fn PropertiesPanel(props: &PropertiesPanelProps) -> Html {
    let finder = use_find_shortest(&props.run_link, &props.dispatch);
    let rows = Property::ALL
        .into_iter()
        .zip(props.found.iter())
        .map(|(p, v)| row(p, v.as_ref(), props.shown_ms, &props.dispatch));
    html! {
        <section class="panel properties" aria-labelledby="properties-title">
            <h2 id="properties-title" class="panel__title">{ "Properties" }</h2>
            <p class="properties__lead">
                { "Five safety properties, checked record by record as the run goes: what the timeline marks in red, in words. Click the moment of a violation to move the playhead there." }
            </p>
            <ul class="properties__list">{ for rows }</ul>
            if props.dropped > 0 {
                <p class="panel__note">
                    { format!("The history is full: {} later records were not kept, so they were not checked.", props.dropped) }
                </p>
            }
            { finder }
        </section>
    }
}

/// One property: a mark and words for its state, and for a violation the
/// moment as a button that moves the playhead there.
fn row(
    property: Property,
    violation: Option<&Violation>,
    shown_ms: Option<u64>,
    dispatch: &Callback<Action>,
) -> Html {
    let (class, mark, state) = match violation {
        None => (
            "properties__item properties__item--holds",
            "✓",
            html! { "holds so far" },
        ),
        Some(v) => {
            let at = v.at.ms();
            let later = match shown_ms {
                Some(shown) if at > shown => " (after the moment shown)",
                _ => "",
            };
            let state = html! {
                <>
                    <button type="button" class="properties__seek" title="Move the playhead to this moment"
                        onclick={dispatch.reform(move |_: MouseEvent| Action::Seek(at))}>
                        { format!("violated at t={}", v.at) }
                    </button>
                    { format!(" by {}{later}", v.by) }
                </>
            };
            ("properties__item properties__item--violated", "✕", state)
        }
    };
    // The name is capitalized by the stylesheet.
    html! {
        <li {class}>
            <span class="properties__mark" aria-hidden="true">{ mark }</span>
            <span class="properties__name">{ property.title() }</span>
            <span class="properties__state">{ state }</span>
        </li>
    }
}
