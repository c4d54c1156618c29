//! The tools that answer an engineer's own question, each in one folder:
//! its model (`mod.rs` and its parts), its form read into a request
//! (`form.rs`, where it has one) and its drawing as markup (`draw.rs`).
//! They run in the page's background worker (`crate::work`), which hands
//! the page their markup, and on the command line (`src/bin/`).
//!
//! - `compare`: every lock system through the comparison's stories;
//! - `explore`: the hazard explorer, how often a lock breaks;
//! - `finder`: the shortest run that breaks a property;
//! - `spanner`: Spanner's clocks with an error bar;
//! - `code`: the client code a real application ships, and what its real
//!   client sends for each message of a run.
//!
//! A tool builds on the core, the lesson and the links (`crate::sim`,
//! `crate::lesson`, `crate::wire`) and never names the worker or the page.

pub mod code;
pub mod compare;
pub mod explore;
pub mod finder;
pub mod spanner;

/// A query string's pairs, decoded (`+` as a space, then percent escapes),
/// in order: a checkbox's name comes once per box ticked.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let text = |t: &str| crate::wire::link::percent_decoded(&t.replace('+', " "));
            (text(key), text(value))
        })
        .collect()
}
