//! "Compare the systems", run and drawn in the worker: the articles'
//! comparison table, every cell a run of the core. A cell is a button that
//! carries its run as a link, so the page opens it without running it.

use crate::markup::escape;
use crate::sim::latency::latency_words;
use crate::sim::{Backend, Config, FenceMode, Fencing};
use crate::tools::compare::address::{cell_query, table_query, CellRef};
use crate::tools::compare::{
    heading_system, lease_words_at, own_options_words, parameters, row_at, settings_line,
    settings_words, write_times, Cell, Column, Judged, Outcome, Row, COLUMNS, VARIANTS,
};
use crate::wire::link::{self, RunLink};
use std::fmt::Write;

/// Runs the comparison at the settings of `base` one system at a time,
/// posting the table after each (markup, progress in words, done); the
/// last drawing carries the exports, whose links start with `page` (the
/// page's address without its query or fragment).
pub fn run_all(base: &Config, page: &str, post: &mut dyn FnMut(String, String, bool)) {
    let mut rows: Vec<Row> = Vec::with_capacity(Backend::ALL.len());
    let mut runs = 0;
    for (i, &backend) in Backend::ALL.iter().enumerate() {
        rows.push(row_at(base, backend));
        runs += run_count(base, backend);
        let done = i + 1 == Backend::ALL.len();
        let progress = format!(
            "Ran {} of {} systems ({runs} runs).",
            i + 1,
            Backend::ALL.len(),
        );
        let mut h = settings_html(base);
        h.push_str(&table(base, &rows));
        if done {
            h.push_str(&exports_html(base, &rows, page));
        }
        post(h, progress, done);
    }
}

/// The runs a row makes, counted as `RUNS` counts them but for the cells
/// the system does not run: every side at each write time, and each tuned
/// setting that applies to it unless the visitor set the system's options.
fn run_count(base: &Config, backend: Backend) -> usize {
    use crate::tools::compare::{own_options, runs_on, sides};
    let tuned = |column: &Column| {
        if own_options(base, backend) {
            return 0;
        }
        VARIANTS
            .iter()
            .filter(|s| s.backend == backend && (s.column == "*" || s.column == column.id))
            .count()
    };
    COLUMNS
        .iter()
        .filter(|c| runs_on(base, c.id, backend))
        .map(|c| sides(c).len() * write_times(c.id) * (1 + tuned(c)))
        .sum()
}

/// The settings the table is at, in words, above it, and the fencing
/// modes side by side: each a link to this table with its runs fenced that
/// way (the address holds the table's settings, so the page opens and runs
/// it), the mode on show marked.
fn settings_html(base: &Config) -> String {
    let mut h = format!(
        r#"<p class="compare__settings"><strong>This table is at:</strong> {}</p><p class="compare__modes"><strong>Fencing mode</strong> (how the resource checks a write in the runs with fencing on):"#,
        escape(&settings_words(base))
    );
    let modes = [
        FenceMode::Documented,
        FenceMode::Highest,
        FenceMode::Check,
        FenceMode::Takeover,
    ];
    for (i, mode) in modes.into_iter().enumerate() {
        let sep = if i == 0 { " " } else { " · " };
        if mode == base.fence {
            let _ = write!(
                h,
                r#"{sep}<strong aria-current="true">{}</strong>"#,
                escape(mode.label())
            );
        } else {
            let query = table_query(&Config {
                fence: mode,
                ..base.clone()
            });
            let _ = write!(
                h,
                r#"{sep}<a href="?view=compare&amp;{}">{}</a>"#,
                escape(&query),
                escape(mode.label())
            );
        }
    }
    h.push_str(". A system that does not offer a mode fences as its clients document.</p>");
    h
}

