//! The timeline panel: the whole run as a space-time diagram, a playhead to
//! move through time, zoom and pan, and downloads of the picture and run.

use super::browser;
use super::state::Action;
use super::timeline_draw::{self as draw, Lane, Px, Scale, LABEL_W, VIEW_MS_MIN};
use crate::sim::Backend;
use crate::sim::Picture;
use crate::words::{clock_at, seconds_1};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;
use yew::virtual_dom::VList;

/// Width drawn before the page has measured its panel (and when rendered
/// without a browser).
pub const WIDTH_DEFAULT: f64 = 960.0;
/// The narrowest picture drawn; a narrower panel scrolls sideways.
pub const WIDTH_MIN: f64 = 240.0;
/// Runs with at most this many messages show them as arrows at first.
pub const ARROWS_BY_DEFAULT_MAX: usize = 400;
/// The run always fills at least this much time when fitted.
const FIT_MS_MIN: u64 = 5_000;

/// The picture, shared and fed in place; compared by which picture it is
/// and the number of records fed, which is all that changes it.
#[derive(Debug, Clone)]
pub struct PictureRef {
    pub picture: Rc<RefCell<Picture>>,
    /// Which picture this is: counts the pictures the cache has started.
    pub built: u64,
    pub fed: usize,
}

impl PartialEq for PictureRef {
    fn eq(&self, other: &Self) -> bool {
        self.built == other.built && self.fed == other.fed
    }
}

/// The cache behind `PictureRef`: new records are fed in as they arrive; a
/// new run, or a history that is not an extension of the last, starts over.
#[derive(Debug, Default)]
pub struct PictureCache {
    picture: Rc<RefCell<Picture>>,
    run: u64,
    built: u64,
}

