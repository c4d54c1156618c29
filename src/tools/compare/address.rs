//! The comparison in an address: the table's settings
//! (`?view=compare&ttl=10&scale=1&rtt=2`), each system's options the
//! visitor set (`&pg-keepalives-idle=10&chubby-lock-delay=20`), and one
//! cell's run as its story, system, settings and that system's options
//! (`?cell=gc-pause&system=redis&fencing=on&ttl=10`), short enough for a
//! line of a design document. Opening a cell's address runs the cell
//! again: the same script, the same seed, the same run as the table's (a
//! test checks every cell's fingerprint).
//!
//! Each setting is left out at the page's default but the TTL.

use super::{run_at, Column, Setting, COLUMNS, VARIANTS};
use crate::sim::{Backend, Config, FenceMode, Fencing, Seed};
pub use crate::wire::link::table_query;
use crate::wire::link::{
    options_query, settings_query, CLEANUP_WORDS, CONSUL_TOKEN_WORDS, EXTEND_WORDS,
    PERSISTENCE_WORDS, RELEASE_WORDS, RESTART_WORDS, TABLE_KEYS, ZK_CLIENT_WORDS,
};

/// The key that names a cell's run in an address.
pub const CELL_KEY: &str = "cell";

/// One run of a cell, as its address names it.
#[derive(Debug, Clone, Copy)]
pub struct CellRef {
    pub column: &'static Column,
    pub backend: Backend,
    pub fencing: Fencing,
    /// A tuned setting's run; `None`: the run at the real defaults.
    pub setting: Option<&'static Setting>,
    /// The write time's number, from 0, in a column that runs several.
    pub write: Option<usize>,
}

/// Whether a query string carries any of the table's settings.
pub fn has_table_settings(query: &str) -> bool {
    pairs(query).any(|(k, _)| TABLE_KEYS.contains(&k))
}

/// The table's settings in a query string, as they stand there
/// (`ttl=12&fence=takeover`), the page's other keys left out.
pub fn table_settings(query: &str) -> String {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| TABLE_KEYS.contains(&p.split_once('=').map_or(*p, |(k, _)| k)))
        .collect::<Vec<_>>()
        .join("&")
}

fn pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// Reads a TTL in seconds ("10", "2.5") into milliseconds.
fn read_seconds(text: &str) -> Option<u64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty()
        || frac.len() > 3
        || !(whole.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let frac: u64 = format!("{frac:0<3}").parse().ok()?;
    whole.checked_mul(1_000)?.checked_add(frac)
}

