//! The browser glue itself, for wasm32 (see the module above).

use super::{Download, Rove, Wheel};
use crate::tools::compare::address::table_settings;
use crate::tools::explore::form::EXPLORE_LINK_KEY;
use crate::tools::finder::form::FIND_LINK_KEY;
use crate::ui::embed::HEIGHT_MESSAGE;
use crate::ui::guide::{shortcut_of, Shortcut};
use crate::ui::state::Action;
use crate::ui::views::View;
use crate::ui::worker::{WORKER_STYLE, WORKER_URL};
use crate::wire::host::{read_command, HostCommand, HostEvent};
use crate::work::Reply;
use gloo_events::{EventListener, EventListenerOptions};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker};
use yew::prelude::*;

/// A listener on the window or an element; dropping it removes it.
pub type Listener = Option<EventListener>;

// Fields: reading what a visitor typed or ticked.

/// The value of the `<input>` or `<select>` an event came from.
pub fn value_of(event: &Event) -> String {
    if let Some(select) = event.target_dyn_into::<web_sys::HtmlSelectElement>() {
        return select.value();
    }
    event
        .target_dyn_into::<web_sys::HtmlInputElement>()
        .map(|input| input.value())
        .unwrap_or_default()
}

/// What was typed in the field an event came from, putting the field back to
/// `shown` (the run's value): the page draws the value it then uses, the
/// new one if it is taken, and the old one if it is refused, which a
/// refusal repeated word for word would not otherwise redraw.
pub fn take_value(event: &Event, shown: &str) -> String {
    let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() else {
        return String::new();
    };
    let typed = input.value();
    input.set_value(shown);
    typed
}

/// Whether the checkbox an event came from is ticked.
pub fn checked_of(event: &Event) -> bool {
    event
        .target_dyn_into::<web_sys::HtmlInputElement>()
        .is_some_and(|input| input.checked())
}

/// Whether the `<details>` a toggle event came from is open now.
pub fn opened_of(event: &Event) -> bool {
    event
        .target_dyn_into::<web_sys::Element>()
        .is_some_and(|details| details.has_attribute("open"))
}

