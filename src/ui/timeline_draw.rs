//! Drawing the timeline: lanes, bars and marks as SVG, from a `Picture`
//! and a window of time. Pure functions of their inputs, so the markup can
//! be checked without a browser. Colours are SVG attributes (the light
//! palette) so a downloaded SVG looks right on its own; the page's style
//! sheet restyles them for dark mode.

use crate::sim::net::Endpoint;
use crate::sim::timeline::{Arrow, Held, Mark, Picture, Span, WriteMark, WriteOutcome, Zone};
use crate::sim::types::{ClientId, NodeId, Token};
use yew::prelude::*;

pub const LABEL_W: f64 = 64.0;
const RIGHT_PAD: f64 = 14.0;
const AXIS_H: f64 = 24.0;
const CLIENT_H: f64 = 44.0;
const SERVICE_H: f64 = 32.0;
const NODE_H: f64 = 24.0;
const RESOURCE_H: f64 = 48.0;
/// Past this many messages in view, arrows give way to a traffic strip.
pub const ARROWS_DRAWN_MAX: usize = 250;
/// Past this many writes in view, they are drawn as ticks without labels.
const WRITES_LABELLED_MAX: usize = 120;
/// Narrowest window of time the view zooms to.
pub const VIEW_MS_MIN: u64 = 200;

pub const CLIENT_COLOURS: [&str; 4] = ["#2563eb", "#c2410c", "#0f766e", "#7c3aed"];
const INK: &str = "#1f2937";
const MUTED: &str = "#6b7280";
const ALARM: &str = "#dc2626";
const SAVE: &str = "#1d4ed8";
const OK: &str = "#15803d";
const GRID: &str = "#e5e7eb";

/// Which window of time is drawn, and how wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub v0: u64,
    pub v1: u64,
    /// The whole picture's width in pixels.
    pub width: f64,
}

impl Scale {
    pub fn plot_w(&self) -> f64 {
        (self.width - LABEL_W - RIGHT_PAD).max(40.0)
    }

    fn span_ms(&self) -> f64 {
        (self.v1.saturating_sub(self.v0)).max(1) as f64
    }

    pub fn x(&self, t: u64) -> f64 {
        LABEL_W + (t as f64 - self.v0 as f64) * self.plot_w() / self.span_ms()
    }

    /// The time under pixel `x`, not before 0.
    pub fn t(&self, x: f64) -> u64 {
        let t = self.v0 as f64 + (x - LABEL_W) * self.span_ms() / self.plot_w();
        t.max(0.0).round() as u64
    }

    fn shows(&self, from: u64, to: u64) -> bool {
        to >= self.v0 && from <= self.v1
    }

    /// `x` clamped to a little outside the plot, so long bars stay drawable.
    fn cx(&self, t: u64) -> f64 {
        self.x(t).clamp(LABEL_W - 2.0, self.width - RIGHT_PAD + 2.0)
    }
}

/// The lanes, top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    Client(ClientId),
    Service,
    /// The five Redis nodes drawn as one lane.
    Nodes,
    Node(NodeId),
    Resource,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub lane: Lane,
    pub y: f64,
    pub h: f64,
}

/// Where each lane sits. Redis nodes appear only under Redlock.
pub fn rows(redlock: bool, nodes_open: bool) -> Vec<Row> {
    let mut lanes: Vec<(Lane, f64)> = ClientId::ALL
        .iter()
        .map(|&c| (Lane::Client(c), CLIENT_H))
        .collect();
    lanes.push((Lane::Service, SERVICE_H));
    if redlock && nodes_open {
        lanes.extend(NodeId::all().map(|n| (Lane::Node(n), NODE_H)));
    } else if redlock {
        lanes.push((Lane::Nodes, NODE_H + 4.0));
    }
    lanes.push((Lane::Resource, RESOURCE_H));
    let mut y = AXIS_H;
    lanes
        .into_iter()
        .map(|(lane, h)| {
            let row = Row { lane, y, h };
            y += h;
            row
        })
        .collect()
}

pub fn height(rows: &[Row]) -> f64 {
    rows.last().map_or(AXIS_H, |r| r.y + r.h) + 4.0
}

fn row_of(rows: &[Row], lane: Lane) -> Option<Row> {
    rows.iter().copied().find(|r| r.lane == lane)
}

