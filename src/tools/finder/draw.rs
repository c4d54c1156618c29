//! "Find the shortest failure", run and drawn in the worker: the finder
//! (`crate::tools::finder`) searches from the page's run, where its
//! playhead stands, for the fewest moves that break one property, and
//! this draws, beside the question's form (`form.rs`), the search's
//! progress and the trace it found (its steps in words and a button that
//! opens it) or the bound within which it found none.

use super::form::{failure_words, form, form_running, framed, FAULTS, FIELDS};
use super::{request_pauses_ms, Finder, MoveKind, Outcome, Progress, Request, Trace, LEFT_OUT};
use crate::markup::escape;
use crate::tools::query_pairs;
use crate::wire::link::{self, RunLink};
use crate::words::{capitalize, elapsed, thousands};
use std::fmt::Write;
/// States generated between two looks at the clock: a few milliseconds of
/// work, so a report is never late by much.
const SLICE: u64 = 2_048;
/// Wall-clock milliseconds between two progress reports at least.
const REPORT_EVERY_MS: f64 = 150.0;

/// Runs the search for the question `query` asks, posting (markup,
/// progress in words, done): the form with nothing beside it while it
/// runs, then with the outcome drawn. `clock_ms` only times it.
pub fn run(
    request: &Request,
    query: &str,
    clock_ms: &dyn Fn() -> f64,
    post: &mut dyn FnMut(String, String, bool),
) -> Result<(), String> {
    let mut finder = Finder::new(request).map_err(|e| format!("The search cannot start: {e}."))?;
    let (form, running) = (form(query), form_running(query));
    let started = clock_ms();
    let mut reported = started;
    post(
        framed(&running, ""),
        progress_words(&finder.progress(), request.depth_max, 0.0),
        false,
    );
    loop {
        if let Some(outcome) = finder.run(SLICE) {
            let secs = (clock_ms() - started).max(0.0) / 1000.0;
            let html = outcome_html(request, query, &outcome, &finder.progress(), secs);
            post(framed(&form, &html), String::new(), true);
            return Ok(());
        }
        let now = clock_ms();
        if now - reported >= REPORT_EVERY_MS {
            reported = now;
            let secs = (now - started) / 1000.0;
            post(
                framed(&running, ""),
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

/// The settings the search ran at, the answer's first line: the system,
/// its TTL, latency, fencing and its mode, the seed, and the bounds.
fn settings_html(request: &Request) -> String {
    let c = &request.scenario.config;
    let fencing = if c.fencing.is_on() {
        format!("fencing on ({})", c.backend.fence_mode_in(c).label())
    } else {
        "fencing off".to_string()
    };
    format!(
        r#"<p class="panel__note finder__settings"><strong>Settings:</strong> {}, TTL {}, latency {}, {}, seed {}; bounds: up to {}, {} distinct states per depth, {} clients at most.</p>"#,
        escape(c.backend.name()),
        seconds_words(c.ttl_ms),
        escape(&crate::sim::latency::latency_words(c)),
        escape(&fencing),
        c.seed.0,
        moves_words(request.depth_max),
        thousands(request.states_max),
        request.clients_max
    )
}

/// The question in words: the failure, the depth, the pauses tried and
/// the faults allowed.
fn question_html(request: &Request) -> String {
    let allowed = |k: MoveKind| request.moves.contains(&k);
    let faults: Vec<&str> = FAULTS
        .iter()
        .filter(|f| {
            allowed(f.0)
                || (allowed(MoveKind::Crash) && matches!(f.0, MoveKind::Exit | MoveKind::PowerOff))
        })
        .map(|f| f.1)
        .collect();
    let pauses = match (allowed(MoveKind::Pause), request.pause_max_ms) {
        (false, _) => "No pauses.".to_string(),
        (true, bound) => {
            let tried: Vec<String> = request_pauses_ms(request)
                .into_iter()
                .map(seconds_words)
                .collect();
            let bound = match bound {
                Some(ms) => format!("pauses never exceed {}", seconds_words(ms)),
                None => "no bound given".to_string(),
            };
            format!(
                "Pauses tried: {} ({bound}; half, one and a half and three times the time a silent holder keeps the lock, each cut to the bound).",
                tried.join(", ")
            )
        }
    };
    let faults = match faults.is_empty() {
        true => "none".to_string(),
        false => faults.join(", "),
    };
    let bug = match request.early_release {
        true => "allowed",
        false => "left out",
    };
    format!(
        r#"<p class="panel__note finder__asked"><strong>Question:</strong> from the playhead, can a run of up to {} give &#8220;{}&#8221;? {} Faults: {}. A client releasing before its write is acknowledged: {bug}.</p>"#,
        moves_words(request.depth_max),
        escape(failure_words(request.property)),
        escape(&pauses),
        escape(&faults)
    )
}

/// 20000 as "20 s", 7500 as "7.5 s": a bound as the visitor typed it.
fn seconds_words(ms: u64) -> String {
    let (whole, part) = (ms / 1000, ms % 1000);
    match part {
        0 => format!("{whole} s"),
        p => format!("{whole}.{}", format!("{p:03}").trim_end_matches('0')) + " s",
    }
}

/// " with pauses up to 20 s", " with no pauses", or nothing.
fn pause_clause(request: &Request) -> String {
    match (
        request.moves.contains(&MoveKind::Pause),
        request.pause_max_ms,
    ) {
        (false, _) => " with no pauses".into(),
        (true, Some(ms)) => format!(" with pauses up to {}", seconds_words(ms)),
        (true, None) => String::new(),
    }
}

/// A search that found nothing, worded as its bound: everything up to a
/// depth searched, or stopped at the state limit, or cancelled.
fn bound_html(request: &Request, outcome: &Outcome) -> String {
    let failure = failure_words(request.property);
    let depth = bound_depth(outcome);
    let within = format!(
        "No failure within {}{}",
        moves_words(depth),
        pause_clause(request)
    );
    let how = match outcome {
        Outcome::NoneWithin { states, .. } => format!(
            "Searched everything up to depth {depth} ({} distinct states at the last depth). That is all it shows: a longer run may still break it.",
            thousands(*states)
        ),
        Outcome::OutOfStates { .. } => format!(
            "Stopped at the state limit: depth {} reached {} distinct states before it was searched through, so only runs of up to {} are covered. Raise the state limit, or allow fewer faults, to search deeper.",
            depth + 1,
            thousands(request.states_max),
            moves_words(depth)
        ),
        _ => format!(
            "Cancelled during depth {}: only runs of up to {} are covered.",
            depth + 1,
            moves_words(depth)
        ),
    };
    format!(
        r#"<p class="finder__verdict finder__verdict--bound"><span aria-hidden="true">✓ </span><strong>{}.</strong> No run gives &#8220;{}&#8221;. {}</p>"#,
        escape(&within),
        escape(failure),
        escape(&how)
    )
}

/// The outcome as the page shows it.
fn outcome_html(
    request: &Request,
    query: &str,
    outcome: &Outcome,
    p: &Progress,
    secs: f64,
) -> String {
    let speed = match per_second(p.distinct, secs) {
        Some(rate) => format!(
            "Searched {} distinct states in {} ({rate}).",
            thousands(p.distinct),
            elapsed(secs)
        ),
        None => format!("Searched {} distinct states.", thousands(p.distinct)),
    };
    let mut h = String::from(r#"<div class="finder__result">"#);
    h.push_str(&settings_html(request));
    h.push_str(&question_html(request));
    match outcome {
        Outcome::Found(trace) => found_html(&mut h, request, query, trace),
        bound => h.push_str(&bound_html(request, bound)),
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
fn found_html(h: &mut String, request: &Request, query: &str, trace: &Trace) {
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
        r#"<p class="finder__verdict finder__verdict--found"><span aria-hidden="true">✕ </span><strong>{}. {}:</strong> &#8220;{}&#8221; {}.</p>"#,
        escape(&capitalize(failure_words(request.property))),
        escape(&headline),
        escape(property),
        escape(&trace.violation.to_string())
    );
    if let Some(words) = trace.client_bug() {
        client_bug_html(h, query, &words);
    }
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

/// The label of a trace that needs a client bug, and a button that asks
/// the same question without such runs (a form of the question's fields
/// as hidden inputs, the allowance left out).
fn client_bug_html(h: &mut String, query: &str, words: &str) {
    let _ = write!(
        h,
        r#"<div class="finder__bug" role="note"><p><span aria-hidden="true">⚠ </span><strong>{}</strong></p><form class="finder__again">"#,
        escape(words)
    );
    for (key, value) in query_pairs(query) {
        if FIELDS.contains(&key.as_str()) && key != "early_release" {
            let _ = write!(
                h,
                r#"<input type="hidden" name="{}" value="{}">"#,
                escape(&key),
                escape(&value)
            );
        }
    }
    h.push_str(r#"<input type="hidden" name="early_release" value="0"><button type="submit" class="button">Search again without such runs</button></form></div>"#);
}

#[cfg(test)]
mod tests {
    use super::super::form::{form_body, question, request, seconds_ms, Question};
    use super::*;
    use crate::lesson::properties::{Properties, Property};
    use crate::markup::PART_BREAK;
    use crate::sim::{Backend, Config, Fencing, Millis, Sim};

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

    fn posts(request: &Request, query: &str) -> Vec<(String, String, bool)> {
        let mut out = Vec::new();
        let clock = std::cell::Cell::new(0.0);
        let clock_ms = || {
            // A clock that moves 100 ms a look, so the search reports as it goes.
            let now = clock.get();
            clock.set(now + 100.0);
            now
        };
        run(request, query, &clock_ms, &mut |html, progress, done| {
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
        let query = "";
        let request = request(&fresh(Backend::Etcd, Fencing::Off), query).unwrap();
        let out = posts(&request, query);
        let (html, progress, done) = out.last().unwrap();
        assert!(*done && progress.is_empty());
        assert!(out[0]
            .1
            .starts_with("Searching depth 1 of 8: 0 distinct states."));
        assert!(out.iter().rev().skip(1).all(|(_, _, done)| !done));
        // The form stays as a part of its own in every drawing.
        let form = form(query);
        assert!(html.starts_with(&format!("{form}{PART_BREAK}")));
        let running = form_running(query);
        assert!(out[..out.len() - 1]
            .iter()
            .all(|(h, _, _)| h == &format!("{running}{PART_BREAK}")));
        assert!(running.contains(r#"<fieldset class="finder__all" disabled>"#));
        assert!(
            html.contains("<strong>A stale write accepted. Broken in "),
            "{html}"
        );
        assert!(
            html.contains("&#8220;no stale write accepted&#8221; violated at t="),
            "{html}"
        );
        assert!(html.contains(" was tried first: none breaks it."));
        assert!(
            html.contains("<li>A asks for the lock (t=0.000 s)</li>"),
            "{html}"
        );
        assert!(html.contains("A client releasing before its write is acknowledged: left out."));
        assert!(!html.contains("client bug, not the lock"), "{html}");
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
    fn none_found_is_worded_as_a_bound_with_the_pauses_tried() {
        let query = "property=token-order&pause_max_s=2&depth=3&fault=pause";
        let request = request(&fresh(Backend::Etcd, Fencing::On), query).unwrap();
        assert_eq!(request.pause_max_ms, Some(2_000));
        let out = posts(&request, query);
        let (html, _, done) = out.last().unwrap();
        assert!(*done);
        assert!(!html.contains("data-open"));
        assert!(
            html.contains("<strong>No failure within 3 moves with pauses up to 2 s.</strong> No run gives &#8220;tokens out of order at the resource&#8221;. Searched everything up to depth 3 ("),
            "{html}"
        );
        // etcd's lease is 5 s: 2.5, 7.5 and 15 s, each cut to 2 s.
        assert!(
            html.contains("Pauses tried: 2 s (pauses never exceed 2 s;"),
            "{html}"
        );
        assert!(html.contains("Faults: GC pauses."), "{html}");
        assert!(html.contains("What the search leaves out"));
        // The form shows the question as asked.
        assert!(html.contains(r#"name="pause_max_s" value="2""#), "{html}");
        assert!(html.contains(r#"value="pause" checked"#));
        assert!(html.contains(r#"value="partition">"#));
    }

    #[test]
    fn a_search_stopped_by_the_state_limit_says_so() {
        let query = "property=token-order&states=50&depth=6&fault=pause";
        let request = request(&fresh(Backend::Etcd, Fencing::On), query).unwrap();
        let (html, _, _) = posts(&request, query).pop().unwrap();
        assert!(
            html.contains("Stopped at the state limit: depth "),
            "{html}"
        );
        assert!(
            html.contains("reached 50 distinct states before it was searched through"),
            "{html}"
        );
        assert!(!html.contains("Searched everything"), "{html}");
    }

    #[test]
    fn fields_that_cannot_be_read_are_named_with_their_text_as_typed() {
        let query =
            "property=liveness&pause_max_s=twenty&depth=99&states=&fault=meteor&fault=pause";
        let why = question(query).unwrap_err();
        let lines: Vec<&str> = why.lines().collect();
        assert_eq!(
            lines,
            [
                "Failure to find: \u{201c}liveness\u{201d} is none of the failures listed.",
                "Pauses never exceed: \u{201c}twenty\u{201d} is not a number of seconds from 0.001 to 600.",
                "Moves at most: \u{201c}99\u{201d} is not a whole number from 1 to 16.",
                "State limit: \u{201c}\u{201d} is not a whole number from 1 to 50,000,000.",
                "Faults: \u{201c}meteor\u{201d} is none of the faults listed.",
            ]
        );
        let drawn = form_body(query);
        assert!(
            drawn.contains(r#"name="pause_max_s" value="twenty""#),
            "{drawn}"
        );
        assert!(drawn.contains(r#"<option value="liveness" selected>liveness (unknown)</option>"#));
        assert!(drawn.contains("Nothing was searched"));
        assert!(request(&fresh(Backend::Etcd, Fencing::Off), query).is_err());
        // Seconds as people type them.
        assert_eq!(seconds_ms("20"), Some(20_000));
        assert_eq!(seconds_ms("0.5 s"), Some(500));
        assert_eq!(seconds_ms("1.2345"), None);
        assert_eq!(seconds_ms("-1"), None);
        assert_eq!(question("pause_max_s=").unwrap().pause_max_ms, None);
        // A form sent with no fault ticked allows none; an empty query asks the default.
        assert!(question("property=stale-write").unwrap().faults.is_empty());
        assert_eq!(question("find").unwrap(), Question::default());
    }

    #[test]
    fn a_trace_that_needs_an_early_release_is_labelled_and_can_be_asked_again_without() {
        let query = "property=stale-write&fault=pause&depth=6&early_release=1";
        let request = request(&fresh(Backend::Redlock, Fencing::On), query).unwrap();
        assert!(request.early_release);
        let (html, _, _) = posts(&request, query).pop().unwrap();
        assert!(
            html.contains("This run needs A to release the lock before its write was acknowledged: a client bug, not the lock&#39;s."),
            "{html}"
        );
        assert!(html.contains("A client releasing before its write is acknowledged: allowed."));
        let again = html
            .split(r#"<form class="finder__again">"#)
            .nth(1)
            .expect("a form to ask again");
        assert!(again.contains(r#"<input type="hidden" name="property" value="stale-write">"#));
        assert!(again.contains(r#"<input type="hidden" name="early_release" value="0">"#));
        assert!(!again.contains(r#"name="early_release" value="1""#));
        assert!(
            !question("property=stale-write&fault=pause&early_release=0")
                .unwrap()
                .early_release
        );
    }

    #[test]
    fn a_run_already_broken_at_the_playhead_is_said_so() {
        let scenario = crate::lesson::presets::GC_PAUSE
            .scenario(Backend::Etcd, Fencing::Off)
            .expect("the story is told on etcd");
        let whole = Sim::replay(&scenario, Millis(12_000)).unwrap();
        assert!(Properties::of(&whole)
            .violation(Property::NoStaleWrite)
            .is_some());
        let fragment = link::encode(&RunLink::of(&whole, Millis(12_000)));
        let out = posts(&request(&fragment, "").unwrap(), "");
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
}
