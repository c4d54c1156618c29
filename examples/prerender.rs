//! The release build's prerender step (Trunk.toml's last post-build hook,
//! scripts/build/prerender.sh): draws the page's first screen, the default page
//! as the wasm's own first render draws it, into the built index.html, so
//! a visitor sees the four clients, the lock service and the resource
//! before the wasm has arrived.
//!
//! `cargo run --example prerender -- PATH/index.html` puts the markup in
//! `<div id="distlock-first" aria-busy="true">` at the end of the body.
//! The wasm does not hydrate it: src/main.rs removes it and renders the
//! page in its place in the same task, before the next paint, and
//! assets/boot.js replays what a visitor pressed or typed meanwhile. The
//! wrapper is `display: contents` (styles/main.css), so the prerendered
//! markup lays out exactly as the page's own (docs/budgets.md, Prerendered
//! first screen, says why this rather than Yew's hydration).

use distlock::ui::embed::PageRequest;
use distlock::ui::{App, AppProps};
use std::process::ExitCode;

/// The wrapper's opening tag; src/main.rs and assets/boot.js find it by id.
const OPEN: &str = r#"<div id="distlock-first" aria-busy="true">"#;

/// The page's first screen at its default address, as markup.
async fn first_screen() -> String {
    distlock::ui::browser::draw_first_screen_only();
    let props = AppProps {
        start: None,
        request: Some(PageRequest::default()),
        on_drawn: None,
    };
    yew::LocalServerRenderer::<App>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

/// `page` without its preload links. With the first screen drawn, the wasm
/// is asked for after that screen is painted (assets/boot.js): fetched
/// ahead, it would share a slow network with the stylesheet the first
/// paint waits for, and Lighthouse counts all that arrives before the
/// largest paint as needed for it.
fn without_preloads(page: &str) -> String {
    let mut kept = String::with_capacity(page.len());
    let mut rest = page;
    while let Some(at) = rest.find("<link ") {
        let end = rest[at..].find('>').map_or(rest.len(), |e| at + e + 1);
        let tag = &rest[at..end];
        kept.push_str(&rest[..at]);
        if !(tag.contains("preload") && tag.contains("rel=")) {
            kept.push_str(tag);
        }
        rest = &rest[end..];
    }
    kept.push_str(rest);
    kept
}

/// `page` with `screen` put in its body, after anything already there; a
/// page prerendered before is drawn again, not twice.
fn with_first_screen(page: &str, screen: &str) -> Option<String> {
    let page = without_preloads(page);
    let page = match page.find(OPEN) {
        Some(start) => {
            let end = page[start..].find("</body>")? + start;
            format!("{}{}", &page[..start], &page[end..])
        }
        None => page,
    };
    let at = page.rfind("</body>")?;
    Some(format!(
        "{}{OPEN}{screen}</div>{}",
        &page[..at],
        &page[at..]
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: prerender PATH/index.html");
        return ExitCode::from(2);
    };
    let page = match std::fs::read_to_string(&path) {
        Ok(page) => page,
        Err(e) => {
            eprintln!("prerender: cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let screen = first_screen().await;
    let Some(done) = with_first_screen(&page, &screen) else {
        eprintln!("prerender: {path} has no </body>");
        return ExitCode::FAILURE;
    };
    if let Err(e) = std::fs::write(&path, done) {
        eprintln!("prerender: cannot write {path}: {e}");
        return ExitCode::FAILURE;
    }
    println!(
        "prerender: the first screen ({} bytes of markup) is in {path}",
        screen.len()
    );
    ExitCode::SUCCESS
}
