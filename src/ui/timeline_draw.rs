//! Drawing the timeline: lanes, bars and marks as SVG markup, from a
//! `Picture` and a window of time. Pure functions of their inputs, so the
//! markup can be checked without a browser.
//!
//! The picture is written as text and handed to the page whole: a long run
//! has thousands of marks, and one string is far cheaper to build (and to
//! ship in the page's WebAssembly) than a virtual node per mark. Only what
//! is in view is drawn, and where marks crowd, they merge into one shape.
//! Colours are SVG attributes (the light palette) so a downloaded SVG looks
//! right on its own; the page's style sheet restyles them for dark mode.

use crate::markup::escape;
use crate::sim::Endpoint;
use crate::sim::{
    Arrow, Changed, ClientId, Held, Mark, NodeId, Picture, Span, Token, TokenWords, WriteMark,
    WriteOutcome, Zone,
};
use crate::words::{skew, tick_seconds};

use std::fmt::Write;

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
/// Past this many spans or marks of one kind on one lane in view, they are
/// merged into one shape (zoom in to see each one).
const MARKS_EACH_MAX: usize = 60;
/// Narrowest window of time the view zooms to.
pub const VIEW_MS_MIN: u64 = 200;

/// Each client's colour: white labels on it read at 4.9:1, and as a mark
/// it stands at 3.2:1 or more on the light ground and on the dark one, so
/// the same colours serve both schemes (and a downloaded SVG).
pub const CLIENT_COLOURS: [&str; 4] = ["#2b67ec", "#c8430c", "#107e75", "#874aee"];
const INK: &str = "#1f2937";
/// Grey words and marks: 4.5:1 or more even on a partition's tinted band.
const MUTED: &str = "#4b5563";
/// The believed-holder band's words, dark enough on its pale red.
const ALARM_INK: &str = "#991b1b";
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
    /// The plot's width: never less than 40 pixels, however narrow the
    /// panel (a picture too narrow to read is still drawn, not refused).
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

    pub fn shows(&self, from: u64, to: u64) -> bool {
        to >= self.v0 && from <= self.v1
    }

    /// `x` clamped to a little outside the plot, so long bars stay drawable.
    fn cx(&self, t: u64) -> f64 {
        let right = LABEL_W + self.plot_w() + 2.0;
        self.x(t).max(LABEL_W - 2.0).min(right)
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

/// What a lane's drawing is made from, besides the window, detail and
/// part every lane shares: how often the data it draws has changed (the
/// counts only grow, so their sum changes whenever one does), and where
/// open spans end. Two drawings of a lane with the same key are the same
/// markup, so the page keeps the last one.
pub type LaneKey = (u32, u64);

pub fn lane_key(picture: &Picture, lane: Lane, until: u64, part: Part) -> LaneKey {
    let (changes, none) = (&picture.changes, Changed::default());
    let parts = match lane {
        Lane::Client(c) => [
            changes.clients[c.index()],
            changes.holders,
            none,
            none,
            none,
        ],
        Lane::Service => [changes.service, changes.holders, none, none, none],
        Lane::Nodes => changes.nodes,
        Lane::Node(n) => [changes.nodes[n.index()], none, none, none, none],
        Lane::Resource => [changes.writes, none, none, none, none],
    };
    let (count, reach_ms) = parts.iter().fold((0, 0), |(count, reach), part| {
        (count + part.count, reach.max(part.reach_ms))
    });
    // Past the latest time the lane's data holds, what has ended is drawn
    // the same wherever open spans end; and open shapes, drawn past the
    // plot whatever the clock, change with it only where their words come
    // to fit (`kept_until`).
    let until = match part {
        Part::Settled | Part::Open => until.min(reach_ms + 1),
        Part::All => until,
    };
    (count, until)
}

/// Until when a lane's drawing made with open spans ending at `until`
/// stays the same markup, besides its key (`lane_key`): an open part
/// draws its shapes past the plot whatever the clock, and changes only
/// where the clock's edge lets a label fit or brings a span into the
/// window; with every mark's own words (`Detail::Marks`), which tell
/// when open spans end, at every move of the clock. Every other part's
/// drawing changes with its key alone.
pub fn kept_until(svg: &Svg, scale: &Scale, until: u64) -> u64 {
    match (svg.part, svg.detail) {
        (Part::Open, Detail::Plain) => {}
        (Part::Open, Detail::Marks) => return until + 1,
        _ => return u64::MAX,
    }
    let mut at = u64::MAX;
    if svg.redraw_px.is_finite() {
        // `Scale::t` rounds to the nearest millisecond: one before it is
        // never late, and a drawing asked for again too early finds the
        // words still too long, and is kept a little longer.
        at = scale.t(svg.redraw_px).saturating_sub(1);
    }
    if until < scale.v0 {
        at = at.min(scale.v0);
    }
    at.max(until + 1)
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

/// A coordinate as SVG markup writes it: tenths of a pixel, written with
/// integers (the page carries no floating-point formatting for this).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Px(pub f64);

impl std::fmt::Display for Px {
    /// Written digit by digit into one buffer, not with `write!`: a long
    /// run's lanes write tens of thousands of coordinates a frame, and the
    /// formatting machinery was a third of the page's script time.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tenths = (self.0 * 10.0).round() as i64;
        let mut abs = tenths.unsigned_abs();
        let mut buf = [0u8; 24];
        let mut at = buf.len() - 2;
        buf[at] = b'.';
        buf[at + 1] = b'0' + (abs % 10) as u8;
        abs /= 10;
        loop {
            at -= 1;
            buf[at] = b'0' + (abs % 10) as u8;
            abs /= 10;
            if abs == 0 {
                break;
            }
        }
        if tenths < 0 {
            at -= 1;
            buf[at] = b'-';
        }
        f.write_str(std::str::from_utf8(&buf[at..]).map_err(|_| std::fmt::Error)?)
    }
}

/// SVG markup being written. Every number is written with one decimal
/// (`Px`); every text is escaped.
#[derive(Debug, Default)]
pub struct Svg {
    /// The markup written so far.
    pub markup: String,
    detail: Detail,
    part: Part,
    /// The nearest pixel at which a span's words would come to fit: where
    /// the clock's edge would change an open part's drawing.
    redraw_px: f64,
}

/// Which of a lane's marks a drawing takes. While the clock runs live, a
/// lane is drawn in two parts: what has ended (`Settled`), and what is
/// still open (`Open`). Open shapes are drawn on to the plot's right edge
/// and cut at the clock by the box the page holds them in (`.tl-open`), so both
/// parts keep the same markup, and their elements, frame after frame:
/// they change only when something happens on the lane, or when an open
/// span grows wide enough for its words (`kept_until`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Part {
    #[default]
    All,
    Settled,
    Open,
}

