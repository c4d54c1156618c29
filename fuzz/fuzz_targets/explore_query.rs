//! Whatever the explorer's query holds (`?explore&...`), the worker reads
//! it into a plan or into every refused field, and draws its form.
//! The body is `distlock::fuzzing::explore_query`, which `cargo test` replays on
//! the committed corpus. `scripts/check/fuzz.sh` gives it inputs of at most
//! 4,096 bytes: the form's 30 fields, each with room to spare.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| distlock::fuzzing::explore_query(data));
