//! Whatever text reaches the worker, or the page from the worker, it is
//! read or refused with a reply; the quick jobs answer only readable replies.
//! The body is `distlock::fuzzing::worker_message`, which `cargo test` replays on
//! the committed corpus.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| distlock::fuzzing::worker_message(data));