/// Brings the top of the page into view, as after opening a run from a
/// tool's view: the simulator that plays it starts there.
pub fn show_simulation() {
    if let Some(window) = web_sys::window() {
        window.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

// Frames: the clock's wakes, and the first screen's frames.

type FrameFn = Closure<dyn FnMut(f64)>;

/// A running loop of animation frames, one call per frame, given the
/// frame's time in milliseconds. Dropping it stops the loop.
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
    pub fn start(mut on_frame: impl FnMut(f64) + 'static) -> Option<FrameLoop> {
        let window = web_sys::window()?;
        let request = Rc::new(Cell::new(None));
        let callback: Rc<RefCell<Option<FrameFn>>> = Rc::new(RefCell::new(None));
        let weak = Rc::downgrade(&callback);
        let (next_window, next_request) = (window.clone(), request.clone());
        let frame = Closure::new(move |timestamp: f64| {
            next_request.set(None);
            on_frame(timestamp);
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

/// The running clock's wakes (`ui::pacing`): one call of `on_wake` in the
/// first animation frame after a delay of wall time, given the frame's
/// time in milliseconds; it answers the delay to the next call, from now,
/// or `None` for no more. Between calls nothing runs: one timer is set,
/// and only when it fires is a frame asked for. A frame rather than the
/// timer itself: the work is done where the browser draws, once, and a
/// hidden tab, which gets no frames, moves no clock. `set_again` sets the
/// next call anew, the one pending dropped; dropping the alarm cancels
/// what is pending.
pub struct Alarm(Rc<AlarmParts>);

/// An `Alarm`'s pending timer or frame and its two callbacks, which hold
/// the parts weakly to set the next of each other.
struct AlarmParts {
    window: web_sys::Window,
    timer: Cell<Option<i32>>,
    frame: Cell<Option<i32>>,
    on_timer: RefCell<Option<Closure<dyn FnMut()>>>,
    on_frame: RefCell<Option<FrameFn>>,
}

impl AlarmParts {
    /// Cancels the timer or frame pending.
    fn cancel(&self) {
        if let Some(id) = self.timer.take() {
            self.window.clear_timeout_with_handle(id);
        }
        if let Some(id) = self.frame.take() {
            // Nothing useful can be done if the browser refuses to cancel.
            let _ = self.window.cancel_animation_frame(id);
        }
    }

    /// Sets the timer for `delay_ms` from now; no delay asks for the next
    /// frame straight away.
    fn set(&self, delay_ms: f64) {
        if delay_ms <= 0.0 {
            self.ask_frame();
            return;
        }
        if let Some(f) = self.on_timer.borrow().as_ref() {
            let id = self
                .window
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    f.as_ref().unchecked_ref(),
                    delay_ms.ceil().min(f64::from(i32::MAX)) as i32,
                )
                .ok();
            self.timer.set(id);
        }
    }

    fn ask_frame(&self) {
        if let Some(f) = self.on_frame.borrow().as_ref() {
            let id = self
                .window
                .request_animation_frame(f.as_ref().unchecked_ref())
                .ok();
            self.frame.set(id);
        }
    }
}

impl Alarm {
    /// Calls `on_wake` in the first frame after `delay_ms`, and then as it
    /// asks; `None` outside a browser window.
    pub fn start(
        delay_ms: f64,
        mut on_wake: impl FnMut(f64) -> Option<f64> + 'static,
    ) -> Option<Alarm> {
        let parts = Rc::new(AlarmParts {
            window: web_sys::window()?,
            timer: Cell::new(None),
            frame: Cell::new(None),
            on_timer: RefCell::new(None),
            on_frame: RefCell::new(None),
        });
        let weak = Rc::downgrade(&parts);
        let on_timer = Closure::new(move || {
            if let Some(parts) = weak.upgrade() {
                parts.timer.set(None);
                parts.ask_frame();
            }
        });
        let weak = Rc::downgrade(&parts);
        let on_frame = Closure::new(move |timestamp: f64| {
            let Some(parts) = weak.upgrade() else {
                return;
            };
            parts.frame.set(None);
            if let Some(delay_ms) = on_wake(timestamp) {
                parts.set(delay_ms);
            }
        });
        *parts.on_timer.borrow_mut() = Some(on_timer);
        *parts.on_frame.borrow_mut() = Some(on_frame);
        parts.set(delay_ms);
        Some(Alarm(parts))
    }

    /// Calls `on_wake` in the first frame after `delay_ms` from now,
    /// instead of when it was to be called.
    pub fn set_again(&self, delay_ms: f64) {
        self.0.cancel();
        self.0.set(delay_ms);
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        let parts = &self.0;
        parts.cancel();
        // If a callback is running right now, wasm-bindgen defers freeing
        // it until the call returns.
        parts.on_timer.borrow_mut().take();
        parts.on_frame.borrow_mut().take();
    }
}

/// Calls a function once, in a task of its own after this one (a zero
/// timeout), so a long piece of work is two shorter tasks. Dropping it
/// first cancels the call.
pub struct NextTask {
    _pending: gloo_timers::callback::Timeout,
}

impl NextTask {
    pub fn start(then: impl FnOnce() + 'static) -> Option<NextTask> {
        let _pending = gloo_timers::callback::Timeout::new(0, then);
        Some(NextTask { _pending })
    }
}

/// Calls a function once, `delay_ms` from now. Dropping it first cancels
/// the call.
pub struct Later {
    _pending: gloo_timers::callback::Timeout,
}

impl Later {
    pub fn start(delay_ms: u64, then: impl FnOnce() + 'static) -> Option<Later> {
        let delay = u32::try_from(delay_ms).unwrap_or(u32::MAX);
        let _pending = gloo_timers::callback::Timeout::new(delay, then);
        Some(Later { _pending })
    }
}

/// The reader's own time in milliseconds (`performance.now()`): it decides
/// only when the narrator may speak again, never what the run does.
pub fn wall_ms() -> u64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0, |p| p.now().max(0.0) as u64)
}

/// The first render draws the first screen alone, and the rest of the page
/// follows once that screen is painted.
pub fn first_screen_first() -> bool {
    true
}

// The keyboard: one listener on the document turns keys into shortcuts.

/// The document's keydown listener. Dropping it removes it.
pub struct KeyListener {
    document: web_sys::Document,
    callback: Closure<dyn FnMut(web_sys::KeyboardEvent)>,
}

impl KeyListener {
    pub fn start(dispatch: Callback<Action>) -> Option<KeyListener> {
        let document = web_sys::window()?.document()?;
        let callback = Closure::new(move |e: web_sys::KeyboardEvent| {
            if let Some(key) = wanted(&e) {
                // Space and the arrows would scroll the page as well.
                if key != Shortcut::Escape {
                    e.prevent_default();
                }
                dispatch.emit(Action::Shortcut(key));
            }
        });
        document
            .add_event_listener_with_callback("keydown", callback.as_ref().unchecked_ref())
            .ok()?;
        Some(KeyListener { document, callback })
    }
}

impl Drop for KeyListener {
    fn drop(&mut self) {
        let _ = self
            .document
            .remove_event_listener_with_callback("keydown", self.callback.as_ref().unchecked_ref());
    }
}

/// The shortcut a key press asks for, unless it belongs to something else.
fn wanted(e: &web_sys::KeyboardEvent) -> Option<Shortcut> {
    if e.ctrl_key() || e.meta_key() || e.alt_key() || e.default_prevented() {
        return None;
    }
    let key = shortcut_of(&e.key())?;
    let target = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
    let tag = target.as_ref().map(|t| t.tag_name()).unwrap_or_default();
    let editable = target
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
        .is_some_and(|t| t.is_content_editable());
    let typing = matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") || editable;
    let pressing = matches!(tag.as_str(), "BUTTON" | "SUMMARY" | "A");
    match key {
        Shortcut::Escape => Some(key),
        _ if typing => None,
        Shortcut::StartPause if pressing => None,
        _ => Some(key),
    }
}

/// Scrolls the part of the page a tour points at into view, only as far
/// as needed (its scroll margins keep it clear of the docked tour bar and
/// the sticky status strip), at once.
pub fn scroll_to_spotlight() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(document) = window.document() else {
        return;
    };
    // The bar's caption may have just changed: its height is taken now,
    // before its watcher hears, so the scroll clears the bar as it is.
    if let (Ok(Some(bar)), Some(root)) = (
        document.query_selector(".tour--docked"),
        document.document_element(),
    ) {
        set_tour_height(&root, &bar);
    }
    if let Ok(Some(spot)) = document.query_selector(".is-spotlit") {
        // At once, not smoothly: the caption that names the part shows in
        // this frame, and a smooth scroll left the part under the tour bar
        // (or the status strip) for most of a second after it.
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Nearest);
        options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
        spot.scroll_into_view_with_scroll_into_view_options(&options);
    }
}