impl PictureCache {
    pub fn get(
        &mut self,
        history: &[crate::sim::Record],
        run: u64,
        words: crate::sim::TokenWords,
    ) -> PictureRef {
        let fed = self.picture.borrow().fed();
        if run != self.run || history.len() < fed {
            self.picture = Rc::new(RefCell::new(Picture::worded(history, words)));
            self.run = run;
            self.built += 1;
        } else {
            self.picture.borrow_mut().feed(history);
        }
        PictureRef {
            picture: self.picture.clone(),
            built: self.built,
            fed: history.len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct TimelineProps {
    pub picture: PictureRef,
    /// The page's clock: where the playhead stands.
    pub now_ms: u64,
    /// Where the clock stood when time's words were last drawn
    /// (`AppState::words_ms`): the past-run note says it, so a frame drawn
    /// for an event while a recorded run replays leaves the note alone.
    pub words_ms: u64,
    /// How far the recorded run goes (beyond `now_ms` after moving back).
    pub end_ms: u64,
    pub running: bool,
    /// Virtual milliseconds a frame while the clock runs, 0 while it
    /// stands: the playhead and the open spans' edge move on between
    /// renders at that rate (`super::use_glide`).
    #[prop_or_default]
    pub frame_ms: u64,
    pub backend: Backend,
    pub dispatch: Callback<Action>,
    /// The run as a JSON file, made only when asked for.
    pub run_file: Callback<(), String>,
    /// The key moment a story's tour stopped on, marked in the picture.
    #[prop_or_default]
    pub key_moment: Option<u64>,
    /// The run's identity (`AppState::run`) and its link, for the wire
    /// text of an arrow pointed at or focused.
    pub run: u64,
    pub run_link: Callback<(), String>,
}

/// The timeline's own view state: zoom and pan, the pointers on the
/// picture, the visitor's toggles and the mark read under the picture. The
/// visitor changes it only through `ViewAction`s; an action that changes
/// nothing keeps the same `Rc`, and yew then skips the redraw.
#[derive(Debug, Clone, Default)]
struct View {
    /// The chosen window (`None` fits the whole run). Each frame writes
    /// back the window it drew, so one the clock has carried along stays
    /// where it was carried; that is no change of the visitor's, so it is
    /// a `Cell` and redraws nothing.
    window: Cell<Option<(u64, u64)>>,
    /// The window last drawn, for zooming around what is on screen.
    shown: Cell<(u64, u64)>,
    width: f64,
    /// Pointers down on the picture (two make a pinch).
    pointers: Vec<(i32, f64)>,
    pinch: Option<(f64, (u64, u64))>,
    dragging: bool,
    /// Messages drawn or not, when the visitor has chosen.
    arrows: Option<bool>,
    /// The five Redis node lanes unfolded.
    nodes_open: bool,
    /// The mark pointed at, and the one focused (see `Tips`).
    hovered: Option<Tip>,
    focused: Option<Tip>,
}

/// What changes the timeline's view.
#[derive(Debug, Clone)]
enum ViewAction {
    /// The panel was measured this wide.
    Width(f64),
    /// Zoom by a factor around the playhead at `now`, or around the
    /// middle when the playhead is out of sight.
    Zoom {
        factor: f64,
        now: u64,
    },
    /// Pan by a fraction of the window.
    Pan(f64),
    Fit,
    Wheel(browser::Wheel),
    Arrows(bool),
    FoldNodes,
    /// A pointer pressed, moved or lifted at `x` on the picture.
    Down {
        id: i32,
        x: f64,
    },
    Move {
        id: i32,
        x: f64,
    },
    Up(i32),
    Hover(Option<Tip>),
    Focus(Option<Tip>),
}

impl Reducible for View {
    type Action = ViewAction;

    fn reduce(self: Rc<Self>, action: ViewAction) -> Rc<Self> {
        let mut v = (*self).clone();
        if v.act(action) {
            Rc::new(v)
        } else {
            self
        }
    }
}

impl View {
    /// Applies `action`; false when it changed nothing (a pointer moving
    /// that is not down, a width within a pixel), so the panel is not
    /// drawn again for every mouse move.
    fn act(&mut self, action: ViewAction) -> bool {
        match action {
            // Below this the lanes cannot be told apart; the frame scrolls.
            ViewAction::Width(width) if (self.width - width).abs() >= 1.0 => {
                self.width = width.max(WIDTH_MIN);
            }
            ViewAction::Width(_) => return false,
            ViewAction::Zoom { factor, now } => {
                let (a, b) = self.shown.get();
                let around = if (a..=b).contains(&now) {
                    now
                } else {
                    (a + b) / 2
                };
                self.zoom(factor, around);
            }
            ViewAction::Pan(fraction) => self.pan(fraction),
            ViewAction::Fit => self.window.set(None),
            ViewAction::Wheel(browser::Wheel::Zoom { delta, x }) => {
                let around = self.scale().t(x);
                self.zoom(if delta > 0.0 { 1.25 } else { 0.8 }, around);
            }
            ViewAction::Wheel(browser::Wheel::Pan { delta }) => {
                self.pan(delta / self.scale().plot_w());
            }
            ViewAction::Arrows(on) => self.arrows = Some(on),
            ViewAction::FoldNodes => self.nodes_open = !self.nodes_open,
            ViewAction::Down { id, x } => {
                self.pointers.retain(|p| p.0 != id);
                self.pointers.push((id, x));
                self.dragging = self.pointers.len() < 2;
            }
            ViewAction::Move { id, x } => {
                let Some(p) = self.pointers.iter_mut().find(|p| p.0 == id) else {
                    return false;
                };
                p.1 = x;
                if self.pointers.len() == 2 {
                    self.pinch();
                }
            }
            ViewAction::Up(id) => {
                self.pointers.retain(|p| p.0 != id);
                self.dragging = false;
                self.pinch = None;
            }
            ViewAction::Hover(tip) => self.hovered = tip,
            ViewAction::Focus(tip) => self.focused = tip,
        }
        true
    }

    fn zoom(&mut self, factor: f64, around: u64) {
        let (a, b) = self.shown.get();
        let span = ((b - a) as f64 * factor).max(VIEW_MS_MIN as f64);
        let left = around as f64 - (around as f64 - a as f64) * span / (b - a).max(1) as f64;
        let a = left.max(0.0).round() as u64;
        self.choose((a, a + span.round() as u64));
    }

    /// A window chosen is the one the next frame draws (unless the clock
    /// carries it along), and what the next action zooms or pans.
    fn choose(&mut self, window: (u64, u64)) {
        self.window.set(Some(window));
        self.shown.set(window);
    }

    fn pan(&mut self, fraction: f64) {
        let (a, b) = self.shown.get();
        let shift = ((b - a) as f64 * fraction).round() as i64;
        let a = (a as i64 + shift).max(0) as u64;
        self.choose((a, a + (b - self.shown.get().0)));
    }

    /// Two pointers: the window the pinch began on, scaled by how far
    /// apart they have moved, around their middle.
    fn pinch(&mut self) {
        let distance = (self.pointers[0].1 - self.pointers[1].1).abs().max(10.0);
        match self.pinch {
            None => self.pinch = Some((distance, self.shown.get())),
            Some((start, (a, b))) => {
                let middle = (self.pointers[0].1 + self.pointers[1].1) / 2.0;
                self.shown.set((a, b));
                let around = self.scale().t(middle);
                self.zoom(start / distance, around);
            }
        }
    }

    fn scale(&self) -> Scale {
        let (v0, v1) = self.shown.get();
        Scale {
            v0,
            v1,
            width: self.width,
        }
    }

    /// The window to draw now (see `window_of`), recorded as drawn.
    fn draw_window(&self, props: &TimelineProps, last_ms: u64) -> Scale {
        let shown = window_of(self, props, last_ms);
        if self.window.get().is_some() {
            self.window.set(Some(shown));
        }
        self.shown.set(shown);
        self.scale()
    }
}

/// The window to draw: the whole run, or the chosen one moved along to
/// keep the playhead in sight while the clock runs.
fn window_of(view: &View, props: &TimelineProps, last_ms: u64) -> (u64, u64) {
    let end = props.end_ms.max(props.now_ms).max(last_ms);
    match view.window.get() {
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
/// rounded up to the next of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a
/// power of ten. The run fills at least four fifths of the width, and
/// while the clock runs the scale (and so the markup of everything already
/// drawn) changes only at those steps, ten times in each tenfold growth.
pub fn fit_right_ms(span_ms: u64) -> u64 {
    let wanted = span_ms + span_ms / 40;
    (0..12)
        .flat_map(|e| [10, 12, 15, 20, 25, 30, 40, 50, 60, 80].map(|m| m * 10u64.pow(e)))
        .find(|&edge| edge >= wanted)
        .unwrap_or(wanted)
}

#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let view = use_reducer(|| View {
        width: WIDTH_DEFAULT,
        ..View::default()
    });
    // The lanes' and arrows' markup from the last frame: a cache, not view
    // state.
    let kept = use_mut_ref(Kept::default);
    let holder = use_node_ref();
    let svg_ref = use_node_ref();
    let (wire, ask) = super::event_log::use_wire(props.run, &props.run_link);
    use_width(holder.clone(), view.dispatcher());
    use_wheel(svg_ref.clone(), view.dispatcher());

    let picture = props.picture.picture.borrow();
    let scale = view.draw_window(props, picture.last_ms);
    let redlock = props.backend == Backend::Redlock;
    let (arrows_choice, nodes_open) = (view.arrows, view.nodes_open);
    let rows = draw::rows(redlock, nodes_open);
    let bottom = draw::height(&rows);
    let show_arrows = arrows_choice.unwrap_or(picture.arrows.len() <= ARROWS_BY_DEFAULT_MAX);
    let now = props.now_ms;
    let at = moving_parts_at(props);

    let seek = seek_callback(props, svg_ref.clone(), &view, scale, rows.clone());
    let on_move = move_callback(props, svg_ref.clone(), &view, scale);
    let on_up = action(&view, |e: PointerEvent| ViewAction::Up(e.pointer_id()));
    let tips = Tips::of(&view, &ask);
    let on_key = mark_keys(props, svg_ref.clone());
    {
        // The timeline's one Tab stop: the mark focused last, or the first.
        let svg_ref = svg_ref.clone();
        use_effect(move || browser::keep_one_tab_stop(&svg_ref));
    }

    let drawn = drawn(
        &Frame {
            props,
            picture: &picture,
            scale,
            rows: &rows,
            show_arrows,
            nodes_open,
            at,
        },
        &mut kept.borrow_mut(),
    );
    let width = scale.width;
    let height = Px(bottom).to_string();
    let svg_w = Px(width).to_string();
    let view_box = format!("0 0 {svg_w} {height}");
    // Between renders the playhead, and the box that cuts the open spans
    // at the clock, slide on by what the clock adds in a second of the
    // reader's time (60 frames) from where they are drawn (`at`): the next
    // render of time's words comes sooner, and starts them again; an
    // event's render draws them where they were and leaves them gliding.
    // The open spans' drawing slides back as far as their box slides on,
    // so it holds still while its cut moves: three layers the compositor
    // moves, none painted again.
    let (playhead_ref, clip_ref, spans_ref) = (use_node_ref(), use_node_ref(), use_node_ref());
    let glide_ms = props.frame_ms * 60;
    let slide = |sign: f64| {
        let dx = sign * (scale.x(at + glide_ms) - scale.x(at));
        super::Motion::over(
            at,
            props.frame_ms,
            glide_ms,
            "translate(0px)".into(),
            format!("translate({}px)", Px(dx)),
        )
    };
    super::use_glide(&playhead_ref, slide(1.0));
    let open = drawn.layered && !drawn.open.is_empty();
    super::use_glide(&clip_ref, open.then(|| slide(1.0)).flatten());
    super::use_glide(&spans_ref, open.then(|| slide(-1.0)).flatten());
    // The veil over the recorded run after the playhead: a layer of its
    // own, narrowed from its left edge by the compositor as the clock
    // replays the run (its right edge, the run's end, holds still), so a
    // frame repaints neither it nor the picture under it.
    let veil_ref = use_node_ref();
    let narrow = drawn.veil.as_ref().filter(|v| v.at_clock).and_then(|v| {
        let ms = glide_ms.min(props.end_ms - at);
        let kept = 1.0 - (scale.x(at + ms) - scale.x(at)) / (v.x1 - v.x0);
        // Scaled about its right edge, said in the transform itself (the
        // page's policy allows no style attribute). The scale in
        // ten-thousandths, written as an integer: a float written to a
        // fixed precision would bring the wasm the formatter's exact mode.
        let about = |s: &str| format!("translate({0}px) scaleX({s}) translate(-{0}px)", Px(v.x1));
        super::Motion::over(
            at,
            props.frame_ms,
            ms,
            about("1"),
            about(&format!(
                "0.{:04}",
                ((kept.max(0.0) * 1e4) as u32).min(9_999)
            )),
        )
    });
    super::use_glide(&veil_ref, narrow);
    let tip = view.hovered.as_ref().or(view.focused.as_ref());
    // The resource's writes are drawn after the messages, so the lines
    // that reach them lie under their marks and the pointer finds them.
    let mut lanes = drawn.lanes;
    let writes = lanes.pop();
    let rest = html! { <>{ drawn.arrows }{ for writes }</> };
    // What is drawn over the veil (the key moment) goes over it with it.
    // The picture's parts keep their places (as many, each of one kind)
    // when the veil comes or goes, so its marks (one of them focused,
    // maybe) are not made again.
    let (inside, over) = match (drawn.layered, &drawn.veil) {
        (false, Some(_)) => (html! { <>{ rest }{ Html::default() }</> }, drawn.live),
        (false, None) => (html! { <>{ rest }{ drawn.live }</> }, Html::default()),
        (true, _) => (Html::default(), html! { <>{ rest }{ drawn.live }</> }),
    };
    let layered = drawn.layered || drawn.veil.is_some();

    html! {
        <section class="panel timeline" aria-labelledby="timeline-title">
            <div class="timeline__head">
                <h2 id="timeline-title" class="panel__title">{ "Timeline" }</h2>
                { toolbar(props, &view, show_arrows, nodes_open, redlock, &svg_ref) }
            </div>
            { past_note(now, props.words_ms.min(now), props.end_ms) }
            <div class="timeline__frame" ref={holder}>
                // The picture, and over it the playhead, an `<svg>` of its
                // own that the compositor slides while the clock runs: a
                // frame that moves only it paints none of the picture again.
                // The pointer acts on the whole.
                <div class="timeline__picture"
                    onpointerdown={seek} onpointermove={on_move} onpointerup={on_up.clone()} onpointercancel={on_up}
                    onmouseover={tips.hover} onfocusin={tips.focus} onmouseleave={tips.leave} onfocusout={tips.blur}
                    onkeydown={on_key}>
                    <svg ref={svg_ref} class="timeline__svg" xmlns="http://www.w3.org/2000/svg"
                        width={svg_w.clone()} height={height.clone()} viewBox={view_box.clone()}
                        font-family={FONT} font-size="11"
                        role="group" aria-labelledby="timeline-title" aria-describedby="timeline-alt">
                        { drawn.head }
                        { drawn.axis }
                        { for lanes }
                        { inside }
                    </svg>
                    if drawn.layered {
                        // While the clock runs live, the open spans in a box
                        // as wide as the plot up to the clock, which cuts
                        // them there, and over them the rest of the picture,
                        // as it is drawn in the picture when the clock stops.
                        <div class="tl-open" ref={clip_ref} aria-hidden="true">
                            <svg class="tl-open__size" width={drawn.clip_w} height={height.clone()}/>
                            <svg class="tl-open__spans" ref={spans_ref} xmlns="http://www.w3.org/2000/svg"
                                width={svg_w.clone()} height={height.clone()} viewBox={view_box.clone()}
                                font-family={FONT} font-size="11">
                                { for drawn.open }
                            </svg>
                        </div>
                    }
                    if let Some(veil) = drawn.veil {
                        <svg class="tl-future" ref={veil_ref} xmlns="http://www.w3.org/2000/svg"
                            width={svg_w.clone()} height={height.clone()} viewBox={view_box.clone()}
                            aria-hidden="true">
                            { veil.markup }
                        </svg>
                    }
                    if layered {
                        <svg class="timeline__over" xmlns="http://www.w3.org/2000/svg"
                            width={svg_w.clone()} height={height.clone()} viewBox={view_box.clone()}
                            font-family={FONT} font-size="11">
                            { over }
                        </svg>
                    }
                    { playhead(props, (&svg_w, &height, &view_box), scale.x(at), drawn.mark, &playhead_ref) }
                </div>
            </div>
            { words(tip.map(|t| t.words.as_str()), wire_of(tip.and_then(|t| t.message), wire), redlock) }
        </section>
    }
}

fn clock(ms: u64) -> String {
    clock_at(ms)
}

/// The pictures' font, as an attribute: a downloaded picture keeps it.
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', sans-serif";

/// The playhead as a slider: an `<svg>` of its own over the picture, as
/// large (`size`: width, height and view box), its mark placed at `x`.
/// While the clock runs the compositor slides the whole layer on from
/// there (`use_glide`); each render of time's words places the mark again
/// and starts the slide from nothing. Its value is the clock's, exactly.
fn playhead(
    props: &TimelineProps,
    size: (&str, &str, &str),
    x: f64,
    mark: Html,
    node: &NodeRef,
) -> Html {
    let (now, end) = (props.now_ms, props.end_ms.max(props.now_ms));
    let valuetext = format!("t={} of {}", seconds_1(now), seconds_1(end));
    let (width, height, view_box) = size;
    html! {
        // Not a Tab stop of its own: the timeline is one (its marks), and
        // the keys ← and → move time from anywhere on the page.
        <svg class="tl-playhead" xmlns="http://www.w3.org/2000/svg" role="slider" tabindex="-1"
            aria-label="Playhead: the moment the page shows"
            aria-valuemin="0" aria-valuemax={end.to_string()} aria-valuenow={now.to_string()}
            aria-valuetext={valuetext} onkeydown={playhead_keys(props)}
            width={width.to_string()} height={height.to_string()} viewBox={view_box.to_string()}
            ref={node.clone()}>
            <g transform={format!("translate({} 0)", Px(x))}>{ mark }</g>
        </svg>
    }
}

/// Said while the page shows a moment before the end of the recorded run,
/// worded at `said`, where time's words were last drawn.
fn past_note(now: u64, said: u64, end: u64) -> Html {
    if end <= now {
        return Html::default();
    }
    html! {
        <p class="timeline__note" role="status">{ format!(
            "Looking back at {} of a run that went on to {}. Start or Step plays the recorded run again; a command given here forks it: everything after {} is dropped.",
            clock(said), clock(end), clock(said)
        ) }</p>
    }
}

/// The picture's parts as markup, each placed as it is written.
struct Drawn {
    head: Html,
    axis: Html,
    lanes: Vec<Html>,
    /// Whether the clock runs live: the open shapes, and the width of the
    /// box that cuts them, are drawn in layers of their own.
    layered: bool,
    open: Vec<Html>,
    clip_w: String,
    arrows: Html,
    /// The veil over the recorded run after the playhead, if shown.
    veil: Option<Veil>,
    live: Html,
    mark: Html,
}

/// The veil over the future: its drawing, and its left and right edges,
/// the left one at the clock (`at_clock`) unless cut at the plot's edge.
struct Veil {
    markup: Html,
    x0: f64,
    x1: f64,
    at_clock: bool,
}

/// Where the parts that move with time alone are drawn (the playhead, the
/// box that cuts the open spans, the veil's edge): while the clock runs,
/// where time's words were last drawn (`TimelineProps::words_ms`), from
/// where the compositor carries them on, so a render for an event moves
/// none of them and starts none of their motions again; else, and with
/// reduced motion (nothing glides, so each render moves them), where the
/// clock stands.
fn moving_parts_at(props: &TimelineProps) -> u64 {
    if props.running && !browser::motion_reduced() {
        props.words_ms.min(props.now_ms)
    } else {
        props.now_ms
    }
}

/// What a render of the timeline draws its picture from.
struct Frame<'a> {
    props: &'a TimelineProps,
    picture: &'a Picture,
    scale: Scale,
    rows: &'a [draw::Row],
    show_arrows: bool,
    nodes_open: bool,
    /// Where the parts that move with time alone are drawn
    /// (`moving_parts_at`).
    at: u64,
}

fn drawn(frame: &Frame, kept: &mut Kept) -> Drawn {
    let &Frame {
        props,
        picture,
        scale,
        rows,
        show_arrows,
        nodes_open,
        at,
    } = frame;
    let (now, bottom) = (props.now_ms, draw::height(rows));
    // Open spans reach the end of the recorded run, which lies past the
    // playhead when looking back.
    let until = props.end_ms.max(now);
    // The picture is written as markup (see timeline_draw.rs), in parts:
    // a part whose markup has not changed since the last frame keeps its
    // elements. While the clock runs live, each lane is two parts, what
    // has ended and what is still open, and both change only when
    // something happens on the lane: open shapes reach past the plot, in
    // a layer of their own, and the box that holds them cuts them at the
    // clock (moved by the compositor, never written every frame).
    let detail = if props.running {
        draw::Detail::Plain
    } else {
        draw::Detail::Marks
    };
    let live_run = props.running && props.end_ms <= now;
    let part = |paint: &dyn Fn(&mut draw::Svg)| markup(detail, draw::Part::All, paint);
    let head = part(&|svg| {
        draw::background(svg, scale.width, bottom);
        draw::defs(svg);
        draw::labels(svg, rows, picture, props.backend.name(), nodes_open);
    });
    let axis = part(&|svg| draw::axis(svg, &scale, bottom));
    let lane = |part: draw::Part, kept: &mut KeptParts<(draw::LaneKey, u64)>| {
        let drawing = Drawing {
            built: props.picture.built,
            scale,
            detail,
            part,
            rows: rows.len(),
        };
        lane_parts(picture, rows, until, drawing, kept)
    };
    let (lanes, open) = if live_run {
        let open = lane(draw::Part::Open, &mut kept.open);
        (lane(draw::Part::Settled, &mut kept.lanes), open)
    } else {
        (lane(draw::Part::All, &mut kept.lanes), Vec::new())
    };
    let arrows = if show_arrows {
        let drawing = Drawing {
            built: props.picture.built,
            scale,
            detail,
            part: draw::Part::All,
            rows: rows.len(),
        };
        arrow_parts(picture, rows, drawing, &mut kept.arrows)
    } else {
        Html::default()
    };
    // Only a recorded run that goes on past the clock has a future to
    // veil: while the clock runs live, `at` lags the clock in a frame drawn
    // for an event, and a veil from there to the clock would come and go
    // with every event.
    let mut svg = draw::Svg::new(detail, draw::Part::All);
    let veil = (props.end_ms > now)
        .then(|| draw::future_veil(&mut svg, &scale, bottom, at, props.end_ms))
        .flatten()
        .map(|(x0, x1, at_clock)| Veil {
            markup: Html::from_html_unchecked(AttrValue::from(svg.markup)),
            x0,
            x1,
            at_clock,
        });
    let live = part(&|svg| {
        if let Some(at) = props.key_moment {
            draw::key_moment(svg, &scale, bottom, at);
        }
    });
    Drawn {
        head,
        axis,
        lanes,
        layered: live_run,
        open,
        // While the clock runs live, `until` is the clock; the box's
        // edge is drawn where the playhead is.
        clip_w: Px(scale.x(if live_run { at } else { until }).max(0.0)).to_string(),
        arrows,
        veil,
        live,
        mark: part(&|svg| draw::playhead(svg, bottom)),
    }
}

/// One part of the picture: what `paint` draws, as markup.
fn markup(detail: draw::Detail, part: draw::Part, paint: &dyn Fn(&mut draw::Svg)) -> Html {
    let mut svg = draw::Svg::new(detail, part);
    paint(&mut svg);
    Html::from_html_unchecked(AttrValue::from(svg.markup))
}

/// Each row's lane, as the given part of it; open spans reach `until`.
fn lane_parts(
    picture: &Picture,
    rows: &[draw::Row],
    until: u64,
    drawing: Drawing,
    kept: &mut KeptParts<(draw::LaneKey, u64)>,
) -> Vec<Html> {
    // A lane whose drawing would be made from the same things as last
    // time keeps that drawing: with a long run, writing the lanes again
    // only to find them unchanged was most of a frame's work. An open
    // part is kept, besides, only until a label would come to fit it
    // (`draw::kept_until`): while the clock runs live, drawing every
    // lane's open part again at each render walked the whole history.
    kept.drawn_with(drawing);
    let Drawing {
        scale,
        detail,
        part,
        ..
    } = drawing;
    let scale = &scale;
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let key = draw::lane_key(picture, row.lane, until, part);
            let same = |&(k, kept_until): &(draw::LaneKey, u64)| k == key && until < kept_until;
            Html::from_html_unchecked(kept.part_if(i, same, || {
                let mut svg = draw::Svg::new(detail, part);
                draw::lane(&mut svg, scale, *row, picture, until);
                let kept_until = draw::kept_until(&svg, scale, until);
                ((key, kept_until), AttrValue::from(svg.markup))
            }))
        })
        .collect()
}