/// The table's settings read from a query string (other keys are the
/// page's own and are passed over), checked as the simulator checks them;
/// or what is wrong, naming the field.
pub fn read_table(query: &str) -> Result<Config, String> {
    let mut c = Config::default();
    for (key, value) in pairs(query) {
        let number = || value.parse::<u64>().ok();
        let whole = |example: &str| {
            number().ok_or_else(|| {
                format!("The address's {key} is \"{value}\": give a whole number, such as {key}={example}.")
            })
        };
        let small = |example: &str| whole(example).map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let seconds = || {
            read_seconds(value).ok_or_else(|| {
                format!("The address's {key} is \"{value}\": give seconds, such as {key}=10 or {key}=2.5.")
            })
        };
        let on_off = || match value {
            "on" => Ok(true),
            "off" => Ok(false),
            _ => Err(format!("The address's {key} is \"{value}\": on or off.")),
        };
        match key {
            "ttl" => c.ttl_ms = seconds()?,
            "scale" => c.latency_scale = small("10")?,
            "rtt" => {
                c.network_rtt_ms = number().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| {
                    format!("The address's rtt is \"{value}\": give milliseconds, such as rtt=70.")
                })?
            }
            "seed" => {
                c.seed = Seed(number().ok_or_else(|| {
                    format!("The address's seed is \"{value}\": give a whole number.")
                })?)
            }
            "fence" => {
                c.fence = std::iter::once(FenceMode::Documented)
                    .chain(FenceMode::ALL)
                    .find(|m| m.word() == value)
                    .ok_or_else(|| {
                        format!("The address's fence is \"{value}\": give documented, highest, check, takeover or version.")
                    })?
            }
            "redis-release" => c.redis.release = word(key, value, &RELEASE_WORDS)?,
            "redis-extend" => c.redis.extend = word(key, value, &EXTEND_WORDS)?,
            "redis-persistence" => c.redis.persistence = word(key, value, &PERSISTENCE_WORDS)?,
            "redis-restart" => c.redis.restart = word(key, value, &RESTART_WORDS)?,
            "redis-wait" => {
                c.redis.wait = word(
                    key,
                    value,
                    &crate::sim::ReplicaWait::ALL.map(|w| (w.slug(), w)),
                )?
            }
            "zk-tick-ms" => c.zk.tick_ms = whole("2000")?,
            "zk-client" => c.zk.client = word(key, value, &ZK_CLIENT_WORDS)?,
            "chubby-lock-delay" => c.chubby.lock_delay_ms = seconds()?,
            "dynamo-heartbeats" => c.dynamo.heartbeats_per_lease = small("4")?,
            "dynamo-extra-wait" => c.dynamo.extra_wait_pct = small("5")?,
            "dynamo-checks-expiry" => c.dynamo.app_checks_expiry = on_off()?,
            "dynamo-session-monitor" => c.dynamo.session_monitor = on_off()?,
            "consul-lock-delay" => c.consul.lock_delay_s = whole("15")?,
            "consul-retries" => c.consul.monitor_retries = small("3")?,
            "consul-token" => c.consul.token = word(key, value, &CONSUL_TOKEN_WORDS)?,
            "consul-cleanup" => c.consul.cleanup = word(key, value, &CLEANUP_WORDS)?,
            "pg-keepalives-idle" => c.pg.keepalives_idle_s = whole("10")?,
            "pg-keepalives-interval" => c.pg.keepalives_interval_s = whole("5")?,
            "pg-keepalives-count" => c.pg.keepalives_count = whole("3")?,
            _ => {}
        }
    }
    c.validate()
        .map_err(|e| format!("The address's settings cannot run: {e}."))?;
    Ok(c)
}

/// One of a system's named choices, read by its word, or what is wrong,
/// naming the words it takes.
fn word<T: Copy>(key: &str, value: &str, table: &[(&'static str, T)]) -> Result<T, String> {
    table
        .iter()
        .find(|(w, _)| *w == value)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let words: Vec<&str> = table.iter().map(|(w, _)| *w).collect();
            format!(
                "The address's {key} is \"{value}\": give {}.",
                words.join(" or ")
            )
        })
}

/// A cell's run as a query string (without `?`): its story, system and
/// fencing, the table's settings, its system's options where the visitor
/// set them, and the tuned setting and write time it ran at.
pub fn cell_query(base: &Config, cell: &CellRef) -> String {
    let mut q = format!(
        "{CELL_KEY}={}&system={}",
        cell.column.id,
        cell.backend.slug()
    );
    if cell.column.fenced {
        q.push_str(if cell.fencing.is_on() {
            "&fencing=on"
        } else {
            "&fencing=off"
        });
    }
    q.push('&');
    q.push_str(&settings_query(base));
    q.push_str(&options_query(base, cell.backend));
    if let Some(s) = cell.setting {
        q.push_str(&format!("&setting={}", s.id));
    }
    if let Some(w) = cell.write {
        q.push_str(&format!("&write={}", w + 1));
    }
    q
}