/// Whether the visitor asked for reduced motion. The media query is asked
/// for once (`matchMedia`, read by name: the page builds no binding for
/// it) and its list kept: the list's `matches` follows the visitor's
/// setting as it changes, and reading it costs far less than a query
/// parsed at every glide (several a render).
fn prefers_reduced_motion(window: &web_sys::Window) -> bool {
    thread_local! {
        static REDUCED_MOTION: std::cell::OnceCell<Option<JsValue>> =
            const { std::cell::OnceCell::new() };
    }
    REDUCED_MOTION.with(|list| {
        list.get_or_init(|| {
            let match_media = js_sys::Reflect::get(window, &"matchMedia".into()).ok()?;
            let match_media = match_media.dyn_into::<js_sys::Function>().ok()?;
            match_media
                .call1(window, &"(prefers-reduced-motion: reduce)".into())
                .ok()
        })
        .as_ref()
        .and_then(|list| js_sys::Reflect::get(list, &"matches".into()).ok())
        .and_then(|m| m.as_bool())
        .unwrap_or(false)
    })
}

/// A straight motion of one element's transform, from `from` to `to` over
/// `duration_ms` of wall time, carried on by the browser (a Web Animation,
/// on the compositor where the element has a layer of its own) with no
/// script and no change to the page's markup; it holds `to` at its end.
/// Dropping it cancels it, and the element shows its markup again. `None`
/// without the element or when the visitor asked for reduced motion: the
/// part then moves only when the page is drawn.
pub struct Glide(JsValue);

impl Drop for Glide {
    fn drop(&mut self) {
        call_by_name(&self.0, "cancel", &js_sys::Array::new());
    }
}

/// Starts a `Glide` on the element behind `node`. Called by name, as
/// `matchMedia` above: the page builds no binding for Web Animations.
pub fn glide(node: &NodeRef, from: &str, to: &str, duration_ms: f64) -> Option<Glide> {
    let element = node.cast::<web_sys::Element>()?;
    let window = web_sys::window()?;
    if prefers_reduced_motion(&window) {
        return None;
    }
    let frame = |transform: &str| {
        let frame = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&frame, &"transform".into(), &transform.into());
        frame
    };
    let frames = js_sys::Array::of2(&frame(from), &frame(to));
    let timing = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&timing, &"duration".into(), &duration_ms.into());
    let _ = js_sys::Reflect::set(&timing, &"fill".into(), &"forwards".into());
    let animation = call_by_name(&element, "animate", &js_sys::Array::of2(&frames, &timing))?;
    Some(Glide(animation))
}

/// Calls `target`'s method `name` with `args`; its answer, if it has one.
fn call_by_name(target: &JsValue, name: &str, args: &js_sys::Array) -> Option<JsValue> {
    let method = js_sys::Reflect::get(target, &name.into()).ok()?;
    let method = method.dyn_into::<js_sys::Function>().ok()?;
    method.apply(target, args).ok()
}

/// Whether the visitor asked for reduced motion: nothing then glides
/// (`glide` starts nothing), and the parts move only when drawn.
pub fn motion_reduced() -> bool {
    web_sys::window().is_some_and(|window| prefers_reduced_motion(&window))
}

/// Marks a render of the page in a performance trace (`console.timeStamp`,
/// close to free when no trace is taken), and "recorded" beside it when it
/// is drawn for something the run recorded while the clock runs: the frame
/// benchmark (scripts/budgets/time_frames.mjs) counts the frames that
/// rendered, and tells those for an event from those for time alone.
pub fn mark_render(recorded: bool) {
    web_sys::console::time_stamp_with_data(&"render".into());
    if recorded {
        web_sys::console::time_stamp_with_data(&"recorded".into());
    }
}

/// Keeps `--tour-h` on the page's root at the docked tour bar's height, so
/// the page's foot pads itself by exactly that much and a spotlit part
/// scrolls clear of the bar. Dropping it disconnects it and removes the
/// property.
pub struct DockWatch {
    observer: web_sys::ResizeObserver,
    root: web_sys::Element,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl DockWatch {
    pub fn start() -> Option<DockWatch> {
        let document = web_sys::window()?.document()?;
        let bar = document.query_selector(".tour--docked").ok()??;
        let root = document.document_element()?;
        let (measured, styled) = (bar.clone(), root.clone());
        let callback = Closure::new(move |_entries: js_sys::Array| {
            set_tour_height(&styled, &measured);
        });
        let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        observer.observe(&bar);
        Some(DockWatch {
            observer,
            root,
            _callback: callback,
        })
    }
}

impl Drop for DockWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
        style_call(&self.root, "removeProperty", &[&"--tour-h".into()]);
    }
}

/// `--tour-h` on `root`: the docked bar's height, in whole pixels.
fn set_tour_height(root: &web_sys::Element, bar: &web_sys::Element) {
    // An integer: formatting a float would bring the float formatter into
    // the page's wasm (about 20 KB gzip), which nothing else there needs.
    let whole = bar.get_bounding_client_rect().height().ceil().max(0.0) as u32;
    let px = format!("{whole}px");
    style_call(root, "setProperty", &[&"--tour-h".into(), &px.into()]);
}