/// The messages' arrows, `ARROWS_A_PART` to a part in the order they were
/// sent: a new message redraws the last part alone, and the browser parses
/// and paints again only that part, not every arrow. Past
/// `draw::ARROWS_DRAWN_MAX` in view they are one part, the lanes' traffic.
/// One node in the picture's list, however many parts: Yew matches a list
/// without keys from its end, so a part more would move every part before
/// it, the lanes too, one place along, and the browser would parse them
/// all again.
fn arrow_parts(
    picture: &Picture,
    rows: &[draw::Row],
    drawing: Drawing,
    kept: &mut KeptParts<Vec<ArrowKey>>,
) -> Html {
    let scale = drawing.scale;
    let arrows = &picture.arrows;
    let paint = |svg: &mut draw::Svg, arrows: &[crate::sim::Arrow]| {
        draw::messages(svg, &scale, rows, arrows);
    };
    let shown = arrows
        .iter()
        .filter(|a| scale.shows(a.sent_ms, a.arrive_ms))
        .count();
    if shown > draw::ARROWS_DRAWN_MAX {
        *kept = KeptParts::default();
        return markup(drawing.detail, draw::Part::All, &|svg| paint(svg, arrows));
    }
    kept.drawn_with(drawing);
    kept.parts.truncate(arrows.len().div_ceil(ARROWS_A_PART));
    let parts = arrows
        .chunks(ARROWS_A_PART)
        .enumerate()
        .map(|(i, chunk)| {
            let key: Vec<ArrowKey> = chunk.iter().map(ArrowKey::of).collect();
            let text = kept.part(i, key, || {
                let mut svg = draw::Svg::new(drawing.detail, draw::Part::All);
                paint(&mut svg, chunk);
                AttrValue::from(svg.markup)
            });
            // Keyed by its place, so a part added keeps the others.
            let part = Html::from_html_unchecked(text);
            Html::VList(Rc::new(VList::with_children(vec![part], Some(i.into()))))
        })
        .collect();
    Html::VList(Rc::new(VList::with_children(parts, None)))
}

