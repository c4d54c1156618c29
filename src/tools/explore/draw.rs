//! The hazard explorer's results, drawn in the worker: a heatmap of
//! buttons (TTL across, the profile's p99 or rate down), the same numbers
//! as a table, the run's progress, and the files to download (CSV, and the
//! heatmap as a standalone SVG whose colours are attributes, or a PNG).
//!
//! Colour is never the only signal: each cell shows its probability in
//! words and numbers, and its accessible name carries all of them.

use super::{
    chance_text, count_text, csv_comment, csv_header, csv_row, fencing_text, latency_text,
    settings_text, systems_text, workload_text,
};
use super::{granted_lease_ms, per_year, Fleet, Rare, RareEstimate, RareResult, Reach, Together};
use super::{micros_text, rate_text, Axis, CellResult, Estimate, Plan};
use crate::markup::{data_url, escape, PART_BREAK};
use crate::sim::{Backend, ETCD_TTL_MS_MIN, ZK_TICK_MS_DEFAULT};
use crate::words::thousands;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// What one cell's worker hands back to the lead: the counts and, if a
/// trial failed, the run link of the first failing one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellData {
    pub result: CellResult,
    /// The first trial with a corrupted write, else with two believed
    /// holders, as a run link fragment; empty when every trial was clean.
    #[serde(default)]
    pub open: String,
    #[serde(default)]
    pub open_trial: Option<u32>,
    /// The threshold, and the rare-event estimate or "cannot happen".
    #[serde(default)]
    pub rare: Option<Rare>,
}

/// Levels of P(corrupted write per hold): the upper bound of each (the
/// last has none), its words, and its colour and text colour in the SVG.
const LEVELS: [(f64, &str, &str, &str); 7] = [
    (0.0, "none seen", "#dcfce7", "#14532d"),
    (1e-4, "under 1 in 10,000", "#fef9c3", "#713f12"),
    (1e-3, "under 1 in 1,000", "#fde68a", "#713f12"),
    (1e-2, "under 1 in 100", "#fdba74", "#7c2d12"),
    (5e-2, "under 5%", "#f97316", "#1c0a00"),
    (0.2, "under 20%", "#dc2626", "#ffffff"),
    (f64::INFINITY, "20% or more", "#7f1d1d", "#ffffff"),
];

fn level(p: f64) -> usize {
    if p <= 0.0 {
        return 0;
    }
    LEVELS
        .iter()
        .skip(1)
        .position(|&(bound, ..)| p < bound)
        .map_or(LEVELS.len() - 1, |i| i + 1)
}

/// A probability, short: "none seen", "23%", "1 in 11,000" (two
/// figures).
fn p_text(p: f64) -> String {
    if p <= 0.0 {
        "none seen".into()
    } else {
        chance_text(p)
    }
}

/// An estimate per lock hold, in words with its 95% interval.
fn estimate_text(e: &Estimate) -> String {
    e.words("holds")
}

/// The label of a row: its p99 or its rate.
fn row_label(plan: &Plan, row: usize) -> String {
    match &plan.axis {
        Axis::P99Us(v) => format!("p99 {}", micros_text(v[row])),
        Axis::PerKilohour(v) => format!("{}/h", rate_text(v[row])),
        Axis::MaxUs(v) => format!("max {}", micros_text(v[row])),
        Axis::System(v) => v[row].name().to_string(),
    }
}

fn ttl_label(ttl_ms: u64) -> String {
    format!("TTL {}", micros_text(ttl_ms * 1_000))
}