/// Calls a method of an element's inline style by name (the page builds
/// no binding for CSSStyleDeclaration).
fn style_call(element: &web_sys::Element, method: &str, args: &[&JsValue]) {
    let Ok(style) = js_sys::Reflect::get(element, &"style".into()) else {
        return;
    };
    let method = js_sys::Reflect::get(&style, &method.into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(method) = method {
        let list: js_sys::Array = args.iter().map(|a| (*a).clone()).collect();
        let _ = method.apply(&style, &list);
    }
}

/// Moves the keyboard's focus to an element (a menu's button once the menu
/// closes, so focus is not lost with the list).
pub fn focus(node: &NodeRef) {
    if let Some(element) = node.cast::<web_sys::HtmlElement>() {
        let _ = element.focus();
    }
}

// Where the focus goes when its control goes away.

/// Keeps the keyboard's focus off the page's body: it remembers the control
/// focused last and the place its part of the page names for it
/// (`data-focus-home`: selectors tried in turn, split by `|`), and when
/// that control is gone, disabled or hidden while the focus has fallen to
/// the body, moves the focus there. Dropping it removes its listeners.
pub struct FocusKeeper {
    last: Rc<FocusLast>,
    _listeners: [EventListener; 2],
}

/// The control focused last, its home, and a check waiting for the focus
/// to settle after a blur.
#[derive(Default)]
struct FocusLast {
    control: RefCell<Option<(web_sys::Element, String)>>,
    pending: RefCell<Option<gloo_timers::callback::Timeout>>,
}

/// Where a control with no home of its own sends the focus.
const FOCUS_HOME_DEFAULT: &str = "#main";

impl FocusKeeper {
    pub fn start() -> Option<FocusKeeper> {
        let document = web_sys::window()?.document()?;
        let last = Rc::new(FocusLast::default());
        let heard = last.clone();
        let focus_in = EventListener::new(&document, "focusin", move |e| {
            let Some(control) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            else {
                return;
            };
            let home = control
                .closest("[data-focus-home]")
                .ok()
                .flatten()
                .and_then(|h| h.get_attribute("data-focus-home"))
                .unwrap_or_else(|| FOCUS_HOME_DEFAULT.to_string());
            *heard.control.borrow_mut() = Some((control, home));
        });
        let heard = last.clone();
        let focus_out = EventListener::new(&document, "focusout", move |e| {
            let to_nothing = e
                .dyn_ref::<web_sys::FocusEvent>()
                .is_none_or(|f| f.related_target().is_none());
            if to_nothing {
                let later = heard.clone();
                *heard.pending.borrow_mut() =
                    Some(gloo_timers::callback::Timeout::new(0, move || {
                        later.check();
                    }));
            }
        });
        Some(FocusKeeper {
            last,
            _listeners: [focus_in, focus_out],
        })
    }

    /// After the page is drawn: a focus lost with its control moves home.
    pub fn check(&self) {
        self.last.check();
    }
}

impl FocusLast {
    fn check(&self) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let active = document.active_element();
        let lost = active
            .as_ref()
            .is_none_or(|a| a.tag_name() == "BODY" || a.has_attribute("disabled"));
        if !lost {
            return;
        }
        let Some((control, home)) = self.control.borrow().clone() else {
            return;
        };
        let gone = !control.is_connected()
            || control.has_attribute("disabled")
            || control.closest("[hidden]").ok().flatten().is_some();
        if !gone {
            // A click on the page's background: the reader's own choice.
            return;
        }
        for selector in home.split('|').chain([FOCUS_HOME_DEFAULT]) {
            let target = document
                .query_selector(selector)
                .ok()
                .flatten()
                .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(target) = target {
                let _ = target.focus();
                if document.active_element().as_deref() == Some(target.as_ref()) {
                    return;
                }
            }
        }
    }
}

/// Keeps the narration's setting in the page's address (`narration=full`;
/// `None` for the default, said by no word), the rest of it as it is.
pub fn keep_narration_in_address(slug: Option<&str>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let search = location.search().unwrap_or_default();
    let mut pairs: Vec<String> = search
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some("narration"))
        .map(str::to_string)
        .collect();
    if let Some(slug) = slug {
        pairs.push(format!("narration={slug}"));
    }
    let query = if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    };
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(
            &JsValue::NULL,
            "",
            Some(&format!("{path}{query}{hash}")),
        );
    }
}

/// Moves the keyboard's focus to the element with this id (a skip link's
/// target), scrolling it into view.
pub fn focus_id(id: &str) {
    let target = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(target) = target {
        let _ = target.focus();
    }
}

// The page's address, and the host page of an embed.

/// The query, the fragment, and whether the page sits in a frame.
pub fn location() -> Option<(String, String, bool)> {
    let window = web_sys::window()?;
    let location = window.location();
    let framed = match window.top() {
        Ok(Some(top)) => top != window,
        // A frame whose parent cannot be reached is a frame all the same.
        _ => true,
    };
    Some((
        location.search().unwrap_or_default(),
        location.hash().unwrap_or_default(),
        framed,
    ))
}

/// Points the clicked link at `href` before the browser follows it.
pub fn point_link(e: &MouseEvent, href: &str) {
    // The target, not the current target: Yew listens at the page's root,
    // so the current target is the root, with no link around it, and the
    // link kept its bare address (the run was lost on the way).
    if let Some(a) = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|t| t.closest("a").ok().flatten())
    {
        let _ = a.set_attribute("href", href);
    }
}

/// Tells the host page the content's height whenever it changes, once it
/// has settled: a change is told only after the height has stood still for
/// `HEIGHT_SETTLE_MS`, so the first height told is the page drawn whole,
/// not the screen drawn at build time it replaces. Two messages: the host
/// API's `height` event and the older `embed::HEIGHT_MESSAGE`, each naming
/// the frame. Dropping it disconnects it.
pub struct HeightReport {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
    _pending: Rc<RefCell<Option<gloo_timers::callback::Timeout>>>,
    /// The frame resized by its host.
    _resized: EventListener,
}

