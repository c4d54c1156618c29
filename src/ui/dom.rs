//! Reading what a visitor typed or ticked. The browser types exist only in
//! the wasm build; natively (server rendering in tests) no event ever fires,
//! so the readers there return empty values.

use yew::events::Event;

/// The value of the `<input>` or `<select>` an event came from.
#[cfg(target_arch = "wasm32")]
pub fn value_of(event: &Event) -> String {
    use yew::TargetCast;
    if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
        return select.value();
    }
    event
        .target_dyn_into::<web_sys::HtmlInputElement>()
        .map(|input| input.value())
        .unwrap_or_default()
}

/// Whether the checkbox an event came from is ticked.
#[cfg(target_arch = "wasm32")]
pub fn checked_of(event: &Event) -> bool {
    use yew::TargetCast;
    event
        .target_dyn_into::<web_sys::HtmlInputElement>()
        .is_some_and(|input| input.checked())
}

#[cfg(not(target_arch = "wasm32"))]
pub fn value_of(_event: &Event) -> String {
    String::new()
}

#[cfg(not(target_arch = "wasm32"))]
pub fn checked_of(_event: &Event) -> bool {
    false
}

/// Brings the simulation (the controls and the cards) into view, as after
/// opening a run from further down the page.
#[cfg(target_arch = "wasm32")]
pub fn show_simulation() {
    let target = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".controls").ok().flatten());
    if let Some(element) = target {
        element.scroll_into_view();
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub fn show_simulation() {}
