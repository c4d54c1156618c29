//! The glue's native twin (server rendering, tests): the same names as
//! `web.rs`, doing nothing. No event fires here, there is no window,
//! keyboard, address bar, host page or worker.

use super::{Download, Rove, Wheel};
use crate::ui::state::Action;
use crate::work::Reply;
use yew::prelude::*;

/// Nothing to listen to without a browser.
pub struct NoListener;

pub type Listener = Option<NoListener>;

pub fn value_of(_event: &Event) -> String {
    String::new()
}

pub fn take_value(_event: &Event, _shown: &str) -> String {
    String::new()
}

pub fn checked_of(_event: &Event) -> bool {
    false
}

/// No panel is opened without a browser.
pub fn opened_of(_event: &Event) -> bool {
    false
}

pub fn show_simulation() {}

/// No frames.
pub struct FrameLoop;

impl FrameLoop {
    pub fn start(_on_frame: impl FnMut(f64) + 'static) -> Option<FrameLoop> {
        None
    }
}

/// No clock's wakes.
pub struct Alarm;

impl Alarm {
    pub fn start(
        _delay_ms: f64,
        _on_wake: impl FnMut(f64) -> Option<f64> + 'static,
    ) -> Option<Alarm> {
        None
    }

    pub fn set_again(&self, _delay_ms: f64) {}
}

/// No motion without a browser: the markup is all there is.
pub struct Glide;

pub fn glide(_node: &NodeRef, _from: &str, _to: &str, _duration_ms: f64) -> Option<Glide> {
    None
}

pub fn mark_render(_recorded: bool) {}

/// Without a browser no visitor asked for reduced motion.
pub fn motion_reduced() -> bool {
    false
}

/// No tasks: nothing is called.
pub struct NextTask;

impl NextTask {
    pub fn start(_then: impl FnOnce() + 'static) -> Option<NextTask> {
        None
    }
}

/// No timers natively: the call never comes.
pub struct Later;

impl Later {
    pub fn start(_delay_ms: u64, _then: impl FnOnce() + 'static) -> Option<Later> {
        None
    }
}

/// No reader's clock natively: always the start.
pub fn wall_ms() -> u64 {
    0
}

/// No focus to keep without a document.
pub struct FocusKeeper;

impl FocusKeeper {
    pub fn start() -> Option<FocusKeeper> {
        None
    }

    pub fn check(&self) {}
}

pub fn keep_narration_in_address(_slug: Option<&str>) {}

pub fn focus_id(_id: &str) {}

/// No marks to keep in the Tab order without a document.
pub fn keep_one_tab_stop(_svg_ref: &NodeRef) {}

/// No focus to move without a document.
pub fn rove_marks(_svg_ref: &NodeRef, _rove: Rove) -> bool {
    false
}

thread_local! {
    static FIRST_SCREEN_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Without a browser nothing is painted: the page is drawn whole at once,
/// unless the build's prerender step asked for the first screen alone
/// (`draw_first_screen_only`), the markup the wasm's own first render makes.
pub fn first_screen_first() -> bool {
    FIRST_SCREEN_ONLY.with(|only| only.get())
}

/// Makes this thread's renders draw the first screen alone, as the page's
/// first render in a browser does (examples/prerender.rs).
pub fn draw_first_screen_only() {
    FIRST_SCREEN_ONLY.with(|only| only.set(true));
}

/// No keyboard.
pub struct KeyListener;

impl KeyListener {
    pub fn start(_dispatch: Callback<Action>) -> Option<KeyListener> {
        None
    }
}

pub fn scroll_to_spotlight() {}

pub fn location() -> Option<(String, String, bool)> {
    None
}

pub fn point_link(_e: &MouseEvent, _href: &str) {}

/// No host page to tell.
pub struct HeightReport;

impl HeightReport {
    pub fn start(_id: std::rc::Rc<str>) -> Option<HeightReport> {
        None
    }
}

/// No host page to tell.
pub fn tell_host(_event: &crate::wire::host::HostEvent, _id: &str) {}

/// Natively every frame is the same one.
pub fn made_up_id() -> String {
    "distlock".into()
}

/// No host page to listen to.
pub struct HostPort;

impl HostPort {
    pub fn start(
        _on_read: impl Fn(Result<crate::wire::host::HostCommand, String>) + 'static,
    ) -> Option<HostPort> {
        None
    }
}

pub fn page_url(fragment: &str) -> String {
    format!("./#{fragment}")
}

pub fn show_in_address_bar(_fragment: &str) {}

pub fn copy(_text: &str, _done: impl Fn(bool) + 'static) {}

pub fn click(_input: &NodeRef) {}

pub fn select_all(_e: FocusEvent) {}

pub fn read_file(_e: &Event, _dispatch: Callback<Action>) {}

/// No address bar to watch.
pub fn on_hash_change(_changed: impl Fn(String) + 'static) -> Listener {
    None
}

pub fn search() -> Option<String> {
    None
}

pub fn keep_in_link(_key: &str, _query: &str) {}

pub fn show_view_in_address(_query: &str) {}

/// No worker: nothing is sent, and no reply comes.
pub struct WorkerPort;

impl WorkerPort {
    pub fn start(_on_reply: Callback<Result<Reply, String>>) -> WorkerPort {
        WorkerPort
    }

    pub fn send(&self, _request: String) {}
}

pub fn png_asked(_e: &MouseEvent) -> Option<(String, String)> {
    None
}

pub fn run_asked(_e: &MouseEvent) -> Option<String> {
    None
}

pub fn stop_asked(_e: &MouseEvent) -> bool {
    false
}

pub fn copy_asked(_e: &MouseEvent) -> bool {
    false
}

pub fn open_asked(_e: &MouseEvent) -> Option<(String, String)> {
    None
}

pub fn wire_asked(_e: &MouseEvent) -> Option<u64> {
    None
}

pub fn tip_of(_e: &Event) -> Option<String> {
    None
}

pub fn message_of(_e: &Event) -> Option<u64> {
    None
}

pub fn mark_time(_e: &Event) -> Option<u64> {
    None
}

pub fn local_x(_svg_ref: &NodeRef, _client_x: i32) -> Option<f64> {
    None
}

pub fn local_y(_svg_ref: &NodeRef, _client_y: i32) -> Option<f64> {
    None
}

pub fn capture(_svg_ref: &NodeRef, _pointer_id: i32) {}

pub fn on_resize(_holder: NodeRef, _changed: impl FnMut(f64) + 'static) -> Listener {
    None
}

pub fn on_wheel(_svg_ref: NodeRef, _turned: impl FnMut(Wheel) + 'static) -> Listener {
    None
}

pub fn save(_kind: Download, _svg_ref: &NodeRef, _run_file: &Callback<(), String>) {}

pub fn save_png_of(_svg_url: &str, _name: &str) {}

pub fn focus(_node: &NodeRef) {}

/// No bar to measure.
pub struct DockWatch;

impl DockWatch {
    pub fn start() -> Option<DockWatch> {
        None
    }
}

/// No file to fetch without a browser: `done` is never called (natively
/// the words a page fetches are in the program already).
pub fn fetch_text(_url: &str, _done: Callback<Result<String, String>>) {}