/// How long the page's height must stand still before it is told.
const HEIGHT_SETTLE_MS: u32 = 150;

/// The attribute on the root while the frame shows the whole page (its
/// host sized it by the height told): the tour's bar then sits in the
/// page's flow near the top, not docked at the foot of a frame as tall as
/// the page.
const WHOLE_ATTRIBUTE: &str = "data-embed-whole";

impl HeightReport {
    pub fn start(id: Rc<str>) -> Option<HeightReport> {
        let window = web_sys::window()?;
        let document = window.document()?;
        let body = document.body()?;
        let observed = body.clone();
        let root = document.document_element()?;
        let pending: Rc<RefCell<Option<gloo_timers::callback::Timeout>>> = Rc::default();
        let told = Rc::new(Cell::new(0));
        // Whether the frame's own size is to be judged again: at the start
        // and whenever the host resizes the frame, never when only the
        // content changed (the host has not followed the new height yet).
        let judge = Rc::new(Cell::new(true));
        let settle = {
            let (pending, window, judge) = (pending.clone(), window.clone(), judge.clone());
            Rc::new(move || {
                let (body, root, told, id, window, judge) = (
                    body.clone(),
                    root.clone(),
                    told.clone(),
                    id.clone(),
                    window.clone(),
                    judge.clone(),
                );
                // Each change starts the wait again.
                *pending.borrow_mut() = Some(gloo_timers::callback::Timeout::new(
                    HEIGHT_SETTLE_MS,
                    move || {
                        let height = body.scroll_height().max(body.offset_height());
                        if height != told.replace(height) {
                            post_height(height, &id);
                        }
                        if !judge.replace(false) {
                            return;
                        }
                        let shown = window
                            .inner_height()
                            .ok()
                            .and_then(|h| h.as_f64())
                            .unwrap_or_default();
                        let _ = if shown + 2.0 >= f64::from(height) {
                            root.set_attribute(WHOLE_ATTRIBUTE, "")
                        } else {
                            root.remove_attribute(WHOLE_ATTRIBUTE)
                        };
                    },
                ));
            })
        };
        let on_change = settle.clone();
        let callback = Closure::new(move |_entries: js_sys::Array| on_change());
        let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        observer.observe(&observed);
        let resized = EventListener::new(&window, "resize", move |_| {
            judge.set(true);
            settle();
        });
        Some(HeightReport {
            observer,
            _callback: callback,
            _pending: pending,
            _resized: resized,
        })
    }
}

impl Drop for HeightReport {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

fn post_height(height: i32, id: &str) {
    let Some(parent) = host_window() else {
        return;
    };
    let px = u32::try_from(height).unwrap_or_default();
    tell_host(&HostEvent::Height { px }, id);
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE.into());
    let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
    let _ = js_sys::Reflect::set(&message, &"id".into(), &JsValue::from_str(id));
    // The height is no secret: any host may read it.
    let _ = parent.post_message(&message, "*");
}

/// The window that frames this page, if another one does.
fn host_window() -> Option<web_sys::Window> {
    let window = web_sys::window()?;
    let parent = window.parent().ok()??;
    (parent != window).then_some(parent)
}

/// Sends the host page one event from the frame called `id`. Events say
/// only what the page shows anyway, so any host may read them (`"*"`).
pub fn tell_host(event: &HostEvent, id: &str) {
    let Some(parent) = host_window() else {
        return;
    };
    if let Ok(message) = js_sys::JSON::parse(&event.to_json(id)) {
        let _ = parent.post_message(&message, "*");
    }
}

/// A frame id made up for a page whose address names none: "distlock-"
/// and six letters or digits, different for each frame on a page.
pub fn made_up_id() -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    // Not part of any run: the simulation's own randomness is its seed's.
    let tail: String = (0..6)
        .map(|_| {
            let i = (js_sys::Math::random() * DIGITS.len() as f64) as usize;
            char::from(DIGITS[i.min(DIGITS.len() - 1)])
        })
        .collect();
    format!("distlock-{tail}")
}

/// The parent window's messages, read into host commands; a message from
/// any other window (another frame, a popup, the page itself) is ignored.
/// Dropping it stops listening.
pub struct HostPort {
    _listener: EventListener,
}

impl HostPort {
    pub fn start(on_read: impl Fn(Result<HostCommand, String>) + 'static) -> Option<HostPort> {
        let window = web_sys::window()?;
        let parent = host_window()?;
        let listener = EventListener::new(&window, "message", move |e| {
            let Some(e) = e.dyn_ref::<MessageEvent>() else {
                return;
            };
            let from_parent = e
                .source()
                .is_some_and(|source| js_sys::Object::is(&source, parent.as_ref()));
            if !from_parent {
                return;
            }
            let text = js_sys::JSON::stringify(&e.data())
                .ok()
                .and_then(|t| t.as_string());
            on_read(match text {
                Some(text) => read_command(&text),
                None => Err(
                    "The message cannot be read as JSON: send an object like {type: \"distlock\", command: \"play\"}."
                        .into(),
                ),
            });
        });
        Some(HostPort {
            _listener: listener,
        })
    }
}

// Sharing a run: the address bar, the clipboard, and run files.

