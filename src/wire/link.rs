//! A whole run in a link, or in a file: its settings, every command with its
//! time, and the moment the page showed. Replaying it gives the same run.
//!
//! A link's fragment is `v1.` and then the run's JSON in URL-safe base64
//! without padding. A run file is the same JSON with the history added (the
//! core's own record format); reading a file ignores the history and
//! replays the commands. (Deflating the JSON would shorten long links, but
//! a compressor costs the page more bytes than every preset's link saves:
//! the longest is well under 2,000 characters as it is.)
//!
//! Nothing read here is trusted: every way a link or file can be wrong gets
//! a sentence that says what is wrong, and reading never panics.

use super::json::{self, Json, JsonError};
use crate::sim::{
    Action, Backend, ChubbyOptions, ClientId, Command, Config, ConsulOptions, ConsulToken,
    DynamoOptions, ExtendMode, FenceMode, Fencing, KeyCleanup, Millis, NodeCommand, NodeId,
    PartitionScope, Persistence, PgOptions, Record, RedisOptions, ReleaseMode, ReplicaWait,
    RestartPolicy, Scenario, ScenarioError, Seed, Sim, TimedAction, ZkClient, ZkOptions,
    SCENARIO_VERSION, SCRIPT_LEN_MAX, SCRIPT_TIME_MS_MAX,
};

use super::run_json;
use std::fmt;

/// The version written at the start of every link.
pub const LINK_VERSION: u32 = 1;
/// Longer links are refused unread (a script of 1,000 commands fits).
pub const LINK_LEN_MAX: usize = 100_000;
/// Run files larger than this are refused unread (a full history is ~40 MB).
pub const RUN_FILE_LEN_MAX: usize = 64 << 20;

/// A run as shared: the scenario, where the playhead stood, and how far the
/// run had gone (past the playhead when the page showed its past).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLink {
    pub scenario: Scenario,
    pub playhead_ms: u64,
    pub end_ms: u64,
}

impl RunLink {
    /// The run's JSON, with the history's sentences for a file. Written by
    /// hand (`run_json`), byte for byte what serde wrote, without carrying
    /// serde's serializer in the page. A file's history is a sentence per
    /// record: what a reader of the file wants, and writing them needs no
    /// serializer for every kind of event (the structured records are
    /// `Sim::history`'s, natively).
    fn json(&self, history: Option<&[Record]>) -> String {
        run_json::run(
            self.scenario.version,
            &self.scenario.config,
            &self.scenario.actions,
            self.playhead_ms,
            self.end_ms,
            history,
        )
    }
}

impl RunLink {
    /// The run `whole` (its end is where it stands) seen at `playhead`. A
    /// run whose clock went on past one day is kept to that day, the
    /// latest a link holds: its commands all came before it (the core
    /// takes none after), so what it keeps is the whole script.
    pub fn of(whole: &Sim, playhead: Millis) -> RunLink {
        let end_ms = whole.now().ms().min(SCRIPT_TIME_MS_MAX);
        RunLink {
            scenario: whole.scenario(),
            playhead_ms: playhead.ms().min(end_ms),
            end_ms,
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
            Problem::NotJson(e) => write!(f, "{this} is damaged: its run is not valid JSON ({e})."),
            Problem::NotARun => write!(f, "{this} does not hold a run of this page (settings, commands and times)."),
            Problem::Field(what) => write!(f, "{this} cannot be replayed: {what}."),
            Problem::Scenario(e) => write!(f, "{this} cannot be replayed: {}{e}.", scenario_path(e)),
        }
    }
}

impl std::error::Error for ReadRunError {}

/// Where in the run's JSON a scenario's check failed, as "PATH: ".
fn scenario_path(e: &ScenarioError) -> String {
    match e {
        ScenarioError::Json(_) => String::new(),
        ScenarioError::Version { .. } => "version: ".into(),
        ScenarioError::Config(_) => "config: ".into(),
        ScenarioError::TooLong { .. } => "actions: ".into(),
        ScenarioError::TimeTooLate { index } | ScenarioError::OutOfOrder { index } => {
            format!("actions[{index}].at_ms: ")
        }
        ScenarioError::Refused { index, .. } => format!("actions[{index}]: "),
    }
}

/// The fragment for `run`, without its `#`.
pub fn encode(run: &RunLink) -> String {
    format!("v{LINK_VERSION}.{}", base64url(run.json(None).as_bytes()))
}