/// The row of the lane a message leaves or reaches.
fn end_row(rows: &[Row], end: Endpoint) -> Option<usize> {
    let lane = match end {
        Endpoint::Client(c) => Lane::Client(c),
        Endpoint::Service => Lane::Service,
        Endpoint::Resource => Lane::Resource,
        Endpoint::Node(n) if row_of(rows, Lane::Node(n)).is_some() => Lane::Node(n),
        Endpoint::Node(_) => Lane::Nodes,
    };
    rows.iter().position(|r| r.lane == lane)
}

/// The vertical middle of the lane a message leaves or reaches.
fn end_y(rows: &[Row], end: Endpoint) -> Option<f64> {
    end_row(rows, end).map(|i| rows[i].y + rows[i].h / 2.0)
}

/// Whether `label` fits inside a bar drawn from `x0` to `x1` (about 6.2
/// pixels a character at 11 px); a bar too short keeps it in its tooltip.
fn fits(label: &str, x0: f64, x1: f64) -> bool {
    x1 - x0.max(LABEL_W) >= label.chars().count() as f64 * 6.2 + 6.0
}

fn f(v: f64) -> String {
    format!("{v:.1}")
}

fn token_label(token: Option<Token>) -> String {
    match token {
        Some(t) => format!("token {t}"),
        None => "no token".into(),
    }
}

/// A focusable mark: its sentence is its title, shown on hover or focus.
fn tip(class: &'static str, text: &str, body: Html) -> Html {
    html! {
        <g class={classes!("tl-mark", class)} tabindex="0" role="img">
            <title>{ text }</title>
            { body }
        </g>
    }
}

fn rect(x0: f64, x1: f64, y: f64, h: f64, class: &'static str, fill: &str) -> Html {
    html! {
        <rect class={class} x={f(x0)} y={f(y)} width={f((x1 - x0).max(1.5))} height={f(h)} fill={fill.to_string()} />
    }
}

fn text(x: f64, y: f64, class: &'static str, fill: &str, words: String) -> Html {
    html! { <text class={class} x={f(x)} y={f(y)} fill={fill.to_string()}>{ words }</text> }
}

/// Shared pieces: the hatch for pauses, arrow heads.
pub fn defs() -> Html {
    html! {
        <defs>
            <pattern id="tl-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <line class="tl-hatch" x1="0" y1="0" x2="0" y2="6" stroke={MUTED} stroke-width="2.5" />
            </pattern>
            <marker id="tl-head" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                <path class="tl-head" d="M0,0 L6,3 L0,6 z" fill="#94a3b8" />
            </marker>
        </defs>
    }
}

/// Time step between labelled ticks: about 80 pixels apart.
fn tick_step_ms(scale: &Scale) -> u64 {
    let per_px = scale.span_ms() / scale.plot_w();
    let wanted = per_px * 80.0;
    let steps = [
        100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000,
        600_000, 1_800_000, 3_600_000,
    ];
    steps
        .into_iter()
        .find(|&s| s as f64 >= wanted)
        .unwrap_or(7_200_000)
}

fn tick_words(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
    }
}

/// The time axis and its grid lines down through every lane.
pub fn axis(scale: &Scale, bottom: f64) -> Html {
    let step = tick_step_ms(scale);
    let first = scale.v0.div_ceil(step) * step;
    let ticks = (0..)
        .map(|i| first + i * step)
        .take_while(|&t| t <= scale.v1);
    html! {
        <g class="tl-axis" aria-hidden="true">
            { for ticks.map(|t| {
                let x = scale.x(t);
                html! {
                    <g>
                        <line class="tl-grid" x1={f(x)} x2={f(x)} y1={f(AXIS_H - 4.0)} y2={f(bottom)} stroke={GRID} />
                        // A label that would run off the right edge is left out.
                        if x + 34.0 <= scale.width {
                            { text(x + 3.0, 14.0, "tl-tick", MUTED, tick_words(t)) }
                        }
                    </g>
                }
            }) }
        </g>
    }
}

/// A node's clock against true time, short enough for the lane's name.
fn clock_words(skew_ms: i64) -> String {
    let sign = if skew_ms < 0 { "-" } else { "+" };
    let abs = skew_ms.unsigned_abs();
    match abs {
        0 => "clock ok".into(),
        1..=999 => format!("{sign}{abs} ms"),
        _ => format!("{sign}{}.{} s", abs / 1000, (abs % 1000) / 100),
    }
}

