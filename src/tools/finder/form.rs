//! The finder's question as a form: the property, the longest pause, the
//! faults a run may use, how deep and how many states. Its fields are read
//! from a query string (the form's submit, the page's `?find&property=...`
//! address, the command line) into a checked `Request` from the page's
//! run, and drawn as markup filled from the same query, with every field
//! that cannot be read named beside it. The result is drawn beside the
//! form as a part of its own (`draw.rs`).

use super::{MoveKind, Request, DEPTH_DEFAULT, DEPTH_LIMIT, STATES_DEFAULT, STATES_LIMIT};
use crate::lesson::properties::Property;
use crate::markup::{escape, PART_BREAK};
use crate::sim::{Config, PAUSE_MS_MAX};
use crate::tools::query_pairs;
use crate::wire::link;
use crate::words::thousands;
use std::fmt::Write;
/// The page's address keeps the finder's question under this key
/// (`?find&property=stale-write&pause_max_s=20`).
pub const FIND_LINK_KEY: &str = "find";

/// The faults a question may allow: the form's checkboxes, by the names
/// the core's commands go by, and whether each is allowed unless the
/// visitor says otherwise.
pub const FAULTS: [(MoveKind, &str, bool); 9] = [
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
pub fn failure_words(p: Property) -> &'static str {
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
pub struct Question {
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
pub const FIELDS: [&str; 6] = [
    "property",
    "pause_max_s",
    "fault",
    "depth",
    "states",
    "early_release",
];

/// Reads a question from a query string; every field that cannot be read
/// is named with its text as typed, one line each.
pub fn question(query: &str) -> Result<Question, String> {
    let pairs = query_pairs(query);
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
pub fn seconds_ms(text: &str) -> Option<u64> {
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
pub fn request(fragment: &str, query: &str) -> Result<Request, String> {
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
pub fn form(query: &str) -> String {
    form_of(query, false)
}

/// The form while its search runs: drawn the same, its fields disabled
/// (the page's Cancel stops the search).
pub fn form_running(query: &str) -> String {
    form_of(query, true)
}

fn form_of(query: &str, running: bool) -> String {
    let pairs = query_pairs(query);
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
pub fn framed(form: &str, body: &str) -> String {
    format!("{form}{PART_BREAK}{body}")
}

/// The form alone, or with the refusal of fields that cannot be read.
pub fn form_body(query: &str) -> String {
    let form = form(query);
    match question(query) {
        Ok(_) => framed(&form, ""),
        Err(why) => framed(&form, &refusal_html(&why)),
    }
}

/// Why a question that reads could not be searched (the page's run
/// unreadable, the search unable to start).
pub fn failed_html(why: &str) -> String {
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
