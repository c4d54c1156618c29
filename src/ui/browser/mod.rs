//! The page's browser-only glue, in one place: what a visitor typed or
//! ticked, animation frames, the keyboard, the address bar, the clipboard,
//! files and downloads, the timeline's pointer, wheel and width, the host
//! page of an embed, and the background worker's messages.
//!
//! `web.rs` is the real thing (web-sys, js-sys, gloo), built only for
//! wasm32. `native.rs` has the same names and signatures and does nothing:
//! natively (server rendering in tests) there is no window, no event ever
//! fires, readers return empty values and listeners are `None`. Components
//! call `browser::…` the same way on both targets, so native rendering
//! tests need no stubs of their own.

#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::*;

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
pub use native::*;

/// What a timeline download holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Download {
    Svg,
    Png,
    Json,
}

/// Where the arrow keys move the focus among the timeline's marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rove {
    Next,
    Previous,
    First,
    Last,
}

/// A wheel turn over the picture, as the timeline reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wheel {
    Zoom { delta: f64, x: f64 },
    Pan { delta: f64 },
}
