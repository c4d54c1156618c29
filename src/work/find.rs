//! "Find the shortest failure", run and drawn in the worker: the finder
//! (`crate::lesson::finder`) searches from the page's run, where its
//! playhead stands, for the fewest moves that break one property. It runs
//! in slices, reporting how far it has come between them, and draws the
//! trace it found (its steps in words and a button that opens it) or the
//! bound within which it found none.

use super::escape;
use crate::lesson::finder::{thousands, Finder, Outcome, Progress, Request, Trace, LEFT_OUT};
use crate::lesson::properties::Property;
use crate::sim::Config;
use crate::wire::link::{self, RunLink};
use std::fmt::Write;

/// States generated between two looks at the clock: a few milliseconds of
/// work, so a report is never late by much.
const SLICE: u64 = 2_048;
/// Wall-clock milliseconds between two progress reports at least.
const REPORT_EVERY_MS: f64 = 150.0;

/// The search the page asks for: from its run (a link's fragment) at the
/// playhead, with the finder's default bounds and moves.
pub(super) fn request(fragment: &str, property: Property) -> Result<Request, String> {
    let run = link::decode(fragment)
        .map_err(|e| format!("The page's run could not be read for the search. {e}"))?;
    let mut request = Request::new(Config::default(), property);
    request.scenario = run.scenario;
    request.from_ms = Some(run.playhead_ms);
    Ok(request)
}

/// Runs the search, posting (markup, progress in words, done): progress
/// while it runs, then the outcome drawn. `clock_ms` only times it.
pub(super) fn run(
    request: &Request,
    clock_ms: &dyn Fn() -> f64,
    post: &mut dyn FnMut(String, String, bool),
) -> Result<(), String> {
    let mut finder = Finder::new(request).map_err(|e| format!("The search cannot start: {e}."))?;
    let started = clock_ms();
    let mut reported = started;
    post(
        String::new(),
        progress_words(&finder.progress(), request.depth_max, 0.0),
        false,
    );
    loop {
        if let Some(outcome) = finder.run(SLICE) {
            let secs = (clock_ms() - started).max(0.0) / 1000.0;
            let html = outcome_html(request, &outcome, &finder.progress(), secs);
            post(html, String::new(), true);
            return Ok(());
        }
        let now = clock_ms();
        if now - reported >= REPORT_EVERY_MS {
            reported = now;
            let secs = (now - started) / 1000.0;
            post(
                String::new(),
                progress_words(&finder.progress(), request.depth_max, secs),
                false,
            );
        }
    }
}

/// "Searching depth 7 of 8: ..." with the speed and the depth finished.
fn progress_words(p: &Progress, depth_max: u32, secs: f64) -> String {
    let depth = p.depth.max(1);
    let speed = match per_second(p.distinct, secs) {
        Some(rate) => format!(", {rate}"),
        None => String::new(),
    };
    let done = match p.depth_done {
        0 => String::new(),
        1 => " Every run of 1 move is searched: none breaks it.".to_string(),
        d => format!(" Every run of up to {d} moves is searched: none breaks it."),
    };
    format!(
        "Searching depth {depth} of {depth_max}: {} distinct states{speed}.{done}",
        thousands(p.distinct)
    )
}

/// "92,000 distinct states per second", once there is time to divide by.
fn per_second(states: u64, secs: f64) -> Option<String> {
    if secs < 0.001 {
        return None;
    }
    let rate = (states as f64 / secs).round() as u64;
    Some(format!("{} distinct states per second", thousands(rate)))
}

