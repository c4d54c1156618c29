//! A stable 64-bit fingerprint of a run's state, the same on every platform.

use std::cell::Cell;
use std::hash::Hasher;

/// Word at a time in the manner of rustc's FxHasher (rotate, xor, multiply),
/// but in 64-bit arithmetic everywhere: FxHasher works in `usize`, so wasm32
/// and x86_64 would hash the same state to different numbers. Sizes and
/// enum discriminants are widened to 64 bits, bytes are read little-endian,
/// and `finish` mixes every bit into every other (MurmurHash3's finalizer).
/// FNV-1a, which this replaces, took a multiply per byte (a search that
/// fingerprints every state it meets spent a third of its time there) and
/// ends on a multiply with no mixing: the queue, then fingerprinted as the
/// sum of its entries' fingerprints, summed the same for different entries.
/// Hand-written: a dozen lines, where a crate would add a dependency whose
/// output differs between platforms.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StableHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl StableHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    /// As `write` takes the little-endian bytes (the same words), without
    /// the byte copies: a random stream's position is a `u128`.
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn write_i8(&mut self, i: i8) {
        self.add(i as u64);
    }

    fn write_i16(&mut self, i: i16) {
        self.add(i as u64);
    }

    fn write_i32(&mut self, i: i32) {
        self.add(i as u64);
    }

    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }

    fn write_isize(&mut self, i: isize) {
        self.add(i as i64 as u64);
    }
}

/// A part's own fingerprint, worked out at the first hash after the part
/// last changed; 0 until then. Not part of the run's state: the part
/// clears it at every change. A search fingerprints every state it makes,
/// and most of its moves leave most parts as they were in the state
/// copied (a pause schedules a wake, a clock jump neither sends nor
/// schedules anything): the event queue, the messages in flight and the
/// lock system each keep one.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeptFingerprint(Cell<u64>);

impl KeptFingerprint {
    #[inline]
    pub(crate) fn forget(&mut self) {
        *self.0.get_mut() = 0;
    }

    /// The kept fingerprint, or `work`'s, kept from now on (a fingerprint
    /// of 0 is taken as 1: 0 stands for "not known").
    #[inline]
    pub(crate) fn get_or(&self, work: impl FnOnce() -> u64) -> u64 {
        let kept = self.0.get();
        if kept != 0 {
            return kept;
        }
        let word = work().max(1);
        self.0.set(word);
        word
    }
}

/// A number no part of any run was stamped with before: a part (a client,
/// the lock system) takes a fresh one whenever it changes, and a copy
/// takes its source's. Two parts with the same stamp are the same, so a
/// copy into a state whose part has its source's stamp (a search's spare,
/// made from the same state a move ago) leaves it alone.
///
/// Natively each thread counts in a range of its own (2^40 stamps, the
/// thread's number above them), taken once: a run made on one thread may
/// be copied into on another (the finder's search on several threads hands
/// states out), and a count shared by the threads would be a memory write
/// they contend for at every change. A wasm32 instance (the page, a
/// worker) has one thread and counts from 0, which keeps this a few
/// instructions inlined in the page's first load. Nothing of a run's own
/// numbers depends on it.
pub(crate) fn fresh_stamp() -> u64 {
    thread_local! {
        static LAST: Cell<u64> = const { Cell::new(0) };
    }
    LAST.with(|last| {
        let mut stamp = last.get();
        if stamp == 0 {
            stamp = first_stamp_of_thread();
        }
        stamp += 1;
        last.set(stamp);
        stamp
    })
}

/// Where this thread's stamps start (`fresh_stamp`).
#[cfg(not(target_arch = "wasm32"))]
fn first_stamp_of_thread() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    const PER_THREAD: u32 = 40;
    static THREADS: AtomicU64 = AtomicU64::new(0);
    (THREADS.fetch_add(1, Ordering::Relaxed) + 1) << PER_THREAD
}

#[cfg(target_arch = "wasm32")]
fn first_stamp_of_thread() -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fingerprint of one value.
    fn of(value: &impl std::hash::Hash) -> u64 {
        let mut h = StableHasher::default();
        value.hash(&mut h);
        h.finish()
    }

    #[test]
    fn no_two_threads_hand_out_the_same_stamp() {
        // A run made on one thread and copied into on another (the
        // finder's search on several threads) must not take its parts for
        // a spare's that carry the same stamp.
        let here: Vec<u64> = (0..3).map(|_| fresh_stamp()).collect();
        let there: Vec<u64> = std::thread::spawn(|| (0..3).map(|_| fresh_stamp()).collect())
            .join()
            .unwrap();
        assert!(here.windows(2).all(|w| w[0] < w[1]), "{here:?}");
        assert!(
            here.iter().all(|s| !there.contains(s)),
            "{here:?} {there:?}"
        );
    }

    const PINNED: u64 = 12_056_810_517_838_461_449;

    #[test]
    fn the_same_value_gives_the_same_number_and_a_change_another() {
        let a = of(&(1u64, -2i32, "lock", [3u8; 11], 4usize));
        assert_eq!(a, of(&(1u64, -2i32, "lock", [3u8; 11], 4usize)));
        assert_ne!(a, of(&(1u64, -2i32, "lock", [3u8; 11], 5usize)));
        // Two top bits flipped in two words do not cancel out.
        assert_ne!(of(&(1u64 << 63, 1u64 << 63)), of(&(0u64, 0u64)));
        // A sum of fingerprints (the run's queue was once fingerprinted
        // so): two entries that swap a field must not cancel out.
        // (FNV-1a's sums did for a quarter of such swaps, and a search
        // took distinct runs for one.)
        for a1 in 1..30u64 {
            for a2 in a1 + 1..31 {
                for b1 in 1..10u64 {
                    for b2 in b1 + 1..11 {
                        let kept = of(&(a1, b1)).wrapping_add(of(&(a2, b2)));
                        let swapped = of(&(a1, b2)).wrapping_add(of(&(a2, b1)));
                        assert_ne!(kept, swapped, "{a1} {a2} {b1} {b2}");
                    }
                }
            }
        }
        // A `u128` is its little-endian bytes, as the default `write_u128`
        // hands them to `write`, in two words.
        let wide: u128 = (3 << 64) | 0x0102_0304_0506_0708;
        let mut bytes = StableHasher::default();
        bytes.write(&wide.to_le_bytes());
        assert_eq!(of(&wide), bytes.finish());
        // Pinned: the number must not depend on the platform.
        assert_eq!(of(&(7u64, 'A', true, 12_345usize)), PINNED);
    }
}
