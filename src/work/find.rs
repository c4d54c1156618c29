//! "Find the shortest failure", run and drawn in the worker: the finder
//! (`crate::lesson::finder`) searches from the page's run, where its
//! playhead stands, for the fewest moves that break one property. The
//! worker draws the question's form (the property, the longest pause, the
//! faults a run may use, how deep and how many states) and, beside it, the
//! search's progress and the trace it found (its steps in words and a
//! button that opens it) or the bound within which it found none. The page
//! reads the form's fields as a query string, keeps them in its address
//! (`?find&property=...`) and sends them back with its run.

use super::{escape, PART_BREAK};
use crate::lesson::finder::{
    request_pauses_ms, Finder, MoveKind, Outcome, Progress, Request, Trace, DEPTH_DEFAULT,
    DEPTH_LIMIT, LEFT_OUT, STATES_DEFAULT, STATES_LIMIT,
};
use crate::lesson::properties::Property;
use crate::sim::{Config, PAUSE_MS_MAX};
use crate::wire::link::{self, RunLink};
use crate::words::{capitalize, elapsed, thousands};
use std::fmt::Write;

/// States generated between two looks at the clock: a few milliseconds of
/// work, so a report is never late by much.
const SLICE: u64 = 2_048;
/// Wall-clock milliseconds between two progress reports at least.
const REPORT_EVERY_MS: f64 = 150.0;

/// The faults a question may allow: the form's checkboxes, by the names
/// the core's commands go by, and whether each is allowed unless the
/// visitor says otherwise.
const FAULTS: [(MoveKind, &str, bool); 9] = [
    (MoveKind::Pause, "GC pauses", true),
    (MoveKind::Exit, "process exit (and restart)", true),
    (
        MoveKind::PowerOff,
        "host death: power off (and restart)",
        true,
    ),
    (
        MoveKind::Partition,
        "partition from the lock service (and heal)",
        true,
    ),
    (MoveKind::ClockJump, "client clock jump", true),
    (
        MoveKind::NodeCrash,
        "Redis or Redlock node restart (crash, restart)",
        true,
    ),
    (
        MoveKind::NodeClockJump,
        "Redis or Redlock node clock jump",
        true,
    ),
    (MoveKind::Failover, "leader or primary failover", true),
    (
        MoveKind::DelayedWrite,
        "a write delayed in the network",
        false,
    ),
];

/// A failure in plain words, as a question names it.
fn failure_words(p: Property) -> &'static str {
    match p {
        Property::NoStaleWrite => "a stale write accepted",
        Property::OneBeliever => "two clients believe they hold the lock",
        Property::TokensNeverDecrease => "tokens out of order at the resource",
        Property::NoForeignRelease => "a release deletes another client's lock",
        Property::NoWriteWithoutLease => "a write reaches the resource without a lease",
    }
}

/// The question the form asks, as its fields read; the defaults where
/// the query says nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Question {
    pub property: Property,
    pub pause_max_ms: Option<u64>,
    pub faults: Vec<MoveKind>,
    pub depth: u32,
    pub states: u64,
    pub early_release: bool,
}

impl Default for Question {
    fn default() -> Question {
        Question {
            property: Property::NoStaleWrite,
            pause_max_ms: None,
            faults: FAULTS.iter().filter(|f| f.2).map(|f| f.0).collect(),
            depth: DEPTH_DEFAULT,
            states: STATES_DEFAULT,
            early_release: false,
        }
    }
}

/// The form's field names: a query with none of them asks the default question.
const FIELDS: [&str; 6] = [
    "property",
    "pause_max_s",
    "fault",
    "depth",
    "states",
    "early_release",
];