/// The outcome as the page shows it.
fn outcome_html(request: &Request, outcome: &Outcome, p: &Progress, secs: f64) -> String {
    let speed = match per_second(p.distinct, secs) {
        Some(rate) => format!(
            "Searched {} distinct states in {} ({rate}).",
            thousands(p.distinct),
            duration_words(secs)
        ),
        None => format!("Searched {} distinct states.", thousands(p.distinct)),
    };
    let mut h = String::from(r#"<div class="finder__result">"#);
    match outcome {
        Outcome::Found(trace) => found_html(&mut h, request, trace),
        bound => {
            let _ = write!(
                h,
                r#"<p class="finder__verdict finder__verdict--bound"><span aria-hidden="true">✓ </span><strong>{}.</strong> Every run of up to {} from the playhead keeps &#8220;{}&#8221;. That is all it shows: a longer run may still break it.</p>"#,
                escape(&capitalized(&bound.to_string())),
                moves_words(bound_depth(bound)),
                escape(request.property.title())
            );
        }
    }
    // A run broken before any move needed no search to say so.
    let searched = !matches!(outcome, Outcome::Found(t) if t.depth == 0);
    if searched {
        let _ = write!(
            h,
            r#"<p class="panel__note finder__speed">{}</p><details class="finder__left-out"><summary>What the search leaves out</summary><p class="panel__note">{}</p></details>"#,
            escape(&speed),
            escape(LEFT_OUT)
        );
    }
    h.push_str("</div>");
    h
}

/// "7.57 s", or "36 ms" under a second.
fn duration_words(secs: f64) -> String {
    if secs < 1.0 {
        format!("{:.0} ms", secs * 1000.0)
    } else {
        format!("{secs:.2} s")
    }
}

fn bound_depth(outcome: &Outcome) -> u32 {
    match outcome {
        Outcome::NoneWithin { depth, .. }
        | Outcome::OutOfStates { depth, .. }
        | Outcome::Cancelled { depth, .. } => *depth,
        Outcome::Found(t) => t.depth,
    }
}

fn moves_words(n: u32) -> String {
    count(n, "move")
}

/// "1 click", "4 clicks".
fn count(n: u32, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}

/// The trace: what broke, its steps, and a button that opens it.
fn found_html(h: &mut String, request: &Request, trace: &Trace) {
    let property = request.property.title();
    let headline = if trace.steps.is_empty() {
        "The run already breaks it, at or before the playhead".to_string()
    } else if trace.depth == 0 {
        "The run breaks it with no move at all: time passing is enough".to_string()
    } else {
        let waits = trace.depth - trace.actions;
        let kinds = match (trace.actions, waits) {
            (clicks, 0) => count(clicks, "click"),
            (0, waits) => count(waits, "wait"),
            (clicks, waits) => format!("{} and {}", count(clicks, "click"), count(waits, "wait")),
        };
        // The run is left alone after the last move while what it set off lands.
        let then = if trace.steps.len() as u32 > trace.depth {
            ", then time passing"
        } else {
            ""
        };
        format!("Broken in {} ({kinds}){then}", count(trace.depth, "move"))
    };
    let _ = write!(
        h,
        r#"<p class="finder__verdict finder__verdict--found"><span aria-hidden="true">✕ </span><strong>{}:</strong> &#8220;{}&#8221; {}.</p>"#,
        escape(&headline),
        escape(property),
        escape(&trace.violation.to_string())
    );
    if !trace.steps.is_empty() {
        h.push_str(r#"<ol class="finder__steps">"#);
        for step in &trace.steps {
            let _ = write!(h, "<li>{}</li>", escape(&step.text));
        }
        h.push_str("</ol>");
    }
    if trace.steps.is_empty() {
        h.push_str(r#"<p class="panel__note">To find a run that breaks it from an earlier moment, move the playhead before the violation (or press Reset) and search again.</p>"#);
    }
    if trace.depth > 1 {
        let _ = write!(
            h,
            r#"<p class="panel__note">Every run of up to {} was tried first: none breaks it.</p>"#,
            moves_words(trace.depth - 1)
        );
    }
    let Ok(whole) = trace.replay() else {
        h.push_str(r#"<p class="panel__note">This run could not be replayed to open it.</p>"#);
        return;
    };
    let fragment = link::encode(&RunLink::of(&whole, trace.violation.at));
    let say = if trace.depth == 0 {
        format!(
            "Opened the run at the moment it breaks \u{201c}{property}\u{201d}, t={}.",
            trace.violation.at
        )
    } else {
        format!(
            "Opened the shortest run found that breaks \u{201c}{property}\u{201d} ({}), with the playhead on the violation at t={}. The timeline shows it in red; Step back or move the playhead to watch it happen.",
            moves_words(trace.depth),
            trace.violation.at
        )
    };
    let _ = write!(
        h,
        r#"<p class="finder__open"><button type="button" class="button button--primary" data-open="{fragment}" data-say="{}">Open this run</button> <span class="panel__note">in the cards, the timeline and the log, at the violation</span></p>"#,
        escape(&say)
    );
}

fn capitalized(sentence: &str) -> String {
    let mut chars = sentence.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::properties::Properties;
    use crate::sim::{Backend, Fencing, Millis, Sim};
    use crate::work::{serve, Reply};

    /// A fresh run's link, with the page's defaults on `backend`.
    fn fresh(backend: Backend, fencing: Fencing) -> String {
        let config = Config {
            backend,
            fencing,
            ..Config::default()
        };
        let sim = Sim::new(config).expect("the defaults are valid");
        link::encode(&RunLink::of(&sim, Millis(0)))
    }

    fn posts(request: &Request) -> Vec<(String, String, bool)> {
        let mut out = Vec::new();
        let clock = std::cell::Cell::new(0.0);
        let clock_ms = || {
            // A clock that moves 100 ms a look, so the search reports as it goes.
            let now = clock.get();
            clock.set(now + 100.0);
            now
        };
        run(request, &clock_ms, &mut |html, progress, done| {
            out.push((html, progress, done))
        })
        .expect("the search starts");
        out
    }

    /// The `data-open` fragment of the first run button in `html`.
    fn opened(html: &str) -> String {
        let start = html.find(r#"data-open=""#).expect("a run button") + r#"data-open=""#.len();
        html[start..start + html[start..].find('"').unwrap()].to_string()
    }

    #[test]
    fn a_stale_write_is_found_told_step_by_step_and_opens_at_the_violation() {
        let request = request(&fresh(Backend::Etcd, Fencing::Off), Property::NoStaleWrite).unwrap();
        let out = posts(&request);
        let (html, progress, done) = out.last().unwrap();
        assert!(*done && progress.is_empty());
        assert!(out[0]
            .1
            .starts_with("Searching depth 1 of 8: 0 distinct states."));
        assert!(out.iter().rev().skip(1).all(|(_, _, done)| !done));
        assert!(html.contains("<strong>Broken in 5 moves (4 clicks and 1 wait), then time passing:</strong> &#8220;no stale write accepted&#8221; violated at t="), "{html}");
        assert!(html.contains("Every run of up to 4 moves was tried first: none breaks it."));
        // Five moves, and the wait after the last in which the write lands.
        assert_eq!(html.matches("<li>").count(), 6, "{html}");
        assert!(
            html.contains("<li>A asks for the lock (t=0.000 s)</li>"),
            "{html}"
        );
        assert!(html.contains(r#"data-say="Opened the shortest run found that breaks"#));
        assert!(html.contains("distinct states per second"));
        let (run, whole) = link::open_link(&opened(html)).expect("the button's link opens");
        let violation = Properties::of(&whole)
            .violation(Property::NoStaleWrite)
            .cloned()
            .expect("the opened run breaks the property");
        assert_eq!(run.playhead_ms, violation.at.ms());
        assert_eq!(run.end_ms, violation.at.ms());
    }

    #[test]
    fn none_found_is_worded_as_a_bound() {
        let mut request = request(
            &fresh(Backend::Etcd, Fencing::On),
            Property::TokensNeverDecrease,
        )
        .unwrap();
        request.depth_max = 3;
        let out = posts(&request);
        let (html, _, done) = out.last().unwrap();
        assert!(*done);
        assert!(!html.contains("data-open"));
        assert!(
            html.contains("<strong>No violation within depth 3 ("),
            "{html}"
        );
        assert!(html.contains("Every run of up to 3 moves from the playhead keeps &#8220;tokens accepted at the resource never decrease&#8221;. That is all it shows: a longer run may still break it."), "{html}");
        assert!(html.contains("What the search leaves out"));
    }

    #[test]
    fn a_run_already_broken_at_the_playhead_is_said_so() {
        let scenario = crate::lesson::presets::scenario("gc-pause", Backend::Etcd, Fencing::Off)
            .expect("the story is told on etcd");
        let whole = Sim::replay(&scenario, Millis(12_000)).unwrap();
        assert!(Properties::of(&whole)
            .violation(Property::NoStaleWrite)
            .is_some());
        let fragment = link::encode(&RunLink::of(&whole, Millis(12_000)));
        let out = posts(&request(&fragment, Property::NoStaleWrite).unwrap());
        let (html, _, _) = out.last().unwrap();
        assert!(
            html.contains("The run already breaks it, at or before the playhead"),
            "{html}"
        );
        assert!(html.contains("move the playhead before the violation"));
        assert!(!html.contains("Searched"), "no search was needed: {html}");
        assert!(html.contains("data-say=\"Opened the run at the moment it breaks"));
        assert!(html.contains("data-open"));
    }

    #[test]
    fn the_page_asks_through_serve_and_hears_why_a_run_cannot_be_read() {
        let ask = |job: &str| {
            let mut replies = Vec::new();
            serve(
                &format!(r#"{{"v":1,"id":7,"job":{job}}}"#),
                &|| 0.0,
                &mut |text| replies.push(Reply::read(&text).unwrap()),
            );
            replies
        };
        let fragment = fresh(Backend::Redis, Fencing::Off);
        let replies = ask(&format!(
            r#"{{"find":{{"run":"{fragment}","property":"two-holders"}}}}"#
        ));
        let last = replies.last().unwrap();
        assert!(last.done && last.error.is_none() && last.id == 7);
        assert!(last
            .html
            .contains("at most one client believes it holds the lock"));
        let bad = ask(r#"{"find":{"run":"v1.nonsense!","property":"stale-write"}}"#);
        assert_eq!(bad.len(), 1);
        let why = bad[0].error.as_deref().unwrap();
        assert!(
            why.starts_with(
                "The page's run could not be read for the search. This link is damaged"
            ),
            "{why}"
        );
        let unknown = ask(&format!(
            r#"{{"find":{{"run":"{fragment}","property":"liveness"}}}}"#
        ));
        assert!(unknown[0]
            .error
            .as_deref()
            .unwrap()
            .contains("could not read the request"));
    }
}
