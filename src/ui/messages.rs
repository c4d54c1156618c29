//! Messages in flight, drawn as dots moving from the sender's column to the
//! receiver's, so a late or held message can be seen on its way.

use crate::sim::Sim;
use crate::sim::{Backend, ClientId, Endpoint, Message, Millis, NodeId, TokenWords};

use super::pacing::WAKES_APART_ABOVE_FRAME_MS;
use super::{use_glide, Motion};
use std::rc::Rc;
use yew::prelude::*;
use yew::virtual_dom::VList;

/// Messages drawn at most; the rest are counted. The strip stands on the
/// stage under the cards, in the lesson's first screen: a few rows, the
/// newest, in a strip of a fixed height, so nothing under it moves as
/// messages come and go.
pub const MESSAGES_SHOWN_MAX: usize = 3;
const _: () = assert!(
    MESSAGES_SHOWN_MAX == 3,
    "a glide for each row drawn (`Messages`)"
);

/// One message, ready to draw: columns are indexes into `columns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flight {
    pub id: u64,
    pub from: usize,
    pub to: usize,
    /// How far along it is, in thousandths.
    pub progress_permille: u32,
    pub label: String,
    pub describe: String,
    /// Cut off by a partition and held by TCP for retransmission.
    pub held: bool,
    /// Took longer than an ordinary hop: a delayed packet or a slow node.
    pub slow: bool,
    /// Virtual milliseconds until it arrives.
    pub left_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Properties)]
pub struct MessagesProps {
    /// The clock, in virtual milliseconds.
    pub now_ms: u64,
    /// Virtual milliseconds a frame while the clock runs, 0 while it
    /// stands: the dots glide on between renders at that rate.
    pub frame_ms: u64,
    pub columns: Vec<String>,
    pub flights: Vec<Flight>,
    /// Messages in flight that were not drawn.
    pub hidden: usize,
    /// The clock runs faster than 4x: a hop is over before it could be
    /// watched, and only messages TCP holds are drawn (`from_sim`).
    pub quick: bool,
    /// At what latency they travel: "10x real".
    pub latency: String,
}

/// The columns, left to right: the service (or its nodes), clients, resource.
fn endpoints(backend: Backend) -> Vec<Endpoint> {
    let mut cols: Vec<Endpoint> = match backend {
        Backend::Redlock => NodeId::all().map(Endpoint::Node).collect(),
        _ => vec![Endpoint::Service],
    };
    cols.extend(ClientId::ALL.iter().map(|&c| Endpoint::Client(c)));
    cols.push(Endpoint::Resource);
    cols
}

fn column_name(e: Endpoint, backend: Backend) -> String {
    match e {
        Endpoint::Client(c) => c.to_string(),
        Endpoint::Service => backend.name().into(),
        Endpoint::Node(n) => format!("R{}", n.number()),
        Endpoint::Resource => "counter".into(),
    }
}

fn flight(cols: &[Endpoint], now: Millis, m: &Message, words: TokenWords) -> Flight {
    let index = |e: Endpoint| cols.iter().position(|&c| c == e).unwrap_or(0);
    let span = m.sent_at.until(m.deliver_at).max(1);
    let done = m.sent_at.until(now).min(span);
    let label = m.body.label_in(words);
    let fate = if m.retransmits > 0 {
        ", held by TCP across a partition and sent again"
    } else {
        ""
    };
    Flight {
        id: m.id,
        from: index(m.from),
        to: index(m.to),
        progress_permille: (done * 1000 / span) as u32,
        describe: format!(
            "{} to {}: {label}, arrives at t={}{fate}",
            m.from, m.to, m.deliver_at
        ),
        label,
        held: m.retransmits > 0,
        slow: span > 1_000,
        left_ms: now.until(m.deliver_at),
    }
}