/// Reads a link's fragment (with or without `#`) and checks that its run
/// replays.
pub fn decode(fragment: &str) -> Result<RunLink, ReadRunError> {
    open_link(fragment).map(|(run, _)| run)
}

/// `decode`, and the run replayed to its end (the check that it replays),
/// for a page that opens it.
pub fn open_link(fragment: &str) -> Result<(RunLink, Sim), ReadRunError> {
    replayed(link_fields(fragment)?, Source::Link)
}

/// `decode` up to the replay: every field read and checked, the run not
/// yet run. The fuzz targets read with it and replay on their own terms.
pub fn link_fields(fragment: &str) -> Result<RunLink, ReadRunError> {
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
    let json = unbase64url(payload).map_err(fail)?;
    let json = std::str::from_utf8(&json).map_err(|_| fail(Problem::Damaged))?;
    read_json(json, Source::Link)
}

/// A run whose fields were read, replayed to its end (the check that it
/// replays).
fn replayed(run: RunLink, source: Source) -> Result<(RunLink, Sim), ReadRunError> {
    let whole = run.replay().map_err(|e| ReadRunError {
        source,
        problem: Problem::Scenario(e),
    })?;
    Ok((run, whole))
}

/// A run file: the run's JSON with its history, a sentence per record.
pub fn to_run_file(run: &RunLink, history: &[Record]) -> String {
    run.json(Some(history))
}

/// Reads a run file (its history is not needed: the run replays).
pub fn from_run_file(text: &str) -> Result<RunLink, ReadRunError> {
    open_run_file(text).map(|(run, _)| run)
}

/// `from_run_file`, and the run replayed to its end.
pub fn open_run_file(text: &str) -> Result<(RunLink, Sim), ReadRunError> {
    replayed(run_file_fields(text)?, Source::File)
}

/// `from_run_file` up to the replay, as `link_fields` for a link.
pub fn run_file_fields(text: &str) -> Result<RunLink, ReadRunError> {
    if text.len() > RUN_FILE_LEN_MAX {
        return Err(ReadRunError {
            source: Source::File,
            problem: Problem::TooLong {
                len: text.len(),
                max: RUN_FILE_LEN_MAX,
            },
        });
    }
    read_json(text, Source::File)
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
fn read_json(json: &str, source: Source) -> Result<RunLink, ReadRunError> {
    let fail = |problem| ReadRunError { source, problem };
    let value = json::parse(json).map_err(|e| {
        fail(match e {
            JsonError::CutShort => Problem::CutShort,
            e => Problem::NotJson(e.to_string()),
        })
    })?;
    check_fields(&value).map_err(fail)?;
    let run = run_of(&value).map_err(fail)?;
    run.scenario
        .validate()
        .map_err(|e| fail(Problem::Scenario(e)))?;
    if run.playhead_ms > run.end_ms {
        return Err(fail(Problem::Field(format!(
            "playhead_ms: its playhead ({}) is after the end of the run ({})",
            Millis(run.playhead_ms),
            Millis(run.end_ms)
        ))));
    }
    Ok(run)
}

/// The checks a person can follow: versions, backend, times, clients, nodes.
fn check_fields(run: &Json) -> Result<(), Problem> {
    if !run.is_object() {
        return Err(Problem::NotARun);
    }
    match run.get("version").and_then(Json::as_u64) {
        Some(v) if v == u64::from(SCENARIO_VERSION) => {}
        Some(v) => {
            let found = v.min(u64::from(u32::MAX)) as u32;
            return Err(Problem::Scenario(ScenarioError::Version { found }));
        }
        None => return Err(Problem::NotARun),
    }
    let backend = run.get("config").and_then(|c| c.get("backend"));
    match backend.and_then(Json::as_str) {
        Some(slug) if Backend::from_slug(slug).is_some() => {}
        Some(slug) => {
            let known: Vec<&str> = Backend::ALL.iter().map(|b| b.slug()).collect();
            return Err(Problem::Field(format!(
                "config.backend: it names the backend \"{}\", and this page knows {}",
                clip(slug),
                known.join(", ")
            )));
        }
        None => return Err(Problem::NotARun),
    }
    for key in ["playhead_ms", "end_ms"] {
        time_of(
            run.get(key),
            &format!("{key}: its {}", key.trim_end_matches("_ms")),
        )?;
    }
    let Some(actions) = run.get("actions").and_then(Json::as_array) else {
        return Err(Problem::NotARun);
    };
    if actions.len() > SCRIPT_LEN_MAX {
        return Err(Problem::Scenario(ScenarioError::TooLong {
            len: actions.len(),
        }));
    }
    Ok(())
}

/// A time in milliseconds: present, whole, not negative, within a day.
fn time_of(time: Option<&Json>, what: &str) -> Result<u64, Problem> {
    let Some(time) = time else {
        return Err(Problem::Field(format!("{what} time is missing")));
    };
    if time.is_negative() {
        return Err(Problem::Field(format!("{what} time is negative")));
    }
    match time.as_u64() {
        Some(t) if t <= SCRIPT_TIME_MS_MAX => Ok(t),
        Some(_) => Err(Problem::Field(format!(
            "{what} time is after the one-day limit"
        ))),
        None if time.is_number()
            && time.as_i64().is_none()
            && !time.to_text().contains(['.', 'e', 'E']) =>
        {
            Err(Problem::Field(format!(
                "{what} time is after the one-day limit"
            )))
        }
        None => Err(Problem::Field(format!(
            "{what} time is not a whole number of milliseconds"
        ))),
    }
}

fn run_of(value: &Json) -> Result<RunLink, Problem> {
    let config = config_of(value.get("config").unwrap_or(&Json::Null))?;
    let actions = value
        .get("actions")
        .and_then(Json::as_array)
        .unwrap_or_default();
    let actions = actions
        .iter()
        .enumerate()
        .map(|(i, a)| action_of(i + 1, a))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RunLink {
        scenario: Scenario {
            version: SCENARIO_VERSION,
            config,
            actions,
        },
        playhead_ms: time_of(value.get("playhead_ms"), "playhead_ms: its playhead")?,
        end_ms: time_of(value.get("end_ms"), "end_ms: its end")?,
    })
}