fn table(base: &Config, rows: &[Row]) -> String {
    let fastest = rows.iter().map(|r| r.acquire_ms).min().unwrap_or(1).max(1);
    let mut h = String::from(
        r#"<div class="table-wrap compare__wrap"><table class="compare__table"><caption class="visually-hidden">Each lock system under each story: what happened with fencing off, then on, at the system's real defaults and with the tuned settings that change the verdict</caption><thead><tr><th scope="col" title="Token: what a resource could check; monotonic: the system promises tokens that only grow (the property tests assert it, failovers included); acquire: A's acquisition in the GC pause run, click to grant, at the latency it names">System<span class="compare__sub">its lease, token and acquisition</span></th>"#,
    );
    for c in COLUMNS {
        let sub = if c.fenced {
            "fencing off, on"
        } else {
            "fencing plays no part"
        };
        let _ = write!(
            h,
            r#"<th scope="col" title="{}">{}<span class="compare__sub">{}</span><span class="compare__sub">{sub}</span></th>"#,
            escape(c.question),
            escape(c.title),
            escape(&parameters(base, c.id, heading_system(c)))
        );
    }
    h.push_str("</tr></thead><tbody>");
    let fastest_name = rows
        .iter()
        .find(|r| r.acquire_ms.max(1) == fastest)
        .map_or("", |r| r.backend.name());
    for r in rows {
        row_html(&mut h, base, r, (fastest, fastest_name));
    }
    h.push_str("</tbody></table></div>");
    let _ = write!(
        h,
        r#"<p class="panel__note">Each heading gives its story's times as {} runs them (Redlock's own story, as Redlock does), in the system's own seconds; a system whose times differ says its own under its cell. Corrupted: a stale write was accepted after the lock went to another client. Rejected: fencing refused it. Rejected while …: fencing refused it, by a check that holds only while what it names holds (a counter in one Redis node, or a version that another write has moved); the system does not promise it. At k of 5 write times: A's write was run at five times across the window where the verdict turns (the partition; from the clock jump to the end of A's lease; B's first turn after a failover), and this many gave the verdict; each time's run opens from its number. In those columns a verdict without "at k of 5" is what all five gave; their runs are folded under "same at all 5 write times". Stopped in time: the old holder learned it had lost the lock before writing, and another client held it. Two holders: the old holder still believed it held the lock while another held it; no write of its fell in that time, so only timing saved the data. Gave up the lock (spurious): the holder stopped believing while nobody else was granted it. Lock kept: nobody else was granted it. Not modelled: the simulator cannot do this to that system, which says nothing about the system. The crash columns say how long B, already asking, waited after A died. Each cell runs the system at its real defaults; where a common tuned setting changes the verdict, its run is beside it. Each row says which lease it ran with; every time in a cell is in the system's own seconds, where the run scaled them (seed {}, latency {}).</p>"#,
        heading_system(&COLUMNS[0]).name(),
        base.seed.0,
        latency_words(base)
    );
    h
}

fn row_html(h: &mut String, base: &Config, row: &Row, (fastest, fastest_name): (u64, &str)) {
    let backend = row.backend;
    let ratio = (row.acquire_ms + fastest / 2) / fastest;
    // The rows run at the page's latency; the time says which.
    let latency = latency_words(base);
    let _ = write!(
        h,
        r#"<tr data-backend="{}"><th scope="row">{}<span class="compare__sub">{}</span><span class="compare__sub">token: {} (monotonic: {})</span><span class="compare__sub">acquire: {} ms at latency {latency}, {ratio}x the fastest acquisition ({fastest_name}'s {fastest} ms)</span></th>"#,
        backend.slug(),
        escape(backend.name()),
        escape(&lease_words_at(base.ttl_ms, backend)),
        escape(backend.token_short()),
        if backend.monotonic_tokens() {
            "yes"
        } else {
            "no"
        },
        row.acquire_ms
    );
    for (column, cells) in COLUMNS.iter().zip(&row.cells) {
        h.push_str(r#"<td class="compare__pair">"#);
        for label in labels(cells) {
            let runs: Vec<(Option<Fencing>, &Judged)> = cells
                .iter()
                .map(|c| (column.fenced.then_some(c.fencing), run_of(c, label)))
                .collect();
            let words = |j: &&Judged| j.word();
            let alike = runs.windows(2).all(|w| words(&w[0].1) == words(&w[1].1));
            if alike && runs.len() > 1 && runs[0].1.run.is_some() {
                alike_html(h, backend, column, label, &runs);
            } else if alike && runs[0].1.run.is_none() {
                // Nothing ran on either side: the word once.
                run_html(h, backend, column, None, label, runs[0].1);
            } else {
                for (side, judged) in runs {
                    run_html(h, backend, column, side, label, judged);
                }
            }
        }
        // The runs at each of A's write times, where there are several:
        // in full where they disagree; folded under one line where every
        // side came out the same at all of them, its verdict already said.
        let alike = cells
            .iter()
            .all(|c| c.main.writes.len() < 2 || !c.main.word().ends_with(" write times"));
        let folded = alike && cells.iter().any(|c| c.main.writes.len() > 1);
        if folded {
            let _ = write!(
                h,
                r#"<details class="compare__alike"><summary>same at all {} write times</summary>"#,
                write_times(column.id)
            );
        }
        for cell in cells {
            times_html(h, backend, column, cell);
        }
        if folded {
            h.push_str("</details>");
        }
        // One line for the pair: what the fenced run rests on (an unfenced
        // run that corrupts rests on nothing checking the token, which the
        // fenced side's line says with it).
        if let Some(cell) = cells.last() {
            note_html(h, cell);
        }
        // This system's times, where they are not the heading's.
        let own = parameters(base, column.id, backend);
        if cells.iter().any(|c| c.main.outcome.ran())
            && own != parameters(base, column.id, heading_system(column))
        {
            let _ = write!(
                h,
                r#"<span class="compare__dep">here: {}</span>"#,
                escape(&own)
            );
        }
        h.push_str("</td>");
    }
    h.push_str("</tr>");
}

/// A column's settings in order: the main run's (`None`, or the real
/// default tuned runs stand beside), then each tuned one any side shows.
fn labels(cells: &[Cell]) -> Vec<Option<&'static str>> {
    let mut labels = vec![cells.iter().find_map(|c| c.setting)];
    for v in cells.iter().flat_map(|c| &c.variants) {
        if !labels.contains(&Some(v.label)) {
            labels.push(Some(v.label));
        }
    }
    labels
}

