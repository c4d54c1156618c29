//! "Compare the systems", run and drawn in the worker: the articles'
//! comparison table, every cell a run of the core. A cell is a button that
//! carries its run as a link, so the page opens it without running it.

use crate::markup::escape;
use crate::sim::latency::latency_words;
use crate::sim::{Backend, Config, Fencing};
use crate::tools::compare::{
    lease_words_at, row_at, settings_words, Cell, Column, Judged, Outcome, Row, COLUMNS,
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

/// The runs a row makes, counted as `RUNS` counts them: every side, and
/// each tuned setting that applies to it unless the visitor set the
/// system's options.
fn run_count(base: &Config, backend: Backend) -> usize {
    use crate::tools::compare::{own_options, sides, VARIANTS};
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
        .map(|c| sides(c).len() * (1 + tuned(c)))
        .sum()
}

/// The settings the table is at, in words, above it.
fn settings_html(base: &Config) -> String {
    format!(
        r#"<p class="compare__settings"><strong>This table is at:</strong> {}</p>"#,
        escape(&settings_words(base))
    )
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
            r#"<th scope="col" title="{}">{}<span class="compare__sub">{sub}</span></th>"#,
            escape(c.question),
            escape(c.title)
        );
    }
    h.push_str("</tr></thead><tbody>");
    for r in rows {
        row_html(&mut h, base, r, fastest);
    }
    h.push_str("</tbody></table></div>");
    let _ = write!(
        h,
        r#"<p class="panel__note">Corrupted: a stale write was accepted after the lock went to another client. Rejected: fencing refused it. Stopped in time: the old holder learned it had lost the lock before writing, and another client held it. Two holders: the old holder still believed it held the lock while another held it; no write of its fell in that time, so only timing saved the data. Gave up the lock (spurious): the holder stopped believing while nobody else was granted it. Lock kept: nobody else was granted it. Not modelled: the simulator cannot do this to that system, which says nothing about the system. The crash columns say how long B, already asking, waited after A died. Each cell runs the system at its real defaults; where a common tuned setting changes the verdict, its run is beside it. Each row says which lease it ran with; every time in a cell is in the system's own seconds, where the run scaled them (seed {}, latency {}).</p>"#,
        base.seed.0,
        latency_words(base)
    );
    h
}

