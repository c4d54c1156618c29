//! The page's components rendered natively (Yew's server renderer): the
//! cards, the verdict, the timeline, the quiz, the share and embed views,
//! and the tools' section.

#[path = "../common/mod.rs"]
mod shared;

mod cards;
mod common;
mod embed;
mod host;
mod latency;
mod properties;
mod quiz;
mod render;
mod share;
mod timeline;
mod verdict;
mod work_section;
