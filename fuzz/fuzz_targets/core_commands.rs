//! The core under any command sequence: every command, at any time, for
//! any client or node, with any settings. The engine's invariants (asserted
//! as it runs), the fencing guarantee and an identical replay are the oracle.
//! The body is `distlock::fuzzing::core_commands`, which `cargo test` replays on
//! the committed corpus.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| distlock::fuzzing::core_commands(data));