// The fragment the page itself last put in the address bar, so that
// its own change is not taken for a visitor's.
thread_local! {
    static OWN_FRAGMENT: RefCell<String> = const { RefCell::new(String::new()) };
    /// The comparison's settings while another view is on show
    /// (`ttl=12&fence=takeover`), put back in the address on coming back.
    static TABLE_SETTINGS: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The page's own address with `fragment` in place of its own.
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
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
}

/// Puts `text` on the clipboard; `done` hears whether it was taken.
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

/// Reads the run file chosen in the `<input type="file">` an event came
/// from, and hands its text (or why not) to the page.
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

/// Hears a visitor's change of the fragment (not the page's own).
pub fn on_hash_change(changed: impl Fn(String) + 'static) -> Listener {
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

// The hazard explorer: its settings in the page's address.

/// The page address's query string (`location.search`).
pub fn search() -> Option<String> {
    web_sys::window()?.location().search().ok()
}

/// Puts a tool's settings into the page's address, so the link
/// reproduces the numbers: `?explore&` (or `?find&`) and the form's fields
/// as they were sent (already a query string); the fragment (a run) stays.
pub fn keep_in_link(key: &str, query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let hash = window.location().hash().unwrap_or_default();
    let url = format!("?{key}&{query}{hash}");
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Puts a view's query (`?view=compare`, or `""` for the simulator) in the
/// page's address, keeping the fragment (the run). The explorer keeps its
/// own settings in the query while it is on show.
pub fn show_view_in_address(query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let search = location.search().unwrap_or_default();
    // A tool's view keeps its own settings in the address while on show.
    let kept = |key: &str| {
        query.ends_with(key)
            && search
                .trim_start_matches('?')
                .split('&')
                .any(|pair| pair.split('=').next() == Some(key))
    };
    if kept(EXPLORE_LINK_KEY) || kept(FIND_LINK_KEY) {
        return;
    }
    // The comparison's settings leave the address with its view and come
    // back with it, so its address on show always runs the table on show.
    let compare = View::Compare.query();
    let leaving_compare = search
        .trim_start_matches('?')
        .split('&')
        .any(|pair| Some(pair) == compare.strip_prefix('?'));
    if leaving_compare {
        TABLE_SETTINGS.with(|kept| *kept.borrow_mut() = table_settings(&search));
    }
    let query = match TABLE_SETTINGS.with(|kept| kept.borrow().clone()) {
        settings if query == compare && !settings.is_empty() => format!("{query}&{settings}"),
        _ => query.to_string(),
    };
    let query = query.as_str();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    // The narration's setting is the reader's, whatever the view.
    let narration = search
        .trim_start_matches('?')
        .split('&')
        .find(|pair| pair.split('=').next() == Some("narration"))
        .map(|pair| format!("{}{pair}", if query.is_empty() { "?" } else { "&" }))
        .unwrap_or_default();
    let url = format!("{path}{query}{narration}{hash}");
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

// The background worker: started, sent requests, heard, and the clicks in
// the markup it draws.

/// Requests wait here until the worker says it is ready: one sent
/// while its wasm is still loading would be lost.
#[derive(Default)]
struct Line {
    ready: bool,
    waiting: Vec<String>,
}

/// The page's line to one `web_sys::Worker`. Dropping it terminates the
/// worker.
pub struct WorkerPort {
    worker: Option<Worker>,
    line: Rc<RefCell<Line>>,
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    _on_error: Option<Closure<dyn FnMut(web_sys::Event)>>,
}

impl WorkerPort {
    pub fn start(on_reply: Callback<Result<Reply, String>>) -> WorkerPort {
        let line = Rc::new(RefCell::new(Line::default()));
        let worker = match Worker::new(WORKER_URL) {
            Ok(w) => {
                link_style();
                w
            }
            Err(_) => {
                on_reply.emit(Err(NO_WORKER.into()));
                return WorkerPort {
                    worker: None,
                    line,
                    _on_message: None,
                    _on_error: None,
                };
            }
        };
        let on_message = {
            let (line, worker, on_reply) = (line.clone(), worker.clone(), on_reply.clone());
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                if text == "ready" {
                    let mut line = line.borrow_mut();
                    line.ready = true;
                    for request in line.waiting.drain(..) {
                        let _ = worker.post_message(&JsValue::from_str(&request));
                    }
                    return;
                }
                on_reply.emit(Reply::read(&text));
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            on_reply.emit(Err(NO_WORKER.into()))
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        WorkerPort {
            worker: Some(worker),
            line,
            _on_message: Some(on_message),
            _on_error: Some(on_error),
        }
    }

    pub fn send(&self, request: String) {
        let Some(worker) = &self.worker else { return };
        let mut line = self.line.borrow_mut();
        if line.ready {
            let _ = worker.post_message(&JsValue::from_str(&request));
        } else {
            line.waiting.push(request);
        }
    }
}

impl Drop for WorkerPort {
    fn drop(&mut self) {
        if let Some(worker) = &self.worker {
            // No reply already on its way reaches a handler that is
            // about to be freed.
            worker.set_onmessage(None);
            worker.set_onerror(None);
            worker.terminate();
        }
    }
}

/// Turns on the worker's stylesheet: the page names it disabled, so
/// that it is not fetched before a worker starts.
fn link_style() {
    let style = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(WORKER_STYLE).ok().flatten());
    if let Some(link) = style {
        let _ = link.remove_attribute("disabled");
    }
}

const NO_WORKER: &str = "This runs in a background worker, which could not start here (a page that embeds this one may forbid workers). Open the simulator on its own page to run it.";

/// The element matching `selector` that a click fell on or inside.
fn clicked_in(e: &MouseEvent, selector: &str) -> Option<web_sys::Element> {
    let target = e.target()?.dyn_into::<web_sys::Element>().ok()?;
    target.closest(selector).ok()?
}

/// The SVG's address and the PNG's name, for a click on `data-png`.
pub fn png_asked(e: &MouseEvent) -> Option<(String, String)> {
    let button = clicked_in(e, "[data-png]")?;
    let body = button.closest(".work__body").ok()??;
    let svg = body.query_selector("a[data-svg]").ok()??;
    Some((
        svg.get_attribute("href")?,
        button.get_attribute("data-png")?,
    ))
}

/// For a click on a form's submit button (pressing Enter in one of its
/// fields clicks that button too), the form's fields as a query string,
/// however many there are; the form itself is not sent.
pub fn run_asked(e: &MouseEvent) -> Option<String> {
    let button = clicked_in(e, "[type=submit]")?;
    e.prevent_default();
    let form = button.closest("form").ok()??;
    let data = web_sys::FormData::new_with_form(form.dyn_ref()?).ok()?;
    let params = web_sys::UrlSearchParams::new_with_str_sequence_sequence(&data).ok()?;
    Some(params.to_string().into())
}

/// Whether the element clicked is (inside) one carrying `data-stop`.
pub fn stop_asked(e: &MouseEvent) -> bool {
    clicked_in(e, "[data-stop]").is_some()
}

/// The run link and its sentence on the element clicked, if any.
/// For a click on `data-copy` in a worker's drawing: copies the drawing's
/// read-only text and says in the status beside the button whether the
/// clipboard took it.
pub fn copy_asked(e: &MouseEvent) -> bool {
    let Some(button) = clicked_in(e, "[data-copy]") else {
        return false;
    };
    // The drawing's order: the button, its status, and after their
    // paragraph the text.
    let said = button.next_element_sibling();
    let text = button
        .parent_element()
        .and_then(|p| p.next_element_sibling());
    if let (Some(text), Some(said)) = (text.and_then(|t| t.text_content()), said) {
        copy(&text, move |ok| {
            said.set_text_content(Some(if ok {
                "Copied."
            } else {
                "The clipboard refused it: select the text below and copy it."
            }))
        });
    }
    true
}

pub fn open_asked(e: &MouseEvent) -> Option<(String, String)> {
    let element = clicked_in(e, "[data-open]")?;
    let fragment = element.get_attribute("data-open")?;
    let say = element.get_attribute("data-say").unwrap_or_default();
    Some((fragment, say))
}

/// The message whose "wire" disclosure a click opens (its summary's
/// `data-wire`); `None` for any other click, and for one that closes it.
pub fn wire_asked(e: &MouseEvent) -> Option<u64> {
    let summary = clicked_in(e, "[data-wire]")?;
    if summary.parent_element()?.has_attribute("open") {
        return None;
    }
    summary.get_attribute("data-wire")?.parse().ok()
}

// The timeline: pointer positions, the wheel, the panel's width, and
// downloads of the picture and the run.

/// Today's file names: the picture and the run share a stem.
const FILE_STEM: &str = "distlock-run";

/// The sentence of the mark under the pointer or focus: its `<title>`.
pub fn tip_of(e: &Event) -> Option<String> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    let mark = target
        .closest(".tl-mark, .tl-msg, .tl-renewal, .tl-traffic, .tl-dense, .tl-key-moment")
        .ok()??;
    let title = mark.query_selector("title").ok()??;
    title.text_content()
}

/// The message of the timeline arrow an event came from (its `data-msg`).
pub fn message_of(e: &Event) -> Option<u64> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    let arrow = target.closest(".tl-msg[data-msg]").ok()??;
    arrow.get_attribute("data-msg")?.parse().ok()
}

/// The moment of the timeline mark an event came from (its `data-t`).
/// Keeps one of the timeline's marks in the Tab order (`tabindex="0"`):
/// the one focused last while it is drawn, or else the first in time.
pub fn keep_one_tab_stop(svg_ref: &NodeRef) {
    let Some(svg) = svg_ref.cast::<web_sys::Element>() else {
        return;
    };
    if let Ok(Some(_)) = svg.query_selector(".tl-mark[tabindex=\"0\"]") {
        return;
    }
    if let Some(first) = marks_in_time(&svg).into_iter().next() {
        let _ = first.set_attribute("tabindex", "0");
    }
}

/// The timeline's marks in the order of their moments (the order drawn
/// for marks at the same moment).
fn marks_in_time(svg: &web_sys::Element) -> Vec<web_sys::Element> {
    let Ok(list) = svg.query_selector_all(".tl-mark[data-t]") else {
        return Vec::new();
    };
    let marks: Vec<(u64, web_sys::Element)> = (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<web_sys::Element>().ok())
        .map(|m| {
            let t = m
                .get_attribute("data-t")
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            (t, m)
        })
        .collect();
    // Each mark's time and its place in the document in one number, the
    // numbers sorted: in time order, marks at one time in document order.
    // The wasm sorts plain numbers already; a sort of these pairs brought
    // it 4 KiB of its own.
    let mut order: Vec<u64> = (marks.iter().enumerate())
        .map(|(i, (t, _))| ((*t).min(u64::MAX >> 24) << 24) | i as u64)
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .map(|k| marks[(k & 0xff_ffff) as usize].1.clone())
        .collect()
}

/// Moves the focus from the focused mark to another (a roving tabindex:
/// the one focused is the timeline's Tab stop). False when no mark has
/// the focus.
pub fn rove_marks(svg_ref: &NodeRef, rove: Rove) -> bool {
    let Some(svg) = svg_ref.cast::<web_sys::Element>() else {
        return false;
    };
    let marks = marks_in_time(&svg);
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .and_then(|a| a.closest(".tl-mark").ok().flatten());
    let Some(at) = active.and_then(|a| marks.iter().position(|m| *m == a)) else {
        return false;
    };
    let to = match rove {
        Rove::Next => (at + 1).min(marks.len() - 1),
        Rove::Previous => at.saturating_sub(1),
        Rove::First => 0,
        Rove::Last => marks.len() - 1,
    };
    for mark in &marks {
        let _ = mark.set_attribute("tabindex", "-1");
    }
    let target = &marks[to];
    let _ = target.set_attribute("tabindex", "0");
    if let Some(target) = target.dyn_ref::<web_sys::SvgElement>() {
        let _ = target.focus();
    }
    true
}

pub fn mark_time(e: &Event) -> Option<u64> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    let mark = target.closest(".tl-mark[data-t]").ok()??;
    mark.get_attribute("data-t")?.parse().ok()
}