/// Arrows to a part of the picture's markup (`arrow_parts`).
const ARROWS_A_PART: usize = 16;

/// What an arrow is drawn from that can change after it is sent: TCP
/// holding it, or its loss, moves its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ArrowKey {
    id: u64,
    arrive_ms: u64,
    dropped: bool,
    held: bool,
}

impl ArrowKey {
    fn of(a: &crate::sim::Arrow) -> ArrowKey {
        ArrowKey {
            id: a.id,
            arrive_ms: a.arrive_ms,
            dropped: a.dropped,
            held: a.held,
        }
    }
}

/// The picture's markup kept from the last frame: its lanes' and its
/// arrows' parts.
#[derive(Debug, Default)]
struct Kept {
    /// Each lane's part, with its key and until when it is kept
    /// (`draw::kept_until`).
    lanes: KeptParts<(draw::LaneKey, u64)>,
    /// While the clock runs live, each lane's open part.
    open: KeptParts<(draw::LaneKey, u64)>,
    /// Each part's arrows' keys.
    arrows: KeptParts<Vec<ArrowKey>>,
}

/// What every lane of a picture is drawn with, besides its own data.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drawing {
    /// Which picture (`PictureRef::built`).
    built: u64,
    scale: Scale,
    detail: draw::Detail,
    part: draw::Part,
    /// How many rows: for one picture's system, which lanes they are.
    rows: usize,
}

