/// The command-line tools' shared argument reading.
pub mod cli;
/// The fuzz targets' bodies, shared by `fuzz/` and `cargo test`.
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzzing;
pub mod lesson;
/// Markup written as text, escaped in one place.
pub mod markup;
pub mod sim;
pub mod tools;
pub mod ui;
pub mod wire;
pub mod words;
pub mod work;
