//! Mounts the page. Everything else lives in the library.

#[cfg(target_arch = "wasm32")]
fn main() {
    yew::Renderer::<distlock::ui::App>::new().render();
}

/// The page runs only in a browser; a native build of this binary says so.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("distlock is a web page: build it with `trunk build` and open it in a browser.");
}
