//! The page's background worker: a second WebAssembly build, fetched the
//! first time the page asks it for a job (see `distlock::work`). Each
//! message is a request as JSON text; each reply goes back the same way.
//!
//! Natively there is nothing to run: the jobs themselves are tested
//! through `distlock::work::serve`.

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let performance = scope.performance();
    let clock_ms = move || performance.as_ref().map_or(0.0, |p| p.now());
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let request = e.data().as_string().unwrap_or_default();
        distlock::work::serve(&request, &clock_ms, &mut |reply| {
            let _ = replies.post_message(&JsValue::from_str(&reply));
        });
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker does.
    on_message.forget();
    // Tells the page the worker is ready, so requests sent before this
    // moment are not lost (the page queues them until it hears this).
    let _ = scope.post_message(&JsValue::from_str("ready"));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("distlock-worker runs only inside the page, as its Web Worker.");
}
