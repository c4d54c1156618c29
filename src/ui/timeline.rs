//! The timeline panel: the whole run as a space-time diagram, a playhead to
//! move through time, zoom and pan, and downloads of the picture and run.

use super::browser;
use super::state::{seconds_1, Action};
use super::timeline_draw::{self as draw, Lane, Px, Scale, LABEL_W, VIEW_MS_MIN};
use crate::sim::Backend;
use crate::sim::Picture;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// Width drawn before the page has measured its panel (and when rendered
/// without a browser).
pub const WIDTH_DEFAULT: f64 = 960.0;
/// The narrowest picture drawn; a narrower panel scrolls sideways.
pub const WIDTH_MIN: f64 = 240.0;
/// Runs with at most this many messages show them as arrows at first.
pub const ARROWS_BY_DEFAULT_MAX: usize = 400;
/// The run always fills at least this much time when fitted.
const FIT_MS_MIN: u64 = 5_000;

/// The picture, shared and fed in place; compared by the number of records
/// fed and the run it belongs to, which is all that changes it.
#[derive(Debug, Clone)]
pub struct PictureRef {
    pub picture: Rc<RefCell<Picture>>,
    pub run: u64,
    pub fed: usize,
}

impl PartialEq for PictureRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.picture, &other.picture) && self.run == other.run && self.fed == other.fed
    }
}

/// The cache behind `PictureRef`: new records are fed in as they arrive; a
/// new run, or a history that is not an extension of the last, starts over.
#[derive(Debug, Default)]
pub struct PictureCache {
    picture: Rc<RefCell<Picture>>,
    run: u64,
}

impl PictureCache {
    pub fn get(&mut self, history: &[crate::sim::Record], run: u64) -> PictureRef {
        let fed = self.picture.borrow().fed();
        if run != self.run || history.len() < fed {
            self.picture = Rc::new(RefCell::new(Picture::from_history(history)));
            self.run = run;
        } else {
            self.picture.borrow_mut().feed(history);
        }
        PictureRef {
            picture: self.picture.clone(),
            run,
            fed: history.len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct TimelineProps {
    pub picture: PictureRef,
    /// The page's clock: where the playhead stands.
    pub now_ms: u64,
    /// How far the recorded run goes (beyond `now_ms` after moving back).
    pub end_ms: u64,
    pub running: bool,
    pub backend: Backend,
    pub dispatch: Callback<Action>,
    /// The run as a JSON file, made only when asked for.
    pub run_file: Callback<(), String>,
    /// The key moment a story's tour stopped on, marked in the picture.
    #[prop_or_default]
    pub key_moment: Option<u64>,
}

/// Zoom and pan: `None` fits the whole run.
#[derive(Debug, Default)]
struct View {
    window: Option<(u64, u64)>,
    /// The window last drawn, for zooming around what is on screen.
    shown: (u64, u64),
    width: f64,
    /// Pointers down on the picture (two make a pinch).
    pointers: Vec<(i32, f64)>,
    pinch: Option<(f64, (u64, u64))>,
    dragging: bool,
    /// Messages drawn or not, when the visitor has chosen.
    arrows: Option<bool>,
    /// The five Redis node lanes unfolded.
    nodes_open: bool,
}

impl View {
    fn zoom(&mut self, factor: f64, around: u64) {
        let (a, b) = self.shown;
        let span = ((b - a) as f64 * factor).max(VIEW_MS_MIN as f64);
        let left = around as f64 - (around as f64 - a as f64) * span / (b - a).max(1) as f64;
        let a = left.max(0.0).round() as u64;
        self.window = Some((a, a + span.round() as u64));
    }

    fn pan(&mut self, fraction: f64) {
        let (a, b) = self.shown;
        let shift = ((b - a) as f64 * fraction).round() as i64;
        let a = (a as i64 + shift).max(0) as u64;
        self.window = Some((a, a + (b - self.shown.0)));
    }

    fn scale(&self) -> Scale {
        Scale {
            v0: self.shown.0,
            v1: self.shown.1,
            width: self.width,
        }
    }
}

/// The window to draw: the whole run, or the chosen one moved along to
/// keep the playhead in sight while the clock runs.
fn window_of(view: &View, props: &TimelineProps, last_ms: u64) -> (u64, u64) {
    let end = props.end_ms.max(props.now_ms).max(last_ms);
    match view.window {
        None => (0, fit_right_ms(end.max(FIT_MS_MIN))),
        Some((a, b)) if props.running && props.now_ms > b => {
            let span = b - a;
            let a = props.now_ms.saturating_sub(span * 17 / 20);
            (a, a + span)
        }
        Some(window) => window,
    }
}

/// The right edge of the whole run's window: a little past its end,
/// rounded up to a step of about a tenth of it, so while the clock runs the
/// scale (and the markup of everything already drawn) stays the same for
/// several frames at a time.
pub fn fit_right_ms(span_ms: u64) -> u64 {
    let wanted = span_ms + span_ms / 40;
    let step = [1, 2, 5]
        .iter()
        .flat_map(|&m| (0..12).map(move |e| m * 10u64.pow(e)))
        .filter(|&step| wanted / step <= 12)
        .min()
        .unwrap_or(1);
    wanted.div_ceil(step) * step
}

#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let view = use_mut_ref(|| View {
        width: WIDTH_DEFAULT,
        ..View::default()
    });
    let redraw = use_force_update();
    let holder = use_node_ref();
    let svg_ref = use_node_ref();
    let caption = use_state(|| None::<String>);
    use_width(holder.clone(), view.clone(), redraw.clone());
    use_wheel(svg_ref.clone(), view.clone(), redraw.clone());