/// Where open shapes are drawn to: past the right edge of any panel.
const REACH_X: f64 = 100_000.0;

/// How much a drawing carries: while the clock runs it is redrawn every
/// frame, so marks merge into a few plain shapes; stopped, each mark is its
/// own element with its sentence, to point at and to focus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Detail {
    #[default]
    Marks,
    Plain,
}

impl Svg {
    pub fn new(detail: Detail, part: Part) -> Svg {
        Svg {
            markup: String::new(),
            detail,
            part,
            redraw_px: f64::INFINITY,
        }
    }

    /// Whether words `need` pixels wide fit a span drawn from `x0` to
    /// `x1`, as it stands when drawn; where they would come to fit as the
    /// span grows is noted, for an open part's `kept_until`.
    fn fits(&mut self, x0: f64, x1: f64, need: f64) -> bool {
        let fits = x1 - x0 >= need;
        if !fits {
            self.redraw_px = self.redraw_px.min(x0 + need);
        }
        fits
    }

    /// Where a shape that ends at `x1` is drawn to: an open part's shapes
    /// reach past the plot's right edge, and their box cuts them.
    fn reach(&self, x1: f64) -> f64 {
        match self.part {
            Part::Open => x1.max(REACH_X),
            _ => x1,
        }
    }

    /// Whether this drawing takes a mark that is still open (or has ended).
    fn takes(&self, open: bool) -> bool {
        match self.part {
            Part::All => true,
            Part::Settled => !open,
            Part::Open => open,
        }
    }

    /// Past how many marks of one kind on one lane they merge.
    fn each_max(&self) -> usize {
        match self.detail {
            Detail::Marks => MARKS_EACH_MAX,
            Detail::Plain => 0,
        }
    }

    fn raw(&mut self, markup: &str) {
        self.markup.push_str(markup);
    }

    /// A focusable mark: its sentence is its title, shown on hover or
    /// focus; `data-t` is its moment, where pressing it (or Enter on it)
    /// moves the playhead. Out of the Tab order: the timeline is one Tab
    /// stop, and the arrow keys move between its marks (`ui::timeline`).
    fn open_mark(&mut self, class: &str, sentence: &str, at_ms: u64) {
        let _ = write!(
            self.markup,
            r#"<g class="tl-mark {class}" tabindex="-1" role="img" data-t="{at_ms}"><title>{}</title>"#,
            escape(sentence)
        );
    }

    fn close(&mut self) {
        self.markup.push_str("</g>");
    }

    fn rect(&mut self, class: &str, x0: f64, x1: f64, y: f64, h: f64, paint: &str) {
        let _ = write!(
            self.markup,
            r#"<rect class="{class}" x="{x0}" y="{y}" width="{}" height="{h}" {paint}/>"#,
            Px((x1 - x0).max(1.5)),
            x0 = Px(x0),
            y = Px(y),
            h = Px(h)
        );
    }

    fn text(&mut self, class: &str, x: f64, y: f64, fill: &str, words: &str) {
        let _ = write!(
            self.markup,
            r#"<text class="{class}" x="{x}" y="{y}" fill="{fill}">{}</text>"#,
            escape(words),
            x = Px(x),
            y = Px(y)
        );
    }

    fn path(&mut self, class: &str, d: &str, paint: &str, title: Option<&str>) {
        let _ = write!(self.markup, r#"<path class="{class}" d="{d}" {paint}>"#);
        if let Some(title) = title {
            let _ = write!(self.markup, "<title>{}</title>", escape(title));
        }
        self.markup.push_str("</path>");
    }
}

/// Whether `label` fits inside a bar drawn from `x0` to `x1` (about 6.2
/// pixels a character at 11 px); a bar too short keeps it in its tooltip.
fn label_fits(svg: &mut Svg, label: &str, x0: f64, x1: f64) -> bool {
    let need = label.chars().count() as f64 * 6.2 + 6.0;
    svg.fits(x0.max(LABEL_W), x1, need)
}

/// A grant's token as every view words it (`TokenWords`).
fn token_label(picture: &Picture, token: Option<Token>) -> String {
    picture.words.grant(token)
}

/// A stretch to draw: where, in which colour, and what it was.
struct Stretch<'a> {
    x0: f64,
    x1: f64,
    colour: &'a str,
    text: &'a str,
    label: Option<String>,
    /// When it starts.
    from_ms: u64,
    /// Still open: it ends wherever the clock is.
    open: bool,
}

