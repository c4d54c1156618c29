//! Whatever a link holds, reading it returns an error or a run that
//! replays and writes back the same; it never panics, hangs or allocates
//! without bound. The body is `distlock::fuzzing::decode_link`, which
//! `cargo test` replays on the committed corpus.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| distlock::fuzzing::decode_link(data));
