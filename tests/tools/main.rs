//! The tools' tests: the comparison, the hazard explorer and its
//! statistics, the finder and its bounds, the Spanner story, the Code view,
//! and the worker's messages and escaping.

mod compare;
mod explore_faults;
mod explore_stats;
mod finder;
mod finder_bounds;
mod hazard;
mod odds;
mod rare;
mod spanner;
mod threshold;
mod work_escaping;