/// Stretches on one band of a lane: each its own mark while few; merged
/// where they touch into one shape per colour when many.
fn stretches(
    svg: &mut Svg,
    class: &str,
    y: f64,
    h: f64,
    paint: &str,
    items: Vec<Stretch>,
    label_fill: &str,
) {
    let items: Vec<Stretch> = items.into_iter().filter(|i| svg.takes(i.open)).collect();
    if items.len() <= svg.each_max() {
        for item in &items {
            svg.open_mark(class, item.text, item.from_ms);
            let fill = format!(r#"fill="{}" {paint}"#, item.colour);
            let x1 = svg.reach(item.x1);
            svg.rect(&format!("{class}-shape"), item.x0, x1, y, h, &fill);
            bar_label(svg, item, y + h - 2.5, label_fill);
            svg.close();
        }
        return;
    }
    let mut colours: Vec<&str> = Vec::new();
    for item in &items {
        if !colours.contains(&item.colour) {
            colours.push(item.colour);
        }
    }
    for colour in colours {
        let mut d = String::new();
        let mut push = |(a, b): (f64, f64)| {
            let w = (b - a).max(1.0);
            let _ = write!(d, "M{} {}h{}v{}h{}z", Px(a), Px(y), Px(w), Px(h), Px(-w));
        };
        let mut open: Option<(f64, f64)> = None;
        for item in items.iter().filter(|i| i.colour == colour) {
            let x1 = svg.reach(item.x1);
            open = match open {
                Some((a, b)) if item.x0 <= b + 1.0 => Some((a, b.max(x1))),
                Some(done) => {
                    push(done);
                    Some((item.x0, x1))
                }
                None => Some((item.x0, x1)),
            };
        }
        if let Some(done) = open {
            push(done);
        }
        let title = format!("{} of these in view: zoom in to point at each", items.len());
        svg.path(
            &format!("{class}-shape tl-dense"),
            &d,
            &format!(r#"fill="{colour}" {paint}"#),
            (items.len() > MARKS_EACH_MAX).then_some(title.as_str()),
        );
    }
    // Few enough to read: their labels still show on the merged shapes.
    if items.len() <= MARKS_EACH_MAX {
        for item in &items {
            bar_label(svg, item, y + h - 2.5, label_fill);
        }
    }
}

/// A stretch's label, inside it where it fits. Dark ink on a light bar
/// turns light in dark mode (the style sheet).
fn bar_label(svg: &mut Svg, item: &Stretch, baseline: f64, fill: &str) {
    if let Some(label) = item
        .label
        .as_deref()
        .filter(|l| label_fits(svg, l, item.x0, item.x1))
    {
        let class = if fill == INK {
            "tl-bar-label tl-bar-label--ink"
        } else {
            "tl-bar-label"
        };
        svg.text(class, item.x0.max(LABEL_W) + 3.0, baseline, fill, label);
    }
}

/// The picture's white ground (dark in dark mode, by the style sheet).
pub fn background(svg: &mut Svg, width: f64, bottom: f64) {
    let _ = write!(
        svg.markup,
        r##"<rect class="tl-bg" x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##,
        Px(width),
        Px(bottom)
    );
}

/// Shared pieces: the hatch for pauses, arrow heads.
pub fn defs(svg: &mut Svg) {
    svg.raw(concat!(
        r#"<defs><pattern id="tl-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"#,
        r##"<line class="tl-hatch" x1="0" y1="0" x2="0" y2="6" stroke="#6b7280" stroke-width="2.5"/></pattern>"##,
        r#"<marker id="tl-head" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse">"#,
        r##"<path class="tl-head" d="M0,0 L6,3 L0,6 z" fill="#64748b"/></marker></defs>"##,
    ));
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

/// The time axis and its grid lines down through every lane.
pub fn axis(svg: &mut Svg, scale: &Scale, bottom: f64) {
    let step = tick_step_ms(scale);
    let first = scale.v0.div_ceil(step) * step;
    svg.raw(r#"<g class="tl-axis" aria-hidden="true">"#);
    for t in (0..)
        .map(|i| first + i * step)
        .take_while(|&t| t <= scale.v1)
    {
        let x = scale.x(t);
        let _ = write!(
            svg.markup,
            r#"<line class="tl-grid" x1="{x}" x2="{x}" y1="{}" y2="{bottom}" stroke="{GRID}"/>"#,
            Px(AXIS_H - 4.0),
            x = Px(x),
            bottom = Px(bottom)
        );
        // A label that would run off the right edge is left out.
        if x + 34.0 <= scale.width {
            svg.text("tl-tick", x + 3.0, 14.0, MUTED, &tick_seconds(t));
        }
    }
    svg.close();
}

/// The lane names down the left edge, on alternating bands.
pub fn labels(svg: &mut Svg, rows: &[Row], picture: &Picture, backend: &str, nodes_open: bool) {
    svg.raw(r#"<g class="tl-labels">"#);
    for (i, row) in rows.iter().enumerate() {
        let alt = i % 2 == 1;
        let _ = write!(
            svg.markup,
            r#"<rect class="tl-band{}" x="0" y="{}" width="100%" height="{}" fill="{}"/>"#,
            if alt { " tl-band--alt" } else { "" },
            Px(row.y),
            Px(row.h),
            if alt { "#f8fafc" } else { "none" }
        );
        let name = match row.lane {
            Lane::Client(c) => c.to_string(),
            Lane::Service => backend.to_string(),
            Lane::Nodes => "Redis 1-5".into(),
            Lane::Node(n) => format!("Redis {}", n.number()),
            Lane::Resource => "resource".into(),
        };
        let sub = match row.lane {
            Lane::Node(n) => {
                Some(skew(picture.nodes[n.index()].skew_ms()).unwrap_or_else(|| "clock ok".into()))
            }
            Lane::Nodes if !nodes_open => Some("click to open".into()),
            _ => None,
        };
        let y = row.y + row.h / 2.0 + 4.0;
        match sub {
            Some(sub) => {
                svg.text("tl-lane", 6.0, y - 5.0, INK, &name);
                svg.text("tl-lane-sub", 6.0, y + 6.0, MUTED, &sub);
            }
            None => svg.text("tl-lane", 6.0, y, INK, &name),
        }
    }
    svg.close();
}

fn span_stretch<'a>(
    scale: &Scale,
    span: &'a Span,
    until_ms: u64,
    colour: &'a str,
) -> Option<Stretch<'a>> {
    let (t0, t1) = (span.from_ms, span.end_ms(until_ms));
    scale.shows(t0, t1).then(|| Stretch {
        x0: scale.cx(t0),
        x1: scale.cx(t1),
        colour,
        text: &span.text,
        label: None,
        from_ms: t0,
        open: span.to_ms.is_none(),
    })
}

fn held_stretch<'a>(
    scale: &Scale,
    held: &'a Held,
    until_ms: u64,
    label: String,
) -> Option<Stretch<'a>> {
    span_stretch(
        scale,
        &held.span,
        until_ms,
        CLIENT_COLOURS[held.client.index()],
    )
    .map(|s| Stretch {
        label: Some(label),
        ..s
    })
}

fn spans_of<'a>(
    scale: &Scale,
    list: &'a [Span],
    until_ms: u64,
    colour: &'a str,
) -> Vec<Stretch<'a>> {
    list.iter()
        .filter_map(|s| span_stretch(scale, s, until_ms, colour))
        .collect()
}

