//! "Compare the systems", run and drawn in the worker: the articles'
//! comparison table, every cell a run of the core. A cell is a button that
//! carries its run as a link, so the page opens it without running it.

use super::escape;
use crate::lesson::compare::{row, run, Cell, Outcome, Row, COLUMNS};
use crate::sim::{Backend, Fencing, Millis};
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
            (i + 1) * COLUMNS.len() * 2
        );
        post(table(&rows), progress, done);
    }
}

fn table(rows: &[Row]) -> String {
    let fastest = rows.iter().map(|r| r.acquire_ms).min().unwrap_or(1).max(1);
    let mut h = String::from(
        r#"<div class="table-wrap compare__wrap"><table class="compare__table"><caption class="visually-hidden">Each lock system under each story: what happened with fencing off, then on</caption><thead><tr><th scope="col">System</th><th scope="col">Token</th><th scope="col" title="The system promises tokens that only grow; the property tests assert it, failovers included">Monotonic</th><th scope="col" title="A's acquisition in the GC pause run, click to grant, at the default latency">Acquire</th>"#,
    );
    for c in COLUMNS {
        let _ = write!(
            h,
            r#"<th scope="col" title="{}">{}<span class="compare__sub">fencing off, on</span></th>"#,
            escape(c.question),
            escape(c.title)
        );
    }
    h.push_str("</tr></thead><tbody>");
    for r in rows {
        row_html(&mut h, r, fastest);
    }
    h.push_str("</tbody></table></div>");
    h.push_str(r#"<p class="panel__note">Corrupted: a stale write was accepted after the lock went to another client. Rejected: fencing refused it. Stopped in time: the old holder learned it had lost the lock before writing. Lock kept: nobody else was granted it. A crashed holder's cell says how long B waited. The runs use seed 1 and the page's defaults (TTL 5 s); each system's own numbers are scaled to that TTL.</p>"#);
    h
}

fn row_html(h: &mut String, row: &Row, fastest: u64) {
    let backend = row.backend;
    let ratio = (row.acquire_ms + fastest / 2) / fastest;
    let _ = write!(
        h,
        r#"<tr data-backend="{}"><th scope="row">{}</th><td class="compare__token">{}</td><td>{}</td><td>{} ms ({ratio}x)</td>"#,
        backend.slug(),
        escape(backend.name()),
        escape(backend.token_short()),
        if backend.monotonic_tokens() {
            "yes"
        } else {
            "no"
        },
        row.acquire_ms
    );
    for (column, [off, on]) in COLUMNS.iter().zip(&row.cells) {
        h.push_str(r#"<td class="compare__pair">"#);
        cell_html(h, backend, column.id, column.title, Fencing::Off, off);
        cell_html(h, backend, column.id, column.title, Fencing::On, on);
        h.push_str("</td>");
    }
    h.push_str("</tr>");
}

fn outcome_class(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Corrupted => "compare__cell--corrupted",
        Outcome::Rejected => "compare__cell--rejected",
        Outcome::Safe | Outcome::NeverLost | Outcome::NotAffected => "compare__cell--safe",
        Outcome::Waited { .. } | Outcome::StillWaiting { .. } => "compare__cell--wait",
        Outcome::NotApplicable(_) => "compare__cell--na",
    }
}

fn cell_html(
    h: &mut String,
    backend: Backend,
    column: &str,
    title: &str,
    fencing: Fencing,
    cell: &Cell,
) {
    let side = if fencing.is_on() { "on" } else { "off" };
    let word = cell.outcome.word();
    let class = outcome_class(&cell.outcome);
    let opened = match &cell.outcome {
        Outcome::NotApplicable(_) => None,
        _ => run(column, backend, fencing).ok(),
    };
    let Some(whole) = opened else {
        let why = match &cell.outcome {
            Outcome::NotApplicable(why) => why.as_str(),
            _ => cell.why.as_str(),
        };
        let _ = write!(
            h,
            r#"<span class="compare__cell {class}" title="{}"><span class="compare__side">{side}</span>{}</span>"#,
            escape(why),
            escape(&word)
        );
        return;
    };
    let fragment = link::encode(&RunLink::of(&whole, Millis(0)));
    let say = format!(
        "Opened the comparison's run of {title} on {}, fencing {side} ({word}). Start plays it; the timeline shows all of it.",
        backend.name()
    );
    let label = format!(
        "{}, {title}, fencing {side}: {word}. Open this run",
        backend.name()
    );
    let _ = write!(
        h,
        r#"<button type="button" class="compare__cell {class}" title="{}" aria-label="{}" data-open="{fragment}" data-say="{}"><span class="compare__side" aria-hidden="true">{side}</span>{}</button>"#,
        escape(&cell.why),
        escape(&label),
        escape(&say),
        escape(&word)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::link::open_link;

    #[test]
    fn every_cell_that_ran_carries_a_link_to_its_own_run() {
        let mut posts = Vec::new();
        run_all(&mut |html, progress, done| posts.push((html, progress, done)));
        assert_eq!(posts.len(), Backend::ALL.len());
        assert!(posts.iter().rev().skip(1).all(|(_, _, done)| !done));
        let (html, progress, done) = posts.last().unwrap();
        assert!(done);
        assert_eq!(progress, "Ran 8 of 8 systems (96 runs).");
        assert_eq!(html.matches("<tr data-backend=").count(), 8);
        let buttons = html.matches("data-open=").count();
        let spans = html.matches(r#"<span class="compare__cell"#).count();
        assert_eq!(buttons + spans, 96);
        // The first button's link opens the GC pause run of Redis, fencing off.
        let start = html.find(r#"data-open=""#).unwrap() + r#"data-open=""#.len();
        let fragment = &html[start..start + html[start..].find('"').unwrap()];
        let (opened, whole) = open_link(fragment).expect("the cell's link opens");
        assert_eq!(opened.playhead_ms, 0);
        assert_eq!(whole.config().backend, Backend::Redis);
        let direct = run("gc-pause", Backend::Redis, Fencing::Off).unwrap();
        assert_eq!(whole.history(), direct.history());
    }
}
