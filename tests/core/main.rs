//! The core's tests: each lock system's semantics checked against its
//! sources, the stories and their tours, the safety properties, links, run
//! files and exports, the limits, property tests over random command
//! sequences, and the fuzz corpora replayed. One crate, so the library
//! links once for all of them.

#[path = "../common/mod.rs"]
mod shared;

mod announce;
mod chubby;
mod code_view;
mod common;
mod consul;
mod crash_kinds;
mod dynamodb;
mod export;
mod fencing_modes;
mod fidelity;
mod fuzz_corpora;
mod latency;
mod layers;
mod limits;
mod link;
mod link_writer;
mod postgres;
mod presets;
mod properties;
mod props;
mod questions;
mod redis;
mod scenario;
mod stories_file;
mod timeline;
mod tour;
mod wire;
