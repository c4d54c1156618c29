//! Sharing a run: a link that reproduces it (copied, and kept in the
//! address bar), a JSON file to export and import, and opening either.
//! A link or file that cannot be read says why and opens the default page.

use super::state::{seconds_1, Action, AppState, Notice};
use crate::sim::Millis;
use crate::sim::Sim;
use crate::wire::link::{self, ReadRunError, RunLink};
use std::rc::Rc;
use yew::prelude::*;

impl AppState {
    /// The whole run (kept future included) with the playhead where it is.
    pub fn run_link(&self) -> RunLink {
        let now = self.sim.borrow().now();
        self.with_whole(|whole| RunLink::of(whole, now))
    }

    /// The fragment (without `#`) that reopens this run at this moment.
    pub fn link(&self) -> String {
        link::encode(&self.run_link())
    }

    /// The whole run as a JSON file: its commands, where the playhead
    /// stands, and the history in the core's own format.
    pub fn run_file(&self) -> String {
        let run = self.run_link();
        self.with_whole(|whole| link::to_run_file(&run, whole.history()))
    }

    /// Opens a shared run (read and replayed by `link::open_link` or
    /// `link::open_run_file`), or says why it cannot and opens the default page.
    pub(crate) fn open_run(&self, read: Result<(RunLink, Sim), ReadRunError>) -> AppState {
        match read {
            Ok((run, whole)) => self.opened_at(whole, run.playhead_ms),
            Err(e) => self.refused_run(&e.to_string()),
        }
    }

    /// A run the worker's markup links to, opened like a shared link but
    /// introduced by the worker's own sentence.
    pub(crate) fn open_work_run(&self, fragment: &str, say: String) -> AppState {
        let opened = self.open_run(link::open_link(fragment));
        match opened.notice {
            Some(Notice::Info(_)) if !say.is_empty() => AppState {
                notice: Some(Notice::Info(say)),
                ..opened
            },
            _ => opened,
        }
    }

    /// A run that could not be opened: the message, and the default page.
    pub(crate) fn refused_run(&self, message: &str) -> AppState {
        AppState {
            run: self.run.wrapping_add(1),
            notice: Some(Notice::Refused(format!(
                "{message} The default page is open instead."
            ))),
            ..AppState::new(None)
        }
    }

    /// A fresh page showing `whole` at `playhead_ms`, its future kept.
    fn opened_at(&self, whole: Sim, playhead_ms: u64) -> AppState {
        let end = whole.now();
        let (sim, future) = if playhead_ms < end.ms() {
            // The run is already whole: only the moment shown is replayed.
            match Sim::replay(&whole.scenario(), Millis(playhead_ms)) {
                Ok(at) => (at, Some(Rc::new(whole))),
                Err(e) => return self.refused_run(&e.to_string()),
            }
        } else {
            (whole, None)
        };
        AppState {
            run: self.run.wrapping_add(1),
            future,
            notice: Some(Notice::Info(format!(
                "Opened a shared run of {}, at {}. Start plays it on; the timeline shows all of it.",
                seconds_1(end.ms()),
                seconds_1(playhead_ms)
            ))),
            ..AppState::new(Some(super::state::StartSim(Rc::new(sim))))
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ShareProps {
    pub dispatch: Callback<Action>,
    /// Makes the link when asked (the run changes every frame).
    pub make_link: Callback<(), String>,
}

/// What the last Copy link did.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Copied {
    No,
    /// The link, and whether the clipboard took it.
    Yes(String, bool),
}

#[component]
pub fn Share(props: &ShareProps) -> Html {
    let copied = use_state(|| Copied::No);
    let file_ref = use_node_ref();
    use_hash_changes(props.dispatch.clone());
    let on_copy = {
        let (copied, make_link) = (copied.clone(), props.make_link.clone());
        Callback::from(move |_: MouseEvent| {
            let fragment = make_link.emit(());
            browser::show_in_address_bar(&fragment);
            let url = browser::page_url(&fragment);
            copied.set(Copied::Yes(url.clone(), false));
            let (after, shown) = (copied.clone(), url.clone());
            browser::copy(&url, move |ok| after.set(Copied::Yes(shown.clone(), ok)));
        })
    };
    let on_pick = {
        let file_ref = file_ref.clone();
        Callback::from(move |_: MouseEvent| browser::click(&file_ref))
    };
    let on_file = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| browser::read_file(&e, dispatch.clone()))
    };
    html! {
        <section class="panel share" aria-labelledby="share-title">
            <h2 id="share-title" class="panel__title">{ "Share this run" }</h2>
            <div class="share__buttons">
                <button type="button" class="button" onclick={on_copy}
                    title="A link that reopens this run, with the same seed and clicks, at this moment">
                    { "Copy link" }
                </button>
                <button type="button" class="button" onclick={on_pick}
                    title="Open a run saved with the timeline's Run (JSON) download">
                    { "Import a run (JSON)" }
                </button>
                <input ref={file_ref} type="file" accept=".json,application/json" class="visually-hidden"
                    tabindex="-1" aria-label="Run file to import" onchange={on_file} />
            </div>
            if let Copied::Yes(url, ok) = &*copied {
                <p class="share__link">
                    <span role="status">{ if *ok { "Link copied. " } else { "Copy this link: " } }</span>
                    <input class="share__url" type="text" readonly=true value={url.clone()}
                        aria-label="Link to this run" onfocus={Callback::from(browser::select_all)} />
                </p>
            }
        </section>
    }
}