/// Parts of the picture's markup kept from the last frame, each with the
/// key of what it was drawn from, and what all of them were drawn with.
#[derive(Debug)]
struct KeptParts<K> {
    drawing: Option<Drawing>,
    parts: Vec<(K, AttrValue)>,
}

impl<K> Default for KeptParts<K> {
    fn default() -> Self {
        KeptParts {
            drawing: None,
            parts: Vec::new(),
        }
    }
}

impl<K: PartialEq> KeptParts<K> {
    /// Forgets every part when this frame draws them with something else.
    fn drawn_with(&mut self, drawing: Drawing) {
        if self.drawing != Some(drawing) {
            self.drawing = Some(drawing);
            self.parts.clear();
        }
    }

    /// Part `i`'s markup: the one kept if it was drawn from `key`, else
    /// `paint`'s, kept in its place. Parts are asked for in order.
    fn part(&mut self, i: usize, key: K, paint: impl FnOnce() -> AttrValue) -> AttrValue {
        if let Some((_, text)) = self.parts.get(i).filter(|(k, _)| *k == key) {
            return text.clone();
        }
        self.put(i, key, paint())
    }

    /// Part `i`'s markup: the one kept if its key is `same`, else
    /// `paint`'s, kept in its place with the key it gives.
    fn part_if(
        &mut self,
        i: usize,
        same: impl Fn(&K) -> bool,
        paint: impl FnOnce() -> (K, AttrValue),
    ) -> AttrValue {
        if let Some((_, text)) = self.parts.get(i).filter(|(k, _)| same(k)) {
            return text.clone();
        }
        let (key, text) = paint();
        self.put(i, key, text)
    }