/// One of the names in `table`, or a message naming what was found.
fn pick<T: Copy>(what: &str, found: Option<&Json>, table: &[(&str, T)]) -> Result<T, Problem> {
    let name = found.and_then(Json::as_str);
    if let Some(&(_, value)) = table.iter().find(|(n, _)| Some(*n) == name) {
        return Ok(value);
    }
    let known: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
    let found = found.map_or("nothing".to_string(), |f| clip(&f.to_text()));
    Err(Problem::Field(format!(
        "{what} is {found}, and this page knows {}",
        known.join(", ")
    )))
}

fn number_of(what: &str, found: Option<&Json>) -> Result<u64, Problem> {
    found
        .and_then(Json::as_u64)
        .ok_or_else(|| Problem::Field(format!("{what} is not a whole number from 0 up")))
}

fn config_of(c: &Json) -> Result<Config, Problem> {
    let renewal = c
        .get("renewal")
        .and_then(Json::as_array)
        .unwrap_or_default();
    let renewal: Vec<bool> = renewal.iter().filter_map(Json::as_bool).collect();
    let renewal: [bool; 4] = renewal.try_into().map_err(|_| {
        Problem::Field(
            "config.renewal: its renewal setting is not four true or false values, one per client"
                .into(),
        )
    })?;
    let latency = number_of(
        "config.latency_scale: its latency scale",
        c.get("latency_scale"),
    )?;
    let mut config = Config {
        backend: pick(
            "config.backend: its backend",
            c.get("backend"),
            &Backend::ALL.map(|b| (b.slug(), b)),
        )?,
        fencing: pick(
            "config.fencing: its fencing",
            c.get("fencing"),
            &[("on", Fencing::On), ("off", Fencing::Off)],
        )?,
        ttl_ms: number_of("config.ttl_ms: its TTL", c.get("ttl_ms"))?,
        seed: Seed(number_of("config.seed: its seed", c.get("seed"))?),
        latency_scale: u32::try_from(latency).unwrap_or(u32::MAX),
        // Links made before the setting say nothing of it: no round trip
        // added, as they ran.
        network_rtt_ms: match c.get("network_rtt_ms") {
            None => 0,
            found => {
                let rtt = number_of("config.network_rtt_ms: its network round trip", found)?;
                u32::try_from(rtt).unwrap_or(u32::MAX)
            }
        },
        renewal,
        redis: match c.get("redis") {
            Some(r) => redis_of(r)?,
            None => RedisOptions::default(),
        },
        zk: match c.get("zk") {
            Some(z) => zk_of(z)?,
            None => ZkOptions::default(),
        },
        chubby: match c.get("chubby") {
            Some(ch) => chubby_of(ch)?,
            None => ChubbyOptions::default(),
        },
        dynamo: match c.get("dynamo") {
            Some(d) => dynamo_of(d)?,
            None => DynamoOptions::default(),
        },
        consul: match c.get("consul") {
            Some(o) => consul_of(o)?,
            None => ConsulOptions::default(),
        },
        // Every link written since the option names it; one without it
        // ran with the tuned values, the default then.
        pg: match c.get("pg") {
            Some(p) => pg_of(p)?,
            None => PgOptions::TUNED,
        },
        fence: FenceMode::Documented,
    };
    config.fence = fence_of(c, &config)?;
    Ok(config)
}