/// Reads a question from a query string; every field that cannot be read
/// is named with its text as typed, one line each.
pub(super) fn question(query: &str) -> Result<Question, String> {
    let pairs = super::query_pairs(query);
    let mut q = Question::default();
    if !pairs.iter().any(|(k, _)| FIELDS.contains(&k.as_str())) {
        return Ok(q);
    }
    // A form sent with no box ticked allows no fault.
    q.faults.clear();
    let mut bad = Vec::new();
    for (key, value) in &pairs {
        let text = value.trim();
        match key.as_str() {
            "property" => match Property::from_slug(text) {
                Some(p) => q.property = p,
                None => bad.push(format!("Failure to find: \u{201c}{value}\u{201d} is none of the failures listed.")),
            },
            "pause_max_s" if text.is_empty() => q.pause_max_ms = None,
            "pause_max_s" => match seconds_ms(text).filter(|ms| (1..=PAUSE_MS_MAX).contains(ms)) {
                Some(ms) => q.pause_max_ms = Some(ms),
                None => bad.push(format!(
                    "Pauses never exceed: \u{201c}{value}\u{201d} is not a number of seconds from 0.001 to {}.",
                    PAUSE_MS_MAX / 1000
                )),
            },
            "fault" => match FAULTS.iter().find(|f| f.0.slug() == text) {
                Some(f) if !q.faults.contains(&f.0) => q.faults.push(f.0),
                Some(_) => {}
                None => bad.push(format!("Faults: \u{201c}{value}\u{201d} is none of the faults listed.")),
            },
            "depth" => match text.parse().ok().filter(|d| (1..=DEPTH_LIMIT).contains(d)) {
                Some(d) => q.depth = d,
                None => bad.push(format!(
                    "Moves at most: \u{201c}{value}\u{201d} is not a whole number from 1 to {DEPTH_LIMIT}."
                )),
            },
            "states" => match text.replace(',', "").parse().ok().filter(|n| (1..=STATES_LIMIT).contains(n)) {
                Some(n) => q.states = n,
                None => bad.push(format!(
                    "State limit: \u{201c}{value}\u{201d} is not a whole number from 1 to {}.",
                    thousands(STATES_LIMIT)
                )),
            },
            "early_release" => q.early_release = !matches!(text, "" | "0" | "off"),
            _ => {}
        }
    }
    match bad.is_empty() {
        true => Ok(q),
        false => Err(bad.join("\n")),
    }
}

/// "20", "0.5" or "20 s" as milliseconds, with at most three decimals and
/// no floats.
fn seconds_ms(text: &str) -> Option<u64> {
    let text = text.strip_suffix('s').unwrap_or(text).trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty())
        || fraction.len() > 3
        || !digits(whole)
        || !digits(fraction)
        || whole.len() > 9
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let fraction: u64 = format!("{fraction:0<3}").parse().ok()?;
    Some(whole * 1000 + fraction)
}

/// The search the page asks for: from its run (a link's fragment) at the
/// playhead, the question as the form's fields put it.
pub(super) fn request(fragment: &str, query: &str) -> Result<Request, String> {
    let q = question(query)?;
    let run = link::decode(fragment)
        .map_err(|e| format!("The page's run could not be read for the search. {e}"))?;
    let mut request = Request::new(Config::default(), q.property);
    request.scenario = run.scenario;
    request.from_ms = Some(run.playhead_ms);
    request.depth_max = q.depth;
    request.states_max = q.states;
    request.pause_max_ms = q.pause_max_ms;
    request.early_release = q.early_release;
    request.moves = [
        MoveKind::Acquire,
        MoveKind::Write,
        MoveKind::Release,
        MoveKind::Wait,
    ]
    .into_iter()
    .chain(q.faults.iter().copied())
    .collect();
    Ok(request)
}

/// The question's form, its fields as the query has them (a field that
/// could not be read keeps its text as typed).
pub(super) fn form(query: &str) -> String {
    form_of(query, false)
}

/// The form while its search runs: drawn the same, its fields disabled
/// (the page's Cancel stops the search).
fn form_running(query: &str) -> String {
    form_of(query, true)
}

