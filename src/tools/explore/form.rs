//! The explorer's settings form: its fields, read from a query string (the
//! form's submit, a shared link's `?explore&...`, the command line's
//! `--NAME VALUE`) into a checked `Plan`, and drawn as markup, filled from
//! the same query, for the worker to hand the page. One reader for the
//! page, links and the command line, so they cannot disagree. Every
//! refused field is named, one a line.

use super::{latency_slug, Axis, Check, Faults, Histogram, PauseProfile, Pauses, Plan, Preset};
use super::{micros_text, rate_text};
use super::{
    Fleet, FLEET_HOURS_MAX, FLEET_PER_MINUTE_MILLI_MAX, FLEET_WORKERS_MAX, RARE_TRIALS_LIMIT,
};
use super::{AXIS_LEN_MAX, FAULT_MS_MAX, HOLD_MS_MAX, LOCKS_PER_HOUR_MAX, THINK_MS_MAX};
use super::{PAUSE_US_MAX, PER_KILOHOUR_MAX, TRIALS_MAX};
use crate::markup::escape;
use crate::sim::latency::{latency_words, LATENCY_PRESETS};
use crate::sim::{Backend, Config, FenceMode, Fencing, PgOptions, Seed, TTL_MS_MAX, TTL_MS_MIN};
use crate::tools::query_pairs;
use crate::words::{decimal, decimal_text, is_decimal, Extra};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The page's address keeps the hazard explorer's settings under this key.
pub const EXPLORE_LINK_KEY: &str = "explore";

/// The form's fields, by name, from a query string (`a=1&b=x+y`). The
/// page's address carries them as `?explore&a=1&b=x+y`; links made before
/// carried them encoded in one value, `?explore=a%3D1%26b%3Dx%252By`, and
/// still open the same settings.
pub fn fields(query: &str) -> BTreeMap<String, String> {
    let fields: BTreeMap<String, String> = query_pairs(query).into_iter().collect();
    match fields.get(EXPLORE_LINK_KEY) {
        Some(encoded) if !encoded.is_empty() => self::fields(encoded),
        _ => fields,
    }
}

/// A field's text as the visitor left it, or its default.
fn value<'a>(fields: &'a BTreeMap<String, String>, name: &str, default: &'a str) -> &'a str {
    fields.get(name).map_or(default, String::as_str)
}

/// One field read as a decimal scaled by 10^digits and checked against
/// `lo..=hi` (scaled too), or why not, naming the text as typed.
fn number(
    fields: &BTreeMap<String, String>,
    f: &Field,
    digits: u32,
    (lo, hi): (u64, u64),
) -> Result<u64, String> {
    scaled(value(fields, f.name, f.default), f.label, digits, (lo, hi))
}

/// `text` as a decimal scaled by 10^digits within `lo..=hi`; the message
/// names `label` and the text as typed (never a value it was clamped to).
fn scaled(text: &str, label: &str, digits: u32, (lo, hi): (u64, u64)) -> Result<u64, String> {
    let typed = &shown(text.trim());
    let kind = if digits == 0 {
        "a whole number".to_string()
    } else {
        format!("a number with at most {digits} decimals")
    };
    match decimal(typed, digits, Extra::Refuse) {
        Some(v) if (lo..=hi).contains(&v) => Ok(v),
        Some(_) => Err(format!(
            "{label}: \"{typed}\" is out of range: choose {} to {}.",
            decimal_text(lo, digits),
            decimal_text(hi, digits)
        )),
        // Written as a number, only too large to hold: out of range too.
        None if is_decimal(typed, digits) => Err(format!(
            "{label}: \"{typed}\" is out of range: choose {} to {}.",
            decimal_text(lo, digits),
            decimal_text(hi, digits)
        )),
        None => Err(format!("{label}: \"{typed}\" is not {kind}.")),
    }
}