/// What a TTL column really runs at, where a system the plan runs grants
/// another lease than the one asked for: "etcd's minimum lease is 2 s:
/// runs at 2 s". `None` when every system grants the TTL as asked.
pub fn ttl_note(plan: &Plan, ttl_ms: u64) -> Option<String> {
    let notes: Vec<String> = plan
        .systems()
        .iter()
        .filter_map(|&b| {
            let granted = granted_lease_ms(b, ttl_ms);
            (granted != ttl_ms).then(|| {
                let time = |ms: u64| micros_text(ms * 1_000);
                let why = match b {
                    Backend::Etcd if ttl_ms < ETCD_TTL_MS_MIN => {
                        format!("{}'s minimum lease is {}", b.name(), time(ETCD_TTL_MS_MIN))
                    }
                    Backend::Etcd => format!("{} grants whole seconds", b.name()),
                    // ZooKeeper, the other system whose server changes the
                    // TTL asked for (`granted_lease_ms`): 2-20 ticks.
                    _ => {
                        let bound = if granted > ttl_ms {
                            "shortest"
                        } else {
                            "longest"
                        };
                        let ticks = granted / ZK_TICK_MS_DEFAULT;
                        format!(
                            "{}'s {bound} session timeout is {} ticks of {}",
                            b.name(),
                            ticks,
                            time(ZK_TICK_MS_DEFAULT)
                        )
                    }
                };
                format!("{why}: runs at {}", time(granted))
            })
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// How the run stands, for the drawing: its trials per second, whether it
/// still runs, and what the page is told about its end (a cancel, a
/// failure).
pub struct Run<'a> {
    pub rate: u64,
    pub running: bool,
    pub said: &'a str,
}

/// The whole drawing in three parts (`PART_BREAK`): the progress; the
/// results (summary, design table, heatmap, table); and once the run has
/// ended, the files to download. The page places each part on its own,
/// so while a long cell runs and only its progress moves, the results'
/// elements stay as they are and the page parses a few hundred bytes.
pub fn draw(plan: &Plan, cells: &[Option<CellData>], run: &Run) -> String {
    // The answer's first line: the settings it was run at.
    let mut h = format!(
        r#"<p class="panel__note explorer__settings"><strong>Settings:</strong> {}.</p>"#,
        escape(&settings_text(plan))
    );
    if !run.said.is_empty() {
        let _ = write!(
            h,
            r#"<p class="work__status" role="alert">{}</p>"#,
            escape(run.said)
        );
    }
    progress(&mut h, cells, run);
    h.push_str(PART_BREAK);
    summary(&mut h, plan);
    faults_summary(&mut h, plan);
    design(&mut h, plan, cells);
    heatmap(&mut h, plan, cells);
    legend(&mut h);
    table(&mut h, plan, cells);
    h.push_str(PART_BREAK);
    if !run.running {
        downloads(&mut h, plan, cells);
    }
    h
}

fn progress(h: &mut String, cells: &[Option<CellData>], run: &Run) {
    let (done, all) = (cells.iter().flatten().count(), cells.len());
    let words = format!(
        "{done} of {all} cells, {} trials per second{}",
        thousands(run.rate),
        if run.running { ", running" } else { "" }
    );
    let _ = write!(
        h,
        r#"<div class="explorer__progress"><progress role="progressbar" aria-label="Cells done" max="{all}" value="{done}" aria-valuemin="0" aria-valuemax="{all}" aria-valuenow="{done}" aria-valuetext="{words}"></progress><span>{words}</span></div>"#
    );
}

/// The CSV (the command line's columns), the heatmap as a standalone SVG,
/// and the same as a PNG (the page draws the SVG on a canvas: a worker has
/// no way to render SVG).
fn downloads(h: &mut String, plan: &Plan, cells: &[Option<CellData>]) {
    let mut csv = csv_comment(plan);
    csv.push_str(&csv_header());
    for data in cells.iter().flatten() {
        csv.push_str(&csv_row(plan, &data.result, data.rare.as_ref()));
    }
    let _ = write!(
        h,
        r#"<div class="explorer__actions"><a class="button" download="distlock-hazard.csv" href="{}">Download CSV</a><a class="button" download="distlock-hazard.svg" data-svg href="{}">Download heatmap (SVG)</a><button type="button" class="button" data-png="distlock-hazard.png">Download heatmap (PNG)</button></div>"#,
        data_url("text/csv", &csv),
        data_url("image/svg+xml", &svg(plan, cells)),
    );
}

/// The faults besides pauses, in words, when the plan has any.
fn faults_summary(h: &mut String, plan: &Plan) {
    let f = &plan.faults;
    let said: Vec<String> = [
        (
            f.partitions_per_kilohour,
            "partitions from the lock service",
            "client",
        ),
        (f.exits_per_kilohour, "process exits", "client"),
        (f.host_deaths_per_kilohour, "host deaths", "client"),
        (f.losses_per_kilohour, "spells of lost messages", "client"),
        (f.node_restarts_per_kilohour, "Redis node restarts", "node"),
        (f.node_jumps_per_kilohour, "Redis node clock jumps", "node"),
    ]
    .iter()
    .filter(|(rate, ..)| *rate > 0)
    .map(|(rate, what, per)| format!("{what} {}/h per {per}", rate_text(*rate)))
    .collect();
    if said.is_empty() {
        return;
    }
    let keepalives = if plan.pg == crate::sim::PgOptions::TUNED {
        "tuned (about 25 s)"
    } else {
        "the OS's (about 2 h 11 min)"
    };
    let pg = if plan.systems().contains(&crate::sim::Backend::Postgres) {
        format!(" PostgreSQL keepalives: {keepalives}.")
    } else {
        String::new()
    };
    let _ = write!(
        h,
        r#"<p class="explorer__summary">Faults: {}; each lasting 1 ms to {}, evenly.{}</p>"#,
        escape(&said.join(", ")),
        micros_text(plan.faults.longest_ms * 1_000),
        escape(&pg),
    );
}

fn summary(h: &mut String, plan: &Plan) {
    let _ = write!(
        h,
        r#"<p class="explorer__workload">{}</p>"#,
        escape(&workload_text(plan))
    );
}

/// An expected count, to two figures: "4.3", "11,000", "0.0023", "0".
fn amount_text(x: f64) -> String {
    if x >= 1.0 {
        return count_text(x);
    }
    if x <= 0.0 {
        return "0".to_string();
    }
    let mut digits = 1;
    let mut probe = x;
    while probe < 1.0 && digits < 40 {
        probe *= 10.0;
        digits += 1;
    }
    let text = format!("{x:.digits$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "about 2.3 corrupted writes per fleet-year (95%: 1.6 to 3.0)".
fn year_words(e: &RareEstimate, fleet: &Fleet) -> (String, String) {
    let (mid, low, high) = per_year(e, fleet);
    let per = format!(
        "about {} (95%: {} to {})",
        amount_text(mid),
        amount_text(low),
        amount_text(high)
    );
    let every = if mid > 0.0 && low > 0.0 {
        format!(
            "about one every {} years (95%: {} to {})",
            amount_text(1.0 / mid),
            amount_text(1.0 / high),
            amount_text(1.0 / low)
        )
    } else if mid > 0.0 {
        format!(
            "about one every {} years (95%: no more often than one every {} years)",
            amount_text(1.0 / mid),
            amount_text(1.0 / high)
        )
    } else {
        format!("none seen; at most {} a year (95%)", amount_text(high))
    };
    (per, every)
}

/// One cell's answer for a design document: "cannot happen in this
/// model, because ...", or the chance per hold and per fleet-year.
pub fn design_row(plan: &Plan, data: &CellData) -> Option<[String; 4]> {
    let rare = data.rare.as_ref()?;
    let r = &data.result;
    if rare.cannot_happen {
        let why = rare.threshold.why(plan);
        return Some([
            format!("cannot happen in this model, because {why}"),
            "none".to_string(),
            "never".to_string(),
            match (rare.threshold.reach, rare.threshold.proven_under_ms()) {
                (Reach::From { pause_ms }, Some(under_ms)) => format!(
                    "proven: the profile's longest pause, {}, is shorter than {}{}",
                    micros_text(r.profile.longest_us()),
                    micros_text(under_ms * 1_000),
                    if under_ms < pause_ms {
                        ", under which no two add up"
                    } else {
                        ""
                    }
                ),
                // Pauses that add up however many: only a profile that
                // never pauses cannot corrupt.
                (Reach::From { .. }, None) => "proven: the profile never pauses".to_string(),
                (Reach::Never, _) => "proven: no pause corrupts".to_string(),
            },
        ]);
    }
    let e = rare.per_hold(r)?;
    let (per, every) = year_words(&e, &plan.fleet);
    let hold = if e.p > 0.0 {
        format!(
            "{} (95%: {} to {})",
            chance_text(e.p),
            if e.low > 0.0 {
                chance_text(e.low)
            } else {
                "0".to_string()
            },
            chance_text(e.high)
        )
    } else {
        format!("none seen: at most {} (95%)", chance_text(e.high))
    };
    // A cell no single pause of which corrupts, but two or more together
    // can: why no proof.
    let pairs = match (rare.threshold.reach, rare.threshold.together) {
        (Reach::From { pause_ms }, together)
            if r.profile.longest_us() < pause_ms * 1_000
                && rare.threshold.reached_by(&r.profile) =>
        {
            let single = micros_text(pause_ms * 1_000);
            match together {
                Together::Pairs { pause_ms: pairs } => format!(
                    "; not proven: no single pause shorter than {single} corrupts, but two of {} each can add up",
                    micros_text(pairs * 1_000)
                ),
                _ => format!(
                    "; not proven: no single pause shorter than {single} corrupts, but shorter ones add up however many, as nothing between them renews the lease or checks it"
                ),
            }
        }
        _ => String::new(),
    };
    Some([hold, per, every, format!("{}{pairs}", method_words(&e))])
}

/// Which estimator ran, with its effective sample size.
fn method_words(e: &RareEstimate) -> String {
    if e.plain {
        format!("plain sampling, {} trials", thousands(u64::from(e.trials)))
    } else {
        format!(
            "importance sampling, {} trials worth {} plain ones (ESS)",
            thousands(u64::from(e.trials)),
            thousands(e.ess.round() as u64)
        )
    }
}

/// The numbers to paste into a design document, a row a cell, and the
/// paragraph on how they were found.
fn design(h: &mut String, plan: &Plan, cells: &[Option<CellData>]) {
    let columns = plan.ttls_ms.len().max(1);
    let rows: Vec<(usize, [String; 4])> = cells
        .iter()
        .enumerate()
        .filter_map(|(i, d)| Some((i, design_row(plan, d.as_ref()?)?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        h,
        r#"<section class="explorer__design" aria-labelledby="explorer-design-title"><h3 id="explorer-design-title">For the design document</h3><div class="table-wrap"><table class="explorer__numbers" role="table"><thead role="rowgroup"><tr role="row"><th scope="col" role="columnheader">Cell</th><th scope="col" role="columnheader">P(corrupted write per hold), 95%</th><th scope="col" role="columnheader">Corrupted writes per fleet-year ({})</th><th scope="col" role="columnheader">How often</th><th scope="col" role="columnheader">How found</th></tr></thead><tbody role="rowgroup">"#,
        escape(&fleet_words(&plan.fleet))
    );
    // On a phone each row stands as a card of its own (the stylesheet's
    // narrow rule), each figure under its column's short name
    // (`data-label`); the roles keep it a table to a screen reader, which
    // a table drawn as blocks no longer is in every browser.
    for (i, [hold, year, every, how]) in &rows {
        let place = format!(
            "{}, {}",
            ttl_label(plan.ttls_ms[i % columns]),
            row_label(plan, i / columns)
        );
        let _ = write!(
            h,
            "<tr role=\"row\"><th scope=\"row\" role=\"rowheader\">{}</th><td role=\"cell\" data-label=\"Per hold, 95%\">{}</td><td role=\"cell\" data-label=\"Per fleet-year\">{}</td><td role=\"cell\" data-label=\"How often\">{}</td><td role=\"cell\" data-label=\"How found\">{}</td></tr>",
            escape(&place),
            escape(hold),
            escape(year),
            escape(every),
            escape(how)
        );
    }
    h.push_str("</tbody></table></div>");
    let _ = write!(
        h,
        r#"<p class="explorer__method">{}</p></section>"#,
        escape(&method_paragraph(plan, cells))
    );
}

/// The paragraph under the numbers: which estimator ran, its ESS, the
/// interval's method, and what the model leaves out.
fn method_paragraph(plan: &Plan, cells: &[Option<CellData>]) -> String {
    let data: Vec<&CellData> = cells.iter().flatten().collect();
    // A cell that runs exactly as another shows that cell's numbers: its
    // weighted trials are that cell's, counted once.
    let runs_as = plan.runs_as();
    let (ran, alike): (Vec<&CellData>, Vec<&CellData>) = data.iter().partition(|d| {
        runs_as
            .get(d.result.cell as usize)
            .is_none_or(Option::is_none)
    });
    let weighted: Vec<RareEstimate> = ran
        .iter()
        .filter_map(|d| {
            let rare = d.rare.as_ref()?;
            rare.weighted.as_ref()?;
            rare.per_hold(&d.result).filter(|e| !e.plain)
        })
        .collect();
    // Weighted trials that saw nothing, or too few corrupted writes to
    // bound the chance: the cell shows its plain interval.
    let uninformed: Vec<&RareResult> = ran
        .iter()
        .filter_map(|d| d.rare.as_ref()?.uninformed())
        .collect();
    let (unseen, few): (Vec<&RareResult>, Vec<&RareResult>) =
        uninformed.iter().partition(|w| w.corrupted == 0);
    let proven = data
        .iter()
        .filter(|d| d.rare.as_ref().is_some_and(|r| r.cannot_happen))
        .count();
    let mut s = String::new();
    if proven > 0 {
        let _ = write!(
            s,
            "{proven} cell{} cannot corrupt: the shortest pause that can outlive what the holder believes of its lease was found by running the model with a holder paused at every instant its run changes, through its hold and a renewal cycle, and where the server checks for expired leases on its own clock at every phase of those checks (confirmed by the finder's exhaustive search), and the shortest two that can add up to it, the second paused at every instant after the first wakes; the profile never pauses that long, or no pause corrupts at all. ",
            if proven == 1 { "" } else { "s" }
        );
    }
    let trials = |cells: &[&RareResult]| thousands(cells.iter().map(|w| u64::from(w.trials)).sum());
    let plural = |cells: &[&RareResult]| if cells.len() == 1 { "" } else { "s" };
    let shows = |cells: &[&RareResult]| {
        if cells.len() == 1 {
            "it shows"
        } else {
            "they show"
        }
    };
    if !unseen.is_empty() {
        let _ = write!(
            s,
            "{} cell{} ran {} weighted trials and saw no corrupted write: weighted trials that see nothing bound nothing, so {} the plain trials' interval. ",
            unseen.len(),
            plural(&unseen),
            trials(&unseen),
            shows(&unseen)
        );
    }
    if !few.is_empty() {
        let corrupted: u64 = few.iter().map(|w| w.corrupted).sum();
        let _ = write!(
            s,
            "{} cell{} ran {} weighted trials and saw {} corrupted write{}, too few of like weight to bound the chance: an interval from them reaches zero, and its upper end rests on the weights of the few that weigh most, so {} the plain trials' interval. ",
            few.len(),
            plural(&few),
            trials(&few),
            thousands(corrupted),
            if corrupted == 1 { "" } else { "s" },
            shows(&few)
        );
    }
    if weighted.is_empty() {
        if uninformed.is_empty() {
            s.push_str("The other figures are plain sampling: its 95% interval over trials was already within 30% of the estimate, or the cell's chance is high enough to count directly. ");
        }
    } else {
        let ess: f64 = weighted.iter().map(|e| e.ess).sum();
        let trials: u64 = weighted.iter().map(|e| u64::from(e.trials)).sum();
        let _ = write!(
            s,
            "{} cell{} ran importance sampling: pauses drawn more often where one can corrupt (just after a client asks for the lock, and most of all in the last moments before its write) and, in about one draw a trial, centred on the shortest pause that can corrupt, each trial weighed by its likelihood ratio; {} weighted trials worth {} plain ones (effective sample size). The interval is the delta method's over independent trials, run until its half-width is at most 30% of the estimate. ",
            weighted.len(),
            if weighted.len() == 1 { "" } else { "s" },
            thousands(trials),
            thousands(ess.round() as u64)
        );
    }
    if !alike.is_empty() {
        let _ = write!(
            s,
            "{} cell{} run{} exactly as an earlier cell of the grid (the same system and pauses under the same granted lease, as {} TTL's note says) and show{} its numbers, from the same trials. ",
            alike.len(),
            if alike.len() == 1 { "" } else { "s" },
            if alike.len() == 1 { "s" } else { "" },
            if alike.len() == 1 { "its" } else { "their" },
            if alike.len() == 1 { "s" } else { "" },
        );
    }
    let _ = write!(
        s,
        "Per fleet-year: the chance per hold times the fleet's {} holds a year ({}). Left out of the model: pauses of the lock service's own servers, clock drift beyond what the system allows for, correlated pauses across clients (one host's swap storm), and every fault not chosen above.",
        count_text(plan.fleet.holds_a_year()),
        fleet_words(&plan.fleet)
    );
    s
}

/// "600 workers, each locking 1 a minute, 8,760 hours a year".
fn fleet_words(fleet: &Fleet) -> String {
    format!(
        "{} workers, each locking {} a minute, {} hours a year",
        thousands(fleet.workers),
        count_text(fleet.per_minute_milli as f64 / 1_000.0),
        thousands(fleet.hours)
    )
}

/// One cell's numbers in a sentence: its accessible name and tooltip.
fn cell_sentence(plan: &Plan, data: &CellData, place: &str, noise: &[Neighbour]) -> String {
    let r = &data.result;
    let mut s = format!(
        "{place}: corrupted write per hold {}; two believed holders per hold {}; {} at {} locks an hour; {} trials, {} holds, {} corrupted writes",
        estimate_text(&r.corruption()),
        estimate_text(&r.two_holder()),
        r.corruption_every_text(plan.locks_per_hour),
        thousands(plan.locks_per_hour),
        thousands(u64::from(r.trials)),
        thousands(r.holds),
        thousands(r.corrupted),
    );
    if let Some(words) = clustering_words(&r.corruption(), r.corrupted_trials) {
        let _ = write!(s, ". {words}");
    }
    if let Some(words) = bands_words(&r.corruption()) {
        let _ = write!(s, ". Its interval {words}");
    }
    if !noise.is_empty() {
        let _ = write!(s, ". {}", noise_sentence(noise));
    }
    if let Some(trial) = data.open_trial {
        let _ = write!(s, ". Open trial {trial}, the first that failed");
    }
    s
}

/// When corrupted writes came in clusters, the interval says so: it is
/// as wide as `design_effect` times fewer independent holds would give.
fn clustering_words(e: &Estimate, trials_with: u32) -> Option<String> {
    (e.design_effect >= 1.05).then(|| {
        format!(
            "The {} corrupted writes came in {} trials, so the interval counts trials, not holds, as independent (as wide as {} times fewer holds would give)",
            thousands(e.successes),
            thousands(u64::from(trials_with)),
            crate::tools::explore::count_text(e.design_effect)
        )
    })
}

/// "spans 3 colours of the legend" when the interval's ends fall in
/// different colour bands: then the cell's colour is not settled.
fn bands_words(e: &Estimate) -> Option<String> {
    let (low, high) = (level(e.low), level(e.high));
    (e.n > 0 && high > low).then(|| format!("spans {} colours of the legend", high - low + 1))
}

/// What overlapping intervals mean, in a sentence.
fn noise_sentence(noise: &[Neighbour]) -> String {
    let places: Vec<String> = noise.iter().map(|n| format!("at {}", n.place)).collect();
    let whose = if noise.len() == 1 {
        "that of the cell"
    } else {
        "those of the cells"
    };
    format!(
        "Its 95% interval overlaps {whose} {}: the difference is sampling noise (more trials would tell them apart)",
        and_list(&places)
    )
}

/// A neighbouring cell: what differs from this one ("TTL 2 s"), and its
/// whole place ("TTL 2 s, p99 5 s").
struct Neighbour {
    differs: String,
    place: String,
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The neighbours (left, right, above, below) of cell `i` whose interval
/// of P(corrupted write per hold) overlaps its own, each named by what
/// differs: its TTL beside it, its row's pauses above or below.
fn noisy_neighbours(plan: &Plan, cells: &[Option<CellData>], i: usize) -> Vec<Neighbour> {
    let columns = plan.ttls_ms.len().max(1);
    let Some(Some(here)) = cells.get(i) else {
        return Vec::new();
    };
    let (row, column) = (i / columns, i % columns);
    let mut beside = Vec::new();
    let (ttl, pauses) = (ttl_label(plan.ttls_ms[column]), row_label(plan, row));
    let mut add =
        |j: usize, differs: String, place: String| beside.push((j, Neighbour { differs, place }));
    if column > 0 {
        let other = ttl_label(plan.ttls_ms[column - 1]);
        add(i - 1, other.clone(), format!("{other}, {pauses}"));
    }
    if column + 1 < columns {
        let other = ttl_label(plan.ttls_ms[column + 1]);
        add(i + 1, other.clone(), format!("{other}, {pauses}"));
    }
    if row > 0 {
        let other = row_label(plan, row - 1);
        add(i - columns, other.clone(), format!("{ttl}, {other}"));
    }
    if i + columns < cells.len() {
        let other = row_label(plan, row + 1);
        add(i + columns, other.clone(), format!("{ttl}, {other}"));
    }
    let mine = here.result.corruption();
    beside
        .into_iter()
        .filter(|(j, _)| {
            cells[*j]
                .as_ref()
                .is_some_and(|d| mine.overlaps(&d.result.corruption()))
        })
        .map(|(_, neighbour)| neighbour)
        .collect()
}

fn heatmap(h: &mut String, plan: &Plan, cells: &[Option<CellData>]) {
    let columns = plan.ttls_ms.len();
    h.push_str(r#"<p class="explorer__caption" id="explorer-map-caption">The chance of a corrupted write per lock hold, with its 95% interval, and below it the chance of two believed holders. The interval counts trials, not holds, as independent: failures come in clusters within a trial. ↕ marks a cell whose interval spans more than one colour. Where a cell's interval overlaps a neighbour's, the difference between them is sampling noise, and the cell says so. Click a cell with a failure to open its first failing trial above.</p><div class="table-wrap explorer__wrap" tabindex="0" role="region" aria-label="Heatmap"><table class="explorer__map" aria-labelledby="explorer-map-caption"><thead><tr><td></td>"#);
    for &ttl in &plan.ttls_ms {
        let note = ttl_note(plan, ttl).map_or(String::new(), |n| {
            format!(
                r#"<small class="explorer__ttl-note">{}</small>"#,
                escape(&n)
            )
        });
        let _ = write!(h, r#"<th scope="col">{}{note}</th>"#, ttl_label(ttl));
    }
    h.push_str("</tr></thead><tbody>");
    for (row, slots) in cells.chunks(columns.max(1)).enumerate() {
        let label = row_label(plan, row);
        let _ = write!(h, r#"<tr><th scope="row">{}</th>"#, escape(&label));
        for (column, slot) in slots.iter().enumerate() {
            h.push_str("<td>");
            let place = format!("{}, {label}", ttl_label(plan.ttls_ms[column]));
            let noise = noisy_neighbours(plan, cells, row * columns.max(1) + column);
            cell(h, plan, slot.as_ref(), &place, &noise);
            h.push_str("</td>");
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div>");
}

/// A cell's visible words: the chance, its interval, two holders, and
/// whether its neighbours differ from it by more than noise.
fn cell_inner(data: &CellData, noise: &[Neighbour]) -> String {
    let r = &data.result;
    let (corrupt, two) = (r.corruption(), r.two_holder());
    let sign = if r.corrupted > 0 { "⚠" } else { "✓" };
    let mut inner = format!(
        r#"<span class="explorer__p"><span aria-hidden="true">{sign} </span>{}</span><span class="explorer__ci">{}</span><span class="explorer__two">2 holders: {}</span>"#,
        corrupt.short_words(),
        corrupt.interval_words(),
        two.short_words()
    );
    if let Some(words) = bands_words(&corrupt) {
        let _ = write!(
            inner,
            r#"<span class="explorer__bands"><span aria-hidden="true">↕ </span>{words}</span>"#
        );
    }
    if !noise.is_empty() {
        let differs: Vec<String> = noise.iter().map(|n| n.differs.clone()).collect();
        let _ = write!(
            inner,
            r#"<span class="explorer__noise">within noise of {}</span>"#,
            escape(&and_list(&differs))
        );
    }
    inner
}

fn cell(h: &mut String, plan: &Plan, data: Option<&CellData>, place: &str, noise: &[Neighbour]) {
    let Some(data) = data else {
        let _ = write!(
            h,
            r#"<span class="explorer__cell explorer__cell--pending"><span aria-hidden="true">…</span><span class="visually-hidden">{}: not run yet</span></span>"#,
            escape(place)
        );
        return;
    };
    let r = &data.result;
    let l = level(r.corruption().p);
    let inner = cell_inner(data, noise);
    let sentence = escape(&cell_sentence(plan, data, place, noise));
    if data.open.is_empty() {
        let _ = write!(
            h,
            r#"<span class="explorer__cell explorer__cell--l{l}" title="{sentence}">{inner}<span class="visually-hidden">{sentence}</span></span>"#
        );
    } else {
        let say = format!(
            "Opened trial {} of the explorer's cell {place} (seed {}): {}. Start plays it; the timeline shows all of it.",
            data.open_trial.unwrap_or(0),
            plan.seed.0,
            r.corruption_every_text(plan.locks_per_hour)
        );
        let _ = write!(
            h,
            r#"<button type="button" class="explorer__cell explorer__cell--l{l}" title="{sentence}" aria-label="{sentence}" data-open="{}" data-say="{}">{inner}</button>"#,
            data.open,
            escape(&say)
        );
    }
}

fn legend(h: &mut String) {
    h.push_str(
        r#"<ul class="explorer__legend" aria-label="Colours of P(corrupted write per hold)">"#,
    );
    for (l, (_, words, ..)) in LEVELS.iter().enumerate() {
        let _ = write!(
            h,
            r#"<li><span class="explorer__swatch explorer__cell--l{l}" aria-hidden="true"></span>{words}</li>"#
        );
    }
    h.push_str("</ul>");
}

fn table(h: &mut String, plan: &Plan, cells: &[Option<CellData>]) {
    let _ = write!(
        h,
        r#"<details class="explorer__tableview"><summary>Table view</summary><div class="table-wrap"><table class="explorer__table"><thead><tr><th scope="col">TTL</th><th scope="col">{}</th><th scope="col">P(corrupted write per hold), 95%</th><th scope="col">P(two holders per hold), 95%</th><th scope="col">Corrupted writes</th><th scope="col">Holds</th><th scope="col">First failing trial</th><th scope="col">Against its neighbours</th></tr></thead><tbody>"#,
        if matches!(plan.axis, Axis::System(_)) {
            "System"
        } else {
            "Pauses"
        }
    );
    let columns = plan.ttls_ms.len().max(1);
    for (i, data) in cells.iter().enumerate() {
        let Some(data) = data else { continue };
        let r = &data.result;
        let _ = write!(
            h,
            r#"<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            micros_text(r.ttl_ms * 1_000),
            escape(&row_label(plan, i / columns)),
            estimate_text(&r.corruption()),
            estimate_text(&r.two_holder()),
            escape(&r.corruption_every_text(plan.locks_per_hour)),
            thousands(r.holds),
            data.open_trial
                .map_or("none".to_string(), |t| t.to_string()),
            escape(&neighbour_words(&noisy_neighbours(plan, cells, i))),
        );
    }
    h.push_str("</tbody></table></div></details>");
}

/// The table's last column: which neighbours differ by noise alone.
fn neighbour_words(noise: &[Neighbour]) -> String {
    if noise.is_empty() {
        return "no overlap with a neighbour's 95% interval".into();
    }
    let places: Vec<String> = noise.iter().map(|n| n.place.clone()).collect();
    format!("sampling noise: overlaps {}", places.join("; "))
}

/// The heatmap as a standalone SVG file.
fn svg(plan: &Plan, cells: &[Option<CellData>]) -> String {
    const LEFT: usize = 110;
    const TOP: usize = 56;
    const W: usize = 96;
    const H: usize = 44;
    let columns = plan.ttls_ms.len().max(1);
    let rows = cells.len().div_ceil(columns);
    let title = format!(
        "{}, latency {}, fencing {}, renewal {}, {} pauses, {} trials per cell, seed {}",
        systems_text(plan),
        latency_text(plan),
        fencing_text(plan),
        if plan.renewal { "on" } else { "off" },
        plan.pauses.name(),
        plan.trials,
        plan.seed.0
    );
    let subtitle = "P(corrupted write per lock hold); below, P(two believed holders)";
    let caption = format!(
        "Distributed Lock Simulator, hazard explorer. Each cell: {} seeded 60 s trials.",
        plan.trials
    );
    let notes: Vec<String> = plan
        .ttls_ms
        .iter()
        .filter_map(|&ttl| ttl_note(plan, ttl).map(|n| format!("{}: {n}", ttl_label(ttl))))
        .collect();
    // Wide enough for the longest line of text as well as the grid: a
    // line is at most about 0.62 of the font size a character (bold 0.68).
    let text_width = [(title.chars().count(), 82), (subtitle.chars().count(), 75)]
        .into_iter()
        .chain(std::iter::once((caption.chars().count(), 75)))
        .chain(notes.iter().map(|n| (n.chars().count(), 75)))
        .map(|(chars, per_ten)| 16 + chars * per_ten / 10)
        .max()
        .unwrap_or(0);
    let foot = 30 + 16 * notes.len();
    let width = (LEFT + columns * W + 10).max(text_width);
    let height = TOP + rows * H + foot;
    let mut s = format!(
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="system-ui, sans-serif" font-size="12"><rect width="{width}" height="{height}" fill="#ffffff"/><text x="8" y="18" font-weight="bold" fill="#111827">{}</text><text x="8" y="34" fill="#374151">{subtitle}</text>"##,
        escape(&title)
    );
    for (c, &ttl) in plan.ttls_ms.iter().enumerate() {
        let x = LEFT + c * W + W / 2;
        let mark = if ttl_note(plan, ttl).is_some() {
            " *"
        } else {
            ""
        };
        let _ = write!(
            s,
            r##"<text x="{x}" y="{}" text-anchor="middle" fill="#111827">{}{mark}</text>"##,
            TOP - 6,
            ttl_label(ttl)
        );
    }
    for (k, note) in notes.iter().enumerate() {
        let _ = write!(
            s,
            r##"<text x="8" y="{}" fill="#374151">* {}</text>"##,
            TOP + rows * H + 18 + 16 * k,
            escape(note)
        );
    }
    for (i, slot) in cells.iter().enumerate() {
        let (row, column) = (i / columns, i % columns);
        let (x, y) = (LEFT + column * W, TOP + row * H);
        if column == 0 {
            let _ = write!(
                s,
                r##"<text x="8" y="{}" fill="#111827">{}</text>"##,
                y + H / 2 + 4,
                escape(&row_label(plan, row))
            );
        }
        let Some(data) = slot else {
            let _ = write!(
                s,
                r##"<rect x="{x}" y="{y}" width="{}" height="{}" fill="#f3f4f6" stroke="#ffffff"/>"##,
                W, H
            );
            continue;
        };
        let p = data.result.corruption().p;
        let (_, _, fill, ink) = LEVELS[level(p)];
        let _ = write!(
            s,
            r##"<rect x="{x}" y="{y}" width="{W}" height="{H}" fill="{fill}" stroke="#ffffff"/><text x="{}" y="{}" text-anchor="middle" font-weight="bold" fill="{ink}">{}</text><text x="{}" y="{}" text-anchor="middle" font-size="10" fill="{ink}">2 holders {}</text>"##,
            x + W / 2,
            y + 19,
            p_text(p),
            x + W / 2,
            y + 34,
            p_text(data.result.two_holder().p)
        );
    }
    let _ = write!(
        s,
        r##"<text x="8" y="{}" fill="#374151">{}</text></svg>"##,
        height - 10,
        escape(&caption)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column a system runs at another lease than asked says so, in
    /// the system's own terms; a system that grants what it is asked
    /// says nothing.
    #[test]
    fn a_column_says_what_lease_each_system_really_runs_it_at() {
        let plan = |backend, axis| Plan {
            backend,
            axis,
            ..Plan::default()
        };
        let etcd = plan(Backend::Etcd, Axis::P99Us(vec![2_000_000]));
        assert_eq!(
            ttl_note(&etcd, 1_000).as_deref(),
            Some("etcd's minimum lease is 2 s: runs at 2 s")
        );
        assert_eq!(
            ttl_note(&etcd, 2_500).as_deref(),
            Some("etcd grants whole seconds: runs at 3 s")
        );
        assert_eq!(ttl_note(&etcd, 5_000), None);
        let zk = plan(Backend::ZooKeeper, Axis::P99Us(vec![2_000_000]));
        assert_eq!(
            ttl_note(&zk, 1_000).as_deref(),
            Some("ZooKeeper's shortest session timeout is 2 ticks of 2 s: runs at 4 s")
        );
        assert_eq!(
            ttl_note(&zk, 50_000).as_deref(),
            Some("ZooKeeper's longest session timeout is 20 ticks of 2 s: runs at 40 s")
        );
        assert_eq!(ttl_note(&zk, 30_000), None);
        let axis = Axis::System(vec![Backend::Redis, Backend::Etcd, Backend::ZooKeeper]);
        assert_eq!(
            ttl_note(&plan(Backend::Etcd, axis), 1_000).as_deref(),
            Some("etcd's minimum lease is 2 s: runs at 2 s; ZooKeeper's shortest session timeout is 2 ticks of 2 s: runs at 4 s")
        );
    }

    #[test]
    fn files_travel_as_data_urls_the_markup_keeps_whole() {
        let url = data_url("text/csv", "a,b\n1,\"x#y\" 50%\n");
        assert_eq!(
            url,
            "data:text/csv;charset=utf-8,a,b%0A1,&quot;x%23y&quot; 50%25%0A"
        );
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(micros_text(250), "250 µs");
        assert_eq!(micros_text(1_500), "1.5 ms");
        assert_eq!(micros_text(2_000_000), "2 s");
        assert_eq!(micros_text(120_000_000), "120 s");
        assert_eq!(rate_text(120_000), "120");
        assert_eq!(rate_text(42), "0.042");
        assert_eq!(p_text(0.0), "none seen");
        assert_eq!(p_text(0.023), "1 in 43");
        assert_eq!(p_text(0.000_041), "1 in 24,000");
        assert_eq!(p_text(0.5), "50%");
        assert_eq!(level(0.0), 0);
        assert_eq!(level(0.000_05), 1);
        assert_eq!(level(0.5), 6);
    }

    /// A cell of `plan` with `corrupted` of `holds` holds.
    pub(super) fn counted(plan: &Plan, cell: u32, corrupted: u64, holds: u64) -> Option<CellData> {
        let mut result = crate::tools::explore::CellResult::empty(&plan.cell(cell).unwrap());
        (result.trials, result.holds, result.corrupted) = (10, holds, corrupted);
        Some(CellData {
            result,
            open: String::new(),
            open_trial: None,
            rare: None,
        })
    }

    /// A cell whose weighted trials saw nothing shows its plain interval,
    /// and the method says so with the weighted trials that ran, not the
    /// plain ones as if they were weighted.
    #[test]
    fn weighted_trials_that_saw_nothing_are_counted_as_such() {
        use crate::tools::explore::{RareResult, Threshold, Tilt};
        let plan = Plan::default();
        let mut cell = counted(&plan, 0, 0, 2_000).unwrap();
        let mut weighted = RareResult::empty(0, Tilt::NONE);
        for _ in 0..20_000 {
            weighted.add(0, 1.0);
        }
        cell.rare = Some(Rare {
            threshold: Threshold::at(6_000),
            cannot_happen: false,
            weighted: Some(weighted),
            holds_mean: 200.0,
            holds_var: 1.0,
        });
        let row = design_row(&plan, &cell).unwrap();
        assert_eq!(row[3], "plain sampling, 10 trials");
        // Had two pauses under its longest added up, it would say why
        // there is no proof.
        if let Some(rare) = &mut cell.rare {
            rare.threshold.reach = Reach::From {
                pause_ms: cell.result.profile.longest_us() / 1_000 + 1,
            };
            rare.threshold.together = Together::Pairs {
                pause_ms: cell.result.profile.longest_us() / 2_000,
            };
        }
        let row = design_row(&plan, &cell).unwrap();
        assert!(
            row[3].starts_with(
                "plain sampling, 10 trials; not proven: no single pause shorter than "
            ) && row[3].contains("but two of "),
            "{}",
            row[3]
        );
        let words = method_paragraph(&plan, &[Some(cell.clone())]);
        assert!(
            words.contains("1 cell ran 20,000 weighted trials and saw no corrupted write")
                && !words.contains("ran importance sampling"),
            "{words}"
        );
        // Where pauses add up however many, only a profile that never
        // pauses is proven safe, and says so.
        if let Some(rare) = &mut cell.rare {
            rare.threshold.together = Together::Any;
            rare.cannot_happen = true;
        }
        cell.result.profile.per_kilohour = 0;
        assert_eq!(
            design_row(&plan, &cell).unwrap()[3],
            "proven: the profile never pauses"
        );
    }

    /// Weighted trials that saw a few corrupted writes of very different
    /// weights give an interval reaching zero: the cell shows its plain
    /// trials' interval and the method says why; with enough of them it
    /// shows theirs.
    #[test]
    fn weighted_trials_that_saw_too_few_show_the_plain_interval() {
        use crate::tools::explore::{RareResult, Threshold, Tilt};
        let plan = Plan::default();
        let mut cell = counted(&plan, 0, 0, 2_000).unwrap();
        let tilt = Tilt {
            rate_factor: 4,
            ..Tilt::NONE
        };
        let mut weighted = RareResult::empty(0, tilt);
        for i in 0..20_000 {
            match i {
                7 => weighted.add(1, 1e-9),
                700 => weighted.add(1, 1e-30),
                _ => weighted.add(0, 1.0),
            }
        }
        let rare = |weighted| Rare {
            threshold: Threshold::at(1_000),
            cannot_happen: false,
            weighted: Some(weighted),
            holds_mean: 10.0,
            holds_var: 0.01,
        };
        cell.rare = Some(rare(weighted));
        let shown = cell.rare.unwrap().per_hold(&cell.result).unwrap();
        assert!(
            shown.plain && shown.p == 0.0 && shown.high > 1e-4,
            "{shown:?}"
        );
        let row = design_row(&plan, &cell).unwrap();
        assert_eq!(row[3], "plain sampling, 10 trials");
        let words = method_paragraph(&plan, &[Some(cell.clone())]);
        assert!(
            words.contains("1 cell ran 20,000 weighted trials and saw 2 corrupted writes, too few of like weight to bound the chance")
                && !words.contains("saw no corrupted write")
                && !words.contains("ran importance sampling"),
            "{words}"
        );
        // Forty of like weight bound it: the weighted interval is shown.
        let mut weighted = RareResult::empty(0, tilt);
        for i in 0..20_000 {
            weighted.add(
                u64::from(i % 500 == 0),
                if i % 500 == 0 { 1e-6 } else { 1.0 },
            );
        }
        cell.rare = Some(rare(weighted));
        let shown = cell.rare.unwrap().per_hold(&cell.result).unwrap();
        assert!(!shown.plain && shown.low > 0.0, "{shown:?}");
        let words = method_paragraph(&plan, &[Some(cell)]);
        assert!(
            words.contains("1 cell ran importance sampling") && !words.contains("too few"),
            "{words}"
        );
    }

    #[test]
    fn a_cell_names_the_neighbours_it_differs_from_only_by_noise() {
        let plan = Plan {
            ttls_ms: vec![1_000, 2_000, 5_000],
            axis: Axis::P99Us(vec![2_000_000, 10_000_000]),
            ..Plan::default()
        };
        // Across the top row: 12 and 9 in 10,000 overlap; 300 does not.
        // Below the first: none in 2,000, which overlaps 12 in 10,000.
        let cells = vec![
            counted(&plan, 0, 12, 10_000),
            counted(&plan, 1, 9, 10_000),
            counted(&plan, 2, 300, 10_000),
            counted(&plan, 3, 0, 2_000),
            None,
            counted(&plan, 5, 300, 10_000),
        ];
        let names = |i: usize| -> Vec<String> {
            noisy_neighbours(&plan, &cells, i)
                .into_iter()
                .map(|n| n.place)
                .collect()
        };
        assert_eq!(names(0), ["TTL 2 s, p99 2 s", "TTL 1 s, p99 10 s"]);
        assert_eq!(names(1), ["TTL 1 s, p99 2 s"]);
        assert_eq!(names(2), ["TTL 5 s, p99 10 s"]);
        assert!(names(4).is_empty(), "a cell not run has no neighbours");
        let sentence = noise_sentence(&noisy_neighbours(&plan, &cells, 0));
        assert_eq!(
            sentence,
            "Its 95% interval overlaps those of the cells at TTL 2 s, p99 2 s and at TTL 1 s, p99 10 s: the difference is sampling noise (more trials would tell them apart)"
        );
        let face = cell_inner(
            cells[0].as_ref().unwrap(),
            &noisy_neighbours(&plan, &cells, 0),
        );
        assert!(face.contains("about 1 in 830"), "{face}");
        assert!(face.contains("95%: 1 in 480 to 1 in 1,500"), "{face}");
        assert!(
            face.contains("within noise of TTL 2 s and p99 10 s"),
            "{face}"
        );
        let none = cell_inner(cells[3].as_ref().unwrap(), &[]);
        assert!(
            none.contains("none in 2,000") && none.contains("95%: at most 1 in 520"),
            "{none}"
        );
        assert!(!none.contains("within noise"), "{none}");
    }
}

#[cfg(test)]
mod rare_tests {
    use super::*;

    /// The answer's first line, its CSV's first line and its heatmap's
    /// title name the settings it ran at.
    #[test]
    fn the_answer_and_its_files_open_with_their_settings() {
        let plan = Plan {
            ttls_ms: vec![1_000, 5_000],
            axis: Axis::P99Us(vec![100_000, 2_000_000]),
            fencing: crate::sim::Fencing::On,
            seed: crate::sim::Seed(7),
            trials: 10,
            ..Plan::default()
        };
        let cells: Vec<Option<CellData>> = (0..4)
            .map(|c| super::tests::counted(&plan, c, 1, 100))
            .collect();
        let h = draw(
            &plan,
            &cells,
            &Run {
                rate: 0,
                running: false,
                said: "",
            },
        );
        let settings = r#"<p class="panel__note explorer__settings"><strong>Settings:</strong> "#;
        assert!(h.starts_with(settings), "{h}");
        for said in [
            ", TTL 1 s or 5 s (the columns), rows p99 100 ms or 2 s, latency ",
            ", fencing on, renewal ",
            "10 trials per cell, seed 7, rates at ",
        ] {
            assert!(
                h.split("</p>").next().unwrap().contains(said),
                "{said}: {h}"
            );
        }
        let csv = csv_comment(&plan);
        assert!(
            csv.starts_with(&format!("# Settings: {}\n", settings_text(&plan))),
            "{csv}"
        );
        let title = svg(&plan, &cells);
        assert!(title.contains(", fencing on, renewal on, "), "{title}");
        assert!(title.contains("seed 7"), "{title}");
    }

    #[test]
    fn progress_alone_redraws_only_the_progress_part() {
        let plan = Plan {
            ttls_ms: vec![1_000, 2_000],
            axis: Axis::P99Us(vec![2_000_000]),
            ..Plan::default()
        };
        let cells = vec![None, None];
        let at = |rate| {
            draw(
                &plan,
                &cells,
                &Run {
                    rate,
                    running: true,
                    said: "",
                },
            )
        };
        let (a, b) = (at(1_000), at(2_000));
        let (a, b): (Vec<&str>, Vec<&str>) =
            (a.split(PART_BREAK).collect(), b.split(PART_BREAK).collect());
        assert_eq!(a.len(), 3);
        assert_ne!(a[0], b[0], "the progress moved");
        assert_eq!(a[1..], b[1..], "the results stay as they were");
        assert!(a[2].is_empty(), "no files while it runs");
    }

    #[test]
    fn expected_counts_keep_two_figures_below_one() {
        assert_eq!(amount_text(0.0), "0");
        assert_eq!(amount_text(0.0023), "0.0023");
        assert_eq!(amount_text(0.5), "0.5");
        assert_eq!(amount_text(2.34), "2.3");
        assert_eq!(amount_text(0.000_000_12), "0.00000012");
    }
}
