//! How a run travels: a link or a run file, read by a small JSON reader of
//! the page's own.

pub mod export;
pub mod host;
pub mod json;
pub mod link;
pub(crate) mod run_json;