/// Typed text as a refusal names it: control characters (a newline from
/// a link) shown as spaces, so each refusal stays one line of the list.
fn shown(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A comma-separated list of decimals, each scaled by 10^digits and
/// within `lo..=hi`; every value out of place is named.
fn list(
    fields: &BTreeMap<String, String>,
    f: &Field,
    digits: u32,
    range: (u64, u64),
) -> Result<Vec<u64>, String> {
    let text = value(fields, f.name, f.default);
    let (values, wrong): (Vec<_>, Vec<_>) = text
        .split(',')
        .filter(|t| !t.trim().is_empty())
        .map(|t| scaled(t, f.label, digits, range))
        .partition(Result::is_ok);
    if let Some(Err(first)) = wrong.into_iter().next() {
        return Err(first);
    }
    let values: Vec<u64> = values.into_iter().flatten().collect();
    if values.is_empty() {
        return Err(format!("{}: give at least one value.", f.label));
    }
    if values.len() > AXIS_LEN_MAX {
        return Err(format!(
            "{}: {} values, more than the {AXIS_LEN_MAX} a grid can have.",
            f.label,
            values.len()
        ));
    }
    Ok(values)
}

/// A form field: its name in the query, its label, its default text.
pub struct Field {
    pub name: &'static str,
    pub label: &'static str,
    pub default: &'static str,
}

pub const HOLD: Field = field("hold", "Hold time (ms)", "500");
pub const THINK: Field = field("think", "Think time between holds (s)", "15");
pub const RATE: Field = field("rate", "Locks taken per second in production", "10");
pub const PER_HOUR: Field = field("per-hour", "Custom: pauses per hour", "120");
pub const MEDIAN: Field = field("median", "Custom: median pause (ms)", "100");
pub const P99: Field = field("p99", "Custom: p99 pause (ms)", "2000");
pub const HIST_PER_HOUR: Field = field("hist-per-hour", "Histogram: pauses per hour", "120");
/// The histogram's text: CSV lines, `ms:count` entries or observed
/// lengths (see `explore::Histogram`); a link carries `20:5;100:40`.
pub const HISTOGRAM: Field = field("hist", "Histogram: pause lengths (ms)", "");
pub const MAX: Field = field("max", "Longest pause (ms), blank for none", "");
pub const TTLS: Field = field("ttls", "TTLs (s)", "1, 2, 5, 10, 30");
pub const VALUES: Field = field("values", "Second axis values", "1, 2, 5, 10");
pub const TRIALS: Field = field("trials", "Trials per cell", "1000");
/// The fleet behind "per fleet-year", and the rare-event estimate's budget.
pub const WORKERS: Field = field("workers", "Fleet: workers taking the lock", "600");
pub const PER_MINUTE: Field = field("per-minute", "Fleet: locks a minute per worker", "1");
pub const HOURS: Field = field("hours", "Fleet: hours a year it runs", "8760");
pub const RARE: Field = field(
    "rare",
    "Rare events: weighted trials at most, a cell (0: none)",
    "100000",
);
pub const SEED: Field = field("seed", "Seed", "1");

impl Field {
    const fn triple(&self) -> (&'static str, &'static str, &'static str) {
        (self.name, self.label, self.default)
    }
}

const fn field(name: &'static str, label: &'static str, default: &'static str) -> Field {
    Field {
        name,
        label,
        default,
    }
}

/// A choice among named options: its value, or why it is not one.
fn choice<T: Copy>(
    fields: &BTreeMap<String, String>,
    (name, label, default): (&str, &str, &str),
    options: &[(&str, T)],
) -> Result<T, String> {
    let text = value(fields, name, default);
    options
        .iter()
        .find(|(slug, _)| *slug == text)
        .map(|&(_, v)| v)
        .ok_or_else(|| format!("{label}: \"{}\" is not one of the choices.", shown(text)))
}

/// Keeps a field's value, or its refusal among the others.
fn keep<T>(wrong: &mut Vec<String>, read: Result<T, String>) -> Option<T> {
    read.map_err(|why| wrong.push(why)).ok()
}

/// The form's fields read into a plan, checked: every refused field is
/// named, one a line, each with its text as typed, and nothing runs.
/// Settings that are each fine but do not go together are checked last.
pub fn plan_of(query: &str) -> Result<Plan, String> {
    let f = fields(query);
    let w = &mut Vec::new();
    let backends: Vec<(&str, Backend)> = Backend::ALL.iter().map(|&b| (b.slug(), b)).collect();
    let backend = keep(w, choice(&f, SYSTEM, &backends));
    let fencing = keep(
        w,
        choice(&f, FENCING, &[("off", Fencing::Off), ("on", Fencing::On)]),
    );
    let modes: Vec<(&str, FenceMode)> = fence_modes().iter().map(|&m| (m.word(), m)).collect();
    let fence = keep(w, choice(&f, FENCE, &modes));
    let renewal = keep(w, choice(&f, RENEWAL, &[("on", true), ("off", false)]));
    let checks = [
        ("at-acquire", Check::AtAcquire),
        ("before-write", Check::BeforeWrite),
    ];
    let check = keep(w, choice(&f, CHECK, &checks));
    let clients = keep(w, choice(&f, CLIENTS, &[("2", 2u8), ("3", 3), ("4", 4)]));
    let hold_ms = keep(w, number(&f, &HOLD, 0, (1, HOLD_MS_MAX)));
    let think_ms = keep(w, number(&f, &THINK, 3, (0, THINK_MS_MAX)));
    // Locks per second, to the thousandth: at least one lock an hour.
    let per_ks = keep(
        w,
        number(&f, &RATE, 3, (1, LOCKS_PER_HOUR_MAX * 1_000 / 3_600)),
    );
    let pauses = keep(w, pauses_of(&f));
    let pause_max_us = keep(w, longest_of(&f));
    let ttls_ms = keep(w, list(&f, &TTLS, 3, (TTL_MS_MIN, TTL_MS_MAX)));
    let axes = [
        ("p99", "p99"),
        ("rate", "rate"),
        ("max", "max"),
        ("system", "system"),
    ];
    let axis = match keep(w, choice(&f, AXIS, &axes)) {
        Some("p99") => keep(w, list(&f, &VALUES, 6, (1, PAUSE_US_MAX))).map(Axis::P99Us),
        Some("rate") => keep(w, list(&f, &VALUES, 3, (0, PER_KILOHOUR_MAX))).map(Axis::PerKilohour),
        Some("max") => keep(w, longest_axis(&f)),
        Some(_) => keep(w, systems(&f)).map(Axis::System),
        None => None,
    };
    let trials = keep(w, number(&f, &TRIALS, 0, (1, u64::from(TRIALS_MAX))));
    let fleet = keep(w, fleet_of(&f));
    let rare_trials = keep(w, number(&f, &RARE, 0, (0, u64::from(RARE_TRIALS_LIMIT))));
    let seed = keep(w, number(&f, &SEED, 0, (0, u64::MAX)));
    let faults = keep(w, faults_of(&f));
    let keepalives = [("os", PgOptions::LINUX), ("tuned", PgOptions::TUNED)];
    let pg = keep(w, choice(&f, KEEPALIVES, &keepalives));
    let slugs: Vec<(String, (u32, u32))> = LATENCY_PRESETS
        .iter()
        .map(|p| (latency_slug(p), (p.latency_scale, p.network_rtt_ms)))
        .collect();
    let latencies: Vec<(&str, (u32, u32))> = slugs.iter().map(|(s, v)| (s.as_str(), *v)).collect();
    let latency = keep(w, choice(&f, LATENCY, &latencies));
    let (
        Some(backend),
        Some(fencing),
        Some(renewal),
        Some(check),
        Some(clients),
        Some(hold_ms),
        Some(think_ms),
        Some(per_ks),
        Some(pauses),
        Some(pause_max_us),
        Some(ttls_ms),
        Some(axis),
        Some(trials),
        Some(seed),
    ) = (
        backend,
        fencing,
        renewal,
        check,
        clients,
        hold_ms,
        think_ms,
        per_ks,
        pauses,
        pause_max_us,
        ttls_ms,
        axis,
        trials,
        seed,
    )
    else {
        return Err(w.join("\n"));
    };
    let (
        Some(faults),
        Some(pg),
        Some((latency_scale, network_rtt_ms)),
        Some(fence),
        Some(fleet),
        Some(rare_trials),
    ) = (faults, pg, latency, fence, fleet, rare_trials)
    else {
        return Err(w.join("\n"));
    };
    let plan = Plan {
        backend,
        fencing,
        renewal,
        clients,
        hold_ms,
        think_ms,
        check,
        locks_per_hour: per_ks.saturating_mul(3_600) / 1_000,
        pauses,
        pause_max_us,
        ttls_ms,
        axis,
        trials: u32::try_from(trials).unwrap_or(TRIALS_MAX),
        seed: Seed(seed),
        faults,
        pg,
        fence,
        latency_scale,
        network_rtt_ms,
        fleet,
        rare_trials: u32::try_from(rare_trials).unwrap_or(RARE_TRIALS_LIMIT),
        ..Plan::default()
    };
    plan.validate()
        .map_err(|e| format!("These settings cannot run: {e}."))?;
    Ok(plan)
}

/// The choices' names in the query, labels and defaults.
const SYSTEM: (&str, &str, &str) = ("system", "System", "etcd");
const FENCING: (&str, &str, &str) = ("fencing", "Fencing", "off");
const RENEWAL: (&str, &str, &str) = ("renewal", "Renewal", "on");
/// How the resource fences with fencing on (`FenceMode`, by its word).
const FENCE: (&str, &str, &str) = ("fence", "Fencing check", "documented");

/// The fencing modes in the form's order: each system's documented one
/// first, the default.
fn fence_modes() -> [FenceMode; 5] {
    let [a, b, c, d] = FenceMode::ALL;
    [FenceMode::Documented, a, b, c, d]
}
/// Every system's Code view checks the lease just before its write (the
/// `check` line above `write`; PostgreSQL's lock has no lease to check,
/// and either choice runs it alike), so that is the default.
const CHECK: (&str, &str, &str) = ("check", "Lease checked", "before-write");
const CLIENTS: (&str, &str, &str) = ("clients", "Clients", "3");
const AXIS: (&str, &str, &str) = ("axis", "Second axis", "p99");
const KEEPALIVES: (&str, &str, &str) = ("keepalives", "PostgreSQL keepalives", "os");
/// The page's latency presets by slug (`explore::latency_slug`); the
/// explorer's default is one zone, real latency, as it always ran.
const LATENCY: (&str, &str, &str) = ("latency", "Latency", "one-zone");

/// Every field of the form by name, in the form's order, with its label
/// and default text: the command line takes each as `--NAME VALUE`
/// (`FIELDS`), and a test holds the form to this list.
pub const FIELDS: [(&str, &str, &str); 34] = [
    SYSTEM,
    FENCING,
    FENCE,
    RENEWAL,
    CHECK,
    CLIENTS,
    HOLD.triple(),
    THINK.triple(),
    RATE.triple(),
    LATENCY,
    PAUSES,
    PER_HOUR.triple(),
    MEDIAN.triple(),
    P99.triple(),
    HIST_PER_HOUR.triple(),
    HISTOGRAM.triple(),
    MAX.triple(),
    PARTITIONS.triple(),
    EXITS.triple(),
    HOST_DEATHS.triple(),
    LOSSES.triple(),
    NODE_RESTARTS.triple(),
    NODE_JUMPS.triple(),
    FAULT_MAX.triple(),
    KEEPALIVES,
    TTLS.triple(),
    AXIS,
    VALUES.triple(),
    TRIALS.triple(),
    SEED.triple(),
    RARE.triple(),
    WORKERS.triple(),
    PER_MINUTE.triple(),
    HOURS.triple(),
];

/// The pause profile's choice: a preset's slug, `custom` or `histogram`.
const PAUSES: (&str, &str, &str) = ("pauses", "Pause profile", "jvm-g1");

/// The fault fields: rates per hour (to the thousandth), per client or
/// per node, and the longest fault in seconds.
pub const PARTITIONS: Field = field(
    "partitions",
    "Partitions from the lock service per client-hour",
    "0",
);
pub const EXITS: Field = field("exits", "Process exits per client-hour", "0");
pub const HOST_DEATHS: Field = field("host-deaths", "Host deaths per client-hour", "0");
pub const LOSSES: Field = field("losses", "Spells of lost messages per client-hour", "0");
pub const NODE_RESTARTS: Field = field("node-restarts", "Redis node restarts per node-hour", "0");
pub const NODE_JUMPS: Field = field("node-jumps", "Redis node clock jumps per node-hour", "0");
pub const FAULT_MAX: Field = field("fault-max", "Longest fault (s)", "30");

/// The fault fields read, every refusal named (one a line).
fn faults_of(f: &BTreeMap<String, String>) -> Result<Faults, String> {
    let w = &mut Vec::new();
    let mut rate = |field: &Field| keep(w, number(f, field, 3, (0, PER_KILOHOUR_MAX)));
    let rates = [
        rate(&PARTITIONS),
        rate(&EXITS),
        rate(&HOST_DEATHS),
        rate(&LOSSES),
        rate(&NODE_RESTARTS),
        rate(&NODE_JUMPS),
    ];
    let longest_ms = keep(w, number(f, &FAULT_MAX, 3, (1, FAULT_MS_MAX)));
    let ([Some(p), Some(e), Some(h), Some(l), Some(r), Some(j)], Some(longest_ms)) =
        (rates, longest_ms)
    else {
        return Err(w.join("\n"));
    };
    Ok(Faults {
        partitions_per_kilohour: p,
        exits_per_kilohour: e,
        host_deaths_per_kilohour: h,
        losses_per_kilohour: l,
        node_restarts_per_kilohour: r,
        node_jumps_per_kilohour: j,
        longest_ms,
    })
}

/// The fleet's fields read, every refusal named (one a line).
fn fleet_of(f: &BTreeMap<String, String>) -> Result<Fleet, String> {
    let w = &mut Vec::new();
    let workers = keep(w, number(f, &WORKERS, 0, (1, FLEET_WORKERS_MAX)));
    let per_minute_milli = keep(
        w,
        number(f, &PER_MINUTE, 3, (1, FLEET_PER_MINUTE_MILLI_MAX)),
    );
    let hours = keep(w, number(f, &HOURS, 0, (1, FLEET_HOURS_MAX)));
    let (Some(workers), Some(per_minute_milli), Some(hours)) = (workers, per_minute_milli, hours)
    else {
        return Err(w.join("\n"));
    };
    Ok(Fleet {
        workers,
        per_minute_milli,
        hours,
    })
}

/// The second axis's values read as systems, by slug or name.
fn systems(f: &BTreeMap<String, String>) -> Result<Vec<Backend>, String> {
    let text = value(f, VALUES.name, VALUES.default);
    let mut out = Vec::new();
    for typed in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let found = Backend::ALL
            .iter()
            .copied()
            .find(|b| b.slug().eq_ignore_ascii_case(typed) || b.name().eq_ignore_ascii_case(typed));
        match found {
            Some(b) if out.contains(&b) => {
                return Err(format!(
                    "{}: \"{}\" is named twice.",
                    VALUES.label,
                    shown(typed)
                ))
            }
            Some(b) => out.push(b),
            None => {
                let slugs: Vec<&str> = Backend::ALL.iter().map(|b| b.slug()).collect();
                return Err(format!(
                    "{}: \"{}\" is not a system: choose from {}.",
                    VALUES.label,
                    shown(typed),
                    slugs.join(", ")
                ));
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{}: give at least one system.", VALUES.label));
    }
    Ok(out)
}

fn pauses_of(f: &BTreeMap<String, String>) -> Result<Pauses, String> {
    let slug = value(f, PAUSES.0, PAUSES.2);
    if slug == "custom" {
        let w = &mut Vec::new();
        let per_kilohour = keep(w, number(f, &PER_HOUR, 3, (0, PER_KILOHOUR_MAX)));
        let median_us = keep(w, number(f, &MEDIAN, 3, (1, PAUSE_US_MAX)));
        let p99_us = keep(w, number(f, &P99, 3, (1, PAUSE_US_MAX)));
        let (Some(per_kilohour), Some(median_us), Some(p99_us)) = (per_kilohour, median_us, p99_us)
        else {
            return Err(w.join("\n"));
        };
        return Ok(Pauses::Custom {
            profile: PauseProfile::log_normal(per_kilohour, median_us, p99_us),
        });
    }
    if slug == "histogram" {
        return histogram_of(f);
    }
    Preset::from_slug(slug)
        .map(|preset| Pauses::Preset { preset })
        .ok_or_else(|| {
            format!(
                "Pause profile: \"{}\" is not one of the choices.",
                shown(slug)
            )
        })
}

/// A histogram profile from its two fields; every refused entry of the
/// lengths is named, one a line, with its text as typed.
fn histogram_of(f: &BTreeMap<String, String>) -> Result<Pauses, String> {
    let w = &mut Vec::new();
    let per_kilohour = keep(w, number(f, &HIST_PER_HOUR, 3, (0, PER_KILOHOUR_MAX)));
    match Histogram::parse(value(f, HISTOGRAM.name, HISTOGRAM.default)) {
        Ok(h) => {
            if let Some(per_kilohour) = per_kilohour {
                let profile = PauseProfile::empirical(per_kilohour, h);
                return Ok(Pauses::Custom { profile });
            }
        }
        Err(wrong) => w.extend(
            wrong
                .iter()
                .map(|why| format!("{}: {why}.", HISTOGRAM.label)),
        ),
    }
    Err(w.join("\n"))
}

/// The longest pause, if the field is not blank.
fn longest_of(f: &BTreeMap<String, String>) -> Result<Option<u64>, String> {
    let text = value(f, MAX.name, MAX.default);
    if text.trim().is_empty() {
        return Ok(None);
    }
    scaled(text, MAX.label, 3, (1, PAUSE_US_MAX)).map(Some)
}

/// The second axis as longest pauses (s, to the microsecond).
fn longest_axis(f: &BTreeMap<String, String>) -> Result<Axis, String> {
    list(f, &VALUES, 6, (1, PAUSE_US_MAX)).map(Axis::MaxUs)
}

/// The plan as the page keeps it and hands back.
pub fn plan_json(plan: &Plan) -> String {
    serde_json::to_string(plan).unwrap_or_default()
}

/// A plan handed back by the page, checked again (the page could hand
/// back anything).
pub fn read_plan(json: &str) -> Result<Plan, String> {
    let plan: Plan =
        serde_json::from_str(json).map_err(|e| format!("The plan could not be read: {e}."))?;
    plan.validate()
        .map_err(|e| format!("The plan cannot run: {e}."))?;
    Ok(plan)
}

/// The settings form, filled from `query` (a shared link's) or with the
/// defaults, with its Run button. The page hears its submit.
/// Why a run could not start, as markup: one refused field a line, all of
/// them listed together when there are several.
pub fn refusal(why: &str) -> String {
    let lines: Vec<&str> = why.lines().collect();
    if lines.len() < 2 {
        return format!(
            r#"<p class="work__status" role="alert">{}</p>"#,
            escape(why)
        );
    }
    let mut h = format!(
        r#"<div class="work__status" role="alert"><p>{} fields were refused:</p><ul>"#,
        lines.len()
    );
    for line in lines {
        let _ = write!(h, "<li>{}</li>", escape(line));
    }
    h.push_str("</ul></div>");
    h
}

pub fn form(query: &str) -> String {
    let f = fields(query);
    let mut h = String::from(r#"<form class="explorer__form"><div class="explorer__fields">"#);
    let backends: Vec<(String, String)> = Backend::ALL
        .iter()
        .map(|b| (b.slug().to_string(), b.name().to_string()))
        .collect();
    select(
        &mut h,
        &f,
        "system",
        "System",
        Backend::Etcd.slug(),
        &backends,
    );
    select(
        &mut h,
        &f,
        "fencing",
        "Fencing",
        "off",
        &pairs(&[("off", "off"), ("on", "on")]),
    );
    let modes: Vec<(String, String)> = fence_modes()
        .iter()
        .map(|m| {
            let words = match m {
                FenceMode::Documented => "as each system documents it",
                m => m.label(),
            };
            (m.word().to_string(), words.to_string())
        })
        .collect();
    select(&mut h, &f, FENCE.0, FENCE.1, FENCE.2, &modes);
    select(
        &mut h,
        &f,
        "renewal",
        "Renewal",
        "on",
        &pairs(&[("on", "on"), ("off", "off")]),
    );
    select(
        &mut h,
        &f,
        CHECK.0,
        CHECK.1,
        CHECK.2,
        &pairs(&[
            ("at-acquire", "once, when granted"),
            (
                "before-write",
                "just before writing, as each system's Code view does",
            ),
        ]),
    );
    select(
        &mut h,
        &f,
        "clients",
        "Clients",
        "3",
        &pairs(&[("2", "2"), ("3", "3"), ("4", "4")]),
    );
    for field in [&HOLD, &THINK, &RATE] {
        input(&mut h, &f, field, "decimal");
    }
    latency_field(&mut h, &f);
    h.push_str("</div>");
    profile_fields(&mut h, &f);
    fault_fields(&mut h, &f);
    grid_fields(&mut h, &f);
    h.push_str(r#"<p class="panel__note">Latency: the trials run at the one chosen above, each system's own round trip plus the network's; the simulator's default is slowed 10x to watch.</p>"#);
    h.push_str(r#"<div class="explorer__actions"><button type="submit" class="button button--primary">Run</button></div></form>"#);
    h
}

/// The latency the trials run at: the page's presets, each with its
/// words ("Cross-region: real + 70 ms round trip").
fn latency_field(h: &mut String, f: &BTreeMap<String, String>) {
    let mut options: Vec<(String, String)> = LATENCY_PRESETS
        .iter()
        .map(|p| {
            let config = p.apply(&Config::default());
            let words = format!("{}: {}", p.name, latency_words(&config));
            (latency_slug(p), words)
        })
        .collect();
    // The page's default (slowed 10x) leads its list; the explorer's
    // (one zone, real) leads this one, and the slowed one comes last.
    options.rotate_left(1);
    select(h, f, LATENCY.0, LATENCY.1, LATENCY.2, &options);
}

fn pairs(options: &[(&str, &str)]) -> Vec<(String, String)> {
    options
        .iter()
        .map(|(v, w)| (v.to_string(), w.to_string()))
        .collect()
}

fn profile_fields(h: &mut String, f: &BTreeMap<String, String>) {
    h.push_str(r#"<fieldset class="explorer__group"><legend>Pauses</legend><div class="explorer__fields">"#);
    let chosen = value(f, PAUSES.0, PAUSES.2);
    let _ = write!(
        h,
        r#"<label class="explorer__field"><span>Pause profile</span><select name="pauses">"#
    );
    if chosen != "custom" && Preset::from_slug(chosen).is_none() {
        unknown_option(h, chosen);
    }
    for p in Preset::ALL {
        let pr = p.profile();
        let _ = write!(
            h,
            r#"<option value="{}" title="{}"{}>{} ({}/h, median {}, p99 {})</option>"#,
            p.slug(),
            escape(p.source()),
            selected(chosen == p.slug()),
            escape(p.name()),
            rate_text(pr.per_kilohour),
            micros_text(pr.median_us),
            micros_text(pr.p99_us),
        );
    }
    let _ = write!(
        h,
        r#"<option value="custom"{}>Custom (the three fields below)</option><option value="histogram"{}>Histogram (your observed pauses, below)</option></select></label>"#,
        selected(chosen == "custom"),
        selected(chosen == "histogram")
    );
    for field in [&PER_HOUR, &MEDIAN, &P99, &HIST_PER_HOUR] {
        input(h, f, field, "decimal");
    }
    let _ = write!(
        h,
        r#"<label class="explorer__field explorer__field--wide"><span>{}</span><textarea name="{}" rows="3" autocomplete="off" spellcheck="false" placeholder="20,5&#10;100,40&#10;2000,3" aria-describedby="explorer-hist-help">{}</textarea><small id="explorer-hist-help">CSV lines length_ms,count; or ms:count entries split by ; (as a link carries them); or observed pauses split by spaces or lines. At most 32 lengths.</small></label>"#,
        escape(HISTOGRAM.label),
        HISTOGRAM.name,
        escape(value(f, HISTOGRAM.name, HISTOGRAM.default))
    );
    input(h, f, &MAX, "decimal");
    h.push_str(r#"</div><details class="explorer__sources"><summary>Where the presets' numbers come from</summary><dl>"#);
    for p in Preset::ALL {
        let _ = write!(
            h,
            "<dt>{}</dt><dd>{}</dd>",
            escape(p.name()),
            escape(p.source())
        );
    }
    h.push_str("</dl></details></fieldset>");
}

fn fault_fields(h: &mut String, f: &BTreeMap<String, String>) {
    h.push_str(r#"<fieldset class="explorer__group"><legend>Faults besides pauses</legend><div class="explorer__fields">"#);
    for field in [
        &PARTITIONS,
        &EXITS,
        &HOST_DEATHS,
        &LOSSES,
        &NODE_RESTARTS,
        &NODE_JUMPS,
        &FAULT_MAX,
    ] {
        input(h, f, field, "decimal");
    }
    select(
        h,
        f,
        KEEPALIVES.0,
        KEEPALIVES.1,
        KEEPALIVES.2,
        &pairs(&[
            ("os", "the OS's: 2 h 11 min"),
            ("tuned", "tuned 10/5/3: 25 s"),
        ]),
    );
    h.push_str(r#"</div><details class="explorer__sources"><summary>How faults strike a trial</summary><p>Each fault arrives at random (exponential gaps) at its rate, each client and node on its own; its length, a crashed client's or node's time down, or a clock jump's size is drawn evenly from 1 ms to the longest fault. A partition cuts a client off from the lock service, not from the resource, and TCP sends what it cut off again with a doubling timeout. Lost messages are gone for good. A process exit closes its sockets; a host death is silence and ends its partition. A crashed client restarts after its time down with nothing held, thinks, and asks again. A Redis node restarts empty and at once; a node's clock jumps forward only, expiring its key early. Node faults strike Redis and Redlock only: the other systems' servers are not failed here. PostgreSQL frees a cut-off client's lock only when its keepalives give up. To compare systems under the same faults, set the second axis to the system and name them in its values: redis, redlock, zookeeper, etcd, chubby, consul, dynamodb, postgresql.</p></details></fieldset>"#);
}

fn grid_fields(h: &mut String, f: &BTreeMap<String, String>) {
    h.push_str(
        r#"<fieldset class="explorer__group"><legend>Grid</legend><div class="explorer__fields">"#,
    );
    input(h, f, &TTLS, "text");
    select(
        h,
        f,
        "axis",
        "Second axis",
        "p99",
        &pairs(&[
            ("p99", "p99 pause (s), replacing the profile's"),
            ("rate", "pauses per hour, replacing the profile's"),
            ("max", "longest pause (s), capping every pause"),
            ("system", "the system"),
        ]),
    );
    input(h, f, &VALUES, "text");
    input(h, f, &TRIALS, "numeric");
    input(h, f, &SEED, "numeric");
    input(h, f, &RARE, "numeric");
    h.push_str("</div></fieldset>");
    h.push_str(
        r#"<fieldset class="explorer__group"><legend>Fleet, for corrupted writes per fleet-year</legend><div class="explorer__fields">"#,
    );
    input(h, f, &WORKERS, "numeric");
    input(h, f, &PER_MINUTE, "decimal");
    input(h, f, &HOURS, "numeric");
    h.push_str("</div></fieldset>");
}

fn selected(yes: bool) -> &'static str {
    if yes {
        " selected"
    } else {
        ""
    }
}

fn select(
    h: &mut String,
    f: &BTreeMap<String, String>,
    name: &str,
    label: &str,
    default: &str,
    options: &[(String, String)],
) {
    let chosen = value(f, name, default);
    let _ = write!(
        h,
        r#"<label class="explorer__field"><span>{label}</span><select name="{name}">"#
    );
    if !options.iter().any(|(v, _)| v == chosen) {
        unknown_option(h, chosen);
    }
    for (v, words) in options {
        let _ = write!(
            h,
            r#"<option value="{}"{}>{}</option>"#,
            escape(v),
            selected(chosen == v),
            escape(words)
        );
    }
    h.push_str("</select></label>");
}

/// A choice the link named that is not one: kept, selected and said so,
/// never silently replaced by the first option (running refuses it, and
/// the message names it, until the visitor picks one).
fn unknown_option(h: &mut String, typed: &str) {
    let _ = write!(
        h,
        r#"<option value="{0}" selected>{0} (not one of the choices)</option>"#,
        escape(typed)
    );
}

fn input(h: &mut String, f: &BTreeMap<String, String>, field: &Field, mode: &str) {
    let _ = write!(
        h,
        r#"<label class="explorer__field"><span>{}</span><input name="{}" value="{}" inputmode="{mode}" autocomplete="off" spellcheck="false"></label>"#,
        escape(field.label),
        field.name,
        escape(value(f, field.name, field.default))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_carries_the_fields_as_they_are_or_as_older_links_encoded_them() {
        let sent = "system=redlock&ttls=1%2C+2&seed=7";
        let now = fields(&format!("?explore&{sent}"));
        let older = fields(&format!(
            "?explore={}",
            "system%3Dredlock%26ttls%3D1%252C%2B2%26seed%3D7"
        ));
        assert_eq!(now.get("ttls").map(String::as_str), Some("1, 2"));
        assert_eq!(now.get("system").map(String::as_str), Some("redlock"));
        assert_eq!(older, fields(sent));
        assert_eq!(plan_of(&format!("?embed=1&explore&{sent}")), plan_of(sent));
        assert_eq!(plan_of("?explore"), Ok(form_default()));
    }

    /// The form's defaults: the default plan, with the lease checked just
    /// before the write as every system's Code view does.
    fn form_default() -> Plan {
        Plan {
            check: Check::BeforeWrite,
            ..Plan::default()
        }
    }

    #[test]
    fn the_default_form_reads_as_the_default_plan() {
        assert_eq!(plan_of(""), Ok(form_default()));
        let html = form("");
        for name in [
            "system", "fencing", "pauses", "ttls", "values", "trials", "seed",
        ] {
            assert!(html.contains(&format!(r#"name="{name}""#)), "{name}");
        }
        assert!(html.contains(&escape(Preset::Swap.source())));
    }

    #[test]
    fn the_field_list_is_the_forms_in_its_order() {
        let html = form("");
        let named: Vec<&str> = html
            .split(r#" name=""#)
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        let listed: Vec<&str> = FIELDS.iter().map(|f| f.0).collect();
        assert_eq!(named, listed);
        assert_eq!(PAUSES.2, Preset::JvmG1.slug());
        // Each listed default is what the form shows when nothing is given.
        for (name, _, default) in FIELDS {
            let at = html.find(&format!(r#"name="{name}""#)).unwrap();
            let own = &html[at..];
            let own = &own[..own.find("</label>").unwrap()];
            let default = escape(default);
            let option = format!(r#"<option value="{default}""#);
            let picked = own
                .split(&option)
                .nth(1)
                .is_some_and(|tag| tag.split('>').next().unwrap_or("").ends_with(" selected"));
            assert!(
                picked
                    || own.starts_with(&format!(r#"name="{name}" value="{default}""#))
                    || own.contains(&format!(">{default}</textarea>")),
                "{name}: default {default:?} in {own}"
            );
        }
    }

    #[test]
    fn the_latency_is_a_preset_of_the_page_one_zone_by_default() {
        assert_eq!(Plan::default().latency_scale, 1);
        assert_eq!(Plan::default().network_rtt_ms, 0);
        let far = plan_of("latency=cross-region").unwrap();
        assert_eq!((far.latency_scale, far.network_rtt_ms), (1, 70));
        let slowed = plan_of("latency=slowed-10x").unwrap();
        assert_eq!((slowed.latency_scale, slowed.network_rtt_ms), (10, 0));
        assert_eq!(
            plan_of("latency=mars"),
            Err(r#"Latency: "mars" is not one of the choices."#.to_string())
        );
        let html = form("latency=cross-zone");
        assert!(
            html.contains(
                r#"<option value="cross-zone" selected>Cross-zone: real + 2 ms round trip</option>"#
            ),
            "{html}"
        );
        // A plan at the default latency writes no latency, as before.
        assert!(!plan_json(&Plan::default()).contains("latency"));
        assert!(plan_json(&far).contains(r#""network_rtt_ms":70"#));
        assert_eq!(read_plan(&plan_json(&far)), Ok(far));
    }

    #[test]
    fn the_fencing_mode_reads_from_the_form_by_its_word() {
        assert_eq!(plan_of("fencing=on").unwrap().fence, FenceMode::Documented);
        let check = plan_of("fencing=on&fence=check").unwrap();
        assert_eq!(check.fence, FenceMode::Check);
        assert_eq!(read_plan(&plan_json(&check)), Ok(check));
        assert!(!plan_json(&Plan::default()).contains("fence\""));
        assert!(plan_of("fence=sometimes")
            .unwrap_err()
            .starts_with("Fencing check: \"sometimes\""));
        let refused = plan_of("system=dynamodb&fencing=on&fence=takeover").unwrap_err();
        assert!(
            refused.contains("fencing check does not apply here"),
            "{refused}"
        );
    }

    #[test]
    fn a_form_reads_into_its_plan() {
        let plan = plan_of(
            "system=redis&fencing=on&renewal=off&check=before-write&clients=4&hold=250\
             &think=2.5&rate=0.5&pauses=custom&per-hour=60&median=1.5&p99=40\
             &ttls=2%2C+4&axis=rate&values=1%2C10&trials=7&seed=42",
        )
        .unwrap();
        assert_eq!(plan.backend, Backend::Redis);
        assert_eq!(plan.fencing, Fencing::On);
        assert!(!plan.renewal);
        assert_eq!(plan.check, Check::BeforeWrite);
        assert_eq!((plan.clients, plan.hold_ms, plan.think_ms), (4, 250, 2_500));
        assert_eq!(plan.locks_per_hour, 1_800);
        let profile = plan.pauses.profile();
        assert_eq!(
            (profile.per_kilohour, profile.median_us, profile.p99_us),
            (60_000, 1_500, 40_000)
        );
        assert_eq!(plan.ttls_ms, vec![2_000, 4_000]);
        assert_eq!(plan.axis, Axis::PerKilohour(vec![1_000, 10_000]));
        assert_eq!((plan.trials, plan.seed), (7, Seed(42)));
        // The form drawn from the same query shows the same values.
        let html = form("system=redis&ttls=2%2C+4&pauses=custom");
        assert!(html.contains(r#"<option value="redis" selected>"#));
        assert!(html.contains(r#"name="ttls" value="2, 4""#));
        assert!(html.contains(r#"<option value="custom" selected>"#));
    }

    #[test]
    fn bad_settings_say_what_is_wrong() {
        let says = |query: &str, words: &str| {
            let e = plan_of(query).unwrap_err();
            assert!(e.contains(words), "{query}: {e}");
        };
        says("ttls=1%2Cx", "TTLs (s): \"x\" is not a number");
        says("ttls=", "TTLs (s): give at least one value");
        says(
            "trials=0",
            "Trials per cell: \"0\" is out of range: choose 1 to 100000000",
        );
        says("clients=9", "Clients: \"9\" is not one of the choices");
        says("system=mongo", "System: \"mongo\"");
        says("pauses=gc", "Pause profile: \"gc\"");
        says("hold=1.5", "Hold time (ms): \"1.5\" is not a whole number");
        says("pauses=custom&median=50&p99=10", "median pause");
        says(
            "ttls=0.1",
            "TTLs (s): \"0.1\" is out of range: choose 1 to 60",
        );
        says("trials=999999999999", "\"999999999999\" is out of range");
        says(
            "seed=99999999999999999999",
            "Seed: \"99999999999999999999\" is out of range",
        );
        says("values=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33", "33 values");
    }

    #[test]
    fn every_refused_field_is_named_at_once_with_its_text_as_typed() {
        let query = "?explore&system=%3Cimg+src%3Dx%3E&trials=999999999999&hold=abc\
                     &ttls=1%2C+0.5&pauses=gc&clients=9";
        let why = plan_of(query).unwrap_err();
        let lines: Vec<&str> = why.lines().collect();
        assert_eq!(
            lines,
            [
                "System: \"<img src=x>\" is not one of the choices.",
                "Clients: \"9\" is not one of the choices.",
                "Hold time (ms): \"abc\" is not a whole number.",
                "Pause profile: \"gc\" is not one of the choices.",
                "TTLs (s): \"0.5\" is out of range: choose 1 to 60.",
                "Trials per cell: \"999999999999\" is out of range: choose 1 to 100000000.",
            ]
        );
        // The form keeps the unknown system, selected and said to be no
        // choice, instead of showing the first option in its place.
        let html = form(query);
        assert!(html.contains(
            r#"<option value="&lt;img src=x&gt;" selected>&lt;img src=x&gt; (not one of the choices)</option>"#
        ));
        assert!(!html.contains(r#"<option value="redis" selected>"#));
        assert!(html.contains(r#"<option value="gc" selected>gc (not one of the choices)"#));
        assert!(html.contains(r#"name="trials" value="999999999999""#));
        assert_eq!(SYSTEM.2, Backend::Etcd.slug());
    }

    #[test]
    fn a_histogram_and_a_longest_pause_read_from_the_form_or_a_link() {
        let pasted = "pauses=histogram&hist-per-hour=60&hist=length_ms%2Ccount%0D%0A20%2C5%0D%0A100%2C40%0D%0A2000%2C3\
                      &max=1500&axis=rate&values=60";
        let link = "pauses=histogram&hist-per-hour=60&hist=20:5;100:40;2000:3&max=1500&axis=rate&values=60";
        let (a, b) = (plan_of(pasted).unwrap(), plan_of(link).unwrap());
        assert_eq!(a, b);
        let profile = a.profile();
        assert_eq!(profile.histogram.unwrap().compact(), "20:5;100:40;2000:3");
        assert_eq!(
            (profile.per_kilohour, profile.max_us),
            (60_000, Some(1_500_000))
        );
        assert_eq!(a.pauses.name(), "histogram");
        // The form shows them back, the text as typed.
        let html = form(link);
        assert!(
            html.contains(r#"<option value="histogram" selected>"#),
            "{html}"
        );
        assert!(html.contains(r#"<textarea name="hist""#));
        assert!(html.contains(">20:5;100:40;2000:3</textarea>"));
        assert!(html.contains(r#"name="max" value="1500""#));
        // A blank longest pause is none; the longest pause as an axis.
        assert_eq!(plan_of("max=+").unwrap().pause_max_us, None);
        let axis = plan_of("axis=max&values=1%2C+20").unwrap().axis;
        assert_eq!(axis, Axis::MaxUs(vec![1_000_000, 20_000_000]));
    }

    #[test]
    fn every_refused_histogram_entry_is_named_as_typed() {
        let why =
            plan_of("pauses=histogram&hist=20:5;abc;100,x&hist-per-hour=y&max=0").unwrap_err();
        let lines: Vec<&str> = why.lines().collect();
        assert_eq!(
            lines,
            [
                "Histogram: pauses per hour: \"y\" is not a number with at most 3 decimals.",
                "Histogram: pause lengths (ms): \"abc\" is not a length in ms (digits, at most three decimals).",
                "Histogram: pause lengths (ms): \"100,x\": the count \"x\" is not a whole number from 0 to 1000000000.",
                "Longest pause (ms), blank for none: \"0\" is out of range: choose 0.001 to 600000.",
            ]
        );
        let empty = plan_of("pauses=histogram").unwrap_err();
        assert_eq!(
            empty,
            "Histogram: pause lengths (ms): give at least one pause length."
        );
        let p99 = plan_of("pauses=histogram&hist=20").unwrap_err();
        assert!(p99.contains("p99 axis cannot replace them"), "{p99}");
    }

    #[test]
    fn faults_and_the_system_axis_read_from_the_form() {
        let query = "partitions=2&exits=0.5&host-deaths=0.25&losses=1&node-restarts=3\
                     &node-jumps=0.001&fault-max=45&keepalives=tuned&axis=system\
                     &values=redlock%2C+etcd%2C+PostgreSQL&ttls=10";
        let plan = plan_of(query).unwrap();
        assert_eq!(
            plan.faults,
            Faults {
                partitions_per_kilohour: 2_000,
                exits_per_kilohour: 500,
                host_deaths_per_kilohour: 250,
                losses_per_kilohour: 1_000,
                node_restarts_per_kilohour: 3_000,
                node_jumps_per_kilohour: 1,
                longest_ms: 45_000,
            }
        );
        assert_eq!(plan.pg, PgOptions::TUNED);
        assert_eq!(
            plan.axis,
            Axis::System(vec![Backend::Redlock, Backend::Etcd, Backend::Postgres])
        );
        let html = form(query);
        assert!(html.contains(r#"name="partitions" value="2""#));
        assert!(html.contains(r#"name="fault-max" value="45""#));
        assert!(html.contains(r#"<option value="tuned" selected>"#));
        assert!(html.contains(r#"<option value="system" selected>"#));
        // Every refused fault field at once, with its text as typed.
        let why =
            plan_of("partitions=x&fault-max=0&keepalives=slow&axis=system&values=redlock%2C+mongo")
                .unwrap_err();
        let lines: Vec<&str> = why.lines().collect();
        assert_eq!(
            lines,
            [
                "Second axis values: \"mongo\" is not a system: choose from redis, redlock, \
                 zookeeper, etcd, chubby, consul, dynamodb, postgresql.",
                "Partitions from the lock service per client-hour: \"x\" is not a number \
                 with at most 3 decimals.",
                "Longest fault (s): \"0\" is out of range: choose 0.001 to 600.",
                "PostgreSQL keepalives: \"slow\" is not one of the choices.",
            ]
        );
        // Settings that do not apply to the system are named.
        let says = |query: &str, words: &str| {
            let e = plan_of(query).unwrap_err();
            assert!(e.contains(words), "{query}: {e}");
        };
        says("system=postgresql", "TTL (ms) does not apply here");
        says("node-jumps=1", "Redis node clock jumps does not apply here");
        says("axis=system&values=etcd%2C+etcd", "\"etcd\" is named twice");
        assert!(plan_of("system=postgresql&ttls=30").is_ok());
        assert!(plan_of("axis=system&values=etcd%2C+redlock&node-jumps=1").is_ok());
    }
}
