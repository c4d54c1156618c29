//! Whatever a run file holds, reading it returns an error that names where,
//! or a run that replays and writes back the same.
//! The body is `distlock::fuzzing::run_file`, which `cargo test` replays on
//! the committed corpus.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| distlock::fuzzing::run_file(data));