/// The lane names down the left edge.
pub fn labels(rows: &[Row], picture: &Picture, backend: &str, nodes_open: bool) -> Html {
    html! {
        <g class="tl-labels">
            { for rows.iter().enumerate().map(|(i, row)| {
                let y = row.y + row.h / 2.0 + 4.0;
                let band = html! {
                    <rect class={classes!("tl-band", (i % 2 == 1).then_some("tl-band--alt"))} x="0" y={f(row.y)} width="100%" height={f(row.h)}
                        fill={if i % 2 == 1 { "#f8fafc" } else { "none" }} />
                };
                let name = match row.lane {
                    Lane::Client(c) => c.to_string(),
                    Lane::Service => backend.to_string(),
                    Lane::Nodes => "Redis 1-5".into(),
                    Lane::Node(n) => format!("Redis {}", n.number()),
                    Lane::Resource => "resource".into(),
                };
                let skew = match row.lane {
                    Lane::Node(n) => Some(clock_words(picture.nodes[n.index()].skew_ms())),
                    Lane::Nodes if !nodes_open => Some("click to open".into()),
                    _ => None,
                };
                html! {
                    <g>
                        { band }
                        { text(6.0, if skew.is_some() { y - 5.0 } else { y }, "tl-lane", INK, name) }
                        if let Some(skew) = skew {
                            { text(6.0, y + 6.0, "tl-lane-sub", MUTED, skew) }
                        }
                    </g>
                }
            }) }
        </g>
    }
}

/// Everything drawn on one client's lane.
pub fn client_lane(scale: &Scale, row: Row, picture: &Picture, c: ClientId, now_ms: u64) -> Html {
    let lane = &picture.clients[c.index()];
    let colour = CLIENT_COLOURS[c.index()];
    let granted = picture.holders.iter().filter(|h| h.client == c);
    html! {
        <g class="tl-client">
            { for lane.partitions.iter().filter_map(|s| partition(scale, row, s, now_ms)) }
            { for lane.pauses.iter().filter_map(|s| pause(scale, row, s, now_ms)) }
            { for picture.zones(c, now_ms).iter().filter_map(|z| zone(scale, row, z)) }
            { for granted.filter_map(|h| bar(scale, row.y + 6.0, h, now_ms, colour, "tl-granted", "service")) }
            { for lane.believed.iter().filter_map(|h| bar(scale, row.y + 21.0, h, now_ms, colour, "tl-believed", "believes")) }
            { for lane.crashes.iter().filter_map(|s| crash(scale, row, s, now_ms)) }
            { renewal_ticks(scale, row, &lane.renewals, now_ms) }
            { dots(scale, row.y + 26.0, &lane.marks, MUTED) }
        </g>
    }
}

/// A lease bar: granted by the service (solid) or believed (outlined).
fn bar(
    scale: &Scale,
    y: f64,
    held: &Held,
    now_ms: u64,
    colour: &str,
    class: &'static str,
    who: &str,
) -> Option<Html> {
    let (t0, t1) = (held.span.from_ms, held.span.end_ms(now_ms));
    if !scale.shows(t0, t1) {
        return None;
    }
    let (x0, x1) = (scale.cx(t0), scale.cx(t1));
    let believed = class == "tl-believed";
    let label = format!(
        "{} {}",
        if believed { "believes" } else { "holds" },
        token_label(held.token)
    );
    let words = format!("{who}: {}", held.span.text);
    let shape = html! {
        <>
            <rect class={class} x={f(x0)} y={f(y)} width={f((x1 - x0).max(2.0))} height="11" rx="2"
                fill={colour.to_string()} fill-opacity={if believed { "0.25" } else { "0.85" }}
                stroke={colour.to_string()} stroke-width="1.2" />
            if fits(&label, x0, x1) {
                { text(x0.max(LABEL_W) + 3.0, y + 9.0, if believed { "tl-bar-label tl-bar-label--believed" } else { "tl-bar-label" }, if believed { INK } else { "#ffffff" }, label) }
            }
        </>
    };
    Some(tip(class, &words, shape))
}