impl MessagesProps {
    /// The messages in flight in `sim`, drawn gliding at `frame_ms` a
    /// frame (0: the clock stands). Faster than 4x the clock wakes ten
    /// times a second (`pacing`), and a hop at the slowed latency lasts at
    /// most two frames: its dot would be drawn where it was at a wake,
    /// reach its end within a frame or two and sit there until the next.
    /// Only the messages TCP holds across a partition, which stay for
    /// minutes, are drawn then; the strip says how to watch the others.
    pub fn from_sim(sim: &Sim, frame_ms: u64) -> Self {
        let backend = sim.config().backend;
        let cols = endpoints(backend);
        let now = sim.now();
        let quick = frame_ms > WAKES_APART_ABOVE_FRAME_MS;
        let mut all: Vec<&Message> = sim.in_flight().collect();
        if quick {
            all.retain(|m| m.retransmits > 0);
        }
        let hidden = all.len().saturating_sub(MESSAGES_SHOWN_MAX);
        // The newest are the ones a visitor just caused: draw those.
        let flights = all[hidden..]
            .iter()
            .map(|m| flight(&cols, now, m, TokenWords::of(backend)))
            .collect();
        MessagesProps {
            now_ms: now.ms(),
            frame_ms,
            columns: cols.into_iter().map(|e| column_name(e, backend)).collect(),
            flights,
            hidden,
            quick,
            latency: crate::sim::latency::latency_words(sim.config()),
        }
    }
}

/// What the strip says faster than 4x, with no message TCP holds.
const QUICK: &str = "Too quick to watch at this speed: pause, or 4x or slower.";

/// Where a column's centre sits, in percent of the strip's width.
fn column_x(index: usize, count: usize) -> f64 {
    (index as f64 + 0.5) * 100.0 / count.max(1) as f64
}

/// Height of the column heads, and of each message's row, in pixels.
const HEAD_PX: usize = 22;
const ROW_PX: usize = 18;

/// A percentage with two decimals, written with integers (the page
/// carries no floating-point formatting).
fn pct(x: f64) -> String {
    let hundredths = (x * 100.0).round().max(0.0) as u64;
    format!("{}.{:02}%", hundredths / 100, hundredths % 100)
}

/// One message as SVG: its path from sender to receiver, and, in a layer of
/// its own over the strip (`mover`), where it is now.
/// Geometry lives in SVG attributes because the page's policy forbids inline styles.
struct FlightRow {
    track: Html,
    mover: Html,
}

fn flight_row(f: &Flight, row: usize, count: usize, mover: &NodeRef) -> FlightRow {
    let from = column_x(f.from, count);
    let to = column_x(f.to, count);
    let at = from + (to - from) * f64::from(f.progress_permille) / 1000.0;
    // In each row the label rides just above the message's line.
    let y = (HEAD_PX + row * ROW_PX + 14).to_string();
    let label_y = (HEAD_PX + row * ROW_PX + 9).to_string();
    let class = classes!(
        "flight",
        f.held.then_some("flight--held"),
        f.slow.then_some("flight--slow")
    );
    let arrow = if to < from { "← " } else { "" };
    let arrow_end = if to >= from { " →" } else { "" };
    // The label sits on the side with more room, so it never leaves the strip.
    let (anchor, label_x) = if at > 60.0 {
        ("end", at - 2.0)
    } else {
        ("start", at + 2.0)
    };
    let track = html! {
        <g class={class.clone()} key={f.id}>
            <line class="flight__track" x1={pct(from)} x2={pct(to)} y1={y.clone()} y2={y.clone()} />
            // With reduced motion nothing slides: the label stays mid-path
            // and says how far the message has got.
            <text class="flight__label flight__label--still" x={pct((from + to) / 2.0)} y={label_y.clone()}
                text-anchor="middle">
                { format!("{arrow}{}{arrow_end} {}%", f.label, f.progress_permille / 10) }
            </text>
        </g>
    };
    let mover = html! {
        // The dot and its label glide on together between renders, a
        // whole `<svg>` the compositor slides (an SVG element's motion
        // inside a drawing is painted again every frame).
        <svg class={classes!("messages__mover", class)} key={f.id} ref={mover.clone()}
            aria-hidden="true" focusable="false">
            if f.held {
                <text class="flight__dot" x={pct(at)} y={y.clone()} text-anchor="middle"
                    dominant-baseline="central">{ "⟳" }</text>
            } else {
                <circle class="flight__dot" cx={pct(at)} cy={y} r="4" />
            }
            <text class="flight__label flight__label--moving" x={pct(label_x)} y={label_y}
                text-anchor={anchor}>
                { format!("{arrow}{}{arrow_end}", f.label) }
            </text>
        </svg>
    };
    FlightRow { track, mover }
}