/// Everything drawn on `row`'s lane; open spans reach `until_ms`.
pub fn lane(svg: &mut Svg, scale: &Scale, row: Row, picture: &Picture, until_ms: u64) {
    match row.lane {
        Lane::Client(c) => client_lane(svg, scale, row, picture, c, until_ms),
        Lane::Service => service_lane(svg, scale, row, picture, until_ms),
        Lane::Nodes => node_lane(svg, scale, row, picture, None, until_ms),
        Lane::Node(n) => node_lane(svg, scale, row, picture, Some(n), until_ms),
        Lane::Resource => resource_lane(svg, scale, row, picture),
    }
}

/// Everything drawn on one client's lane.
pub fn client_lane(
    svg: &mut Svg,
    scale: &Scale,
    row: Row,
    picture: &Picture,
    c: ClientId,
    until_ms: u64,
) {
    let lane = &picture.clients[c.index()];
    svg.raw(r#"<g class="tl-client">"#);
    let band = (row.y + 1.0, row.h - 2.0);
    stretches(
        svg,
        "tl-partition",
        band.0,
        band.1,
        r##"fill-opacity="0.08" stroke="#6b7280" stroke-dasharray="5 3""##,
        spans_of(scale, &lane.partitions, until_ms, MUTED),
        MUTED,
    );
    stretches(
        svg,
        "tl-pause",
        band.0,
        band.1,
        r#"fill-opacity="0.45""#,
        spans_of(scale, &lane.pauses, until_ms, "url(#tl-hatch)"),
        MUTED,
    );
    zones(svg, scale, row, picture, c, until_ms);
    leases(svg, scale, row, picture, c, until_ms);
    crashes(svg, scale, row, &lane.crashes, until_ms);
    span_words(svg, scale, row, &lane.pauses, until_ms, "GC pause");
    span_words(svg, scale, row, &lane.partitions, until_ms, "partition");
    renewal_ticks(svg, scale, row, &lane.renewals, until_ms);
    dots(svg, scale, row.y + 26.0, &lane.marks, MUTED);
    svg.close();
}

/// A client's two bars: its lease as the service grants it, above, and as
/// the client believes it, below.
fn leases(svg: &mut Svg, scale: &Scale, row: Row, picture: &Picture, c: ClientId, until_ms: u64) {
    let lane = &picture.clients[c.index()];
    let granted = picture.holders.iter().filter(|h| h.client == c);
    let granted = granted.filter_map(|h| {
        held_stretch(
            scale,
            h,
            until_ms,
            format!("holds {}", token_label(picture, h.token)),
        )
    });
    stretches(
        svg,
        "tl-granted",
        row.y + 5.0,
        11.0,
        // Opaque, so the white label on it keeps its contrast.
        "",
        granted.collect(),
        "#ffffff",
    );
    let believed = lane.believed.iter().filter_map(|h| {
        held_stretch(
            scale,
            h,
            until_ms,
            format!("believes {}", token_label(picture, h.token)),
        )
    });
    let colour = CLIENT_COLOURS[c.index()];
    let outline = format!(r#"fill-opacity="0.25" stroke="{colour}" stroke-width="1.2""#);
    stretches(
        svg,
        "tl-believed",
        row.y + 19.0,
        11.0,
        &outline,
        believed.collect(),
        INK,
    );
}

/// A client's crashes: a band while it is down, and a cut where it fell.
fn crashes(svg: &mut Svg, scale: &Scale, row: Row, crashes: &[Span], until_ms: u64) {
    stretches(
        svg,
        "tl-crash",
        row.y + 1.0,
        row.h - 2.0,
        r#"fill-opacity="0.15""#,
        spans_of(scale, crashes, until_ms, INK),
        INK,
    );
    let settled = svg.takes(false);
    for crash in crashes
        .iter()
        .filter(|s| settled && scale.shows(s.from_ms, s.from_ms))
    {
        cut(svg, scale.x(crash.from_ms), row);
    }
}

/// A word at the start of each wide enough span (pause, partition).
fn span_words(svg: &mut Svg, scale: &Scale, row: Row, spans: &[Span], until_ms: u64, words: &str) {
    let shown: Vec<&Span> = spans
        .iter()
        .filter(|s| svg.takes(s.to_ms.is_none()) && scale.shows(s.from_ms, s.end_ms(until_ms)))
        .collect();
    if shown.len() > MARKS_EACH_MAX {
        return;
    }
    for s in shown {
        let (x0, x1) = (scale.cx(s.from_ms), scale.cx(s.end_ms(until_ms)));
        if svg.fits(x0, x1, 60.0) {
            svg.text("tl-small", x0 + 3.0, row.y + row.h - 4.0, MUTED, words);
        }
    }
}

/// A crash: a zig-zag cut across the lane.
fn cut(svg: &mut Svg, x: f64, row: Row) {
    let (top, q) = (row.y + 2.0, (row.h - 4.0) / 4.0);
    let d = format!(
        "M{x} {top}l4 {q}l-8 {q}l8 {q}l-4 {q}",
        x = Px(x),
        top = Px(top),
        q = Px(q)
    );
    svg.path(
        "tl-cut",
        &d,
        r##"fill="none" stroke="#1f2937" stroke-width="2""##,
        None,
    );
    svg.text("tl-small", x + 6.0, row.y + row.h - 4.0, INK, "crash");
}

/// Believed while the service says otherwise: the alarm band.
fn zones(svg: &mut Svg, scale: &Scale, row: Row, picture: &Picture, c: ClientId, until_ms: u64) {
    let all = picture.zones_between(c, until_ms, scale.v0, scale.v1);
    let shown: Vec<_> = all
        .iter()
        .filter(|z| z.to_ms > z.from_ms && scale.shows(z.from_ms, z.to_ms))
        .filter(|z| svg.takes(z.to_ms >= until_ms))
        .collect();
    let dense = shown.len() > svg.each_max();
    for z in shown {
        let (x0, x1) = (scale.cx(z.from_ms), scale.cx(z.to_ms));
        let (class, fill, opacity) = match z.other {
            Some(_) => ("tl-zone--alarm", ALARM, "0.22"),
            None => ("tl-zone--gone", MUTED, "0.12"),
        };
        if !dense {
            svg.open_mark("tl-zone-mark", &zone_words(z), z.from_ms);
        }
        let paint = format!(r#"fill="{fill}" fill-opacity="{opacity}""#);
        let reach = svg.reach(x1);
        svg.rect(
            &format!("tl-zone {class}"),
            x0,
            reach,
            row.y + 2.0,
            row.h - 4.0,
            &paint,
        );
        if z.other.is_some() && svg.fits(x0, x1, 96.0) {
            svg.text(
                "tl-zone-label",
                x0 + 3.0,
                row.y + row.h - 5.0,
                ALARM_INK,
                "believed holder",
            );
        }
        if !dense {
            svg.close();
        }
    }
}

fn zone_words(zone: &Zone) -> String {
    let during = format!(
        "{} to {}",
        tick_seconds(zone.from_ms),
        tick_seconds(zone.to_ms)
    );
    match zone.other {
        Some(other) => format!(
            "{during}: Believed holder: {} still believes it holds while the service has given the lock to {other}",
            zone.client
        ),
        None => format!(
            "{during}: {} still believes it holds, but its lease is gone at the service",
            zone.client
        ),
    }
}

/// Renewals as small ticks, one path, at most one per pixel.
fn renewal_ticks(svg: &mut Svg, scale: &Scale, row: Row, at: &[u64], until_ms: u64) {
    if !svg.takes(false) {
        return;
    }
    let mut d = String::new();
    let mut last_px = f64::NEG_INFINITY;
    let y = row.y + 32.0;
    for &t in at.iter().filter(|&&t| t <= until_ms && scale.shows(t, t)) {
        let x = scale.x(t);
        if x - last_px >= 2.0 {
            let _ = write!(d, "M{x} {y}v5", x = Px(x), y = Px(y));
            last_px = x;
        }
    }
    if !d.is_empty() {
        let title = "Renewals that were answered (keepalives, heartbeats, extensions)";
        svg.path(
            "tl-renewal",
            &d,
            r##"stroke="#15803d" stroke-width="1.2""##,
            Some(title),
        );
    }
}

/// Marks in view as small rings; a label only where it has room. Many
/// marks become one path of rings.
fn dots(svg: &mut Svg, scale: &Scale, y: f64, marks: &[Mark], colour: &str) {
    if !svg.takes(false) {
        return;
    }
    let shown: Vec<&Mark> = marks
        .iter()
        .filter(|m| scale.shows(m.at_ms, m.at_ms))
        .collect();
    let paint = format!(r#"fill="none" stroke="{colour}" stroke-width="1.5""#);
    if shown.len() > svg.each_max() {
        let mut d = String::new();
        for m in &shown {
            let _ = write!(
                d,
                "M{} {y}m-3 0a3 3 0 1 0 6 0a3 3 0 1 0 -6 0",
                Px(scale.x(m.at_ms)),
                y = Px(y)
            );
        }
        let title = format!("{} events in view: zoom in to point at each", shown.len());
        svg.path("tl-dot tl-dense", &d, &paint, Some(&title));
        return;
    }
    let mut free_x = f64::NEG_INFINITY;
    for m in shown {
        let x = scale.x(m.at_ms);
        svg.open_mark("tl-event", &m.text, m.at_ms);
        let _ = write!(
            svg.markup,
            r#"<circle class="tl-dot" cx="{x}" cy="{y}" r="3" {paint}/>"#,
            x = Px(x),
            y = Px(y)
        );
        // About 6 pixels per character at 11 px.
        if !m.label.is_empty() && x + 4.0 >= free_x {
            free_x = x + 4.0 + m.label.chars().count() as f64 * 6.0 + 4.0;
            svg.text("tl-small", x + 4.0, y - 4.0, colour, &m.label);
        }
        svg.close();
    }
}

/// The service lane: who the service says holds, and its own events.
pub fn service_lane(svg: &mut Svg, scale: &Scale, row: Row, picture: &Picture, until_ms: u64) {
    svg.raw(r#"<g class="tl-service">"#);
    let held = picture.holders.iter().filter_map(|h| {
        held_stretch(
            scale,
            h,
            until_ms,
            format!("{} {}", h.client, token_label(picture, h.token)),
        )
    });
    stretches(
        svg,
        "tl-holder",
        row.y + 5.0,
        10.0,
        "",
        held.collect(),
        "#ffffff",
    );
    // Chubby's lock-delay: free, yet nobody may claim it.
    stretches(
        svg,
        "tl-lock-delay",
        row.y + 5.0,
        10.0,
        r##"fill-opacity="0.45" stroke="#6b7280" stroke-dasharray="3 2""##,
        spans_of(scale, &picture.lock_delays, until_ms, "url(#tl-hatch)"),
        MUTED,
    );
    span_words(
        svg,
        scale,
        row,
        &picture.lock_delays,
        until_ms,
        "lock-delay",
    );
    dots(svg, scale, row.y + 24.0, &picture.service, MUTED);
    svg.close();
}

/// One Redis node's lane, or all five folded into one (a thin band each).
pub fn node_lane(
    svg: &mut Svg,
    scale: &Scale,
    row: Row,
    picture: &Picture,
    node: Option<NodeId>,
    until_ms: u64,
) {
    svg.raw(r#"<g class="tl-nodes">"#);
    let lanes: Vec<usize> = match node {
        Some(n) => vec![n.index()],
        None => (0..NodeId::COUNT).collect(),
    };
    for i in lanes {
        let lane = &picture.nodes[i];
        let (y, h) = match node {
            Some(_) => (row.y + 5.0, 12.0),
            None => (row.y + 3.0 + i as f64 * 4.8, 4.0),
        };
        let down = lane
            .down
            .iter()
            .filter_map(|s| span_stretch(scale, s, until_ms, INK));
        stretches(
            svg,
            "tl-down",
            y,
            h,
            r#"fill-opacity="0.5""#,
            down.collect(),
            INK,
        );
        let keys = lane
            .keys
            .iter()
            .filter_map(|k| held_stretch(scale, k, until_ms, String::new()));
        stretches(svg, "tl-key", y, h, "", keys.collect(), INK);
        if node.is_some() {
            dots(svg, scale, row.y + 19.0, &lane.marks, ALARM);
        }
    }
    svg.close();
}

/// "A t1 STALE": who wrote, with which token (or row version: "A v0 ok"),
/// and what came of it.
fn write_label(w: &WriteMark, words: TokenWords) -> String {
    let outcome = match w.outcome {
        WriteOutcome::Accepted => "ok",
        WriteOutcome::WithoutLease => "no lease",
        WriteOutcome::Rejected(_) => "rejected",
        WriteOutcome::Stale => "STALE",
    };
    match words.mark(w.token) {
        Some(mark) => format!("{} {mark} {outcome}", w.client),
        None => format!("{} {outcome}", w.client),
    }
}

/// The resource lane: each write where it landed, and what it carried.
pub fn resource_lane(svg: &mut Svg, scale: &Scale, row: Row, picture: &Picture) {
    if !svg.takes(false) {
        return;
    }
    let shown: Vec<&WriteMark> = picture
        .writes
        .iter()
        .filter(|w| scale.shows(w.at_ms, w.at_ms))
        .collect();
    svg.raw(r#"<g class="tl-resource">"#);
    if shown.len() > WRITES_LABELLED_MAX {
        dense_writes(svg, scale, row, &shown);
        svg.close();
        return;
    }
    // Labels of writes close together take turns on two lines.
    let mut free_x = [f64::NEG_INFINITY; 2];
    for w in shown {
        let x = scale.x(w.at_ms);
        let label = write_label(w, picture.words);
        let line = usize::from(x - 10.0 < free_x[0]);
        free_x[line] = free_x[line].max(x - 10.0 + label.chars().count() as f64 * 6.2 + 4.0);
        write_mark(svg, x, row, w, &label, line);
    }
    svg.close();
}

fn write_mark(svg: &mut Svg, x: f64, row: Row, w: &WriteMark, label: &str, line: usize) {
    let y = row.y + 13.0;
    let (class, colour) = match w.outcome {
        WriteOutcome::Accepted => ("tl-write--accepted", INK),
        WriteOutcome::WithoutLease => ("tl-write--no-lease", INK),
        WriteOutcome::Rejected(_) => ("tl-write--rejected", INK),
        WriteOutcome::Stale => ("tl-write--stale", ALARM),
    };
    svg.open_mark(class, &w.text, w.at_ms);
    // One transparent area under the sign and its label takes the pointer,
    // so the mark answers anywhere on it, not only on painted pixels.
    let label_w = label.chars().count() as f64 * 6.2;
    let _ = write!(
        svg.markup,
        r#"<rect class="tl-hit" x="{}" y="{}" width="{}" height="{}" fill="transparent"/>"#,
        Px(x - 10.0),
        Px(row.y + 3.0),
        Px(label_w.max(20.0)),
        Px(32.0 + line as f64 * 11.0)
    );
    let _ = match w.outcome {
        WriteOutcome::Accepted => write!(
            svg.markup,
            r##"<circle cx="{x}" cy="{y}" r="7" fill="{OK}"/><path d="M{} {y}l3 3l5 -6" fill="none" stroke="#ffffff" stroke-width="2"/>"##,
            Px(x - 4.0),
            x = Px(x),
            y = Px(y)
        ),
        // Accepted, but from a client whose lease had run out: a hollow mark.
        WriteOutcome::WithoutLease => write!(
            svg.markup,
            r##"<circle cx="{x}" cy="{y}" r="6" fill="none" stroke="{OK}" stroke-width="2" stroke-dasharray="3 2"/>"##,
            x = Px(x),
            y = Px(y)
        ),
        WriteOutcome::Rejected(_) => write!(
            svg.markup,
            r##"<circle cx="{x}" cy="{y}" r="7" fill="{SAVE}"/><path d="M{a} {b}l7 7M{a} {c}l7 -7" fill="none" stroke="#ffffff" stroke-width="2"/>"##,
            a = Px(x - 3.5),
            b = Px(y - 3.5),
            c = Px(y + 3.5),
            x = Px(x),
            y = Px(y)
        ),
        WriteOutcome::Stale => write!(
            svg.markup,
            r##"<path d="M{x} {}l8 14h-16z" fill="{ALARM}"/><path d="M{x} {}v5m0 2.5v1.5" stroke="#ffffff" stroke-width="2"/>"##,
            Px(y - 8.0),
            Px(y - 3.5),
            x = Px(x)
        ),
    };
    svg.text(
        "tl-write-label",
        x - 10.0,
        row.y + 32.0 + line as f64 * 11.0,
        colour,
        label,
    );
    svg.close();
}

/// Many writes: one path of ticks per outcome, no labels.
fn dense_writes(svg: &mut Svg, scale: &Scale, row: Row, shown: &[&WriteMark]) {
    let kinds = [
        ("tl-write--accepted", OK, "accepted"),
        ("tl-write--rejected", SAVE, "rejected"),
        ("tl-write--stale", ALARM, "stale writes accepted"),
    ];
    for (k, (class, colour, words)) in kinds.into_iter().enumerate() {
        let of_kind = |w: &&&WriteMark| match w.outcome {
            WriteOutcome::Accepted | WriteOutcome::WithoutLease => k == 0,
            WriteOutcome::Rejected(_) => k == 1,
            WriteOutcome::Stale => k == 2,
        };
        let mut d = String::new();
        let count = shown.iter().filter(of_kind).count();
        for w in shown.iter().filter(of_kind) {
            let _ = write!(
                d,
                "M{} {}v16",
                Px(scale.x(w.at_ms)),
                Px(row.y + 5.0 + k as f64 * 4.0)
            );
        }
        if count > 0 {
            let title = format!("{count} writes {words} in view: zoom in to point at each");
            let paint = format!(r#"stroke="{colour}" stroke-width="2""#);
            svg.path(&format!("{class} tl-dense"), &d, &paint, Some(&title));
        }
    }
}

/// Messages in view: arrows when few, a traffic strip per lane when many.
pub fn messages(svg: &mut Svg, scale: &Scale, rows: &[Row], arrows: &[Arrow]) {
    let shown: Vec<&Arrow> = arrows
        .iter()
        .filter(|a| scale.shows(a.sent_ms, a.arrive_ms))
        .collect();
    if shown.len() > ARROWS_DRAWN_MAX {
        traffic(svg, scale, rows, &shown);
        return;
    }
    if svg.detail == Detail::Plain {
        plain_arrows(svg, scale, rows, &shown);
        return;
    }
    svg.raw(r#"<g class="tl-messages">"#);
    for a in shown {
        let (Some(y0), Some(y1)) = (end_y(rows, a.from), end_y(rows, a.to)) else {
            continue;
        };
        let (x0, x1) = (scale.x(a.sent_ms), scale.x(a.arrive_ms));
        let fate = match (a.dropped, a.held) {
            (true, _) => " (lost)",
            (false, true) => " (cut off by a partition: TCP sent it again, so it arrived late)",
            (false, false) => "",
        };
        let _ = write!(
            svg.markup,
            // A mark like the others (focusable, Enter moves the playhead to
            // its sending), and `data-msg` asks the worker for its wire text.
            r##"<g class="tl-mark tl-msg{}" tabindex="-1" role="img" data-t="{}" data-msg="{}"><title>{}{fate}</title><line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#64748b" stroke-width="1"{}{}/>"##,
            if a.dropped { " tl-msg--dropped" } else { "" },
            a.sent_ms,
            a.id,
            escape(&a.text),
            if a.held {
                r#" stroke-dasharray="4 3""#
            } else {
                ""
            },
            if a.dropped {
                ""
            } else {
                r#" marker-end="url(#tl-head)""#
            },
            x0 = Px(x0),
            y0 = Px(y0),
            x1 = Px(x1),
            y1 = Px(y1)
        );
        if a.dropped {
            let _ = write!(
                svg.markup,
                r#"<path class="tl-msg-cross" d="M{} {}l6 6m0 -6l-6 6" stroke="{ALARM}" stroke-width="2"/>"#,
                Px(x1 - 3.0),
                Px(y1 - 3.0)
            );
        }
        svg.close();
    }
    svg.close();
}

/// Arrows drawn as two paths (delivered, lost), for a picture redrawn every
/// frame.
fn plain_arrows(svg: &mut Svg, scale: &Scale, rows: &[Row], shown: &[&Arrow]) {
    let (mut sent, mut lost) = (String::new(), String::new());
    for a in shown {
        let (Some(y0), Some(y1)) = (end_y(rows, a.from), end_y(rows, a.to)) else {
            continue;
        };
        let (x0, x1) = (Px(scale.x(a.sent_ms)), Px(scale.x(a.arrive_ms)));
        let d = if a.dropped { &mut lost } else { &mut sent };
        let _ = write!(d, "M{x0} {}L{x1} {}", Px(y0), Px(y1));
    }
    svg.raw(r#"<g class="tl-messages">"#);
    svg.path(
        "tl-msg-plain",
        &sent,
        r##"fill="none" stroke="#64748b" stroke-width="1""##,
        None,
    );
    svg.path(
        "tl-msg-plain tl-msg--dropped",
        &lost,
        r##"fill="none" stroke="#dc2626" stroke-width="1" stroke-dasharray="3 2""##,
        None,
    );
    svg.close();
}

/// Many messages: how busy each lane's link is, in 4-pixel columns.
fn traffic(svg: &mut Svg, scale: &Scale, rows: &[Row], shown: &[&Arrow]) {
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
            let _ = write!(
                d,
                "M{x} {}h3v{}h-3z",
                Px(row.y + row.h - 1.0),
                Px(-h),
                x = Px(x)
            );
        }
    }
    let title = format!(
        "{} messages in view: the strips show how busy each lane is. Zoom in to see them as arrows.",
        shown.len()
    );
    svg.raw(r#"<g class="tl-traffic">"#);
    svg.path("tl-traffic-strip", &d, r##"fill="#64748b""##, Some(&title));
    svg.close();
}

/// The playhead, drawn at x = 0: the page moves it with a transform, so a
/// frame changes one attribute. Its wide transparent rect takes the
/// pointer and shows the focus ring.
pub fn playhead(svg: &mut Svg, bottom: f64) {
    let _ = write!(
        svg.markup,
        r#"<g class="tl-playhead-mark" aria-hidden="true"><line class="tl-playhead-line" x1="0" x2="0" y1="2" y2="{bottom}" stroke="{INK}" stroke-width="1.5"/><path class="tl-playhead-knob" d="M-6 2h12v10l-6 6l-6 -6z" fill="{INK}"/></g><rect class="tl-playhead-hit" x="-8" y="0" width="16" height="{bottom}" fill="transparent"/>"#,
        bottom = Px(bottom)
    );
}

/// Faded cover over the recorded run that lies after the playhead; its
/// left and right edges, if drawn, the left one at the playhead (not cut
/// at the plot's left edge).
pub fn future_veil(
    svg: &mut Svg,
    scale: &Scale,
    bottom: f64,
    now_ms: u64,
    end_ms: u64,
) -> Option<(f64, f64, bool)> {
    if end_ms <= now_ms || !scale.shows(now_ms, end_ms) {
        return None;
    }
    let (x0, x1) = (scale.cx(now_ms), scale.cx(end_ms));
    let paint = r##"fill="#ffffff" fill-opacity="0.55" aria-hidden="true""##;
    svg.rect("tl-veil", x0, x1, AXIS_H, bottom - AXIS_H, paint);
    Some((x0, x0 + (x1 - x0).max(1.5), x0 == scale.x(now_ms)))
}

/// The key moment a story's tour stopped on: an outlined stripe.
pub fn key_moment(svg: &mut Svg, scale: &Scale, bottom: f64, at_ms: u64) {
    if !scale.shows(at_ms, at_ms) {
        return;
    }
    let x = scale.x(at_ms);
    let _ = write!(
        svg.markup,
        r#"<g class="tl-key-moment"><title>The tour's key moment, t={}</title>"#,
        tick_seconds(at_ms)
    );
    let paint =
        format!(r#"fill="{SAVE}" fill-opacity="0.12" stroke="{SAVE}" stroke-dasharray="3 2""#);
    svg.rect(
        "tl-key-stripe",
        x - 5.0,
        x + 5.0,
        AXIS_H,
        bottom - AXIS_H,
        &paint,
    );
    svg.text("tl-key-label", x + 7.0, AXIS_H + 10.0, SAVE, "key moment");
    svg.close();
}

#[cfg(test)]
mod tests {
    use super::Px;

    /// What `write!` with `f64::round` wrote before: the fast writer must
    /// agree with it everywhere.
    fn plain(x: f64) -> String {
        let tenths = (x * 10.0).round() as i64;
        let sign = if tenths < 0 { "-" } else { "" };
        let abs = tenths.unsigned_abs();
        format!("{sign}{}.{}", abs / 10, abs % 10)
    }

    #[test]
    fn coordinates_are_written_as_before() {
        let mut x = -2_000.0;
        while x < 2_000.0 {
            assert_eq!(Px(x).to_string(), plain(x), "x = {x}");
            x += 0.013;
        }
        for x in [
            0.0, -0.0, 0.05, -0.05, 0.04, -0.04, 0.25, -0.25, 12.35, 1e9, -1e9, 7.449_999,
        ] {
            assert_eq!(Px(x).to_string(), plain(x), "x = {x}");
        }
    }
}