/// Believed while the service says otherwise: the alarm band.
fn zone(scale: &Scale, row: Row, zone: &Zone) -> Option<Html> {
    if zone.to_ms <= zone.from_ms || !scale.shows(zone.from_ms, zone.to_ms) {
        return None;
    }
    let (x0, x1) = (scale.cx(zone.from_ms), scale.cx(zone.to_ms));
    let (class, fill, words) = match zone.other {
        Some(other) => (
            "tl-zone--alarm",
            ALARM,
            format!(
                "Believed holder: {} still believes it holds while the service has given the lock to {other}",
                zone.client
            ),
        ),
        None => (
            "tl-zone--gone",
            MUTED,
            format!(
                "{} still believes it holds, but its lease is gone at the service",
                zone.client
            ),
        ),
    };
    let alarm = zone.other.is_some();
    let body = html! {
        <>
            <rect class={classes!("tl-zone", class)} x={f(x0)} y={f(row.y + 2.0)} width={f((x1 - x0).max(2.0))} height={f(row.h - 4.0)}
                fill={fill.to_string()} fill-opacity={if alarm { "0.22" } else { "0.12" }} />
            if alarm && x1 - x0 > 96.0 {
                { text(x0 + 3.0, row.y + row.h - 5.0, "tl-zone-label", ALARM, "believed holder".into()) }
            }
        </>
    };
    Some(tip(
        "tl-zone-mark",
        &format!(
            "{} to {}: {words}",
            tick_words(zone.from_ms),
            tick_words(zone.to_ms)
        ),
        body,
    ))
}

fn pause(scale: &Scale, row: Row, span: &Span, now_ms: u64) -> Option<Html> {
    let (t0, t1) = (span.from_ms, span.end_ms(now_ms));
    scale.shows(t0, t1).then(|| {
        let (x0, x1) = (scale.cx(t0), scale.cx(t1));
        tip("tl-pause", &span.text, html! {
            <>
                <rect class="tl-pause-fill" x={f(x0)} y={f(row.y + 2.0)} width={f((x1 - x0).max(2.0))} height={f(row.h - 4.0)}
                    fill="url(#tl-hatch)" fill-opacity="0.45" />
                if x1 - x0 > 60.0 {
                    { text(x0 + 3.0, row.y + 40.0, "tl-small", MUTED, "GC pause".into()) }
                }
            </>
        })
    })
}

fn partition(scale: &Scale, row: Row, span: &Span, now_ms: u64) -> Option<Html> {
    let (t0, t1) = (span.from_ms, span.end_ms(now_ms));
    scale.shows(t0, t1).then(|| {
        let (x0, x1) = (scale.cx(t0), scale.cx(t1));
        tip("tl-partition", &span.text, html! {
            <>
                <rect class="tl-partition-band" x={f(x0)} y={f(row.y + 1.0)} width={f((x1 - x0).max(2.0))} height={f(row.h - 2.0)}
                    fill={MUTED} fill-opacity="0.08" stroke={MUTED} stroke-dasharray="5 3" />
                if x1 - x0 > 60.0 {
                    { text(x0 + 3.0, row.y + 40.0, "tl-small", MUTED, "partition".into()) }
                }
            </>
        })
    })
}

fn crash(scale: &Scale, row: Row, span: &Span, now_ms: u64) -> Option<Html> {
    let (t0, t1) = (span.from_ms, span.end_ms(now_ms));
    scale.shows(t0, t1).then(|| {
        let (x0, x1) = (scale.cx(t0), scale.cx(t1));
        let (top, bottom) = (row.y + 2.0, row.y + row.h - 2.0);
        let cut = format!(
            "M{} {} l4 {} l-8 {} l8 {} l-4 {}",
            f(x0), f(top), f((bottom - top) / 4.0), f((bottom - top) / 4.0), f((bottom - top) / 4.0), f((bottom - top) / 4.0)
        );
        tip("tl-crash", &span.text, html! {
            <>
                <rect class="tl-crash-fill" x={f(x0)} y={f(top)} width={f((x1 - x0).max(1.0))} height={f(bottom - top)} fill={INK} fill-opacity="0.1" />
                <path class="tl-cut" d={cut} fill="none" stroke={INK} stroke-width="2" />
                { text(x0 + 6.0, row.y + 40.0, "tl-small", INK, "crash".into()) }
            </>
        })
    })
}

