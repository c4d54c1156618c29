//! The page's own words: the title and thesis, a one-line lead with the
//! one-click set-up of the scenario to run first, and the full text of
//! both folded under it so the simulation stays in the first screen.

use super::state::Action;
use yew::prelude::*;

#[component]
pub fn Masthead() -> Html {
    html! {
        <header class="masthead">
            <h1 class="masthead__title">{ "Distributed Lock Simulator" }</h1>
            <p class="masthead__thesis">
                { "A distributed lock is never just a lock: it is a lease that runs out on the service's clock, not yours. Only a fencing token, checked by the resource itself, keeps a holder that woke up late from doing damage." }
            </p>
        </header>
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct IntroProps {
    pub dispatch: Callback<Action>,
    /// Shown at the end of the lead line (the keyboard help).
    #[prop_or_default]
    pub children: Html,
}

/// The lead line: what the page is in a sentence, the set-up button, and
/// the long texts folded.
#[component]
pub fn Intro(props: &IntroProps) -> Html {
    let set_up = props
        .dispatch
        .reform(|_: MouseEvent| Action::SetUpFirstScenario);
    html! {
        <div class="lead">
            <p class="lead__text">
                { "Four clients, one lock, one counter: click Acquire on a card, then Start. Stories with guided tours follow the timeline." }
            </p>
            <button type="button" class="button button--primary lead__button" onclick={set_up}>
                { "Set up the scenario to run first" }
            </button>
            <details class="lead__more">
                <summary>{ "What you're looking at, and the scenario step by step" }</summary>
                { full_text() }
            </details>
            { props.children.clone() }
        </div>
    }
}

fn full_text() -> Html {
    html! {
        <div class="intro">
            <section class="intro__part" aria-labelledby="looking-title">
                <h2 id="looking-title" class="intro__title">{ "What you're looking at" }</h2>
                <ul class="intro__list">
                    <li>{ "Four clients, A to D, take turns at one lock and write to one shared counter." }</li>
                    <li>{ "Each card is what that client believes: whether it holds the lock, its token, and how much lease it thinks it has left. The second bar is what the lock service says." }</li>
                    <li>{ "The lock service panel shows the backend's own books; the resource panel shows what actually reached the counter. The bug lives in the gap between a card and the service." }</li>
                    <li>{ "Time is simulated. Nothing moves until you press Start or Step, and the same seed with the same clicks replays the same run." }</li>
                </ul>
            </section>
            <section class="intro__part" aria-labelledby="first-title">
                <h2 id="first-title" class="intro__title">{ "The scenario to run first" }</h2>
                <ol class="intro__steps">
                    <li>{ "Set it up: etcd, fencing off, TTL 5 s (the button above does it)." }</li>
                    <li>{ "Click Acquire on A, then Start. A holds the lock with a token." }</li>
                    <li>{ "Click GC pause on A (8 s). A freezes; its keepalives stop, so its lease runs out at the service around t=5 s." }</li>
                    <li>{ "Click Write on A while it is frozen: the write waits inside A, the way a real pause strikes between \"I hold the lock\" and the write." }</li>
                    <li>{ "Once the service shows nobody holding, click Acquire on B, then Write on B." }</li>
                    <li>{ "At t=8 s A wakes and its write leaves at once, with its old token. Watch the resource panel." }</li>
                    <li>{ "Tick Fencing (that resets the run) and play it again: this time the counter rejects A's older token." }</li>
                </ol>
                <p class="intro__more">{ format!("{} more stories, each with a guided tour, are one click away under Stories below the timeline; each tells the scenario on the backend you choose. Below them, Compare the systems runs the same stories on all eight. Keyboard: press ? for the shortcuts.", crate::lesson::presets::PRESETS.len() - 1) }</p>
            </section>
        </div>
    }
}