fn row_html(h: &mut String, base: &Config, row: &Row, fastest: u64) {
    let backend = row.backend;
    let ratio = (row.acquire_ms + fastest / 2) / fastest;
    // The rows run at the page's latency; the time says which.
    let latency = latency_words(base);
    let _ = write!(
        h,
        r#"<tr data-backend="{}"><th scope="row">{}<span class="compare__sub">{}</span><span class="compare__sub">token: {} (monotonic: {})</span><span class="compare__sub">acquire: {} ms at latency {latency}, {ratio}x the fastest</span></th>"#,
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
            let words = |j: &&Judged| j.outcome.word();
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
        // One line for the pair: what the fenced run rests on (an unfenced
        // run that corrupts rests on nothing checking the token, which the
        // fenced side's line says with it).
        if let Some(cell) = cells.last() {
            note_html(h, cell);
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
    let word = judged.outcome.word();
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
        Outcome::Waited { .. } | Outcome::StillWaiting { .. } | Outcome::TwoHolders { .. } => {
            "compare__cell--wait"
        }
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
    let word = judged.outcome.word();
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

/// A run's link in an export: the page's address and the run's fragment.
fn run_url(page: &str, judged: &Judged) -> String {
    judged
        .run
        .as_ref()
        .map_or(String::new(), |p| format!("{page}#{}", fragment(p)))
}

/// One story on one system, as the exports write it.
struct Line {
    system: &'static str,
    story: &'static str,
    lease: String,
    acquire_ms: u64,
    /// The main run's verdict with fencing off, then on ("" where fencing
    /// plays no part), and their links.
    sides: [(String, String); 2],
    /// Each tuned setting's verdicts ("label: off / on") and links.
    tuned: Vec<(String, Vec<String>)>,
    depends_on: String,
}

fn lines(base: &Config, rows: &[Row], page: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for row in rows {
        for (column, cells) in COLUMNS.iter().zip(&row.cells) {
            let mut sides: [(String, String); 2] = Default::default();
            for (i, cell) in cells.iter().enumerate().take(2) {
                sides[i] = (cell.main.outcome.word(), run_url(page, &cell.main));
            }
            let tuned = labels(cells)
                .into_iter()
                .flatten()
                .filter(|l| {
                    cells
                        .iter()
                        .any(|c| c.variants.iter().any(|v| v.label == *l))
                })
                .map(|label| {
                    let runs: Vec<&Judged> = cells.iter().map(|c| run_of(c, Some(label))).collect();
                    let words: Vec<String> = runs.iter().map(|j| j.outcome.word()).collect();
                    let links = runs.iter().map(|j| run_url(page, j)).collect();
                    (format!("{label}: {}", words.join(" / ")), links)
                })
                .collect();
            let last = cells.last().expect("a column has a side");
            out.push(Line {
                system: row.backend.name(),
                story: column.title,
                lease: lease_words_at(base.ttl_ms, row.backend),
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
pub const CSV_COLUMNS: &str = "system,story,ttl_ms,latency_scale,network_rtt_ms,seed,lease,acquire_ms,fencing_off,fencing_on,tuned,depends_on,run_fencing_off,run_fencing_on,tuned_runs";

/// A CSV field, quoted where it must be.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The comparison as CSV: one line per story and system (fencing_on is
/// empty where fencing plays no part; tuned settings and their runs are
/// separated by " · " and spaces).
pub fn csv(base: &Config, rows: &[Row], page: &str) -> String {
    let mut s = format!("{CSV_COLUMNS}\n");
    for l in lines(base, rows, page) {
        let tuned: Vec<&str> = l.tuned.iter().map(|(w, _)| w.as_str()).collect();
        let tuned_runs: Vec<String> = l.tuned.iter().map(|(_, r)| r.join(" ")).collect();
        let fields = [
            field(l.system),
            field(l.story),
            base.ttl_ms.to_string(),
            base.latency_scale.to_string(),
            base.network_rtt_ms.to_string(),
            base.seed.0.to_string(),
            field(&l.lease),
            l.acquire_ms.to_string(),
            field(&l.sides[0].0),
            field(&l.sides[1].0),
            field(&tuned.join(" · ")),
            field(&l.depends_on),
            field(&l.sides[0].1),
            field(&l.sides[1].1),
            field(&tuned_runs.join(" ")),
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

/// A verdict linked to its run in Markdown, or the word alone.
fn md_link(word: &str, url: &str) -> String {
    if url.is_empty() {
        md(word)
    } else {
        format!(
            "[{}]({})",
            md(word),
            url.replace(' ', "%20")
                .replace('(', "%28")
                .replace(')', "%29")
        )
    }
}

/// The comparison as a Markdown table: the settings in a line above it,
/// then one row per story and system, each verdict a link to its run.
pub fn markdown(base: &Config, rows: &[Row], page: &str) -> String {
    let mut s = format!(
        "Distributed Lock Simulator comparison at: {}\n\n| System | Story | Fencing off | Fencing on | Tuned settings | Depends on |\n|---|---|---|---|---|---|\n",
        md(&settings_words(base))
    );
    for l in lines(base, rows, page) {
        let tuned: Vec<String> = l
            .tuned
            .iter()
            .map(|(w, links)| {
                let runs: Vec<String> = links
                    .iter()
                    .enumerate()
                    .map(|(i, u)| {
                        md_link(
                            if links.len() > 1 {
                                ["off", "on"][i.min(1)]
                            } else {
                                "run"
                            },
                            u,
                        )
                    })
                    .collect();
                format!("{} ({})", md(w), runs.join(", "))
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            md(l.system),
            md(l.story),
            md_link(&l.sides[0].0, &l.sides[0].1),
            md_link(&l.sides[1].0, &l.sides[1].1),
            tuned.join("<br>"),
            md(&l.depends_on)
        );
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

    /// A link in an export opens its run, at the settings the table ran.
    fn opens_at(url: &str, page: &str, ttl_ms: u64) -> crate::sim::Config {
        let fragment = url.strip_prefix(page).expect("the page's address first");
        let (run, _) = open_link(fragment).unwrap_or_else(|e| panic!("{url}: {e}"));
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
        assert_eq!(lines.next(), Some(CSV_COLUMNS));
        let width = CSV_COLUMNS.split(',').count();
        let mut count = 0;
        for line in lines {
            let f = fields(line).unwrap_or_else(|| panic!("well formed: {line}"));
            assert_eq!(f.len(), width, "{line}");
            assert_eq!(
                (f[2].as_str(), f[3].as_str(), f[4].as_str(), f[5].as_str()),
                ("30000", "1", "70", "1")
            );
            assert!(!f[8].is_empty() && !f[11].is_empty(), "{line}");
            for url in [&f[12], &f[13]].into_iter().filter(|u| !u.is_empty()) {
                let config = opens_at(url, page, 30_000);
                assert_eq!((config.latency_scale, config.network_rtt_ms), (1, 70));
            }
            for url in f[14].split(' ').filter(|u| !u.is_empty()) {
                opens_at(url, page, 30_000);
            }
            count += 1;
        }
        assert_eq!(count, Backend::ALL.len() * COLUMNS.len());
        // The Markdown: the settings, then a row per story and system, each
        // with six cells, and every link opening its run.
        let md = markdown(&base, &rows, page);
        assert!(md.starts_with(
            "Distributed Lock Simulator comparison at: TTL 30 s, latency real + 70 ms round trip, seed 1."
        ));
        let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(table.len(), 2 + Backend::ALL.len() * COLUMNS.len());
        for line in &table {
            let bars = line
                .replace(r"\\", "")
                .replace(r"\|", "")
                .matches('|')
                .count();
            assert_eq!(bars, 7, "{line}");
        }
        let mut links = 0;
        for part in md.split("](").skip(1) {
            let url = &part[..part.find(')').unwrap()];
            opens_at(url, page, 30_000);
            links += 1;
        }
        assert!(links >= count, "{links} links");
        assert!(md.contains("\n| Redis | GC pause | [corrupted](https://example.org/distlock/#v1."));
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
        assert_eq!(progress, &format!("Ran 8 of 8 systems ({RUNS} runs)."));
        // The settings above the table, and the exports only once it is whole.
        assert!(posts.iter().all(|(h, _, _)| h.starts_with(
            r#"<p class="compare__settings"><strong>This table is at:</strong> TTL 5 s, latency 10x real, seed 1. Each system at its real defaults"#
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
