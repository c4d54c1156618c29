//! The core under any command sequence: every command, at any time, for
//! any client or node, with any settings. The engine's invariants (asserted
//! as it runs), the fencing guarantee and an identical replay are the oracle.
//! The body is `distlock::fuzzing::core_commands`, which `cargo test` replays on
//! the committed corpus; its doc says why a case simulates only what its
//! bytes ask for, and why `scripts/check/fuzz.sh` gives it inputs of at most
//! 1,024 bytes.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| distlock::fuzzing::core_commands(data));
