//! The clock's heartbeat: one call per animation frame while the clock runs.
//! Wall time decides only *when* a frame comes; each frame advances the
//! simulation by a fixed step, so a slow machine shows the same run, slower.
//!
//! Animation frames rather than a timer: a timer can fire twice inside one
//! frame (doubling the work of that frame) and keeps firing in a hidden tab.

#[cfg(target_arch = "wasm32")]
mod browser {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    type FrameFn = Closure<dyn FnMut(f64)>;

    /// A running loop of animation frames. Dropping it stops the loop.
    pub struct FrameLoop {
        window: web_sys::Window,
        /// The pending frame request, to cancel on drop.
        request: Rc<Cell<Option<i32>>>,
        /// The only strong reference to the callback; the callback itself
        /// holds a weak one to ask for the next frame.
        callback: Rc<RefCell<Option<FrameFn>>>,
    }

    impl FrameLoop {
        /// Starts calling `on_frame` once per frame; `None` outside a browser window.
        pub fn start(mut on_frame: impl FnMut() + 'static) -> Option<FrameLoop> {
            let window = web_sys::window()?;
            let request = Rc::new(Cell::new(None));
            let callback: Rc<RefCell<Option<FrameFn>>> = Rc::new(RefCell::new(None));
            let weak = Rc::downgrade(&callback);
            let (next_window, next_request) = (window.clone(), request.clone());
            let frame = Closure::new(move |_timestamp: f64| {
                next_request.set(None);
                on_frame();
                if let Some(callback) = weak.upgrade() {
                    if let Some(f) = callback.borrow().as_ref() {
                        let id = next_window
                            .request_animation_frame(f.as_ref().unchecked_ref())
                            .ok();
                        next_request.set(id);
                    }
                }
            });
            let first = window
                .request_animation_frame(frame.as_ref().unchecked_ref())
                .ok()?;
            request.set(Some(first));
            *callback.borrow_mut() = Some(frame);
            Some(FrameLoop {
                window,
                request,
                callback,
            })
        }
    }

    impl Drop for FrameLoop {
        fn drop(&mut self) {
            if let Some(id) = self.request.take() {
                // Nothing useful can be done if the browser refuses to cancel.
                let _ = self.window.cancel_animation_frame(id);
            }
            // If the callback is running right now, wasm-bindgen defers
            // freeing it until the call returns.
            self.callback.borrow_mut().take();
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub use browser::FrameLoop;

/// Natively (server rendering in tests) there are no frames.
#[cfg(not(target_arch = "wasm32"))]
pub struct FrameLoop;

#[cfg(not(target_arch = "wasm32"))]
impl FrameLoop {
    pub fn start(_on_frame: impl FnMut() + 'static) -> Option<FrameLoop> {
        None
    }
}