fn form_of(query: &str, running: bool) -> String {
    let pairs = super::query_pairs(query);
    let asked = pairs.iter().any(|(k, _)| FIELDS.contains(&k.as_str()));
    let text = |name: &str, default: String| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map_or(default, |(_, v)| v.clone())
    };
    let d = Question::default();
    let property = text("property", d.property.slug().into());
    let mut h = format!(
        r#"<form class="finder__question" aria-label="The question"><fieldset class="finder__all"{}><div class="explorer__fields"><label class="explorer__field"><span>Failure to find</span><select name="property">"#,
        if running { " disabled" } else { "" }
    );
    if Property::from_slug(&property).is_none() {
        let _ = write!(
            h,
            r#"<option value="{0}" selected>{0} (unknown)</option>"#,
            escape(&property)
        );
    }
    for p in Property::ALL {
        let chosen = if p.slug() == property {
            " selected"
        } else {
            ""
        };
        let _ = write!(
            h,
            r#"<option value="{}"{chosen}>{}</option>"#,
            p.slug(),
            escape(failure_words(p))
        );
    }
    h.push_str("</select></label>");
    let field = |h: &mut String, name: &str, label: &str, value: String, mode: &str| {
        let _ = write!(
            h,
            r#"<label class="explorer__field"><span>{}</span><input name="{name}" value="{}" inputmode="{mode}" autocomplete="off" spellcheck="false"></label>"#,
            escape(label),
            escape(&value)
        );
    };
    field(
        &mut h,
        "pause_max_s",
        "Pauses never exceed (s; empty: no bound)",
        text("pause_max_s", String::new()),
        "decimal",
    );
    field(
        &mut h,
        "depth",
        "Moves at most",
        text("depth", d.depth.to_string()),
        "numeric",
    );
    field(
        &mut h,
        "states",
        "State limit (distinct states per depth)",
        text("states", d.states.to_string()),
        "numeric",
    );
    h.push_str(r#"</div><fieldset class="explorer__group finder__faults"><legend>Faults a run may use (acquire, write, release and waiting always)</legend>"#);
    let ticked = |kind: MoveKind, default: bool| match asked {
        true => pairs.iter().any(|(k, v)| k == "fault" && v == kind.slug()),
        false => default,
    };
    for (kind, words, default) in FAULTS {
        let _ = write!(
            h,
            r#"<label class="finder__fault"><input type="checkbox" name="fault" value="{}"{}> {}</label>"#,
            kind.slug(),
            if ticked(kind, default) {
                " checked"
            } else {
                ""
            },
            escape(words)
        );
    }
    let early = asked
        && pairs
            .iter()
            .any(|(k, v)| k == "early_release" && !matches!(v.as_str(), "" | "0" | "off"));
    let _ = write!(
        h,
        r#"</fieldset><label class="finder__fault"><input type="checkbox" name="early_release" value="1"{}> Allow a client to release before its write is acknowledged (a client bug; left out unless ticked, since it is the shortest stale write on every system and would hide the lock's own)</label><div class="explorer__actions"><button type="submit" class="button button--primary">Find the shortest failure</button></div></fieldset></form>"#,
        if early { " checked" } else { "" }
    );
    h
}

/// The question's form and, beside it as a part of its own, the result or
/// the fields that could not be read.
pub(super) fn framed(form: &str, body: &str) -> String {
    format!("{form}{PART_BREAK}{body}")
}

/// The form alone, or with the refusal of fields that cannot be read.
pub(super) fn form_body(query: &str) -> String {
    let form = form(query);
    match question(query) {
        Ok(_) => framed(&form, ""),
        Err(why) => framed(&form, &refusal_html(&why)),
    }
}

/// Why a question that reads could not be searched (the page's run
/// unreadable, the search unable to start).
pub(super) fn failed_html(why: &str) -> String {
    format!(
        r#"<div class="finder__result" role="alert"><p class="finder__verdict">{}</p></div>"#,
        escape(why)
    )
}

fn refusal_html(why: &str) -> String {
    let mut h = String::from(
        r#"<div class="finder__result" role="alert"><p class="finder__verdict">Nothing was searched: these fields cannot be read.</p><ul>"#,
    );
    for line in why.lines() {
        let _ = write!(h, "<li>{}</li>", escape(line));
    }
    h.push_str("</ul></div>");
    h
}

/// Runs the search for the question `query` asks, posting (markup,
/// progress in words, done): the form with nothing beside it while it
/// runs, then with the outcome drawn. `clock_ms` only times it.
pub(super) fn run(
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
    for (key, value) in super::query_pairs(query) {
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
            r#"{{"find":{{"run":"{fragment}","query":"property=two-holders&fault=node-crash&depth=5"}}}}"#
        ));
        let last = replies.last().unwrap();
        assert!(last.done && last.error.is_none() && last.id == 7);
        assert!(last
            .html
            .contains("at most one client believes it holds the lock"));
        let bad = ask(r#"{"find":{"run":"v1.nonsense!","query":"property=stale-write"}}"#);
        assert_eq!(bad.len(), 1);
        assert!(bad[0].html.contains(r#"<form class="finder__question""#));
        assert!(
            bad[0].html.contains(
                "The page&#39;s run could not be read for the search. This link is damaged"
            ),
            "{}",
            bad[0].html
        );
        let unread = ask(&format!(
            r#"{{"find":{{"run":"{fragment}","query":"property=liveness"}}}}"#
        ));
        assert!(unread[0]
            .html
            .contains("\u{201c}liveness\u{201d} is none of the failures listed"));
        let form = ask(r#"{"find-form":{"query":"find&property=two-holders"}}"#);
        assert!(form[0]
            .html
            .contains(r#"<option value="two-holders" selected>"#));
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