/// The fencing mode: `fence` where a link names it (one the system lacks
/// runs as its documented mode, as the core does for any such setting);
/// else the system's documented mode, or for a link made while new holders
/// could announce their tokens (`"announce": "on"`), takeover fencing,
/// which is what that option did wherever the resource ordered tokens.
fn fence_of(c: &Json, config: &Config) -> Result<FenceMode, Problem> {
    let table = [
        FenceMode::Documented,
        FenceMode::Highest,
        FenceMode::Check,
        FenceMode::Takeover,
        FenceMode::Version,
    ];
    let mode = match (c.get("fence"), c.get("announce")) {
        (Some(found), _) => pick(
            "config.fence: its fencing mode",
            Some(found),
            &table.map(|m| (m.word(), m)),
        )?,
        (None, None) => FenceMode::Documented,
        (None, found) => {
            let on = pick(
                "config.announce: its token announcement",
                found,
                &[("on", true), ("off", false)],
            )?;
            let ordered = config.backend.fence_rule_in(config) == crate::sim::FenceRule::Highest;
            if on && ordered {
                FenceMode::Takeover
            } else {
                FenceMode::Documented
            }
        }
    };
    Ok(mode)
}

fn chubby_of(c: &Json) -> Result<ChubbyOptions, Problem> {
    Ok(ChubbyOptions {
        lock_delay_ms: number_of(
            "config.chubby.lock_delay_ms: its Chubby lock-delay",
            c.get("lock_delay_ms"),
        )?,
    })
}
fn dynamo_of(d: &Json) -> Result<DynamoOptions, Problem> {
    let per_lease = number_of(
        "config.dynamo.heartbeats_per_lease: its DynamoDB heartbeats per lease",
        d.get("heartbeats_per_lease"),
    )?;
    let pct = number_of(
        "config.dynamo.extra_wait_pct: its DynamoDB extra wait",
        d.get("extra_wait_pct"),
    )?;
    // Out-of-range values are refused with the ranges by Config::validate.
    Ok(DynamoOptions {
        heartbeats_per_lease: u32::try_from(per_lease).unwrap_or(u32::MAX),
        extra_wait_pct: u32::try_from(pct).unwrap_or(u32::MAX),
        // Runs from before the option had the check: absent means on.
        app_checks_expiry: match d.get("app_checks_expiry") {
            None => true,
            Some(on) => on.as_bool().ok_or_else(|| {
                Problem::Field("config.dynamo.app_checks_expiry: its DynamoDB app_checks_expiry setting is not true or false".into())
            })?,
        },
        // Absent means off: runs from before the option had none.
        session_monitor: match d.get("session_monitor") {
            None => false,
            Some(on) => on.as_bool().ok_or_else(|| {
                Problem::Field("config.dynamo.session_monitor: its DynamoDB session_monitor setting is not true or false".into())
            })?,
        },
    })
}
fn consul_of(o: &Json) -> Result<ConsulOptions, Problem> {
    Ok(ConsulOptions {
        token: pick(
            "config.consul.token: its Consul token",
            o.get("token"),
            &CONSUL_TOKEN_WORDS,
        )?,
        cleanup: pick(
            "config.consul.cleanup: its Consul key cleanup",
            o.get("cleanup"),
            &CLEANUP_WORDS,
        )?,
        lock_delay_s: number_of(
            "config.consul.lock_delay_s: its Consul lock-delay",
            o.get("lock_delay_s"),
        )?,
        // Links made before the setting say nothing of it: 0, as they ran.
        // Out of range is refused with the range by Config::validate.
        monitor_retries: match o.get("monitor_retries") {
            None => 0,
            found => {
                let n = number_of(
                    "config.consul.monitor_retries: its Consul monitor retries",
                    found,
                )?;
                u32::try_from(n).unwrap_or(u32::MAX)
            }
        },
    })
}
/// PostgreSQL's keepalive settings; their ranges are checked with the rest.
fn pg_of(p: &Json) -> Result<PgOptions, Problem> {
    Ok(PgOptions {
        keepalives_idle_s: number_of(
            "config.pg.keepalives_idle_s: its PostgreSQL tcp_keepalives_idle",
            p.get("keepalives_idle_s"),
        )?,
        keepalives_interval_s: number_of(
            "config.pg.keepalives_interval_s: its PostgreSQL tcp_keepalives_interval",
            p.get("keepalives_interval_s"),
        )?,
        keepalives_count: number_of(
            "config.pg.keepalives_count: its PostgreSQL tcp_keepalives_count",
            p.get("keepalives_count"),
        )?,
    })
}