/// Reads a cell's address back: the table's settings and the cell, or
/// what is wrong with it, naming the field.
pub fn read_cell(query: &str) -> Result<(Config, CellRef), String> {
    let base = read_table(query)?;
    let get = |key: &str| pairs(query).find(|(k, _)| *k == key).map(|(_, v)| v);
    let id = get(CELL_KEY).unwrap_or_default();
    let column = COLUMNS.iter().find(|c| c.id == id).ok_or_else(|| {
        let ids: Vec<&str> = COLUMNS.iter().map(|c| c.id).collect();
        format!(
            "The address asks for the comparison's story \"{id}\", which it does not have: one of {}.",
            ids.join(", ")
        )
    })?;
    let slug = get("system").unwrap_or_default();
    let backend = Backend::from_slug(slug).ok_or_else(|| {
        let slugs: Vec<&str> = Backend::ALL.iter().map(|b| b.slug()).collect();
        format!(
            "The address's system is \"{slug}\": one of {}.",
            slugs.join(", ")
        )
    })?;
    let fencing = match get("fencing") {
        None | Some("off") => Fencing::Off,
        Some("on") if column.fenced => Fencing::On,
        Some("on") => {
            return Err(format!(
                "The comparison runs {} with fencing off only: fencing plays no part in it.",
                column.title
            ))
        }
        Some(other) => return Err(format!("The address's fencing is \"{other}\": on or off.")),
    };
    let setting = match get("setting") {
        None => None,
        Some(id) if super::own_options(&base, backend) => {
            return Err(format!(
                "The address sets {}'s options and asks for the tuned setting \"{id}\" too: the comparison runs a system at your options alone.",
                backend.name()
            ))
        }
        Some(id) => Some(
            VARIANTS
                .iter()
                .find(|s| s.id == id && s.applies(column.id, backend))
                .ok_or_else(|| {
                    format!(
                        "The address's setting \"{id}\" is not one the comparison runs for {} on {}.",
                        column.title,
                        backend.name()
                    )
                })?,
        ),
    };
    let writes = super::write_times(column.id);
    let write = match get("write") {
        None => None,
        Some(n) => Some(
            n.parse::<usize>()
                .ok()
                .filter(|&n| (1..=writes).contains(&n))
                .map(|n| n - 1)
                .ok_or_else(|| {
                    if writes <= 1 {
                        format!("{} runs A's write at one time only: the address's write={n} is not one of its runs.", column.title)
                    } else {
                        format!("The address's write is \"{n}\": {} runs A's write at times 1 to {writes}.", column.title)
                    }
                })?,
        ),
    };
    Ok((
        base,
        CellRef {
            column,
            backend,
            fencing,
            setting,
            write,
        },
    ))
}

/// Runs the cell an address names, as the table ran it: the run's link
/// (its fragment, at its start with all of it in view) and what the page
/// says on opening it; or why the address cannot be run.
pub fn open_cell(query: &str) -> Result<(String, String), String> {
    let (base, cell) = read_cell(query)?;
    let judged = run_at(
        &base,
        cell.column.id,
        cell.backend,
        cell.fencing,
        cell.setting,
        cell.write,
    );
    let played = judged.run.as_ref().ok_or_else(|| {
        format!(
            "{} on {} has no run to open: {}",
            cell.column.title,
            cell.backend.name(),
            judged.why
        )
    })?;
    let fragment = crate::wire::link::encode(&crate::wire::link::RunLink {
        scenario: played.scenario.clone(),
        playhead_ms: 0,
        end_ms: played.end.ms(),
    });
    let fencing = if cell.column.fenced {
        format!(
            ", fencing {}",
            if cell.fencing.is_on() { "on" } else { "off" }
        )
    } else {
        String::new()
    };
    let setting = cell
        .setting
        .map_or(String::new(), |s| format!(", {}", s.label));
    let write = cell.write.map_or(String::new(), |w| {
        format!(
            ", A's write at time {} of {}",
            w + 1,
            super::write_times(cell.column.id)
        )
    });
    // The system's own options where the visitor set them, and its lease
    // where the story runs at its own rather than the table's TTL.
    let options = if super::own_options(&base, cell.backend) {
        format!(", with {}", super::options_words(&base, cell.backend))
    } else {
        String::new()
    };
    let ttl_ms = played.scenario.config.ttl_ms;
    let lease = if ttl_ms != base.ttl_ms && cell.backend.leased() {
        format!(
            "; this story runs {} at a {} lease",
            cell.backend.name(),
            super::whole_seconds(ttl_ms)
        )
    } else {
        String::new()
    };
    let say = format!(
        "Opened the comparison's run of {} on {}{fencing}{setting}{write} at {}{options}{lease} ({}). Start plays it; the timeline shows all of it.",
        cell.column.title,
        cell.backend.name(),
        super::settings_line(&base),
        judged.outcome.word()
    );
    Ok((fragment, say))
}