/// A link pasted into the address bar of an open page opens too.
#[hook]
fn use_hash_changes(dispatch: Callback<Action>) {
    use_effect_with((), move |_| {
        let listener =
            browser::on_hash_change(move |fragment| dispatch.emit(Action::OpenLink(fragment)));
        move || {
            let _removed = listener;
        }
    });
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use gloo_events::EventListener;
    use std::cell::RefCell;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    // The fragment the page itself last put in the address bar, so that
    // its own change is not taken for a visitor's.
    thread_local! {
        static OWN_FRAGMENT: RefCell<String> = const { RefCell::new(String::new()) };
    }

    pub fn page_url(fragment: &str) -> String {
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let base = base.split('#').next().unwrap_or_default().to_string();
        format!("{base}#{fragment}")
    }

    pub fn show_in_address_bar(fragment: &str) {
        OWN_FRAGMENT.with(|own| *own.borrow_mut() = fragment.to_string());
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let _ =
                history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
        }
    }

    pub fn copy(text: &str, done: impl Fn(bool) + 'static) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let promise = window.navigator().clipboard().write_text(text);
        // A page without clipboard access refuses: the link stays on show.
        // Each callback frees itself once called.
        let done = Rc::new(done);
        let (ok, refused) = (done.clone(), done);
        let on_ok = Closure::once_into_js(move |_: JsValue| ok(true));
        let on_refused = Closure::once_into_js(move |_: JsValue| refused(false));
        let then = js_sys::Reflect::get(&promise, &"then".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(then) = then {
            let _ = then.call2(&promise, &on_ok, &on_refused);
        }
    }

    pub fn click(input: &NodeRef) {
        if let Some(input) = input.cast::<web_sys::HtmlElement>() {
            input.click();
        }
    }

    pub fn select_all(e: FocusEvent) {
        if let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            input.select();
        }
    }

    pub fn read_file(e: &Event, dispatch: Callback<Action>) {
        let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        // The same file chosen twice still counts as a choice.
        input.set_value("");
        if file.size() > crate::wire::link::RUN_FILE_LEN_MAX as f64 {
            dispatch.emit(Action::ImportRun(Err(format!(
                "This file is {} bytes, over the limit of {}: it was not read.",
                file.size() as u64,
                crate::wire::link::RUN_FILE_LEN_MAX
            ))));
            return;
        }
        let Ok(reader) = web_sys::FileReader::new() else {
            return;
        };
        let loaded = reader.clone();
        let on_load = Closure::once_into_js(move || {
            let text = loaded.result().ok().and_then(|r| r.as_string());
            dispatch.emit(Action::ImportRun(
                text.ok_or_else(|| "This file could not be read as text.".to_string()),
            ));
        });
        reader.set_onload(Some(on_load.unchecked_ref()));
        let _ = reader.read_as_text(&file);
    }

    pub fn on_hash_change(changed: impl Fn(String) + 'static) -> Option<EventListener> {
        let window = web_sys::window()?;
        let location = window.location();
        Some(EventListener::new(&window, "hashchange", move |_| {
            let hash = location.hash().unwrap_or_default();
            let fragment = hash.trim_start_matches('#').to_string();
            let own = OWN_FRAGMENT.with(|own| *own.borrow() == fragment);
            if !own && !fragment.is_empty() {
                changed(fragment);
            }
        }))
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod browser {
    use super::*;

    pub fn page_url(fragment: &str) -> String {
        format!("./#{fragment}")
    }
    pub fn show_in_address_bar(_fragment: &str) {}
    pub fn copy(_text: &str, _done: impl Fn(bool) + 'static) {}
    pub fn click(_input: &NodeRef) {}
    pub fn select_all(_e: FocusEvent) {}
    pub fn read_file(_e: &Event, _dispatch: Callback<Action>) {}

    /// Natively there is no address bar to watch.
    pub struct NoListener;

    pub fn on_hash_change(_changed: impl Fn(String) + 'static) -> Option<NoListener> {
        None
    }
}