/// A side's run of a setting: a side that shows no run of it came out
/// as its main run.
fn run_of<'c>(cell: &'c Cell, label: Option<&'static str>) -> &'c Judged {
    cell.variants
        .iter()
        .find(|v| Some(v.label) == label)
        .map_or(&cell.main, |v| &v.judged)
}

/// A setting whose runs came out alike with fencing off and on: its words
/// once, and a small button per side that opens that side's run.
fn alike_html(
    h: &mut String,
    backend: Backend,
    column: &Column,
    label: Option<&str>,
    runs: &[(Option<Fencing>, &Judged)],
) {
    let judged = runs[0].1;
    let word = judged.word();
    let shown = label.map_or(word.clone(), |l| format!("{l}: {word}"));
    let _ = write!(
        h,
        r#"<div class="compare__cell compare__cell--alike {}" title="{}"><span>{}</span><span class="compare__runs">"#,
        outcome_class(&judged.outcome),
        escape(&judged.why),
        escape(&shown)
    );
    for &(side, judged) in runs {
        let Some(played) = &judged.run else { continue };
        let side_word = if side.is_some_and(|f| f.is_on()) {
            "on"
        } else {
            "off"
        };
        let (say, aria) = run_words(backend, column, Some(side_word), label, &word);
        let _ = write!(
            h,
            r#"<button type="button" class="compare__run" title="{}" aria-label="{}" data-open="{}" data-say="{}">{side_word}</button>"#,
            escape(&judged.why),
            escape(&aria),
            fragment(played),
            escape(&say)
        );
    }
    h.push_str("</span></div>");
}

/// A run as a link's fragment, opened at its start with all of it in view.
fn fragment(played: &crate::tools::compare::Played) -> String {
    link::encode(&RunLink {
        scenario: played.scenario.clone(),
        playhead_ms: 0,
        end_ms: played.end.ms(),
    })
}

/// What the page says on opening a run, and the run's button's name.
fn run_words(
    backend: Backend,
    column: &Column,
    side: Option<&str>,
    label: Option<&str>,
    word: &str,
) -> (String, String) {
    let title = column.title;
    let fencing = side.map_or(String::new(), |s| format!(", fencing {s}"));
    let setting = label.map_or(String::new(), |l| format!(", {l}"));
    let say = format!(
        "Opened the comparison's run of {title} on {}{fencing}{setting} ({word}). Start plays it; the timeline shows all of it.",
        backend.name()
    );
    let aria = format!(
        "{}, {title}{fencing}{setting}: {word}. Open this run",
        backend.name()
    );
    (say, aria)
}

/// A side's runs at each of A's write times: a button per time, named
/// by its number and its verdict, that opens that run.
fn times_html(h: &mut String, backend: Backend, column: &Column, cell: &Cell) {
    if cell.main.writes.is_empty() {
        return;
    }
    let side = column
        .fenced
        .then_some(if cell.fencing.is_on() { "on" } else { "off" });
    let _ = write!(
        h,
        r#"<span class="compare__runs compare__times">{}write times:"#,
        side.map_or(String::new(), |s| format!("{s}, "))
    );
    let n = cell.main.writes.len();
    for (k, judged) in cell.main.writes.iter().enumerate() {
        let Some(played) = &judged.run else { continue };
        let word = judged.outcome.word();
        let label = format!("A's write at time {} of {n}", k + 1);
        let (say, aria) = run_words(backend, column, side, Some(&label), &word);
        let _ = write!(
            h,
            r#" <button type="button" class="compare__run {}" title="{}" aria-label="{}" data-open="{}" data-say="{}">{}</button>"#,
            outcome_class(&judged.outcome),
            escape(&judged.why),
            escape(&aria),
            fragment(played),
            escape(&say),
            k + 1
        );
    }
    h.push_str("</span>");
}

