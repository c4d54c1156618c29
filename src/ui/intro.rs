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

/// The page's foot: the project's own pages. At the foot, not the head,
/// so the lesson keeps its first screen at 1280 x 800 and on a phone.
#[component]
pub fn PageFoot() -> Html {
    html! {
        <footer class="page__foot">
            { Html::from_html_unchecked(AttrValue::Static(PROJECT_LINKS)) }
        </footer>
    }
}

/// The project's own pages, which the build writes beside the page
/// (scripts/build/docs.mjs): its README, where every default comes from, and
/// the real-server check's latest results. Markup, as the service panel's
/// links are: it costs the first load less than elements.
const PROJECT_LINKS: &str = concat!(
    r#"<p class="page__links"><a href="docs/readme.html" target="_blank" rel="noopener">About the project</a> · "#,
    r#"<a href="docs/systems.html#how-the-model-simplifies" target="_blank" rel="noopener">What the model simplifies</a> · "#,
    r#"<a href="docs/sources.html" target="_blank" rel="noopener">Where the numbers come from</a> · "#,
    r#"<a href="docs/fidelity.html" target="_blank" rel="noopener">Real-server check</a></p>"#,
);

/// The lesson in one line, on the full page and in an embed: the whole
/// article's moves, B's write included, and why A's Write is clicked
/// during the pause.
pub const HINT: &str = "Acquire on A, Start, GC pause A and Write on A (a pause strikes between \"I hold the lock\" and the write: that Write leaves the instant A wakes); after t=5 s Acquire on B and Write on B; A wakes and overwrites B's increment.";

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
            <p class="lead__text">{ HINT }</p>
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

/// The full text, written once as markup: it never changes, and markup
/// costs the page's first load fewer bytes than elements built one by one.
const FULL_TEXT: &str = concat!(
    r#"<div class="intro">"#,
    r#"<section class="intro__part" aria-labelledby="looking-title">"#,
    r#"<h2 id="looking-title" class="intro__title">What you're looking at</h2>"#,
    r#"<ul class="intro__list">"#,
    r#"<li>Four clients, A to D, take turns at one lock and write to one shared counter.</li>"#,
    r#"<li>Each card is what that client believes: whether it holds the lock, its token, and how much lease it thinks it has left. The second bar is what the lock service says.</li>"#,
    r#"<li>Under the cards, the stage shows what the lock service says (holder, lease, token), the messages on the wire, and what actually reached the counter; the full books of both are folded under the timeline. The bug lives in the gap between a card and the service.</li>"#,
    r#"<li>Time is simulated. Nothing moves until you press Start or Step, and the same seed with the same clicks replays the same run.</li>"#,
    r#"</ul>"#,
    r#"</section>"#,
    r#"<section class="intro__part" aria-labelledby="first-title">"#,
    r#"<h2 id="first-title" class="intro__title">The scenario to run first</h2>"#,
    r#"<ol class="intro__steps">"#,
    r#"<li>The button above plays it for you as a story with a guided tour, on the system you chose, fencing off, TTL 5 s; its tour stops at each key moment. To click it yourself, turn fencing off and set the TTL to 5 s, then:</li>"#,
    r#"<li>Click Acquire on A, then Start. A holds the lock with a token.</li>"#,
    r#"<li>Click GC pause on A (8 s). A freezes; its renewals stop, so its lease runs out at the service around t=5 s.</li>"#,
    r#"<li>Click Write on A while it is frozen: a Write clicked while A is frozen leaves the instant it wakes, before any reply can reach it, the way a real pause strikes between "I hold the lock" and the write.</li>"#,
    r#"<li>Once the service shows nobody holding, click Acquire on B, then Write on B.</li>"#,
    r#"<li>At t=8.5 s A wakes and its write leaves at once, with its old token. Watch the resource.</li>"#,
    r#"<li>Tick Fencing (that resets the run) and play it again: this time the counter rejects A's older token.</li>"#,
    r#"</ol>"#,
    r#"<p class="intro__more">"#,
    "17",
    r#" more stories, each with a guided tour, are in the Stories menu beside the button above; each tells the scenario on the backend you choose. The Compare the systems tab runs the same stories on all eight. Keyboard: press ? for the shortcuts; Escape closes a tour.</p>"#,
    r#"</section>"#,
    r#"</div>"#,
);
// The last paragraph counts the stories after the first.
const _: () = assert!(crate::lesson::presets::PRESETS.len() - 1 == 17);

fn full_text() -> Html {
    Html::from_html_unchecked(AttrValue::Static(FULL_TEXT))
}