/// Where a message's dot and label glide to by the time it arrives, while
/// the clock runs: the rest of the way along its line, in percent of the
/// strip's width (an SVG element's transform reference box is the strip).
fn flight_motion(f: &Flight, props: &MessagesProps) -> Option<Motion> {
    if f.held {
        return None;
    }
    let count = props.columns.len();
    let (from, to) = (column_x(f.from, count), column_x(f.to, count));
    let rest = (to - from) * f64::from(1000 - f.progress_permille.min(1000)) / 1000.0;
    let to = if rest < 0.0 {
        format!("translate(-{})", pct(-rest))
    } else {
        format!("translate({})", pct(rest))
    };
    Motion::over(
        props.now_ms,
        props.frame_ms,
        f.left_ms,
        "translate(0%)".into(),
        to,
    )
}

/// The strip. While the clock runs its dots glide between renders, each
/// drawn row with a glide of its own (`use_glide`).
#[component]
pub fn Messages(props: &MessagesProps) -> Html {
    let movers: [NodeRef; MESSAGES_SHOWN_MAX] = [use_node_ref(), use_node_ref(), use_node_ref()];
    let motion = |row: usize| props.flights.get(row).and_then(|f| flight_motion(f, props));
    use_glide(&movers[0], motion(0));
    use_glide(&movers[1], motion(1));
    use_glide(&movers[2], motion(2));
    let count = props.columns.len();
    let height = HEAD_PX + MESSAGES_SHOWN_MAX * ROW_PX + 4;
    let held = props.flights.iter().any(|f| f.held);
    let empty = if props.quick {
        QUICK
    } else {
        "Nothing on the wire."
    };
    let (tracks, movers_drawn): (Vec<Html>, Vec<Html>) = props
        .flights
        .iter()
        .enumerate()
        .map(|(row, f)| {
            let drawn = flight_row(f, row, count, &movers[row]);
            (drawn.track, drawn.mover)
        })
        .unzip();
    html! {
        <section class="panel messages" aria-label="Messages in flight">
            // One line of words above a strip of a fixed height: the key
            // says only what is on show (the older messages left out, a
            // message TCP holds across a partition).
            <h2 class="panel__title">
                { "Messages in flight" }
                <span class="messages__more">{ " · latency " }{ &props.latency }</span>
                if props.hidden > 0 {
                    <span class="messages__more">{ format!(" · {} older not drawn; the timeline has them all", props.hidden) }</span>
                }
            </h2>
            <div class="messages__picture">
                <svg class="messages__strip" width="100%" height={height.to_string()}
                    aria-hidden="true" focusable="false">
                    // Each list in a group of its own: as siblings in one
                    // list, a message coming or going made Yew rewrite the
                    // columns' heads and lanes in most frames.
                    <g>
                        { for props.columns.iter().enumerate().map(|(i, name)| {
                            let x = pct(column_x(i, count));
                            html! {
                                <g class="messages__column">
                                    <line class="messages__lane" x1={x.clone()} x2={x.clone()}
                                        y1={HEAD_PX.to_string()} y2={height.to_string()} />
                                    <text class="messages__head" x={x} y="16" text-anchor="middle">{ name }</text>
                                </g>
                            }
                        }) }
                    </g>
                    <g>
                        { for tracks }
                    </g>
                    if props.flights.is_empty() {
                        <text class="messages__empty" x="50%" y={(HEAD_PX + ROW_PX + 6).to_string()}
                            text-anchor="middle">{ empty }</text>
                    }
                </svg>
                // The movers as one child of the picture, however many: a
                // list of keyed movers beside the unkeyed strip is lined up
                // from the end, so a mover more or less made Yew draw the
                // strip again (columns, tracks and all) at most renders.
                { Html::VList(Rc::new(VList::with_children(movers_drawn, None))) }
            </div>
            if props.flights.is_empty() {
                <p class="visually-hidden">{ empty }</p>
            } else {
                <ul class="visually-hidden">
                    { for props.flights.iter().map(|f| html! { <li key={f.id}>{ &f.describe }</li> }) }
                </ul>
            }
            if held {
                <p class="panel__note messages__key--held">
                    { "⟳ on a dashed line: cut off by a partition, TCP sends it again until the partition heals (15 tries, about 15 minutes)" }
                </p>
            }
        </section>
    }
}