pub fn local_x(svg_ref: &NodeRef, client_x: i32) -> Option<f64> {
    local(svg_ref, client_x, true)
}

pub fn local_y(svg_ref: &NodeRef, client_y: i32) -> Option<f64> {
    local(svg_ref, client_y, false)
}

fn local(svg_ref: &NodeRef, client: i32, horizontal: bool) -> Option<f64> {
    let svg = svg_ref.cast::<web_sys::Element>()?;
    let rect = svg.get_bounding_client_rect();
    Some(if horizontal {
        f64::from(client) - rect.left()
    } else {
        f64::from(client) - rect.top()
    })
}

/// Keeps the pointer's moves coming to the picture while it drags.
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

pub fn save(kind: Download, svg_ref: &NodeRef, run_file: &Callback<(), String>) {
    let result = match kind {
        Download::Json => save_text(
            &format!("{FILE_STEM}.json"),
            "application/json",
            &run_file.emit(()),
        ),
        Download::Svg => svg_text(svg_ref)
            .ok_or_else(|| JsValue::from_str("no picture"))
            .and_then(|svg| save_text(&format!("{FILE_STEM}.svg"), "image/svg+xml", &svg)),
        Download::Png => save_png(svg_ref),
    };
    if let Err(e) = result {
        web_sys::console::warn_2(&"The download could not be made:".into(), &e);
    }
}

