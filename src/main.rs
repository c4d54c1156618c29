//! Mounts the page. Everything else lives in the library.

/// Renders the page. A release build's index.html already shows its first
/// screen, drawn at build time (examples/prerender.rs) in
/// `#distlock-first`. The page is built off the document, in
/// `#distlock-page` (a wrapper that makes no box, like the first one), one
/// part a task (`AppProps::on_drawn`), and put in its place in the task
/// that completes it, so before the next paint, with the same markup and
/// layout: nothing moves, and no press waits behind one long task on a slow
/// phone. The page is rendered rather than hydrated: Yew's hydration needs
/// the first render to match the default page even when the address asks
/// for a story, a run or an embed, and its code and the state it carries
/// cost the first load more bytes (docs/budgets.md). assets/boot.js
/// replays what was pressed meanwhile.
#[cfg(target_arch = "wasm32")]
fn main() {
    use distlock::ui::{App, AppProps};
    let document = web_sys::window().and_then(|w| w.document());
    let first = document
        .as_ref()
        .and_then(|d| d.get_element_by_id("distlock-first"));
    let page = document.and_then(|d| d.create_element("div").ok());
    let (Some(first), Some(page)) = (first, page) else {
        yew::Renderer::<App>::new().render();
        return;
    };
    page.set_id("distlock-page");
    let shown = page.clone();
    let on_drawn = yew::Callback::from(move |()| {
        // Refused only if the first screen has left the document already.
        let _ = first.replace_with_with_node_1(&shown);
    });
    let props = AppProps {
        on_drawn: Some(on_drawn),
        ..AppProps::default()
    };
    // The first part is drawn in a task of its own too: the task that
    // instantiates the wasm also finishes compiling the module.
    gloo_timers::callback::Timeout::new(0, move || {
        yew::Renderer::<App>::with_root_and_props(page, props).render();
    })
    .forget();
}

/// The page runs only in a browser; a native build of this binary says so.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("distlock is a web page: build it with `trunk build` and open it in a browser.");
}