    let picture = props.picture.picture.borrow();
    let shown = window_of(&view.borrow(), props, picture.last_ms);
    {
        let mut v = view.borrow_mut();
        if v.window.is_some() {
            v.window = Some(shown);
        }
        v.shown = shown;
    }
    let scale = view.borrow().scale();
    let redlock = props.backend == Backend::Redlock;
    let (arrows_choice, nodes_open) = (view.borrow().arrows, view.borrow().nodes_open);
    let rows = draw::rows(redlock, nodes_open);
    let bottom = draw::height(&rows);
    let show_arrows = arrows_choice.unwrap_or(picture.arrows.len() <= ARROWS_BY_DEFAULT_MAX);
    let now = props.now_ms;
    // Open spans reach the end of the recorded run, which lies past the
    // playhead when looking back.
    let until = props.end_ms.max(now);

    let seek = seek_callback(
        props,
        svg_ref.clone(),
        view.clone(),
        rows.clone(),
        redraw.clone(),
    );
    let on_move = {
        let (dispatch, svg_ref, view, redraw, end) = (
            props.dispatch.clone(),
            svg_ref.clone(),
            view.clone(),
            redraw.clone(),
            props.end_ms,
        );
        Callback::from(move |e: PointerEvent| {
            let Some(x) = browser::local_x(&svg_ref, e.client_x()) else {
                return;
            };
            let mut v = view.borrow_mut();
            if let Some(p) = v.pointers.iter_mut().find(|p| p.0 == e.pointer_id()) {
                p.1 = x;
            }
            if v.pointers.len() == 2 {
                pinch(&mut v, x);
                drop(v);
                redraw.force_update();
            } else if v.dragging {
                let t = v.scale().t(x).min(end);
                drop(v);
                dispatch.emit(Action::Seek(t));
            }
        })
    };
    let on_up = {
        let view = view.clone();
        Callback::from(move |e: PointerEvent| {
            let mut v = view.borrow_mut();
            v.pointers.retain(|p| p.0 != e.pointer_id());
            v.dragging = false;
            v.pinch = None;
        })
    };
    let on_hover = {
        let caption = caption.clone();
        Callback::from(move |e: MouseEvent| caption.set(browser::tip_of(&e)))
    };
    let on_focus = {
        let caption = caption.clone();
        Callback::from(move |e: FocusEvent| caption.set(browser::tip_of(&e)))
    };
    let on_leave = {
        let caption = caption.clone();
        Callback::from(move |_: MouseEvent| caption.set(None))
    };
    let on_blur = {
        let caption = caption.clone();
        Callback::from(move |_: FocusEvent| caption.set(None))
    };
    let on_key = playhead_keys(props);