    /// Keeps `text`, drawn from `key`, as part `i`.
    fn put(&mut self, i: usize, key: K, text: AttrValue) -> AttrValue {
        let entry = (key, text.clone());
        match self.parts.get_mut(i) {
            Some(slot) => *slot = entry,
            None => self.parts.push(entry),
        }
        text
    }
}

/// The caption under the picture follows the mark pointed at, else the
/// one focused (pressed or reached with Tab): the pointer and the keyboard
/// read the same sentence, and a pressed mark keeps it when the pointer
/// moves away. A message's arrow also asks the worker for its wire text.
struct Tips {
    hover: Callback<MouseEvent>,
    focus: Callback<FocusEvent>,
    leave: Callback<MouseEvent>,
    blur: Callback<FocusEvent>,
}

/// The mark's sentence, and its message for an arrow.
#[derive(Debug, Clone, PartialEq)]
struct Tip {
    words: String,
    message: Option<u64>,
}

impl Tip {
    fn of(e: &Event, ask: &Callback<u64>) -> Option<Tip> {
        let words = browser::tip_of(e)?;
        let message = browser::message_of(e);
        if let Some(m) = message {
            ask.emit(m);
        }
        Some(Tip { words, message })
    }
}

impl Tips {
    fn of(view: &UseReducerHandle<View>, ask: &Callback<u64>) -> Tips {
        let (ask_a, ask_b) = (ask.clone(), ask.clone());
        Tips {
            hover: action(view, move |e: MouseEvent| {
                ViewAction::Hover(Tip::of(&e, &ask_a))
            }),
            focus: action(view, move |e: FocusEvent| {
                ViewAction::Focus(Tip::of(&e, &ask_b))
            }),
            leave: action(view, |_: MouseEvent| ViewAction::Hover(None)),
            blur: action(view, |_: FocusEvent| ViewAction::Focus(None)),
        }
    }
}