/// The picture as a standalone SVG file: its colours are attributes, so
/// it looks the same without the page's style sheet. The layers drawn over
/// it, siblings after it in the page as large as it (the timeline's open
/// spans, the rest of its picture while the clock runs, its playhead),
/// join it in the file, in order.
fn svg_text(svg_ref: &NodeRef) -> Option<String> {
    let svg = svg_ref.cast::<web_sys::Element>()?;
    let whole = svg.outer_html();
    let mut text = whole.strip_suffix("</svg>")?.to_string();
    let mut layer = svg.next_element_sibling();
    while let Some(over) = layer {
        text.push_str(&layer_text(&over).unwrap_or_default());
        layer = over.next_element_sibling();
    }
    Some(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{text}</svg>"
    ))
}

/// A layer over the picture as markup inside it: an `<svg>`'s drawing, or
/// the open spans' drawing (`.tl-open__spans`) cut where their box
/// (`.tl-open__size`) ends.
fn layer_text(layer: &web_sys::Element) -> Option<String> {
    if layer.tag_name().eq_ignore_ascii_case("svg") {
        return Some(layer.inner_html());
    }
    let size = layer.query_selector(".tl-open__size").ok()??;
    let spans = layer.query_selector(".tl-open__spans").ok()??;
    let (width, height) = (size.get_attribute("width")?, size.get_attribute("height")?);
    Some(format!(
        r#"<clipPath id="tl-until"><rect x="0" y="0" width="{width}" height="{height}"/></clipPath><g clip-path="url(#tl-until)">{}</g>"#,
        spans.inner_html()
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
    let text = svg_text(svg_ref).ok_or_else(|| JsValue::from_str("no picture"))?;
    let url = blob_url(&text, "image/svg+xml")?;
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
fn png(url: String, size: Option<(f64, f64)>, name: String, revoke: bool) -> Result<(), JsValue> {
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

fn draw_png(image: &web_sys::HtmlImageElement, w: f64, h: f64, name: &str) -> Result<(), JsValue> {
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

// Files beside the page, fetched on first use.

/// Fetches the text file at `url` (beside the page) and hands `done` its
/// text, or why it could not be had.
pub fn fetch_text(url: &str, done: Callback<Result<String, String>>) {
    let Some(window) = web_sys::window() else {
        return done.emit(Err("this page has no window".into()));
    };
    let response = window.fetch_with_str(url);
    yew::platform::spawn_local(async move {
        done.emit(text_of(response).await);
    });
}

async fn text_of(response: js_sys::Promise) -> Result<String, String> {
    let response: web_sys::Response = JsFuture::from(response)
        .await
        .map_err(|_| "the network failed".to_string())?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("the server answered {}", response.status()));
    }
    let text = response
        .text()
        .map_err(|_| "it could not be read".to_string())?;
    JsFuture::from(text)
        .await
        .ok()
        .and_then(|text| text.as_string())
        .ok_or_else(|| "it could not be read".into())
}