    // The picture is written as markup (see timeline_draw.rs), in parts:
    // a part whose markup has not changed since the last frame keeps its
    // elements, so a frame re-parses only the lanes that moved and the
    // playhead. Only the playhead's slider is a live element.
    let detail = if props.running {
        draw::Detail::Plain
    } else {
        draw::Detail::Marks
    };
    let part = |paint: &dyn Fn(&mut draw::Svg)| {
        let mut svg = draw::Svg::new(detail);
        paint(&mut svg);
        Html::from_html_unchecked(AttrValue::from(svg.0))
    };
    let head = part(&|svg| {
        draw::defs(svg);
        draw::labels(svg, &rows, &picture, props.backend.name(), nodes_open);
    });
    let axis = part(&|svg| draw::axis(svg, &scale, bottom));
    let lanes: Vec<Html> = rows
        .iter()
        .map(|row| {
            part(&|svg| match row.lane {
                Lane::Client(c) => draw::client_lane(svg, &scale, *row, &picture, c, until),
                Lane::Service => draw::service_lane(svg, &scale, *row, &picture, until),
                Lane::Nodes => draw::node_lane(svg, &scale, *row, &picture, None, until),
                Lane::Node(n) => draw::node_lane(svg, &scale, *row, &picture, Some(n), until),
                Lane::Resource => draw::resource_lane(svg, &scale, *row, &picture),
            })
        })
        .collect();
    let arrows = part(&|svg| {
        if show_arrows {
            draw::messages(svg, &scale, &rows, &picture.arrows);
        }
    });
    let live = part(&|svg| {
        draw::future_veil(svg, &scale, bottom, now, props.end_ms);
        if let Some(at) = props.key_moment {
            draw::key_moment(svg, &scale, bottom, at);
        }
        draw::playhead(svg, &scale, bottom, now);
    });
    let width = scale.width;
    let valuetext = format!(
        "t={} of {}",
        seconds_1(now),
        seconds_1(props.end_ms.max(now))
    );
    let playhead_x = scale.x(now);
    let in_past = props.end_ms > now;

    html! {
        <section class="panel timeline" aria-labelledby="timeline-title">
            <div class="timeline__head">
                <h2 id="timeline-title" class="panel__title">{ "Timeline" }</h2>
                { toolbar(props, &view, &redraw, show_arrows, nodes_open, redlock, &svg_ref) }
            </div>
            if in_past {
                <p class="timeline__note" role="status">{ format!(
                    "Looking back at {} of a run that went on to {}. Start or Step plays the recorded run again; a command given here forks it: everything after {} is dropped.",
                    clock(now), clock(props.end_ms), clock(now)
                ) }</p>
            }
            <div class="timeline__frame" ref={holder}>
                <svg ref={svg_ref} class="timeline__svg" xmlns="http://www.w3.org/2000/svg"
                    width={format!("{width}", width = Px(width))} height={format!("{bottom}", bottom = Px(bottom))}
                    viewBox={format!("0 0 {width} {bottom}", width = Px(width), bottom = Px(bottom))}
                    font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="11"
                    role="group" aria-labelledby="timeline-title" aria-describedby="timeline-alt"
                    onpointerdown={seek} onpointermove={on_move} onpointerup={on_up.clone()} onpointercancel={on_up}
                    onmouseover={on_hover} onfocusin={on_focus} onmouseleave={on_leave} onfocusout={on_blur}>
                    <rect class="tl-bg" x="0" y="0" width={format!("{width}", width = Px(width))} height={format!("{bottom}", bottom = Px(bottom))} fill="#ffffff" />
                    { head }
                    { axis }
                    { for lanes }
                    { arrows }
                    { live }
                    <g class="tl-playhead" role="slider" tabindex="0" aria-label="Playhead: the moment the page shows"
                        aria-valuemin="0" aria-valuemax={props.end_ms.max(now).to_string()} aria-valuenow={now.to_string()}
                        aria-valuetext={valuetext} onkeydown={on_key}>
                        <rect class="tl-playhead-hit" x={format!("{}", Px(playhead_x - 8.0))} y="0" width="16" height={format!("{bottom}", bottom = Px(bottom))} fill="transparent" />
                    </g>
                </svg>
            </div>
            <p class="timeline__caption" aria-live="polite">{
                match &*caption {
                    Some(text) => text.clone(),
                    None => "Point at or focus a mark to read what happened. Drag along the time axis (or press ← and →) to move through time.".into(),
                }
            }</p>
            <p id="timeline-alt" class="timeline__alt">{
                "The event log below tells the same run in sentences. In the picture, each client's upper bar is its lease as the service grants it and the lower one its lease as the client believes it; red bands mark a believed holder the service no longer recognises."
            }</p>
            { legend(redlock) }
        </section>
    }
}

fn clock(ms: u64) -> String {
    format!("t={}", seconds_1(ms))
}

fn pinch(v: &mut View, _x: f64) {
    let distance = (v.pointers[0].1 - v.pointers[1].1).abs().max(10.0);
    match v.pinch {
        None => v.pinch = Some((distance, v.shown)),
        Some((start, (a, b))) => {
            let middle = (v.pointers[0].1 + v.pointers[1].1) / 2.0;
            v.shown = (a, b);
            let around = v.scale().t(middle);
            v.zoom(start / distance, around);
        }
    }
}

