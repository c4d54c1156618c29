//! The narrator's place in the page: one polite live region that says
//! what just happened (`lesson::narrator` makes the sentences; this only
//! schedules them by the reader's clock), an assertive one for the moment
//! that matters, and the controls: the narration's setting and Describe.

use super::browser;
use super::state::{Action, AppState};
use crate::lesson::narrator::{describe, Narration, Narrator};
use crate::sim::{ClientId, Sim, TokenWords};
use yew::prelude::*;

/// What the two regions say now.
#[derive(Debug, Default)]
struct Spoken {
    polite: String,
    urgent: String,
    /// Sentences said so far: a new one schedules the next.
    said: u64,
    /// The Describe requests and the shortcut client already answered.
    described: u64,
    selected: Option<ClientId>,
    fencing: Option<bool>,
}

/// Hears the run on every render, says a sentence when one is due, and
/// draws the two live regions.
#[hook]
pub fn use_narration(state: &AppState, sim: &Sim) -> Html {
    let narrator = use_mut_ref(Narrator::default);
    let spoken = use_mut_ref(Spoken::default);
    let redraw = use_force_update();
    let words = TokenWords::of(sim.config().backend);
    let recorded = sim.history_dropped() + sim.history().len() as u64;
    narrator.borrow_mut().hear(
        state.narration,
        state.run,
        sim.history(),
        sim.history_dropped(),
        words,
    );
    said_on_request(state, sim, &narrator, &spoken);
    {
        let (narrator, spoken) = (narrator.clone(), spoken.clone());
        let said = spoken.borrow().said;
        use_effect_with((state.run, recorded, said), move |_| {
            let due = narrator.borrow().due_in_ms(browser::wall_ms());
            let later = due.and_then(|delay_ms| {
                browser::Later::start(delay_ms, move || {
                    let speech = narrator.borrow_mut().speak(browser::wall_ms());
                    if let Some(speech) = speech {
                        let mut spoken = spoken.borrow_mut();
                        if speech.urgent {
                            spoken.urgent = speech.text;
                        } else {
                            spoken.polite = speech.text;
                        }
                        spoken.said += 1;
                        redraw.force_update();
                    }
                })
            });
            // Dropping the timer on cleanup cancels a sentence not yet due.
            move || {
                let _cancelled = later;
            }
        });
    }
    let narration = state.narration;
    use_effect_with(narration, |&narration| {
        browser::keep_narration_in_address(
            (narration != Narration::default()).then_some(narration.slug()),
        );
    });
    let spoken = spoken.borrow();
    html! {
        <>
            <div class="visually-hidden narrator" aria-live="polite" aria-atomic="true"
                data-testid="narrator">{ spoken.polite.clone() }</div>
            <div class="visually-hidden narrator" aria-live="assertive" aria-atomic="true"
                data-testid="narrator-alert">{ spoken.urgent.clone() }</div>
        </>
    }
}

/// What the reader asked for is said at once: the whole state (Describe),
/// which client the shortcuts now act on when the reader chose another, and
/// fencing turned on or off.
fn said_on_request(
    state: &AppState,
    sim: &Sim,
    narrator: &std::cell::RefCell<Narrator>,
    spoken: &std::cell::RefCell<Spoken>,
) {
    let mut spoken = spoken.borrow_mut();
    if state.described != spoken.described {
        spoken.described = state.described;
        spoken.polite = describe(sim);
        spoken.urgent.clear();
        narrator.borrow_mut().described(browser::wall_ms());
    }
    match spoken.selected {
        Some(c) if c != state.selected => {
            spoken.polite = format!("Shortcut keys now act on client {}.", state.selected);
        }
        _ => {}
    }
    spoken.selected = Some(state.selected);
    let fencing = sim.config().fencing.is_on();
    match spoken.fencing {
        Some(was) if was != fencing => {
            spoken.polite = format!(
                "Fencing is {}: the run starts afresh.",
                if fencing { "on" } else { "off" }
            );
        }
        _ => {}
    }
    spoken.fencing = Some(fencing);
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct NarrationControlsProps {
    pub narration: Narration,
    pub dispatch: Callback<Action>,
}

/// The narration's setting and the Describe button, in the shortcuts' panel
/// (`?`): the narrator speaks to a screen reader whatever the setting's
/// place, and `d` describes from anywhere.
#[component]
pub fn NarrationControls(props: &NarrationControlsProps) -> Html {
    let on_change = props.dispatch.reform(|e: Event| {
        let picked = browser::value_of(&e);
        Action::SetNarration(Narration::from_slug(&picked).unwrap_or_default())
    });
    let describe = props.dispatch.reform(|_: MouseEvent| Action::Describe);
    html! {
        <div class="narration" role="group" aria-label="Narration">
            <label class="field field--inline" for="narration">
                <span class="visually-hidden">{ "What the narrator says aloud" }</span>
                <select id="narration" class="field__select narration__select" onchange={on_change}>
                    { for Narration::ALL.into_iter().map(|n| html! {
                        <option value={n.slug()} selected={n == props.narration}>{ n.label() }</option>
                    }) }
                </select>
            </label>
            <button type="button" class="button button--small" onclick={describe}
                title="Say who holds the lock, who believes it, and what the resource accepted (d)">
                { "Describe (d)" }
            </button>
        </div>
    }
}
