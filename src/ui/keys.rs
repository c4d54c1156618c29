//! The keyboard: one listener on the document turns keys into shortcuts,
//! and a small panel lists them. Keys typed into a field, or pressed with a
//! modifier, are left alone; so is Space on a focused button, which presses
//! the button.

use super::browser;
use super::guide::SHORTCUTS;
use super::state::Action;
use yew::prelude::*;

/// Listens for shortcuts while the page is up; the listener is removed when
/// the hook's owner goes.
#[hook]
pub fn use_shortcuts(dispatch: Callback<Action>) {
    use_effect_with((), move |_| {
        let listener = browser::KeyListener::start(dispatch);
        // Dropping the listener on cleanup removes it from the document.
        move || {
            let _removed = listener;
        }
    });
}

/// Keeps the focus off the page's body when its control goes away
/// (`browser::FocusKeeper`), checked after every render.
#[hook]
pub fn use_focus_keeper() {
    let keeper = use_mut_ref(|| None::<browser::FocusKeeper>);
    {
        let keeper = keeper.clone();
        use_effect_with((), move |_| {
            *keeper.borrow_mut() = browser::FocusKeeper::start();
            // Dropping the keeper on cleanup removes its listeners.
            move || {
                keeper.borrow_mut().take();
            }
        });
    }
    use_effect(move || {
        if let Some(k) = keeper.borrow().as_ref() {
            k.check();
        }
    });
}

/// Spotlit parts of the page scroll into view when a tour points at them:
/// `moment` is how many moments the tour reached, the run, and whether the
/// page below its first screen is drawn.
#[hook]
pub fn use_spotlight_scroll(moment: Option<(usize, u64, bool)>) {
    use_effect_with(moment, |moment| {
        if moment.is_some() {
            browser::scroll_to_spotlight();
        }
    });
}

/// While a tour's bar is docked at the window's foot (`docked` names the
/// story it belongs to), the page keeps `--tour-h` at its height: the page
/// pads its foot by that much, so nothing ends up under the bar.
#[hook]
pub fn use_tour_dock(docked: Option<&'static str>) {
    use_effect_with(docked, |docked| {
        let watch = docked.and_then(|_| browser::DockWatch::start());
        // Dropping the watch on cleanup removes the padding.
        move || {
            let _undocked = watch;
        }
    });
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct KeyboardHelpProps {
    pub open: bool,
    pub dispatch: Callback<Action>,
    /// In a frame: the button reads "?" alone.
    #[prop_or_default]
    pub compact: bool,
    /// The narrator's setting and Describe, listed with the shortcuts.
    #[prop_or_default]
    pub narration: Html,
}

/// A button that shows the shortcuts, and the list itself when open.
#[component]
pub fn KeyboardHelp(props: &KeyboardHelpProps) -> Html {
    let open = props.open;
    let toggle = props
        .dispatch
        .reform(move |_: MouseEvent| Action::ShowHelp(!open));
    html! {
        <div class="keys">
            <button type="button" class="button button--small keys__toggle" onclick={toggle}
                aria-expanded={if open { "true" } else { "false" }} aria-controls="keys-list"
                aria-label={props.compact.then_some("Keyboard shortcuts (?)")}
                title={props.compact.then_some("Keyboard shortcuts (?)")}>
                { match (open, props.compact) {
                    (true, false) => "Hide keyboard shortcuts",
                    (false, false) => "Keyboard shortcuts (?)",
                    (true, true) => "× ?",
                    (false, true) => "?",
                } }
            </button>
            if open {
                // Closed (Escape) with the focus inside, the focus goes back to its button.
                <section id="keys-list" class="panel keys__panel" aria-label="Keyboard shortcuts"
                    data-focus-home=".keys__toggle">
                    <dl class="keys__list">
                        { for SHORTCUTS.iter().map(|(key, what)| html! {
                            <>
                                <dt><kbd>{ *key }</kbd></dt>
                                <dd>{ *what }</dd>
                            </>
                        }) }
                    </dl>
                    { props.narration.clone() }
                    <p class="panel__note">
                        { "Letters act on the selected client, marked \"keys\" on its card: choose it with 1 to 4, or by pressing anything on its card (moving the focus through a card does not). Keys are ignored while you type in a field." }
                    </p>
                </section>
            }
        </div>
    }
}