/// Renewals as small ticks, one path, at most one per pixel.
fn renewal_ticks(scale: &Scale, row: Row, at: &[u64], until_ms: u64) -> Html {
    let mut d = String::new();
    let mut last_px = f64::NEG_INFINITY;
    let y = row.y + row.h - 8.0;
    for &t in at.iter().filter(|&&t| t <= until_ms && scale.shows(t, t)) {
        let x = scale.x(t);
        if x - last_px >= 2.0 {
            d.push_str(&format!("M{} {}v6", f(x), f(y)));
            last_px = x;
        }
    }
    if d.is_empty() {
        return Html::default();
    }
    html! {
        <path class="tl-renewal" d={d} stroke={OK} stroke-width="1.2">
            <title>{ "Renewals that were answered (keepalives, heartbeats, extensions)" }</title>
        </path>
    }
}

/// Marks in view as small rings; a label only where it has room.
fn dots(scale: &Scale, y: f64, marks: &[Mark], colour: &str) -> Html {
    let mut free_x = f64::NEG_INFINITY;
    let shown = marks.iter().filter(|m| scale.shows(m.at_ms, m.at_ms));
    html! {
        <>
            { for shown.map(|m| {
                let x = scale.x(m.at_ms);
                // About 6 pixels per character at 11 px.
                let room = !m.label.is_empty() && x + 4.0 >= free_x;
                if room {
                    free_x = x + 4.0 + m.label.chars().count() as f64 * 6.0 + 4.0;
                }
                dot(x, y, m, colour, room)
            }) }
        </>
    }
}

fn dot(x: f64, y: f64, m: &Mark, colour: &str, labelled: bool) -> Html {
    tip(
        "tl-event",
        &m.text,
        html! {
            <>
                <circle class="tl-dot" cx={f(x)} cy={f(y)} r="3" fill="none" stroke={colour.to_string()} stroke-width="1.5" />
                if labelled {
                    { text(x + 4.0, y - 4.0, "tl-small", colour, m.label.to_string()) }
                }
            </>
        },
    )
}

/// The service lane: who the service says holds, and its own events.
pub fn service_lane(scale: &Scale, row: Row, picture: &Picture, now_ms: u64) -> Html {
    html! {
        <g class="tl-service">
            { for picture.holders.iter().filter_map(|h| {
                let colour = CLIENT_COLOURS[h.client.index()];
                let (t0, t1) = (h.span.from_ms, h.span.end_ms(now_ms));
                let label = format!("{} {}", h.client, token_label(h.token));
                scale.shows(t0, t1).then(|| {
                    let (x0, x1) = (scale.cx(t0), scale.cx(t1));
                    tip("tl-holder", &h.span.text, html! {
                        <>
                            <rect class="tl-holder-bar" x={f(x0)} y={f(row.y + 5.0)} width={f((x1 - x0).max(2.0))} height="10" rx="2"
                                fill={colour.to_string()} fill-opacity="0.85" />
                            if fits(&label, x0, x1) {
                                { text(x0.max(LABEL_W) + 3.0, row.y + 13.5, "tl-bar-label", "#ffffff", label.clone()) }
                            }
                        </>
                    })
                })
            }) }
            { dots(scale, row.y + 24.0, &picture.service, MUTED) }
        </g>
    }
}

/// One Redis node's lane (or all five folded into one).
pub fn node_lane(
    scale: &Scale,
    row: Row,
    picture: &Picture,
    node: Option<NodeId>,
    now_ms: u64,
) -> Html {
    let lanes: Vec<(usize, &crate::sim::timeline::NodeLane)> = match node {
        Some(n) => vec![(n.index(), &picture.nodes[n.index()])],
        None => picture.nodes.iter().enumerate().collect(),
    };
    let slot = |i: usize| match node {
        Some(_) => (row.y + 5.0, 12.0),
        None => (row.y + 3.0 + i as f64 * 4.8, 4.0),
    };
    html! {
        <g class="tl-nodes">
            { for lanes.iter().map(|&(i, lane)| {
                let (y, h) = slot(i);
                html! {
                    <g>
                        { for lane.down.iter().filter(|s| scale.shows(s.from_ms, s.end_ms(now_ms))).map(|s| {
                            let (x0, x1) = (scale.cx(s.from_ms), scale.cx(s.end_ms(now_ms)));
                            tip("tl-down", &s.text, rect(x0, x1, y, h, "tl-down-fill", INK))
                        }) }
                        { for lane.keys.iter().filter(|k| scale.shows(k.span.from_ms, k.span.end_ms(now_ms))).map(|k| {
                            let (x0, x1) = (scale.cx(k.span.from_ms), scale.cx(k.span.end_ms(now_ms)));
                            tip("tl-key", &k.span.text, rect(x0, x1, y, h, "tl-key-bar", CLIENT_COLOURS[k.client.index()]))
                        }) }
                        if node.is_some() {
                            { dots(scale, row.y + 19.0, &lane.marks, ALARM) }
                        }
                    </g>
                }
            }) }
        </g>
    }
}

