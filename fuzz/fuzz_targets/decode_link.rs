//! Whatever a link or a run file holds, reading it returns an error or a
//! run that replays; it never panics, hangs or allocates without bound.

#![no_main]

use distlock::wire::link;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(run) = link::decode(&text) {
        assert!(run.replay().is_ok(), "a link that reads must replay");
        assert_eq!(link::decode(&link::encode(&run)).as_ref(), Ok(&run));
    }
    // The same bytes as a link's JSON, so the fuzzer reaches the field
    // checks without having to find base64 first; and as a run file.
    let _ = link::decode(&format!("v1.{}", link::base64url(data)));
    let _ = link::from_run_file(&text);
});