fn zk_of(z: &Json) -> Result<ZkOptions, Problem> {
    Ok(ZkOptions {
        tick_ms: number_of(
            "config.zk.tick_ms: its ZooKeeper tickTime",
            z.get("tick_ms"),
        )?,
        client: pick(
            "config.zk.client: its ZooKeeper client",
            z.get("client"),
            &ZK_CLIENT_WORDS,
        )?,
    })
}

fn redis_of(r: &Json) -> Result<RedisOptions, Problem> {
    Ok(RedisOptions {
        release: pick(
            "config.redis.release: its Redis release",
            r.get("release"),
            &RELEASE_WORDS,
        )?,
        extend: pick(
            "config.redis.extend: its Redis extension",
            r.get("extend"),
            &EXTEND_WORDS,
        )?,
        persistence: pick(
            "config.redis.persistence: its Redis persistence",
            r.get("persistence"),
            &PERSISTENCE_WORDS,
        )?,
        restart: pick(
            "config.redis.restart: its Redis restart",
            r.get("restart"),
            &RESTART_WORDS,
        )?,
        wait: replica_wait_of(r)?,
    })
}

/// The single-Redis wait: `"wait"` names it; a link from before the
/// choice wrote `"wait_replica": true`, the application's `WAIT 1`.
fn replica_wait_of(r: &Json) -> Result<ReplicaWait, Problem> {
    match (r.get("wait"), r.get("wait_replica")) {
        (Some(_), Some(_)) => Err(Problem::Field(
            "config.redis: its Redis options name the WAIT twice (wait and wait_replica)".into(),
        )),
        (found @ Some(_), None) => pick(
            "config.redis.wait: its Redis WAIT",
            found,
            &ReplicaWait::ALL.map(|w| (w.slug(), w)),
        ),
        (None, Some(old)) => match old.as_bool() {
            Some(true) => Ok(ReplicaWait::AppWait1),
            Some(false) => Ok(ReplicaWait::Off),
            None => Err(Problem::Field(
                "config.redis.wait_replica: its Redis wait_replica setting is not true or false"
                    .into(),
            )),
        },
        (None, None) => Ok(ReplicaWait::Off),
    }
}

fn action_of(n: usize, a: &Json) -> Result<TimedAction, Problem> {
    let at_ms = time_of(
        a.get("at_ms"),
        &format!("actions[{}].at_ms: command {n}'s", n - 1),
    )?;
    let command = a.get("command");
    if command.and_then(|c| c.get("do")).is_none() {
        if a.get("client").is_none() && a.get("node").is_none() {
            return Err(Problem::Field(format!(
                "actions[{}]: command {n} names no client and no node",
                n - 1
            )));
        }
        return Err(Problem::Field(format!(
            "actions[{}].command.do: command {n} says nothing to do",
            n - 1
        )));
    }
    let command = command.unwrap_or(&Json::Null);
    let action = match (a.get("client"), a.get("node")) {
        (Some(client), _) => Action::Client {
            client: client_of(n, client)?,
            command: command_of(n, command)?,
        },
        (None, Some(node)) => Action::Node {
            node: node_of(n, node)?,
            command: node_command_of(n, command)?,
        },
        (None, None) => {
            return Err(Problem::Field(format!(
                "actions[{}]: command {n} names no client and no node",
                n - 1
            )))
        }
    };
    Ok(TimedAction {
        at: Millis(at_ms),
        action,
    })
}

