//! The keyboard: one listener on the document turns keys into shortcuts,
//! and a small panel lists them. Keys typed into a field, or pressed with a
//! modifier, are left alone; so is Space on a focused button, which presses
//! the button.

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

/// Spotlit parts of the page scroll into view when a tour points at them.
#[hook]
pub fn use_spotlight_scroll(moment: Option<(usize, u64)>) {
    use_effect_with(moment, |moment| {
        if moment.is_some() {
            browser::scroll_to_spotlight();
        }
    });
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use crate::ui::guide::{shortcut_of, Shortcut};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    pub struct KeyListener {
        document: web_sys::Document,
        callback: Closure<dyn FnMut(web_sys::KeyboardEvent)>,
    }

    impl KeyListener {
        pub fn start(dispatch: Callback<Action>) -> Option<KeyListener> {
            let document = web_sys::window()?.document()?;
            let callback = Closure::new(move |e: web_sys::KeyboardEvent| {
                if let Some(key) = wanted(&e) {
                    // Space and the arrows would scroll the page as well.
                    if key != Shortcut::Escape {
                        e.prevent_default();
                    }
                    dispatch.emit(Action::Shortcut(key));
                }
            });
            document
                .add_event_listener_with_callback("keydown", callback.as_ref().unchecked_ref())
                .ok()?;
            Some(KeyListener { document, callback })
        }
    }

    impl Drop for KeyListener {
        fn drop(&mut self) {
            let _ = self.document.remove_event_listener_with_callback(
                "keydown",
                self.callback.as_ref().unchecked_ref(),
            );
        }
    }

    /// The shortcut a key press asks for, unless it belongs to something else.
    fn wanted(e: &web_sys::KeyboardEvent) -> Option<Shortcut> {
        if e.ctrl_key() || e.meta_key() || e.alt_key() || e.default_prevented() {
            return None;
        }
        let key = shortcut_of(&e.key())?;
        let target = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let tag = target.as_ref().map(|t| t.tag_name()).unwrap_or_default();
        let editable = target
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|t| t.is_content_editable());
        let typing = matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") || editable;
        let pressing = matches!(tag.as_str(), "BUTTON" | "SUMMARY" | "A");
        match key {
            Shortcut::Escape => Some(key),
            _ if typing => None,
            Shortcut::StartPause if pressing => None,
            _ => Some(key),
        }
    }

    pub fn scroll_to_spotlight() {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        if let Ok(Some(spot)) = document.query_selector(".is-spotlit") {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            spot.scroll_into_view_with_scroll_into_view_options(&options);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod browser {
    use super::*;

    /// Natively (server rendering) there is no keyboard.
    pub struct KeyListener;

    impl KeyListener {
        pub fn start(_dispatch: Callback<Action>) -> Option<KeyListener> {
            None
        }
    }

    pub fn scroll_to_spotlight() {}
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct KeyboardHelpProps {
    pub open: bool,
    pub dispatch: Callback<Action>,
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
                aria-expanded={if open { "true" } else { "false" }} aria-controls="keys-list">
                { if open { "Hide keyboard shortcuts" } else { "Keyboard shortcuts (?)" } }
            </button>
            if open {
                <section id="keys-list" class="panel keys__panel" aria-label="Keyboard shortcuts">
                    <dl class="keys__list">
                        { for SHORTCUTS.iter().map(|(key, what)| html! {
                            <>
                                <dt><kbd>{ *key }</kbd></dt>
                                <dd>{ *what }</dd>
                            </>
                        }) }
                    </dl>
                    <p class="panel__note">
                        { "Letters act on the selected client, marked \"keys\" on its card; focusing a card selects it too. Keys are ignored while you type in a field." }
                    </p>
                </section>
            }
        </div>
    }
}
