//! What the page teaches with the core: the stories (presets) and the key
//! moments a guided tour stops at.

pub mod compare;
pub mod presets;
pub mod spanner;
pub mod tour;