fn client_of(n: usize, client: &Json) -> Result<ClientId, Problem> {
    let letter = client.as_str().unwrap_or("?");
    let mut chars = letter.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => ClientId::from_letter(c),
        _ => None,
    }
    .ok_or_else(|| {
        Problem::Field(format!(
            "actions[{}].client: command {n} is for client {}, and the clients are A to D",
            n - 1,
            clip(letter)
        ))
    })
}

fn node_of(n: usize, node: &Json) -> Result<NodeId, Problem> {
    node.as_u64()
        .and_then(|k| u8::try_from(k).ok())
        .and_then(NodeId::new)
        .ok_or_else(|| {
            Problem::Field(format!(
                "actions[{}].node: command {n} is for Redis node {}, and the nodes are 1 to 5",
                n - 1,
                clip(&node.to_text())
            ))
        })
}

fn command_of(n: usize, c: &Json) -> Result<Command, Problem> {
    let at = format!("actions[{}].command", n - 1);
    let what = format!("command {n}'s");
    let ms = |key: &str| number_of(&format!("{at}.{key}: {what} {key}"), c.get(key));
    let name = c.get("do").and_then(Json::as_str).unwrap_or_default();
    Ok(match name {
        "acquire" => Command::Acquire,
        "write" => Command::Write,
        "write-delayed" => Command::WriteDelayed {
            extra_ms: ms("extra_ms")?,
        },
        "release" => Command::Release,
        "gc-pause" => Command::GcPause {
            pause_ms: ms("pause_ms")?,
        },
        "partition" => Command::Partition {
            scope: pick(
                &format!("{at}.scope: {what} partition scope"),
                c.get("scope"),
                &[
                    ("service", PartitionScope::Service),
                    ("service-and-resource", PartitionScope::ServiceAndResource),
                ],
            )?,
        },
        "heal" => Command::Heal,
        // "crash" meant the host dying before process exits were told
        // apart, and still does: old links replay as they ran.
        "crash" => Command::PowerOff,
        "exit" => Command::Exit,
        "restart" => Command::Restart,
        "renewal" => Command::Renewal {
            on: c.get("on").and_then(Json::as_bool).ok_or_else(|| {
                Problem::Field(format!(
                    "{at}.on: command {n} turns renewal neither on nor off"
                ))
            })?,
        },
        "lose-messages" => Command::LoseMessages {
            on: c.get("on").and_then(Json::as_bool).ok_or_else(|| {
                Problem::Field(format!(
                    "{at}.on: command {n} turns losing messages neither on nor off"
                ))
            })?,
        },
        "clock-jump" => Command::ClockJump {
            jump_ms: c.get("jump_ms").and_then(Json::as_i64).ok_or_else(|| {
                Problem::Field(format!(
                    "{at}.jump_ms: command {n}'s clock jump is not a whole number of milliseconds"
                ))
            })?,
        },
        "clock-rate" => Command::ClockRate {
            rate_pct: c
                .get("rate_pct")
                .and_then(Json::as_i64)
                .and_then(|r| i32::try_from(r).ok())
                .ok_or_else(|| {
                    Problem::Field(format!(
                        "{at}.rate_pct: command {n}'s clock rate is not a whole number of percent"
                    ))
                })?,
        },
        _ => return Err(unknown_command(n, c)),
    })
}

fn node_command_of(n: usize, c: &Json) -> Result<NodeCommand, Problem> {
    let name = c.get("do").and_then(Json::as_str).unwrap_or_default();
    Ok(match name {
        "crash" => NodeCommand::Crash,
        "restart" => NodeCommand::Restart,
        "failover" => NodeCommand::Failover,
        "clock-jump" => NodeCommand::ClockJump {
            jump_ms: c.get("jump_ms").and_then(Json::as_i64).ok_or_else(|| {
                Problem::Field(format!(
                    "actions[{}].command.jump_ms: command {n}'s clock jump is not a whole number of milliseconds",
                    n - 1
                ))
            })?,
        },
        "slow" => NodeCommand::Slow {
            extra_ms: number_of(
                &format!("actions[{}].command.extra_ms: command {n}'s extra_ms", n - 1),
                c.get("extra_ms"),
            )?,
        },
        _ => return Err(unknown_command(n, c)),
    })
}