/// What the cell rests on, or, where nothing ran, why.
fn note_html(h: &mut String, cell: &Cell) {
    let note = match &cell.depends_on {
        Some(d) => d.clone(),
        None => cell.main.why.clone(),
    };
    let _ = write!(h, r#"<span class="compare__dep">{}</span>"#, escape(&note));
}

fn outcome_class(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Corrupted => "compare__cell--corrupted",
        Outcome::Rejected => "compare__cell--rejected",
        Outcome::Safe
        | Outcome::NeverLost
        | Outcome::NotAffected
        | Outcome::GaveUp
        | Outcome::NotGranted => "compare__cell--safe",
        // A rejection that rests on more than the system promises is not
        // shown as safe.
        Outcome::Waited { .. }
        | Outcome::StillWaiting { .. }
        | Outcome::TwoHolders { .. }
        | Outcome::RejectedWhile(_) => "compare__cell--wait",
        Outcome::NotModelled(_) | Outcome::NotApplicable(_) => "compare__cell--na",
    }
}

/// One run of a cell: a button that opens it, or, where nothing ran, its word.
fn run_html(
    h: &mut String,
    backend: Backend,
    column: &Column,
    side: Option<Fencing>,
    label: Option<&str>,
    judged: &Judged,
) {
    let side_word = side.map(|f| if f.is_on() { "on" } else { "off" });
    let word = judged.word();
    let shown = match label {
        Some(l) => format!("{l}: {word}"),
        None => word.clone(),
    };
    let class = outcome_class(&judged.outcome);
    let side_html = side_word.map_or(String::new(), |s| {
        format!(r#"<span class="compare__side" aria-hidden="true">{s}</span>"#)
    });
    let Some(played) = &judged.run else {
        let _ = write!(
            h,
            r#"<span class="compare__cell {class}">{side_html}{}</span>"#,
            escape(&shown)
        );
        return;
    };
    let (say, aria) = run_words(backend, column, side_word, label, &word);
    let _ = write!(
        h,
        r#"<button type="button" class="compare__cell {class}" title="{}" aria-label="{}" data-open="{}" data-say="{}">{side_html}{}</button>"#,
        escape(&judged.why),
        escape(&aria),
        fragment(played),
        escape(&say),
        escape(&shown)
    );
}

/// The table's exports, CSV and Markdown, each with a download and a
/// Copy button, under the table.
fn exports_html(base: &Config, rows: &[Row], page: &str) -> String {
    let page = page_address(page);
    let mut h = String::from(
        r#"<section class="compare__exports" aria-label="Export the table"><h3 class="compare__exports-title">Export the table</h3><p class="panel__note">One row per story and system, at the settings above; each verdict links to its run.</p>"#,
    );
    h.push_str(&crate::markup::export_html(
        "CSV",
        "distlock-comparison.csv",
        "text/csv",
        &csv(base, rows, &page),
        "The comparison as CSV",
    ));
    h.push_str(&crate::markup::export_html(
        "Markdown table",
        "distlock-comparison.md",
        "text/markdown",
        &markdown(base, rows, &page),
        "The comparison as a Markdown table",
    ));
    h.push_str("</section>");
    h
}

/// The page's address as a run's link starts: without its query (which
/// would open a view rather than the run) or fragment.
fn page_address(page: &str) -> String {
    page.split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A run's link in an export: the page's address and the cell's short
/// query (`?cell=gc-pause&system=redis&fencing=on&ttl=5`, with the
/// system's options where the visitor set them), which runs the cell again.
fn run_url(page: &str, base: &Config, at: CellRef, judged: &Judged) -> String {
    if judged.run.is_none() {
        return String::new();
    }
    format!("{page}?{}", cell_query(base, &at))
}

/// The write time of `judged.writes` whose run is the one shown.
fn shown_write(judged: &Judged) -> Option<usize> {
    judged
        .writes
        .iter()
        .position(|w| w.run.is_some() && w.run == judged.run)
}

/// A verdict and its links: the run shown, then, where A's write ran at
/// several times, each time's run.
#[derive(Default)]
struct Linked {
    word: String,
    url: String,
    times: Vec<String>,
}

fn linked(page: &str, base: &Config, at: CellRef, judged: &Judged) -> Linked {
    let at_write = |write| CellRef { write, ..at };
    Linked {
        word: judged.word(),
        url: run_url(page, base, at_write(shown_write(judged)), judged),
        times: judged
            .writes
            .iter()
            .enumerate()
            .map(|(k, w)| run_url(page, base, at_write(Some(k)), w))
            .collect(),
    }
}

/// One story on one system, as the exports write it.
struct Line {
    system: &'static str,
    /// The story's title, and with its parameters.
    title: &'static str,
    story: String,
    lease: String,
    acquire_ms: u64,
    /// The main run's verdict with fencing off, then on (empty where
    /// fencing plays no part), with their links.
    sides: [Linked; 2],
    /// Each tuned setting's label and its verdicts, off then on.
    tuned: Vec<(&'static str, Vec<Linked>)>,
    depends_on: String,
}

fn lines(base: &Config, rows: &[Row], page: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for row in rows {
        let backend = row.backend;
        for (column, cells) in COLUMNS.iter().zip(&row.cells) {
            let at = |cell: &Cell, setting| CellRef {
                column,
                backend,
                fencing: cell.fencing,
                setting,
                write: None,
            };
            let mut sides: [Linked; 2] = Default::default();
            for (i, cell) in cells.iter().enumerate().take(2) {
                sides[i] = linked(page, base, at(cell, None), &cell.main);
            }
            let tuned = labels(cells)
                .into_iter()
                .flatten()
                .filter_map(|l| {
                    let id = cells
                        .iter()
                        .flat_map(|c| &c.variants)
                        .find(|v| v.label == l)?
                        .id;
                    let setting = VARIANTS
                        .iter()
                        .find(|s| s.id == id && s.applies(column.id, backend));
                    let runs = cells
                        .iter()
                        .map(|c| linked(page, base, at(c, setting), run_of(c, Some(l))))
                        .collect();
                    Some((l, runs))
                })
                .collect();
            let last = cells.last().expect("a column has a side");
            out.push(Line {
                system: backend.name(),
                title: column.title,
                story: format!(
                    "{} ({})",
                    column.title,
                    parameters(base, column.id, backend)
                ),
                lease: lease_words_at(base.ttl_ms, backend),
                acquire_ms: row.acquire_ms,
                sides,
                tuned,
                depends_on: last
                    .depends_on
                    .clone()
                    .unwrap_or_else(|| last.main.why.clone()),
            });
        }
    }
    out
}

/// The CSV's columns.
pub const CSV_COLUMNS: &str = "system,story,ttl_ms,latency_scale,network_rtt_ms,seed,fence_mode,lease,acquire_ms,fencing_off,fencing_on,tuned,depends_on,run_fencing_off,run_fencing_on,tuned_runs,write_time_runs";

/// A CSV field, quoted where it must be.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The comparison as CSV: its settings in a first line (a `#` comment, as
/// CSV readers that take comments skip it), then one line per story and
/// system (fencing_on is empty where fencing plays no part; tuned settings
/// are separated by " · ", links by spaces; write_time_runs are the runs
/// at each of A's write times, where the story runs several).
pub fn csv(base: &Config, rows: &[Row], page: &str) -> String {
    let own = own_options_words(base);
    let own = if own.is_empty() {
        String::new()
    } else {
        format!("; your options: {}", own.join("; "))
    };
    let mut s = format!(
        "# Distributed Lock Simulator comparison at: {}{own}\n{CSV_COLUMNS}\n",
        settings_line(base)
    );
    for l in lines(base, rows, page) {
        let tuned: Vec<String> = l
            .tuned
            .iter()
            .map(|(label, runs)| {
                let words: Vec<&str> = runs.iter().map(|r| r.word.as_str()).collect();
                format!("{label}: {}", words.join(" / "))
            })
            .collect();
        let tuned_runs: Vec<&str> = l
            .tuned
            .iter()
            .flat_map(|(_, runs)| runs.iter().map(|r| r.url.as_str()))
            .collect();
        let times: Vec<&str> = l
            .sides
            .iter()
            .flat_map(|side| side.times.iter().map(String::as_str))
            .collect();
        let fields = [
            field(l.system),
            field(&l.story),
            base.ttl_ms.to_string(),
            base.latency_scale.to_string(),
            base.network_rtt_ms.to_string(),
            base.seed.0.to_string(),
            base.fence.word().to_string(),
            field(&l.lease),
            l.acquire_ms.to_string(),
            field(&l.sides[0].word),
            field(&l.sides[1].word),
            field(&tuned.join(" · ")),
            field(&l.depends_on),
            field(&l.sides[0].url),
            field(&l.sides[1].url),
            field(&tuned_runs.join(" ")),
            field(&times.join(" ")),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// Text made safe in a Markdown table's cell.
fn md(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('[', "\\[")
        .replace(']', "\\]")
        .replace('\n', " ")
}

/// The Markdown's links: each verdict is a reference link (`[corrupted][3]`)
/// whose address is written once under the table, so a table line stays
/// short however long the addresses are.
#[derive(Default)]
struct References {
    urls: Vec<String>,
}

impl References {
    /// `word` linked to `url`, or the word alone where nothing ran.
    fn link(&mut self, word: &str, url: &str) -> String {
        if url.is_empty() {
            return md(word);
        }
        let n = match self.urls.iter().position(|u| u == url) {
            Some(i) => i + 1,
            None => {
                self.urls.push(url.to_string());
                self.urls.len()
            }
        };
        format!("[{}][{n}]", md(word))
    }

    /// A verdict, linked to its run.
    fn linked(&mut self, l: &Linked) -> String {
        self.link(&l.word, &l.url)
    }

    /// Where A's write ran at several times that disagree, a link to each
    /// time's run ("[1][7] [2][8] …"); else nothing.
    fn times(&mut self, l: &Linked) -> String {
        if !l.word.ends_with(" write times") {
            return String::new();
        }
        let times: Vec<String> = l
            .times
            .iter()
            .enumerate()
            .map(|(k, u)| self.link(&(k + 1).to_string(), u))
            .collect();
        times.join(" ")
    }
}

/// The comparison as a Markdown table: the settings in a line above it,
/// then a row per story and system (the story with its parameters) at the
/// real defaults, and one under it per tuned setting that changes its
/// verdict; each verdict a reference link to its run, whose address is
/// written under the table, so that every line is short.
pub fn markdown(base: &Config, rows: &[Row], page: &str) -> String {
    let mut s = format!(
        "Distributed Lock Simulator comparison at: {}\n\nEach verdict of a run links to it. \"At k of 5 write times\": A's write was run at the five times its story lists, and k of them gave the verdict; the row under it links to each time's run, in that order. In those stories a verdict without it is what all five gave. \"defaults\" (Setting): the system's real defaults, with a tuned setting's row under it.\n\n| System | Story | Setting | Fencing off | Fencing on | Depends on |\n|---|---|---|---|---|---|\n",
        // A sentence a line: one paragraph still, and short lines.
        md(&settings_words(base)).replace(". ", ".\n")
    );
    let mut refs = References::default();
    // A row of links to each write time's run, under a verdict that
    // several write times gave.
    let times_row =
        |s: &mut String, refs: &mut References, l: &Line, label: String, runs: &[Linked]| {
            let times: Vec<String> = runs.iter().map(|r| refs.times(r)).collect();
            if times.iter().all(String::is_empty) {
                return;
            }
            let on = times.get(1).cloned().unwrap_or_default();
            let _ = writeln!(
                s,
                "| {} | {} | {label} | {} | {on} | |",
                md(l.system),
                md(l.title),
                times[0]
            );
        };
    for l in lines(base, rows, page) {
        let off = refs.linked(&l.sides[0]);
        let on = refs.linked(&l.sides[1]);
        let setting = if l.tuned.is_empty() { "" } else { "defaults" };
        let depends = l
            .depends_on
            .strip_prefix("depends on: ")
            .unwrap_or(&l.depends_on);
        let _ = writeln!(
            s,
            "| {} | {} | {setting} | {off} | {on} | {} |",
            md(l.system),
            md(&l.story),
            md(depends)
        );
        times_row(&mut s, &mut refs, &l, "write times 1 to 5".into(), &l.sides);
        for (label, runs) in &l.tuned {
            let words: Vec<String> = runs.iter().map(|r| refs.linked(r)).collect();
            let on = words.get(1).cloned().unwrap_or_default();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {on} | |",
                md(l.system),
                md(l.title),
                md(label),
                words[0]
            );
            times_row(
                &mut s,
                &mut refs,
                &l,
                format!("{}, write times 1 to 5", md(label)),
                runs,
            );
        }
    }
    s.push('\n');
    for (i, url) in refs.urls.iter().enumerate() {
        let _ = writeln!(s, "[{}]: <{url}>", i + 1);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::compare::{cell, Judged, RUNS};
    use crate::wire::link::open_link;

    /// The link of the button whose accessible name starts with `name`.
    fn link_of(html: &str, name: &str) -> String {
        let at = html
            .find(&format!(r#"aria-label="{name}"#))
            .unwrap_or_else(|| panic!("a button named {name}"));
        let start = at + html[at..].find(r#"data-open=""#).unwrap() + r#"data-open=""#.len();
        html[start..start + html[start..].find('"').unwrap()].to_string()
    }

    fn opens(html: &str, name: &str, judged: &Judged) {
        let (opened, whole) = open_link(&link_of(html, name)).expect("the cell's link opens");
        assert_eq!(opened.playhead_ms, 0);
        let played = judged.run.as_ref().unwrap();
        let direct = crate::sim::Sim::play(&played.scenario, played.end).unwrap();
        assert_eq!(whole.history(), direct.history(), "{name}");
    }

    /// A CSV line's fields, quotes undone; `None` if it is not well formed.
    fn fields(line: &str) -> Option<Vec<String>> {
        let (mut out, mut field, mut quoted, mut chars) =
            (Vec::new(), String::new(), false, line.chars().peekable());
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                ('"', true) => quoted = false,
                ('"', false) if field.is_empty() => quoted = true,
                ('"', false) => return None,
                (',', false) => out.push(std::mem::take(&mut field)),
                (c, _) => field.push(c),
            }
        }
        (!quoted).then(|| {
            out.push(field);
            out
        })
    }

    /// A link in an export: the page's address and a cell's short query,
    /// which opens a run at the settings the table ran.
    fn opens_at(url: &str, page: &str, ttl_ms: u64) -> crate::sim::Config {
        let query = url
            .strip_prefix(page)
            .and_then(|q| q.strip_prefix('?'))
            .unwrap_or_else(|| panic!("the page's address, then a query: {url}"));
        assert!(query.starts_with("cell="), "{url}");
        let (fragment, say) = crate::tools::compare::address::open_cell(query)
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(say.starts_with("Opened the comparison's run of "), "{say}");
        let (run, _) = open_link(&fragment).unwrap_or_else(|e| panic!("{url}: {e}"));
        let config = run.scenario.config;
        assert!(
            [ttl_ms, 12_000, 15_000, 20_000].contains(&config.ttl_ms) || config.ttl_ms == 30_000
        );
        config
    }

    #[test]
    fn the_exports_hold_a_line_per_story_and_system_with_links_that_open_the_runs() {
        use crate::sim::Config;
        let base = Config {
            ttl_ms: 30_000,
            latency_scale: 1,
            network_rtt_ms: 70,
            ..Config::default()
        };
        let page = "https://example.org/distlock/";
        let rows: Vec<Row> = Backend::ALL.iter().map(|&b| row_at(&base, b)).collect();
        // The page's query and fragment are not part of a run's link.
        let page = &page_address(&format!("{page}?view=compare#x"));
        assert_eq!(page, "https://example.org/distlock/");
        let text = csv(&base, &rows, page);
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("# Distributed Lock Simulator comparison at: TTL 30 s, latency real + 70 ms round trip, seed 1, fencing mode as documented")
        );
        assert_eq!(lines.next(), Some(CSV_COLUMNS));
        let width = CSV_COLUMNS.split(',').count();
        let mut count = 0;
        for line in lines {
            let f = fields(line).unwrap_or_else(|| panic!("well formed: {line}"));
            assert_eq!(f.len(), width, "{line}");
            assert_eq!(
                (
                    f[2].as_str(),
                    f[3].as_str(),
                    f[4].as_str(),
                    f[5].as_str(),
                    f[6].as_str()
                ),
                ("30000", "1", "70", "1", "documented")
            );
            assert!(!f[9].is_empty() && !f[12].is_empty(), "{line}");
            for url in [&f[13], &f[14]].into_iter().filter(|u| !u.is_empty()) {
                let config = opens_at(url, page, 30_000);
                assert_eq!((config.latency_scale, config.network_rtt_ms), (1, 70));
            }
            for url in f[15]
                .split(' ')
                .chain(f[16].split(' '))
                .filter(|u| !u.is_empty())
            {
                opens_at(url, page, 30_000);
            }
            count += 1;
        }
        assert_eq!(count, Backend::ALL.len() * COLUMNS.len());
        // The Markdown: the settings, then a row per story and system, each
        // with six cells, every verdict a reference link, and every link's
        // address opening its run.
        let md = markdown(&base, &rows, page);
        assert!(md.starts_with(
            "Distributed Lock Simulator comparison at: TTL 30 s, latency real + 70 ms round trip, seed 1, fencing mode as documented."
        ));
        let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
        let tuned: usize = rows
            .iter()
            .flat_map(|r| &r.cells)
            .map(|cells| labels(cells).len() - 1)
            .sum();
        // Under each row whose verdict several write times gave, a row of
        // links to each time's run.
        let mut times = 0;
        for pair in table.windows(2) {
            if pair[1].contains("write times 1 to 5 |") {
                assert!(pair[0].contains(" write times]["), "{}", pair[0]);
                assert_eq!(pair[1].matches("][").count() % 5, 0, "{}", pair[1]);
                times += 1;
            }
        }
        assert!(times > 0, "{md}");
        assert_eq!(
            table.len(),
            2 + Backend::ALL.len() * COLUMNS.len() + tuned + times
        );
        for line in &table {
            let bars = line
                .replace(r"\\", "")
                .replace(r"\|", "")
                .matches('|')
                .count();
            assert_eq!(bars, 7, "{line}");
        }
        let mut links = 0;
        for line in md.lines().filter(|l| l.starts_with('[')) {
            let (n, url) = line.split_once("]: <").expect("a link's definition");
            let url = url
                .strip_suffix('>')
                .expect("its address in angle brackets");
            assert!(md.contains(&format!("]{n}]")), "{n} is used");
            opens_at(url, page, 30_000);
            links += 1;
        }
        assert!(links >= count, "{links} links");
        assert!(md.contains("\n| Redis | GC pause (A freezes 48 s at 3 s, writes on waking; lease 30 s) |  | [corrupted][1] | [rejected while the master keeps its counter][2] |"), "{md}");
    }

    /// At the page's defaults, and with the visitor's options set on two
    /// systems, the exports paste: no Markdown line longer than 400
    /// characters, the CSV under 100 KB, and every link a short address.
    #[test]
    fn the_default_tables_exports_fit_in_a_document() {
        let mut tuned = crate::sim::Config {
            ttl_ms: 10_000,
            ..crate::sim::Config::default()
        };
        tuned.pg = crate::sim::PgOptions::TUNED;
        tuned.consul.lock_delay_s = 0;
        for base in [crate::sim::Config::default(), tuned] {
            let rows: Vec<Row> = Backend::ALL.iter().map(|&b| row_at(&base, b)).collect();
            let page = "https://example.org/distlock/";
            let md = markdown(&base, &rows, page);
            let longest = md.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(longest <= 400, "{longest}: {md}");
            assert!(!md.contains("#v1."), "{md}");
            let csv = csv(&base, &rows, page);
            assert!(csv.len() <= 100_000, "{} bytes", csv.len());
            assert!(!csv.contains("#v1."));
        }
    }

    #[test]
    fn every_run_of_every_cell_carries_a_link_to_itself() {
        let mut posts = Vec::new();
        run_all(
            &crate::sim::Config::default(),
            "",
            &mut |html, progress, done| posts.push((html, progress, done)),
        );
        assert_eq!(posts.len(), Backend::ALL.len());
        assert!(posts.iter().rev().skip(1).all(|(_, _, done)| !done));
        let (html, progress, done) = posts.last().unwrap();
        assert!(done);
        // The runs made: every side, write time and tuned setting of the
        // cells the model runs, fewer than the button's "up to".
        assert_eq!(progress, "Ran 8 of 8 systems (361 runs).");
        const { assert!(361 < RUNS) };
        // The settings above the table, and the exports only once it is whole.
        assert!(posts.iter().all(|(h, _, _)| h.starts_with(
            r#"<p class="compare__settings"><strong>This table is at:</strong> TTL 5 s, latency 10x real, seed 1, fencing mode as documented. Each system at its real defaults"#
        )));
        assert!(posts
            .iter()
            .all(|(h, _, d)| h.contains("Export the table") == *d));
        assert_eq!(html.matches("<tr data-backend=").count(), 8);
        // Every cell names what it rests on, or why nothing ran.
        let tds = html.matches(r#"<td class="compare__pair">"#).count();
        assert_eq!(tds, 8 * COLUMNS.len());
        assert!(html.matches(r#"class="compare__dep""#).count() >= tds);
        let redis = cell("gc-pause", Backend::Redis, Fencing::Off);
        opens(
            html,
            "Redis, GC pause, fencing off: corrupted.",
            &redis.main,
        );
        // PostgreSQL's dead host: the default run and the tuned one, each its own link.
        let pg = cell("crashed-holder", Backend::Postgres, Fencing::Off);
        let host = "PostgreSQL, Power off (host dies)";
        opens(
            html,
            &format!("{host}, default keepalives: waited 2 h 11 min. Open this run"),
            &pg.main,
        );
        opens(
            html,
            &format!("{host}, tuned keepalives 10/5/3 s: waited"),
            &pg.variants[0].judged,
        );
        // Write times that all gave the cell's verdict are folded under one
        // line; those that disagree stay open.
        let times = html
            .matches(r#"<span class="compare__runs compare__times">off, write times:"#)
            .count();
        let folded = html
            .matches(r#"<details class="compare__alike"><summary>same at all 5 write times</summary><span class="compare__runs compare__times">off, write times:"#)
            .count();
        assert!(0 < folded && folded < times, "{folded} of {times} folded");
        // A clock jump the model cannot make is not modelled, and says why.
        // Once for both sides, with no run to open.
        assert!(
            html.contains(r#"<span class="compare__cell compare__cell--na">not modelled</span>"#)
        );
        // A setting alike with fencing off and on: its words once, a button per side.
        let chubby = cell("partitioned-holder", Backend::Chubby, Fencing::On);
        assert_eq!(chubby.main.outcome, Outcome::Safe);
        assert!(html.contains(
            "<span>lock-delay 60 s: stopped in time</span><span class=\"compare__runs\">"
        ));
        for side in ["off", "on"] {
            let name = format!("Chubby, Partitioned holder, fencing {side}, lock-delay 60 s: stopped in time. Open this run");
            assert!(html.contains(&format!("aria-label=\"{name}\"")), "{name}");
        }
    }
}
