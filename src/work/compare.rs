//! "Compare the systems", run and drawn in the worker: the articles'
//! comparison table, every cell a run of the core. A cell is a button that
//! carries its run as a link, so the page opens it without running it.

use super::escape;
use crate::lesson::compare::{lease_words, row, Cell, Column, Judged, Outcome, Row, COLUMNS, RUNS};
use crate::sim::latency::latency_words;
use crate::sim::{Backend, Config, Fencing};
use crate::wire::link::{self, RunLink};
use std::fmt::Write;

/// Runs the comparison one system at a time, posting the table after each
/// (markup, progress in words, done).
pub(super) fn run_all(post: &mut dyn FnMut(String, String, bool)) {
    let mut rows: Vec<Row> = Vec::with_capacity(Backend::ALL.len());
    for (i, &backend) in Backend::ALL.iter().enumerate() {
        rows.push(row(backend));
        let done = i + 1 == Backend::ALL.len();
        let progress = format!(
            "Ran {} of {} systems ({} runs).",
            i + 1,
            Backend::ALL.len(),
            (i + 1) * RUNS / Backend::ALL.len()
        );
        post(table(&rows), progress, done);
    }
}

fn table(rows: &[Row]) -> String {
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
        row_html(&mut h, r, fastest);
    }
    h.push_str("</tbody></table></div>");
    h.push_str(r#"<p class="panel__note">Corrupted: a stale write was accepted after the lock went to another client. Rejected: fencing refused it. Stopped in time: the old holder learned it had lost the lock before writing, and another client held it. Two holders: the old holder still believed it held the lock while another held it; no write of its fell in that time, so only timing saved the data. Gave up the lock (spurious): the holder stopped believing while nobody else was granted it. Lock kept: nobody else was granted it. Not modelled: the simulator cannot do this to that system, which says nothing about the system. The crash columns say how long B, already asking, waited after A died. Each cell runs the system at its real defaults; where a common tuned setting changes the verdict, its run is beside it. Each row says which lease it ran with; every time in a cell is in the system's own seconds, where the run scaled them (seed 1, latency 10x).</p>"#);
    h
}

fn row_html(h: &mut String, row: &Row, fastest: u64) {
    let backend = row.backend;
    let ratio = (row.acquire_ms + fastest / 2) / fastest;
    // The rows run at the page's default latency; the time says so.
    let latency = latency_words(&Config::default());
    let _ = write!(
        h,
        r#"<tr data-backend="{}"><th scope="row">{}<span class="compare__sub">{}</span><span class="compare__sub">token: {} (monotonic: {})</span><span class="compare__sub">acquire: {} ms at latency {latency}, {ratio}x the fastest</span></th>"#,
        backend.slug(),
        escape(backend.name()),
        escape(lease_words(backend)),
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
fn fragment(played: &crate::lesson::compare::Played) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::compare::{cell, Judged};
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

    #[test]
    fn every_run_of_every_cell_carries_a_link_to_itself() {
        let mut posts = Vec::new();
        run_all(&mut |html, progress, done| posts.push((html, progress, done)));
        assert_eq!(posts.len(), Backend::ALL.len());
        assert!(posts.iter().rev().skip(1).all(|(_, _, done)| !done));
        let (html, progress, done) = posts.last().unwrap();
        assert!(done);
        assert_eq!(progress, &format!("Ran 8 of 8 systems ({RUNS} runs)."));
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