/// Pointer down: start dragging the playhead (or a pinch), and seek there.
fn seek_callback(
    props: &TimelineProps,
    svg_ref: NodeRef,
    view: Rc<RefCell<View>>,
    rows: Vec<draw::Row>,
    redraw: UseForceUpdateHandle,
) -> Callback<PointerEvent> {
    let (dispatch, end) = (props.dispatch.clone(), props.end_ms);
    Callback::from(move |e: PointerEvent| {
        if e.button() > 0 {
            return;
        }
        let Some(x) = browser::local_x(&svg_ref, e.client_x()) else {
            return;
        };
        let y = browser::local_y(&svg_ref, e.client_y()).unwrap_or(0.0);
        // The folded Redis lane opens when its name is pressed.
        let on_nodes = rows
            .iter()
            .any(|r| matches!(r.lane, Lane::Nodes | Lane::Node(_)) && y >= r.y && y < r.y + r.h);
        if on_nodes && x < LABEL_W {
            let mut v = view.borrow_mut();
            v.nodes_open = !v.nodes_open;
            drop(v);
            redraw.force_update();
            return;
        }
        browser::capture(&svg_ref, e.pointer_id());
        let mut v = view.borrow_mut();
        v.pointers.retain(|p| p.0 != e.pointer_id());
        v.pointers.push((e.pointer_id(), x));
        if v.pointers.len() >= 2 {
            v.dragging = false;
            return;
        }
        v.dragging = true;
        let t = v.scale().t(x).min(end);
        drop(v);
        dispatch.emit(Action::Seek(t));
    })
}

/// The playhead as a slider: arrows move a second (a tenth with Shift).
fn playhead_keys(props: &TimelineProps) -> Callback<KeyboardEvent> {
    let (dispatch, now, end) = (
        props.dispatch.clone(),
        props.now_ms,
        props.end_ms.max(props.now_ms),
    );
    Callback::from(move |e: KeyboardEvent| {
        let step = if e.shift_key() { 100 } else { 1_000 };
        let t = match e.key().as_str() {
            "ArrowLeft" | "ArrowDown" => now.saturating_sub(step),
            "ArrowRight" | "ArrowUp" => (now + step).min(end),
            "PageDown" => now.saturating_sub(5_000),
            "PageUp" => (now + 5_000).min(end),
            "Home" => 0,
            "End" => end,
            _ => return,
        };
        e.prevent_default();
        dispatch.emit(Action::Seek(t));
    })
}

#[allow(clippy::too_many_arguments)]
fn toolbar(
    props: &TimelineProps,
    view: &Rc<RefCell<View>>,
    redraw: &UseForceUpdateHandle,
    show_arrows: bool,
    nodes_open: bool,
    redlock: bool,
    svg_ref: &NodeRef,
) -> Html {
    let act = |f: fn(&mut View)| {
        let (view, redraw) = (view.clone(), redraw.clone());
        Callback::from(move |_: MouseEvent| {
            f(&mut view.borrow_mut());
            redraw.force_update();
        })
    };
    let now = props.now_ms;
    let zoom = |factor: f64| {
        let (view, redraw) = (view.clone(), redraw.clone());
        Callback::from(move |_: MouseEvent| {
            let mut v = view.borrow_mut();
            let (a, b) = v.shown;
            let around = if (a..=b).contains(&now) {
                now
            } else {
                (a + b) / 2
            };
            v.zoom(factor, around);
            drop(v);
            redraw.force_update();
        })
    };
    let on_arrows = {
        let (view, redraw) = (view.clone(), redraw.clone());
        Callback::from(move |e: Event| {
            view.borrow_mut().arrows = Some(browser::checked_of(&e));
            redraw.force_update();
        })
    };
    let on_nodes = {
        let (view, redraw) = (view.clone(), redraw.clone());
        Callback::from(move |_: MouseEvent| {
            let open = view.borrow().nodes_open;
            view.borrow_mut().nodes_open = !open;
            redraw.force_update();
        })
    };
    let save = |kind: browser::Download| {
        let (svg_ref, run_file) = (svg_ref.clone(), props.run_file.clone());
        Callback::from(move |_: MouseEvent| browser::save(kind, &svg_ref, &run_file))
    };
    html! {
        <div class="timeline__tools">
            <div class="timeline__group" role="group" aria-label="Zoom and pan">
                <button type="button" class="button button--small" onclick={zoom(0.5)} aria-label="Zoom in">{ "+" }</button>
                <button type="button" class="button button--small" onclick={zoom(2.0)} aria-label="Zoom out">{ "−" }</button>
                <button type="button" class="button button--small" onclick={act(|v| v.pan(-0.4))} aria-label="Pan back in time">{ "◀" }</button>
                <button type="button" class="button button--small" onclick={act(|v| v.pan(0.4))} aria-label="Pan forward in time">{ "▶" }</button>
                <button type="button" class="button button--small" onclick={act(|v| v.window = None)}>{ "Fit the whole run" }</button>
            </div>
            <label class="toggle" for="timeline-arrows">
                <input id="timeline-arrows" type="checkbox" class="toggle__input" checked={show_arrows} onchange={on_arrows} />
                <span class="toggle__text">{ "Messages" }</span>
            </label>
            if redlock {
                <button type="button" class="button button--small" aria-pressed={nodes_open.to_string()} onclick={on_nodes}>
                    { if nodes_open { "Fold the Redis nodes" } else { "Show each Redis node" } }
                </button>
            }
            <div class="timeline__group" role="group" aria-label="Download">
                <span class="timeline__group-label">{ "Download" }</span>
                <button type="button" class="button button--small" onclick={save(browser::Download::Svg)}>{ "SVG" }</button>
                <button type="button" class="button button--small" onclick={save(browser::Download::Png)}>{ "PNG" }</button>
                <button type="button" class="button button--small" onclick={save(browser::Download::Json)}>{ "Run (JSON)" }</button>
            </div>
        </div>
    }
}

