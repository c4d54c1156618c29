//! A whole run in a link, or in a file: its settings, every command with its
//! time, and the moment the page showed. Replaying it gives the same run.
//!
//! A link's fragment is `v1.` and then the run's JSON, deflated and written
//! in URL-safe base64 without padding. A run file is the same JSON, pretty,
//! with the history added (the core's own record format); reading a file
//! ignores the history and replays the commands.
//!
//! Nothing read here is trusted: every way a link or file can be wrong gets
//! a sentence that says what is wrong, and reading never panics.

use super::engine::Sim;
use super::history::Record;
use super::scenario::{
    Command, NodeCommand, Scenario, ScenarioError, SCENARIO_VERSION, SCRIPT_LEN_MAX,
    SCRIPT_TIME_MS_MAX,
};
use super::types::{Backend, Millis};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The version written at the start of every link.
pub const LINK_VERSION: u32 = 1;
/// Longer links are refused unread.
pub const LINK_LEN_MAX: usize = 16_000;
/// A link inflates to at most this much JSON.
pub const LINK_JSON_MAX: usize = 1 << 20;
/// Run files larger than this are refused unread (a full history is ~40 MB).
pub const RUN_FILE_LEN_MAX: usize = 64 << 20;

/// A run as shared: the scenario, where the playhead stood, and how far the
/// run had gone (past the playhead when the page showed its past).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLink {
    #[serde(flatten)]
    pub scenario: Scenario,
    pub playhead_ms: u64,
    pub end_ms: u64,
}

impl RunLink {
    /// The run `whole` (its end is where it stands) seen at `playhead`.
    pub fn of(whole: &Sim, playhead: Millis) -> RunLink {
        RunLink {
            scenario: whole.scenario(),
            playhead_ms: playhead.ms().min(whole.now().ms()),
            end_ms: whole.now().ms(),
        }
    }

    /// The run replayed to its end. The scenario was checked when read.
    pub fn replay(&self) -> Result<Sim, ScenarioError> {
        Sim::replay(&self.scenario, Millis(self.end_ms))
    }
}

/// What was being read, for the first word of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Link,
    File,
}

/// What is wrong with a link or file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Empty,
    TooLong { len: usize, max: usize },
    NoVersion,
    LinkVersion { found: String },
    NotBase64 { at: usize, found: char },
    CutShort,
    Damaged,
    TooBig,
    NotJson(String),
    NotARun,
    Field(String),
    Scenario(ScenarioError),
}

/// Why a link or file could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRunError {
    pub source: Source,
    pub problem: Problem,
}

impl fmt::Display for ReadRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = match self.source {
            Source::Link => "This link",
            Source::File => "This file",
        };
        match &self.problem {
            Problem::Empty => write!(f, "{this} holds no run."),
            Problem::TooLong { len, max } => write!(
                f,
                "{this} is {len} characters long, over the limit of {max}: it was not read."
            ),
            Problem::NoVersion => write!(
                f,
                "{this} is not a run from this page: it should start with \"v{LINK_VERSION}.\"."
            ),
            Problem::LinkVersion { found } => write!(
                f,
                "{this} was made for version {found} of the page; this page reads version {LINK_VERSION}."
            ),
            Problem::NotBase64 { at, found } => write!(
                f,
                "{this} is damaged: character {} (\"{found}\") cannot appear in a run.",
                at + 1
            ),
            Problem::CutShort => match self.source {
                Source::Link => write!(
                    f,
                    "{this} is cut short: part of the run is missing. Copy the whole link again."
                ),
                Source::File => write!(f, "{this} is cut short: part of the run is missing."),
            },
            Problem::Damaged => write!(f, "{this} is damaged: its run cannot be unpacked."),
            Problem::TooBig => write!(f, "{this} unpacks to more than {} bytes: it was not read.", LINK_JSON_MAX),
            Problem::NotJson(e) => write!(f, "{this} is damaged: its run is not valid JSON ({e})."),
            Problem::NotARun => write!(f, "{this} does not hold a run of this page (settings, commands and times)."),
            Problem::Field(what) => write!(f, "{this} cannot be replayed: {what}."),
            Problem::Scenario(e) => write!(f, "{this} cannot be replayed: {e}."),
        }
    }
}

impl std::error::Error for ReadRunError {}

/// The fragment for `run`, without its `#`.
pub fn encode(run: &RunLink) -> String {
    let json = serde_json::to_vec(run).expect("a run always serializes");
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("v{LINK_VERSION}.{}", base64url(&packed))
}