/// A callback that turns its event into an action on the view.
fn action<E: 'static>(
    view: &UseReducerHandle<View>,
    make: impl Fn(E) -> ViewAction + 'static,
) -> Callback<E> {
    let view = view.dispatcher();
    Callback::from(move |e: E| view.dispatch(make(e)))
}

/// Under the caption, for an arrow: the message as the real client sends
/// it, drawn by the worker (escaped there) when it answers.
fn wire_of(message: Option<u64>, wire: Option<(u64, AttrValue)>) -> Html {
    let Some(markup) = wire
        .filter(|(m, _)| Some(*m) == message)
        .map(|(_, html)| html)
    else {
        return Html::default();
    };
    html! {
        <div class="timeline__wire" aria-live="polite" aria-label="The message on the wire">
            { Html::from_html_unchecked(markup) }
        </div>
    }
}

/// Enter or Space on a focused mark moves the playhead to its moment, as
/// pressing it with the pointer does.
fn mark_keys(props: &TimelineProps, svg_ref: NodeRef) -> Callback<KeyboardEvent> {
    let (dispatch, end) = (props.dispatch.clone(), props.end_ms.max(props.now_ms));
    Callback::from(move |e: KeyboardEvent| {
        let rove = match e.key().as_str() {
            "ArrowRight" | "ArrowDown" => Some(browser::Rove::Next),
            "ArrowLeft" | "ArrowUp" => Some(browser::Rove::Previous),
            "Home" => Some(browser::Rove::First),
            "End" => Some(browser::Rove::Last),
            _ => None,
        };
        if let Some(rove) = rove {
            if browser::mark_time(&e).is_some() && browser::rove_marks(&svg_ref, rove) {
                e.prevent_default();
            }
            return;
        }
        if !matches!(e.key().as_str(), "Enter" | " ") {
            return;
        }
        if let Some(t) = browser::mark_time(&e) {
            e.prevent_default();
            dispatch.emit(Action::Seek(t.min(end)));
        }
    })
}

/// Pointer moves: the playhead follows a drag; two pointers pinch.
fn move_callback(
    props: &TimelineProps,
    svg_ref: NodeRef,
    view: &UseReducerHandle<View>,
    scale: Scale,
) -> Callback<PointerEvent> {
    let (dispatch, end, view) = (props.dispatch.clone(), props.end_ms, view.clone());
    Callback::from(move |e: PointerEvent| {
        let Some(x) = browser::local_x(&svg_ref, e.client_x()) else {
            return;
        };
        view.dispatch(ViewAction::Move {
            id: e.pointer_id(),
            x,
        });
        if view.pointers.len() != 2 && view.dragging {
            dispatch.emit(Action::Seek(scale.t(x).min(end)));
        }
    })
}

/// Pointer down: start dragging the playhead (or a pinch), and seek there.
fn seek_callback(
    props: &TimelineProps,
    svg_ref: NodeRef,
    view: &UseReducerHandle<View>,
    scale: Scale,
    rows: Vec<draw::Row>,
) -> Callback<PointerEvent> {
    let (dispatch, end, view) = (props.dispatch.clone(), props.end_ms, view.clone());
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
            view.dispatch(ViewAction::FoldNodes);
            return;
        }
        // A mark pressed is chosen as Enter chooses it: the playhead goes
        // to its moment, and it takes the focus (no capture, so the
        // browser gives it), which keeps its sentence under the picture.
        if let Some(t) = browser::mark_time(&e) {
            dispatch.emit(Action::Seek(t.min(end)));
            return;
        }
        browser::capture(&svg_ref, e.pointer_id());
        view.dispatch(ViewAction::Down {
            id: e.pointer_id(),
            x,
        });
        if view.dragging {
            dispatch.emit(Action::Seek(scale.t(x).min(end)));
        }
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

