//! The browser side of the timeline: pointer positions, the wheel, the
//! panel's width, and downloads of the picture and the run. Natively
//! (server rendering, tests) these do nothing.

use yew::prelude::*;

/// What a download holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Svg,
    Png,
    Json,
}

/// A wheel turn over the picture, as the timeline reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wheel {
    Zoom { delta: f64, x: f64 },
    Pan { delta: f64 },
}

/// The sentence of the mark under the pointer or focus: its `<title>`.
pub fn tip_of(e: &Event) -> Option<String> {
    browser::tip_of(e)
}

pub fn local_x(svg_ref: &NodeRef, client_x: i32) -> Option<f64> {
    browser::local(svg_ref, client_x, true)
}

pub fn local_y(svg_ref: &NodeRef, client_y: i32) -> Option<f64> {
    browser::local(svg_ref, client_y, false)
}

/// Keeps the pointer's moves coming to the picture while it drags.
pub fn capture(svg_ref: &NodeRef, pointer_id: i32) {
    browser::capture(svg_ref, pointer_id)
}

pub use browser::{on_resize, on_wheel, save, save_png_of, Listener};

/// Today's file names: the picture and the run share a stem.
pub const FILE_STEM: &str = "distlock-run";

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use gloo_events::{EventListener, EventListenerOptions};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    pub type Listener = Option<EventListener>;

    pub fn tip_of(e: &Event) -> Option<String> {
        let target: web_sys::Element = e.target()?.dyn_into().ok()?;
        let mark = target
            .closest(".tl-mark, .tl-msg, .tl-renewal, .tl-traffic, .tl-dense, .tl-key-moment")
            .ok()??;
        let title = mark.query_selector("title").ok()??;
        title.text_content()
    }

    pub fn local(svg_ref: &NodeRef, client: i32, horizontal: bool) -> Option<f64> {
        let svg = svg_ref.cast::<web_sys::Element>()?;
        let rect = svg.get_bounding_client_rect();
        Some(if horizontal {
            f64::from(client) - rect.left()
        } else {
            f64::from(client) - rect.top()
        })
    }

    pub fn capture(svg_ref: &NodeRef, pointer_id: i32) {
        if let Some(svg) = svg_ref.cast::<web_sys::Element>() {
            let _ = svg.set_pointer_capture(pointer_id);
        }
    }

    pub fn on_resize(holder: NodeRef, mut changed: impl FnMut(f64) + 'static) -> Listener {
        let measure = move |holder: &NodeRef| {
            holder
                .cast::<web_sys::Element>()
                .map(|e| f64::from(e.client_width()))
                .filter(|&w| w > 0.0)
        };
        if let Some(width) = measure(&holder) {
            changed(width);
        }
        let window = web_sys::window()?;
        Some(EventListener::new(&window, "resize", move |_| {
            if let Some(width) = measure(&holder) {
                changed(width);
            }
        }))
    }

    pub fn on_wheel(svg_ref: NodeRef, mut turned: impl FnMut(Wheel) + 'static) -> Listener {
        let svg = svg_ref.cast::<web_sys::Element>()?;
        let options = EventListenerOptions::enable_prevent_default();
        Some(EventListener::new_with_options(
            &svg,
            "wheel",
            options,
            move |event| {
                let Some(e) = event.dyn_ref::<web_sys::WheelEvent>() else {
                    return;
                };
                let sideways = e.delta_x().abs() > e.delta_y().abs() || e.shift_key();
                let wheel = if e.ctrl_key() || e.meta_key() {
                    let x = local(&svg_ref, e.client_x(), true).unwrap_or(0.0);
                    Wheel::Zoom {
                        delta: e.delta_y(),
                        x,
                    }
                } else if sideways {
                    let delta = if e.shift_key() && e.delta_x() == 0.0 {
                        e.delta_y()
                    } else {
                        e.delta_x()
                    };
                    Wheel::Pan { delta }
                } else {
                    // A plain wheel scrolls the page, as everywhere else.
                    return;
                };
                e.prevent_default();
                turned(wheel);
            },
        ))
    }

    pub fn save(kind: Kind, svg_ref: &NodeRef, run_file: &Callback<(), String>) {
        let result = match kind {
            Kind::Json => save_text(
                &format!("{FILE_STEM}.json"),
                "application/json",
                &run_file.emit(()),
            ),
            Kind::Svg => svg_text(svg_ref)
                .ok_or_else(|| JsValue::from_str("no picture"))
                .and_then(|svg| save_text(&format!("{FILE_STEM}.svg"), "image/svg+xml", &svg)),
            Kind::Png => save_png(svg_ref),
        };
        if let Err(e) = result {
            web_sys::console::warn_2(&"The download could not be made:".into(), &e);
        }
    }

    /// The picture as a standalone SVG file: its colours are attributes, so
    /// it looks the same without the page's style sheet.
    fn svg_text(svg_ref: &NodeRef) -> Option<String> {
        let svg = svg_ref.cast::<web_sys::Element>()?;
        Some(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}",
            svg.outer_html()
        ))
    }

    fn blob_url(text: &str, mime: &str) -> Result<String, JsValue> {
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
        web_sys::Url::create_object_url_with_blob(&blob)
    }

    fn click_download(url: &str, name: &str) -> Result<(), JsValue> {
        let document = web_sys::window()
            .and_then(|w| w.document())
            .ok_or_else(|| JsValue::from_str("no document"))?;
        let a: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
        a.set_href(url);
        a.set_download(name);
        a.click();
        Ok(())
    }

    fn save_text(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
        let url = blob_url(text, mime)?;
        click_download(&url, name)?;
        web_sys::Url::revoke_object_url(&url)
    }

    /// Draws the SVG onto a canvas at twice the size, then saves the canvas.
    fn save_png(svg_ref: &NodeRef) -> Result<(), JsValue> {
        let svg = svg_ref
            .cast::<web_sys::Element>()
            .ok_or_else(|| JsValue::from_str("no picture"))?;
        let size = (
            f64::from(svg.client_width().max(1)),
            f64::from(svg.client_height().max(1)),
        );
        let url = blob_url(&svg.outer_html(), "image/svg+xml")?;
        png(url, Some(size), format!("{FILE_STEM}.png"), true)
    }

    /// Saves the SVG at `svg_url` (a `data:` address) as a PNG named
    /// `name`, at twice the SVG's own size (the explorer's heatmap).
    pub fn save_png_of(svg_url: &str, name: &str) {
        if let Err(e) = png(svg_url.to_string(), None, name.to_string(), false) {
            web_sys::console::warn_2(&"The PNG could not be made:".into(), &e);
        }
    }

    /// Loads the SVG at `url`, draws it at twice `size` (or its own), and
    /// saves the canvas; `revoke` frees a blob address afterwards.
    fn png(
        url: String,
        size: Option<(f64, f64)>,
        name: String,
        revoke: bool,
    ) -> Result<(), JsValue> {
        let image = web_sys::HtmlImageElement::new()?;
        let loaded = image.clone();
        let svg_url = url.clone();
        let onload = Closure::once_into_js(move || {
            let (w, h) = size.unwrap_or_else(|| {
                (
                    f64::from(loaded.natural_width()),
                    f64::from(loaded.natural_height()),
                )
            });
            let drawn = draw_png(&loaded, w, h, &name);
            if revoke {
                let _ = web_sys::Url::revoke_object_url(&svg_url);
            }
            if let Err(e) = drawn {
                web_sys::console::warn_2(&"The PNG could not be made:".into(), &e);
            }
        });
        image.set_onload(Some(onload.unchecked_ref()));
        image.set_src(&url);
        Ok(())
    }

    fn draw_png(
        image: &web_sys::HtmlImageElement,
        w: f64,
        h: f64,
        name: &str,
    ) -> Result<(), JsValue> {
        let document = web_sys::window()
            .and_then(|win| win.document())
            .ok_or_else(|| JsValue::from_str("no document"))?;
        let canvas: web_sys::HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
        canvas.set_width((w * 2.0) as u32);
        canvas.set_height((h * 2.0) as u32);
        let context: web_sys::CanvasRenderingContext2d = canvas
            .get_context("2d")?
            .ok_or_else(|| JsValue::from_str("no 2d context"))?
            .dyn_into()?;
        context.scale(2.0, 2.0)?;
        context.draw_image_with_html_image_element_and_dw_and_dh(image, 0.0, 0.0, w, h)?;
        let url = canvas.to_data_url_with_type("image/png")?;
        click_download(&url, name)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod browser {
    use super::*;

    /// Nothing to listen to without a browser.
    pub struct NoListener;

    pub type Listener = Option<NoListener>;

    pub fn tip_of(_e: &Event) -> Option<String> {
        None
    }

    pub fn local(_svg_ref: &NodeRef, _client: i32, _horizontal: bool) -> Option<f64> {
        None
    }

    pub fn capture(_svg_ref: &NodeRef, _pointer_id: i32) {}

    pub fn on_resize(_holder: NodeRef, _changed: impl FnMut(f64) + 'static) -> Listener {
        None
    }

    pub fn on_wheel(_svg_ref: NodeRef, _turned: impl FnMut(Wheel) + 'static) -> Listener {
        None
    }

    pub fn save(_kind: Kind, _svg_ref: &NodeRef, _run_file: &Callback<(), String>) {}

    pub fn save_png_of(_svg_url: &str, _name: &str) {}
}