/// Reads a link's fragment (with or without `#`) and checks that its run
/// replays.
pub fn decode(fragment: &str) -> Result<RunLink, ReadRunError> {
    let fail = |problem| ReadRunError {
        source: Source::Link,
        problem,
    };
    if fragment.len() > LINK_LEN_MAX * 3 {
        return Err(fail(Problem::TooLong {
            len: fragment.chars().count(),
            max: LINK_LEN_MAX,
        }));
    }
    // Browsers percent-encode what does not belong in an address (a space
    // becomes %20); read what the person typed or pasted.
    let decoded = percent_decoded(fragment);
    let text = decoded.strip_prefix('#').unwrap_or(&decoded).trim();
    if text.is_empty() {
        return Err(fail(Problem::Empty));
    }
    if text.len() > LINK_LEN_MAX {
        return Err(fail(Problem::TooLong {
            len: text.chars().count(),
            max: LINK_LEN_MAX,
        }));
    }
    let payload = strip_version(text).map_err(fail)?;
    let packed = unbase64url(payload).map_err(fail)?;
    let json = inflate(&packed).map_err(fail)?;
    read_json(&json, Source::Link)
}

/// A run file: the run's JSON, pretty, with its history for reading.
pub fn to_run_file(run: &RunLink, history: &[Record]) -> String {
    #[derive(Serialize)]
    struct RunFile<'a> {
        #[serde(flatten)]
        run: &'a RunLink,
        history: &'a [Record],
    }
    serde_json::to_string_pretty(&RunFile { run, history }).expect("a run always serializes")
}

/// Reads a run file (its history is not needed: the run replays).
pub fn from_run_file(text: &str) -> Result<RunLink, ReadRunError> {
    if text.len() > RUN_FILE_LEN_MAX {
        return Err(ReadRunError {
            source: Source::File,
            problem: Problem::TooLong {
                len: text.len(),
                max: RUN_FILE_LEN_MAX,
            },
        });
    }
    read_json(text.as_bytes(), Source::File)
}

/// `%XX` sequences turned back into the characters they stand for; any
/// other `%` is kept as it is.
pub fn percent_decoded(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn strip_version(text: &str) -> Result<&str, Problem> {
    let Some((version, payload)) = text.split_once('.') else {
        return Err(Problem::NoVersion);
    };
    let Some(number) = version.strip_prefix('v') else {
        return Err(Problem::NoVersion);
    };
    if number.is_empty() || number.len() > 9 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Problem::NoVersion);
    }
    if number != LINK_VERSION.to_string() {
        return Err(Problem::LinkVersion {
            found: number.to_string(),
        });
    }
    if payload.is_empty() {
        return Err(Problem::CutShort);
    }
    Ok(payload)
}

fn inflate(packed: &[u8]) -> Result<Vec<u8>, Problem> {
    use miniz_oxide::inflate::{decompress_to_vec_with_limit, TINFLStatus};
    decompress_to_vec_with_limit(packed, LINK_JSON_MAX).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => Problem::TooBig,
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => Problem::CutShort,
        _ => Problem::Damaged,
    })
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// URL-safe base64 without padding (RFC 4648 section 5).
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    ALPHABET.iter().position(|&a| a == c).map(|i| i as u32)
}

/// Reads URL-safe base64 without padding; a stray character is named.
pub fn unbase64url(text: &str) -> Result<Vec<u8>, Problem> {
    if let Some((at, found)) = text
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() || sextet(c as u8).is_none())
    {
        return Err(Problem::NotBase64 {
            at: text[..at].chars().count() + strip_len_hint(),
            found,
        });
    }
    if text.len() % 4 == 1 {
        return Err(Problem::CutShort);
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &c)| {
            n | sextet(c).unwrap_or(0) << (18 - 6 * i)
        });
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

/// Characters before the payload ("v1."), so positions count from the
/// start of what the visitor sees after `#`.
fn strip_len_hint() -> usize {
    format!("v{LINK_VERSION}.").len()
}

/// Parses and checks the run's JSON, field by field for clear messages,
/// then checks that it replays.
fn read_json(json: &[u8], source: Source) -> Result<RunLink, ReadRunError> {
    let fail = |problem| ReadRunError { source, problem };
    let value: Value = serde_json::from_slice(json).map_err(|e| {
        fail(match e.classify() {
            serde_json::error::Category::Eof => Problem::CutShort,
            _ => Problem::NotJson(e.to_string()),
        })
    })?;
    check_fields(&value).map_err(fail)?;
    let run: RunLink = serde_json::from_value(value)
        .map_err(|e| fail(Problem::Field(plain_serde(&e.to_string()))))?;
    run.scenario
        .validate()
        .map_err(|e| fail(Problem::Scenario(e)))?;
    if run.playhead_ms > run.end_ms {
        return Err(fail(Problem::Field(format!(
            "its playhead ({}) is after the end of the run ({})",
            Millis(run.playhead_ms),
            Millis(run.end_ms)
        ))));
    }
    run.replay().map_err(|e| fail(Problem::Scenario(e)))?;
    Ok(run)
}