/// The resource lane: each write where it landed, and what it carried.
pub fn resource_lane(scale: &Scale, row: Row, picture: &Picture) -> Html {
    let shown: Vec<&WriteMark> = picture
        .writes
        .iter()
        .filter(|w| scale.shows(w.at_ms, w.at_ms))
        .collect();
    let labelled = shown.len() <= WRITES_LABELLED_MAX;
    // Labels of writes close together take turns on two lines.
    let mut free_x = [f64::NEG_INFINITY; 2];
    let mut line_of = |x: f64, words: usize| {
        let line = usize::from(x - 10.0 < free_x[0]);
        free_x[line] = free_x[line].max(x - 10.0 + words as f64 * 6.2 + 4.0);
        line
    };
    html! {
        <g class="tl-resource">
            { for shown.into_iter().map(|w| {
                let label = write_label(w);
                let line = line_of(scale.x(w.at_ms), label.chars().count());
                write_mark(scale, row, w, labelled.then_some((label, line)))
            }) }
        </g>
    }
}

/// "A t1 STALE": who wrote, with which token, and what came of it.
fn write_label(w: &WriteMark) -> String {
    let words = match w.outcome {
        WriteOutcome::Accepted => "ok",
        WriteOutcome::Rejected(_) => "rejected",
        WriteOutcome::Stale => "STALE",
    };
    match w.token {
        Some(t) => format!("{} t{t} {words}", w.client),
        None => format!("{} {words}", w.client),
    }
}

fn write_mark(scale: &Scale, row: Row, w: &WriteMark, label: Option<(String, usize)>) -> Html {
    let x = scale.x(w.at_ms);
    let y = row.y + 13.0;
    let (class, symbol) = match w.outcome {
        WriteOutcome::Accepted => (
            "tl-write--accepted",
            html! {
                <>
                    <circle cx={f(x)} cy={f(y)} r="7" fill={OK} />
                    <path d={format!("M{} {}l3 3l5 -6", f(x - 4.0), f(y))} fill="none" stroke="#ffffff" stroke-width="2" />
                </>
            },
        ),
        WriteOutcome::Rejected(_) => (
            "tl-write--rejected",
            html! {
                <>
                    <circle cx={f(x)} cy={f(y)} r="7" fill={SAVE} />
                    <path d={format!("M{} {}l7 7M{} {}l7 -7", f(x - 3.5), f(y - 3.5), f(x - 3.5), f(y + 3.5))} fill="none" stroke="#ffffff" stroke-width="2" />
                </>
            },
        ),
        WriteOutcome::Stale => (
            "tl-write--stale",
            html! {
                <>
                    <path d={format!("M{} {}l8 14h-16z", f(x), f(y - 8.0))} fill={ALARM} />
                    <path d={format!("M{} {}v5m0 2.5v1.5", f(x), f(y - 3.5))} stroke="#ffffff" stroke-width="2" />
                </>
            },
        ),
    };
    let colour = match w.outcome {
        WriteOutcome::Stale => ALARM,
        _ => INK,
    };
    tip(
        class,
        &w.text,
        html! {
            <>
                { symbol }
                if let Some((words, line)) = label {
                    { text(x - 10.0, row.y + 32.0 + line as f64 * 11.0, "tl-write-label", colour, words) }
                }
            </>
        },
    )
}

/// Messages in view: arrows when few, a traffic strip per lane when many.
pub fn messages(scale: &Scale, rows: &[Row], arrows: &[Arrow]) -> Html {
    let shown: Vec<&Arrow> = arrows
        .iter()
        .filter(|a| scale.shows(a.sent_ms, a.arrive_ms))
        .collect();
    if shown.len() > ARROWS_DRAWN_MAX {
        return traffic(scale, rows, &shown);
    }
    html! {
        <g class="tl-messages">
            { for shown.into_iter().filter_map(|a| arrow(scale, rows, a)) }
        </g>
    }
}