fn toolbar(
    props: &TimelineProps,
    view: &UseReducerHandle<View>,
    show_arrows: bool,
    nodes_open: bool,
    redlock: bool,
    svg_ref: &NodeRef,
) -> Html {
    let act = |chosen: ViewAction| action(view, move |_: MouseEvent| chosen.clone());
    let now = props.now_ms;
    let zoom = |factor: f64| act(ViewAction::Zoom { factor, now });
    let on_arrows = action(view, |e: Event| ViewAction::Arrows(browser::checked_of(&e)));
    let on_nodes = act(ViewAction::FoldNodes);
    html! {
        <div class="timeline__tools">
            <div class="timeline__group" role="group" aria-label="Zoom and pan">
                <button type="button" class="button button--small" onclick={zoom(0.5)} aria-label="Zoom in">{ "+" }</button>
                <button type="button" class="button button--small" onclick={zoom(2.0)} aria-label="Zoom out">{ "−" }</button>
                <button type="button" class="button button--small" onclick={act(ViewAction::Pan(-0.4))} aria-label="Pan back in time">{ "◀" }</button>
                <button type="button" class="button button--small" onclick={act(ViewAction::Pan(0.4))} aria-label="Pan forward in time">{ "▶" }</button>
                <button type="button" class="button button--small" onclick={act(ViewAction::Fit)}>{ "Fit the whole run" }</button>
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
            { downloads(props, svg_ref) }
        </div>
    }
}

/// The legend's items, written once as markup: the same on every frame, so
/// the page compares one string instead of rebuilding and diffing them.
/// The first names each client's colour; the bars' swatches are grey, as
/// they stand for a shape, not a client.
const LEGEND_ITEMS: &str = concat!(
    r#"<li class="legend__item legend__item--clients">each client's colour:"#,
    r#"<span class="legend__client"><span class="legend__swatch legend__swatch--client legend__swatch--a" aria-hidden="true"></span>A</span>"#,
    r#"<span class="legend__client"><span class="legend__swatch legend__swatch--client legend__swatch--b" aria-hidden="true"></span>B</span>"#,
    r#"<span class="legend__client"><span class="legend__swatch legend__swatch--client legend__swatch--c" aria-hidden="true"></span>C</span>"#,
    r#"<span class="legend__client"><span class="legend__swatch legend__swatch--client legend__swatch--d" aria-hidden="true"></span>D</span>"#,
    r#"</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--granted" aria-hidden="true"></span>lease as the service grants it (token)</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--believed" aria-hidden="true"></span>lease as the client believes it</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--alarm" aria-hidden="true"></span>believed holder: the service gave the lock to another client</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--gone" aria-hidden="true"></span>still believed after the lease is gone at the service</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--pause" aria-hidden="true"></span>GC pause</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--partition" aria-hidden="true"></span>partition</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--crash" aria-hidden="true"></span>crash</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--renewal" aria-hidden="true"></span>renewal answered</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--message" aria-hidden="true"></span>message (× lost)</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--accepted" aria-hidden="true"></span>✓ write accepted</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--rejected" aria-hidden="true"></span>✗ write rejected (fencing)</li>"#,
    r#"<li class="legend__item"><span class="legend__swatch legend__swatch--stale" aria-hidden="true"></span>⚠ stale write accepted</li>"#,
);
/// Redlock's picture adds the Redis nodes' lanes.
const LEGEND_KEY: &str = r#"<li class="legend__item"><span class="legend__swatch legend__swatch--key" aria-hidden="true"></span>lock key held on a Redis node; each node's clock skew beside its name</li>"#;

/// Under the picture: the caption of the mark pointed at (and an arrow's
/// wire text), what the picture shows, and the legend.
fn words(caption: Option<&str>, wire: Html, redlock: bool) -> Html {
    html! {
        <>
            <p class="timeline__caption" aria-live="polite">{
                caption.unwrap_or("Point at or focus a mark to read what happened. Drag along the time axis (or press ← and →) to move through time.")
            }</p>
            { wire }
            <p id="timeline-alt" class="timeline__alt">{
                "The event log below tells the same run in sentences. In the picture, each client's upper bar is its lease as the service grants it and the lower one its lease as the client believes it; red bands mark a believed holder the service no longer recognises."
            }</p>
            { legend(redlock) }
        </>
    }
}

/// The picture as SVG or PNG, and the run as JSON.
fn downloads(props: &TimelineProps, svg_ref: &NodeRef) -> Html {
    let save = |kind: browser::Download| {
        let (svg_ref, run_file) = (svg_ref.clone(), props.run_file.clone());
        Callback::from(move |_: MouseEvent| browser::save(kind, &svg_ref, &run_file))
    };
    html! {
        <div class="timeline__group" role="group" aria-label="Download">
            <span class="timeline__group-label">{ "Download" }</span>
            <button type="button" class="button button--small" onclick={save(browser::Download::Svg)}>{ "SVG" }</button>
            <button type="button" class="button button--small" onclick={save(browser::Download::Png)}>{ "PNG" }</button>
            <button type="button" class="button button--small" onclick={save(browser::Download::Json)}>{ "Run (JSON)" }</button>
        </div>
    }
}

fn legend(redlock: bool) -> Html {
    let raw = |items: &'static str| Html::from_html_unchecked(AttrValue::Static(items));
    html! {
        <ul class="legend" aria-label="Legend">
            { raw(LEGEND_ITEMS) }
            if redlock {
                { raw(LEGEND_KEY) }
            }
        </ul>
    }
}

/// Measures the panel's width now and whenever the window is resized.
#[hook]
fn use_width(holder: NodeRef, view: UseReducerDispatcher<View>) {
    use_effect_with((), move |_| {
        let listener = browser::on_resize(holder, move |width| {
            view.dispatch(ViewAction::Width(width));
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
fn use_wheel(svg_ref: NodeRef, view: UseReducerDispatcher<View>) {
    use_effect_with((), move |_| {
        let listener = browser::on_wheel(svg_ref.clone(), move |wheel| {
            view.dispatch(ViewAction::Wheel(wheel));
        });
        // Dropping the listener on cleanup removes it.
        move || {
            let _removed = listener;
        }
    });
}