fn legend(redlock: bool) -> Html {
    let item = |class: &'static str, words: &'static str| {
        html! { <li class="legend__item"><span class={classes!("legend__swatch", class)} aria-hidden="true"></span>{ words }</li> }
    };
    html! {
        <ul class="legend" aria-label="Legend">
            { item("legend__swatch--granted", "lease as the service grants it (token)") }
            { item("legend__swatch--believed", "lease as the client believes it") }
            { item("legend__swatch--alarm", "believed holder: the service gave the lock to another client") }
            { item("legend__swatch--gone", "still believed after the lease is gone at the service") }
            { item("legend__swatch--pause", "GC pause") }
            { item("legend__swatch--partition", "partition") }
            { item("legend__swatch--crash", "crash") }
            { item("legend__swatch--renewal", "renewal answered") }
            { item("legend__swatch--message", "message (× lost)") }
            { item("legend__swatch--accepted", "✓ write accepted") }
            { item("legend__swatch--rejected", "✗ write rejected (fencing)") }
            { item("legend__swatch--stale", "⚠ stale write accepted") }
            if redlock {
                { item("legend__swatch--key", "lock key held on a Redis node; each node's clock skew beside its name") }
            }
        </ul>
    }
}

/// Measures the panel's width now and whenever the window is resized.
#[hook]
fn use_width(holder: NodeRef, view: Rc<RefCell<View>>, redraw: UseForceUpdateHandle) {
    use_effect_with((), move |_| {
        let listener = browser::on_resize(holder, move |width| {
            let mut v = view.borrow_mut();
            if (v.width - width).abs() >= 1.0 {
                // Below this the lanes cannot be told apart; the frame scrolls.
                v.width = width.max(WIDTH_MIN);
                drop(v);
                redraw.force_update();
            }
        });
        // Dropping the listener on cleanup removes it.
        move || {
            let _removed = listener;
        }
    });
}

/// Ctrl + wheel (a trackpad pinch) zooms; a sideways wheel pans. A plain
/// wheel is left to scroll the page.
#[hook]
fn use_wheel(svg_ref: NodeRef, view: Rc<RefCell<View>>, redraw: UseForceUpdateHandle) {
    use_effect_with((), move |_| {
        let listener = browser::on_wheel(svg_ref.clone(), move |wheel| {
            let mut v = view.borrow_mut();
            match wheel {
                browser::Wheel::Zoom { delta, x } => {
                    let around = v.scale().t(x);
                    v.zoom(if delta > 0.0 { 1.25 } else { 0.8 }, around);
                }
                browser::Wheel::Pan { delta } => {
                    let width = v.scale().plot_w();
                    v.pan(delta / width);
                }
            }
            drop(v);
            redraw.force_update();
        });
        // Dropping the listener on cleanup removes it.
        move || {
            let _removed = listener;
        }
    });
}