fn arrow(scale: &Scale, rows: &[Row], a: &Arrow) -> Option<Html> {
    let (y0, y1) = (end_y(rows, a.from)?, end_y(rows, a.to)?);
    let (x0, x1) = (scale.x(a.sent_ms), scale.x(a.arrive_ms));
    let cross = a
        .dropped
        .then(|| format!("M{} {}l6 6m0 -6l-6 6", f(x1 - 3.0), f(y1 - 3.0)));
    Some(html! {
        <g class={classes!("tl-msg", a.dropped.then_some("tl-msg--dropped"))}>
            <title>{ format!("{}{}", a.text, if a.dropped { " (lost in the partition)" } else { "" }) }</title>
            <line x1={f(x0)} y1={f(y0)} x2={f(x1)} y2={f(y1)} stroke="#94a3b8" stroke-width="1"
                marker-end={if a.dropped { None } else { Some("url(#tl-head)") }} />
            if let Some(d) = cross {
                <path class="tl-msg-cross" d={d} stroke={ALARM} stroke-width="2" />
            }
        </g>
    })
}

/// Many messages: how busy each lane's link is, in 4-pixel columns.
fn traffic(scale: &Scale, rows: &[Row], shown: &[&Arrow]) -> Html {
    const COLUMN_PX: f64 = 4.0;
    let columns = (scale.plot_w() / COLUMN_PX).ceil() as usize + 1;
    let mut counts = vec![vec![0u32; columns]; rows.len()];
    for a in shown {
        for (end, t) in [(a.from, a.sent_ms), (a.to, a.arrive_ms)] {
            let Some(r) = end_row(rows, end) else {
                continue;
            };
            let col = ((scale.x(t) - LABEL_W) / COLUMN_PX).floor();
            if col >= 0.0 && (col as usize) < columns {
                counts[r][col as usize] += 1;
            }
        }
    }
    let mut d = String::new();
    for (r, row) in rows.iter().enumerate() {
        for (col, &n) in counts[r].iter().enumerate().filter(|(_, &n)| n > 0) {
            let h = f64::from(n.min(8)) * 0.75 + 1.0;
            let x = LABEL_W + col as f64 * COLUMN_PX;
            d.push_str(&format!(
                "M{} {}h3v{}h-3z",
                f(x),
                f(row.y + row.h - 1.0),
                f(-h)
            ));
        }
    }
    html! {
        <g class="tl-traffic">
            <path d={d} fill="#94a3b8" fill-opacity="0.7">
                <title>{ format!("{} messages in view: the strips show how busy each lane is. Zoom in to see them as arrows.", shown.len()) }</title>
            </path>
        </g>
    }
}

/// The playhead: where the page's clock is.
pub fn playhead(scale: &Scale, bottom: f64, now_ms: u64) -> Html {
    let x = scale.x(now_ms);
    html! {
        <g class="tl-playhead-mark" aria-hidden="true">
            <line class="tl-playhead-line" x1={f(x)} x2={f(x)} y1="2" y2={f(bottom)} stroke={INK} stroke-width="1.5" />
            <path class="tl-playhead-knob" d={format!("M{} 2h12v10l-6 6l-6 -6z", f(x - 6.0))} fill={INK} />
        </g>
    }
}

/// Faded cover over the recorded run that lies after the playhead.
pub fn future_veil(scale: &Scale, bottom: f64, now_ms: u64, end_ms: u64) -> Html {
    if end_ms <= now_ms || !scale.shows(now_ms, end_ms) {
        return Html::default();
    }
    let (x0, x1) = (scale.cx(now_ms), scale.cx(end_ms));
    html! {
        <rect class="tl-veil" x={f(x0)} y={f(AXIS_H)} width={f(x1 - x0)} height={f(bottom - AXIS_H)}
            fill="#ffffff" fill-opacity="0.55" aria-hidden="true" />
    }
}

/// The key moment a story's tour stopped on: an outlined stripe.
pub fn key_moment(scale: &Scale, bottom: f64, at_ms: u64) -> Html {
    if !scale.shows(at_ms, at_ms) {
        return Html::default();
    }
    let x = scale.x(at_ms);
    html! {
        <g class="tl-key-moment">
            <title>{ format!("The tour's key moment, t={}", tick_words(at_ms)) }</title>
            <rect x={f(x - 5.0)} y={f(AXIS_H)} width="10" height={f(bottom - AXIS_H)}
                fill={SAVE} fill-opacity="0.12" stroke={SAVE} stroke-dasharray="3 2" />
            { text(x + 7.0, AXIS_H + 10.0, "tl-key-label", SAVE, "key moment".into()) }
        </g>
    }
}
