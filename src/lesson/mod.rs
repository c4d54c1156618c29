//! What the page teaches with the core: the stories (presets), the key
//! moments a guided tour stops at, the safety properties a run keeps or
//! breaks, and the search for the shortest run that breaks one.

pub mod narrator;
pub mod presets;
pub mod properties;
pub mod questions;
pub mod tour;