/// The checks a person can follow: versions, backend, times, clients, nodes.
fn check_fields(value: &Value) -> Result<(), Problem> {
    let Some(run) = value.as_object() else {
        return Err(Problem::NotARun);
    };
    match run.get("version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(SCENARIO_VERSION) => {}
        Some(v) => {
            return Err(Problem::Scenario(ScenarioError::Version {
                found: v.min(u64::from(u32::MAX)) as u32,
            }))
        }
        None => return Err(Problem::NotARun),
    }
    let backend = run.get("config").and_then(|c| c.get("backend"));
    match backend.and_then(Value::as_str) {
        Some(slug) if Backend::from_slug(slug).is_some() => {}
        Some(slug) => {
            return Err(Problem::Field(format!(
                "it names the backend \"{}\", and this page knows redlock, zookeeper and etcd",
                clip(slug)
            )))
        }
        None => return Err(Problem::NotARun),
    }
    for key in ["playhead_ms", "end_ms"] {
        check_time(
            run.get(key),
            &format!("its {}", key.trim_end_matches("_ms")),
        )?;
    }
    let Some(actions) = run.get("actions").and_then(Value::as_array) else {
        return Err(Problem::NotARun);
    };
    if actions.len() > SCRIPT_LEN_MAX {
        return Err(Problem::Scenario(ScenarioError::TooLong {
            len: actions.len(),
        }));
    }
    actions
        .iter()
        .enumerate()
        .try_for_each(|(i, a)| check_action(i, a))
}

fn check_time(time: Option<&Value>, what: &str) -> Result<(), Problem> {
    let Some(time) = time else {
        return Err(Problem::Field(format!("{what} time is missing")));
    };
    if time.as_i64().is_some_and(|t| t < 0) || time.as_f64().is_some_and(|t| t < 0.0) {
        return Err(Problem::Field(format!("{what} time is negative")));
    }
    match time.as_u64() {
        Some(t) if t <= SCRIPT_TIME_MS_MAX => Ok(()),
        Some(_) => Err(Problem::Field(format!(
            "{what} time is after the one-day limit"
        ))),
        None => Err(Problem::Field(format!(
            "{what} time is not a whole number of milliseconds"
        ))),
    }
}

fn check_action(index: usize, action: &Value) -> Result<(), Problem> {
    let n = index + 1;
    check_time(action.get("at_ms"), &format!("command {n}'s"))?;
    if let Some(client) = action.get("client") {
        let letter = client.as_str().unwrap_or("?");
        if !matches!(letter, "A" | "B" | "C" | "D") {
            return Err(Problem::Field(format!(
                "command {n} is for client {}, and the clients are A to D",
                clip(letter)
            )));
        }
    }
    if let Some(node) = action.get("node") {
        if !node.as_u64().is_some_and(|k| (1..=5).contains(&k)) {
            return Err(Problem::Field(format!(
                "command {n} is for Redis node {}, and the nodes are 1 to 5",
                clip(&node.to_string())
            )));
        }
    }
    if action.get("client").is_none() && action.get("node").is_none() {
        return Err(Problem::Field(format!(
            "command {n} names no client and no node"
        )));
    }
    if action.get("command").and_then(|c| c.get("do")).is_none() {
        return Err(Problem::Field(format!("command {n} says nothing to do")));
    }
    // Read the command alone: serde then names the value it does not know.
    let command = action.get("command").cloned().unwrap_or(Value::Null);
    let read = if action.get("client").is_some() {
        serde_json::from_value::<Command>(command).map(|_| ())
    } else {
        serde_json::from_value::<NodeCommand>(command).map(|_| ())
    };
    read.map_err(|e| {
        Problem::Field(format!(
            "command {n} cannot be read: {}",
            plain_serde(&e.to_string())
        ))
    })
}

/// At most 24 characters of something read, for a message.
fn clip(text: &str) -> String {
    let clipped: String = text.chars().take(24).collect();
    if clipped.len() < text.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

/// serde's words for a mismatch, made a little plainer.
fn plain_serde(message: &str) -> String {
    let message = message.replace("unknown variant", "unknown value");
    format!("a value does not fit this page ({message})")
}
