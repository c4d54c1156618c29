//! The comparison in an address: the table's settings
//! (`?view=compare&ttl=10&scale=1&rtt=2`), and one cell's run as its story,
//! system and settings (`?cell=gc-pause&system=redis&fencing=on&ttl=10`),
//! short enough for a line of a design document. Opening a cell's address
//! runs the cell again: the same script, the same seed, the same run as
//! the table's (a test checks every cell's fingerprint).
//!
//! Only what the table's own form sets is in an address: the TTL, the
//! latency, the seed and the fencing mode, each left out at the page's
//! default but the TTL. A system run at options the visitor set in the
//! simulator has no short address; its cells link their whole run.

use super::{run_at, Column, Setting, COLUMNS, VARIANTS};
use crate::sim::{Backend, Config, FenceMode, Fencing, Seed};
pub use crate::wire::link::table_query;

/// The key that names a cell's run in an address.
pub const CELL_KEY: &str = "cell";

/// The keys of the table's settings.
const TABLE_KEYS: [&str; 5] = ["ttl", "scale", "rtt", "seed", "fence"];

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
        match key {
            "ttl" => {
                c.ttl_ms = read_seconds(value).ok_or_else(|| {
                    format!("The address's ttl is \"{value}\": give seconds, such as ttl=10 or ttl=2.5.")
                })?
            }
            "scale" => {
                c.latency_scale = number().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| {
                    format!("The address's scale is \"{value}\": give a whole number, such as scale=10.")
                })?
            }
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
            _ => {}
        }
    }
    c.validate()
        .map_err(|e| format!("The address's settings cannot run: {e}."))?;
    Ok(c)
}

/// A cell's run as a query string (without `?`); `None` where the system
/// ran at the visitor's own options, which an address does not carry.
pub fn cell_query(base: &Config, cell: &CellRef) -> Option<String> {
    if super::own_options(base, cell.backend) {
        return None;
    }
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
    q.push_str(&table_query(base));
    if let Some(s) = cell.setting {
        q.push_str(&format!("&setting={}", s.id));
    }
    if let Some(w) = cell.write {
        q.push_str(&format!("&write={}", w + 1));
    }
    Some(q)
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
    let say = format!(
        "Opened the comparison's run of {} on {}{fencing}{setting}{write} at {} ({}). Start plays it; the timeline shows all of it.",
        cell.column.title,
        cell.backend.name(),
        super::settings_line(&base),
        judged.outcome.word()
    );
    Ok((fragment, say))
}
