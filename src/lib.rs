/// The command-line tools' shared argument reading.
pub mod cli;
pub mod explore;
/// The fuzz targets' bodies, shared by `fuzz/` and `cargo test`.
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzzing;
pub mod lesson;
pub mod sim;
pub mod ui;
pub mod wire;
pub mod words;
pub mod work;
