//! Whatever a link or a run file holds, reading it returns an error or a
//! run that replays; it never panics, hangs or allocates without bound.

#![no_main]

use distlock::sim::link;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(run) = link::decode(&text) {
        assert!(run.replay().is_ok(), "a link that reads must replay");
        assert_eq!(link::decode(&link::encode(&run)).as_ref(), Ok(&run));
    }
    // The same bytes as a packed link, so the fuzzer reaches the JSON checks.
    let packed = format!(
        "v1.{}",
        link::base64url(&miniz_oxide_free_pack(data))
    );
    let _ = link::decode(&packed);
    let _ = link::from_run_file(&text);
});

/// Stored (uncompressed) deflate blocks around `data`: valid deflate that
/// the decoder inflates back to `data`, made without a compressor.
fn miniz_oxide_free_pack(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 5 * (data.len() / 65_535 + 1));
    let mut chunks = data.chunks(65_535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = u8::from(chunks.peek().is_none());
        let len = chunk.len() as u16;
        out.push(last);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}