fn unknown_command(n: usize, c: &Json) -> Problem {
    let found = c
        .get("do")
        .map_or("nothing".to_string(), |d| clip(&d.to_text()));
    Problem::Field(format!(
        "actions[{}].command.do: command {n} asks for {found}, which this page does not know",
        n - 1
    ))
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

/// A TTL as the address writes it: seconds, with a decimal where needed.
fn seconds(ms: u64) -> String {
    let s = ms / 1_000;
    match ms % 1_000 {
        0 => s.to_string(),
        rest => format!("{s}.{rest:03}").trim_end_matches('0').to_string(),
    }
}

/// The words an address and a run's JSON give each system's choices.
pub const RELEASE_WORDS: [(&str, ReleaseMode); 2] = [
    ("check-value", ReleaseMode::CheckValue),
    ("plain-del", ReleaseMode::PlainDel),
];
pub const EXTEND_WORDS: [(&str, ExtendMode); 2] = [
    ("check-value", ExtendMode::CheckValue),
    ("blind-set", ExtendMode::BlindSet),
];
pub const PERSISTENCE_WORDS: [(&str, Persistence); 2] =
    [("fsync", Persistence::Fsync), ("none", Persistence::None)];
pub const RESTART_WORDS: [(&str, RestartPolicy); 2] = [
    ("immediate", RestartPolicy::Immediate),
    ("delayed", RestartPolicy::Delayed),
];
pub const ZK_CLIENT_WORDS: [(&str, ZkClient); 2] =
    [("curator", ZkClient::Curator), ("native", ZkClient::Native)];
pub const CONSUL_TOKEN_WORDS: [(&str, ConsulToken); 3] = [
    ("modify-index", ConsulToken::ModifyIndex),
    ("lock-index", ConsulToken::LockIndex),
    ("sequencer", ConsulToken::Sequencer),
];
pub const CLEANUP_WORDS: [(&str, KeyCleanup); 2] =
    [("keep", KeyCleanup::Keep), ("delete", KeyCleanup::Delete)];

/// The word `table` gives `value`.
fn word_of<T: PartialEq>(table: &[(&'static str, T)], value: &T) -> &'static str {
    table
        .iter()
        .find(|(_, v)| v == value)
        .map_or("", |(word, _)| word)
}

/// The keys of the comparison's settings in an address: the table's own,
/// then each system's options (its name first: `pg-keepalives-idle`), in
/// the order `table_query` writes them.
pub const TABLE_KEYS: [&str; 24] = [
    "ttl",
    "scale",
    "rtt",
    "seed",
    "fence",
    "redis-release",
    "redis-extend",
    "redis-persistence",
    "redis-restart",
    "redis-wait",
    "zk-tick-ms",
    "zk-client",
    "chubby-lock-delay",
    "consul-lock-delay",
    "consul-retries",
    "consul-token",
    "consul-cleanup",
    "dynamo-heartbeats",
    "dynamo-extra-wait",
    "dynamo-checks-expiry",
    "dynamo-session-monitor",
    "pg-keepalives-idle",
    "pg-keepalives-interval",
    "pg-keepalives-count",
];

/// The comparison's settings (`tools::compare::address`) as a query
/// string: the TTL always, the latency, seed and fencing mode where they
/// differ from the page's defaults (`ttl=10&scale=1&rtt=2`), then every
/// system's options that differ from them (`&pg-keepalives-idle=10`).
/// Here, with the links, since the page writes it into its address and
/// the worker into each cell's.
pub fn table_query(base: &Config) -> String {
    let mut q = settings_query(base);
    for backend in Backend::ALL {
        // Redis and Redlock share their options: once.
        if backend != Backend::Redlock {
            q.push_str(&options_query(base, backend));
        }
    }
    q
}

/// The table's own settings in a query string, without any system's
/// options (`ttl=10&scale=1&rtt=2`).
pub fn settings_query(base: &Config) -> String {
    let d = Config::default();
    let mut q = format!("ttl={}", seconds(base.ttl_ms));
    if base.latency_scale != d.latency_scale {
        q.push_str(&format!("&scale={}", base.latency_scale));
    }
    if base.network_rtt_ms != d.network_rtt_ms {
        q.push_str(&format!("&rtt={}", base.network_rtt_ms));
    }
    if base.seed != d.seed {
        q.push_str(&format!("&seed={}", base.seed.0));
    }
    if !base.fence.is_documented() {
        q.push_str(&format!("&fence={}", base.fence.word()));
    }
    q
}

/// `backend`'s options where they differ from the page's defaults, each
/// `&key=value` (`&chubby-lock-delay=20`); empty at the defaults, or for
/// a system without options. Durations in seconds, as the system's own
/// settings give them, but ZooKeeper's tickTime, which is in ms.
pub fn options_query(base: &Config, backend: Backend) -> String {
    let d = Config::default();
    let mut q = String::new();
    let mut pair = |key: &str, differs: bool, value: String| {
        if differs {
            q.push_str(&format!("&{key}={value}"));
        }
    };
    let on_off = |on: bool| if on { "on" } else { "off" }.to_string();
    match backend {
        Backend::Redis | Backend::Redlock => {
            let (r, dr) = (&base.redis, &d.redis);
            pair(
                "redis-release",
                r.release != dr.release,
                word_of(&RELEASE_WORDS, &r.release).into(),
            );
            pair(
                "redis-extend",
                r.extend != dr.extend,
                word_of(&EXTEND_WORDS, &r.extend).into(),
            );
            pair(
                "redis-persistence",
                r.persistence != dr.persistence,
                word_of(&PERSISTENCE_WORDS, &r.persistence).into(),
            );
            pair(
                "redis-restart",
                r.restart != dr.restart,
                word_of(&RESTART_WORDS, &r.restart).into(),
            );
            pair("redis-wait", r.wait != dr.wait, r.wait.slug().into());
        }
        Backend::ZooKeeper => {
            let (z, dz) = (&base.zk, &d.zk);
            pair("zk-tick-ms", z.tick_ms != dz.tick_ms, z.tick_ms.to_string());
            pair(
                "zk-client",
                z.client != dz.client,
                word_of(&ZK_CLIENT_WORDS, &z.client).into(),
            );
        }
        Backend::Chubby => pair(
            "chubby-lock-delay",
            base.chubby != d.chubby,
            seconds(base.chubby.lock_delay_ms),
        ),
        Backend::DynamoDb => {
            let (o, od) = (&base.dynamo, &d.dynamo);
            pair(
                "dynamo-heartbeats",
                o.heartbeats_per_lease != od.heartbeats_per_lease,
                o.heartbeats_per_lease.to_string(),
            );
            pair(
                "dynamo-extra-wait",
                o.extra_wait_pct != od.extra_wait_pct,
                o.extra_wait_pct.to_string(),
            );
            pair(
                "dynamo-checks-expiry",
                o.app_checks_expiry != od.app_checks_expiry,
                on_off(o.app_checks_expiry),
            );
            pair(
                "dynamo-session-monitor",
                o.session_monitor != od.session_monitor,
                on_off(o.session_monitor),
            );
        }
        Backend::Consul => {
            let (o, od) = (&base.consul, &d.consul);
            pair(
                "consul-lock-delay",
                o.lock_delay_s != od.lock_delay_s,
                o.lock_delay_s.to_string(),
            );
            pair(
                "consul-retries",
                o.monitor_retries != od.monitor_retries,
                o.monitor_retries.to_string(),
            );
            pair(
                "consul-token",
                o.token != od.token,
                word_of(&CONSUL_TOKEN_WORDS, &o.token).into(),
            );
            pair(
                "consul-cleanup",
                o.cleanup != od.cleanup,
                word_of(&CLEANUP_WORDS, &o.cleanup).into(),
            );
        }
        Backend::Postgres => {
            let (p, dp) = (&base.pg, &d.pg);
            pair(
                "pg-keepalives-idle",
                p.keepalives_idle_s != dp.keepalives_idle_s,
                p.keepalives_idle_s.to_string(),
            );
            pair(
                "pg-keepalives-interval",
                p.keepalives_interval_s != dp.keepalives_interval_s,
                p.keepalives_interval_s.to_string(),
            );
            pair(
                "pg-keepalives-count",
                p.keepalives_count != dp.keepalives_count,
                p.keepalives_count.to_string(),
            );
        }
        // etcd, or a new system, without options of its own.
        _ => {}
    }
    q
}
