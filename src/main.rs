//! Mounts the page. Everything else lives in the library.

/// Renders the page. A release build's index.html already shows its first
/// screen, drawn at build time (examples/prerender.rs) in
/// `#distlock-first`: it is removed here and the page rendered in its
/// place, in the same task and so before the next paint, with the same
/// markup and layout (nothing moves). The page is rendered rather than
/// hydrated: Yew's hydration needs the first render to match the default
/// page even when the address asks for a story, a run or an embed, and
/// its code and the state it carries cost the first load more bytes
/// (docs/budgets.md). assets/boot.js replays what was pressed meanwhile.
#[cfg(target_arch = "wasm32")]
fn main() {
    let first = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("distlock-first"));
    if let Some(first) = first {
        first.remove();
    }
    yew::Renderer::<distlock::ui::App>::new().render();
}

/// The page runs only in a browser; a native build of this binary says so.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("distlock is a web page: build it with `trunk build` and open it in a browser.");
}
