//! The states one depth's search has met, each with the fewest moves it was
//! reached in.
//!
//! Hand-written rather than a hash map from a crate: the search looks up
//! every state it makes, the table outgrows the processor's caches (647,938
//! states within 8 moves for etcd), and a lookup's time is its cache
//! misses. A `FxHashMap<u64, u32>` reads a control byte and then a
//! 16-byte bucket elsewhere, two misses, and multiplies a key that is
//! already a mixed fingerprint; its probes were a fifth of the whole
//! search's time under `perf` (`cargo bench --bench finder`). Here a state
//! is one word, found at the place its fingerprint's top bits name: one
//! miss, no hashing.

/// The fewest moves sit in a word's low bits, the fingerprint's other bits
/// above them: a search is at most `DEPTH_LIMIT` (16) moves deep, and a
/// state is reached in one move at least, so a used word is never 0.
pub(super) const DEPTH_BITS: u32 = 5;
const DEPTH_MASK: u64 = (1 << DEPTH_BITS) - 1;
const _: () = assert!(super::DEPTH_LIMIT as u64 <= DEPTH_MASK);

/// What a state met is to the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Meeting {
    /// Met before in as few moves or fewer: nothing new to explore.
    Again,
    /// Met before, in more moves: explored again from here.
    Closer,
    /// Not met before; it is kept.
    New,
    /// Not met before, and the table holds its limit of states already.
    Full,
}

/// Where a search notes the states it meets: one depth's own table, or a
/// table the threads of one search share (`super::parallel`).
pub(super) trait Table {
    /// Notes the state with `fingerprint`, reached in `depth` moves,
    /// keeping at most `max` states.
    fn meet(&mut self, fingerprint: u64, depth: u32, max: u64) -> Meeting;
    /// Asks memory for the place where the state would be.
    fn prefetch(&self, fingerprint: u64);
}

impl Table for Visited {
    fn meet(&mut self, fingerprint: u64, depth: u32, max: u64) -> Meeting {
        Visited::meet(self, fingerprint, depth, max)
    }

    fn prefetch(&self, fingerprint: u64) {
        Visited::prefetch(self, fingerprint);
    }
}

/// An open-addressed table of words, probed one after the next, at most
/// half full, so a lookup mostly reads one word.
#[derive(Debug)]
pub(super) struct Visited {
    /// 0 where empty; a power of two long.
    slots: Vec<u64>,
    len: usize,
}

impl Default for Visited {
    fn default() -> Visited {
        Visited {
            slots: vec![0; 1 << 10],
            len: 0,
        }
    }
}

impl Visited {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Forgets every state, keeping the room.
    pub(super) fn clear(&mut self) {
        self.slots.fill(0);
        self.len = 0;
    }

    /// Notes the state with `fingerprint`, reached in `depth` moves (1 to
    /// `DEPTH_LIMIT`), keeping at most `max` states. Two fingerprints that
    /// differ only in their lowest 5 bits are taken for one state.
    pub(super) fn meet(&mut self, fingerprint: u64, depth: u32, max: u64) -> Meeting {
        debug_assert!((1..=super::DEPTH_LIMIT).contains(&depth));
        let key = fingerprint & !DEPTH_MASK;
        let depth = u64::from(depth);
        let mask = self.slots.len() - 1;
        let mut at = self.place(key);
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                break;
            }
            if slot & !DEPTH_MASK == key {
                if slot & DEPTH_MASK <= depth {
                    return Meeting::Again;
                }
                self.slots[at] = key | depth;
                return Meeting::Closer;
            }
            at = (at + 1) & mask;
        }
        if self.len as u64 >= max {
            return Meeting::Full;
        }
        self.slots[at] = key | depth;
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
        Meeting::New
    }

    /// Asks memory for the place where the state with `fingerprint` would
    /// be, to look it up a little later without waiting.
    pub(super) fn prefetch(&self, fingerprint: u64) {
        let at = self.place(fingerprint & !DEPTH_MASK);
        // SAFETY: a prefetch reads nothing a program can see and cannot
        // fault, whatever the address; SSE is part of every x86_64.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots[at..].as_ptr().cast());
        }
        // Elsewhere (wasm32) there is no such instruction.
        #[cfg(not(target_arch = "x86_64"))]
        let _ = at;
    }

    /// Where a key's probe starts: its top bits, as many as the table needs.
    fn place(&self, key: u64) -> usize {
        (key >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// Twice the room, every word placed again.
    #[cold]
    fn grow(&mut self) {
        let room = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![0; room]);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|&s| s != 0) {
            let mut at = self.place(slot & !DEPTH_MASK);
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fingerprints spread as a hasher's finish spreads them.
    fn fingerprint(i: u64) -> u64 {
        let mut h = (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
        h.wrapping_mul(0xbf58_476d_1ce4_e5b9)
    }

    #[test]
    fn a_state_is_new_once_then_closer_or_met_again() {
        let mut v = Visited::default();
        assert_eq!(v.meet(fingerprint(7), 5, 10), Meeting::New);
        assert_eq!(v.meet(fingerprint(7), 5, 10), Meeting::Again);
        assert_eq!(v.meet(fingerprint(7), 6, 10), Meeting::Again);
        assert_eq!(v.meet(fingerprint(7), 3, 10), Meeting::Closer);
        assert_eq!(v.meet(fingerprint(7), 4, 10), Meeting::Again);
        assert_eq!(v.meet(fingerprint(8), 16, 10), Meeting::New);
        assert_eq!(v.len(), 2);
        v.clear();
        assert_eq!(v.len(), 0);
        assert_eq!(v.meet(fingerprint(7), 9, 10), Meeting::New);
    }

    #[test]
    fn states_beyond_the_limit_are_refused_and_not_kept() {
        let mut v = Visited::default();
        for i in 0..3 {
            assert_eq!(v.meet(fingerprint(i), 1, 3), Meeting::New);
        }
        assert_eq!(v.meet(fingerprint(3), 1, 3), Meeting::Full);
        assert_eq!(v.meet(fingerprint(3), 1, 3), Meeting::Full);
        assert_eq!(v.meet(fingerprint(2), 1, 3), Meeting::Again);
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn growing_keeps_every_state_and_its_depth() {
        let mut v = Visited::default();
        let n = 100_000;
        for i in 0..n {
            let depth = (i % 16) as u32 + 1;
            assert_eq!(v.meet(fingerprint(i), depth, u64::MAX), Meeting::New);
        }
        assert_eq!(v.len(), n as usize);
        assert!(v.slots.len() >= 2 * n as usize);
        for i in 0..n {
            let depth = (i % 16) as u32 + 1;
            assert_eq!(v.meet(fingerprint(i), depth, u64::MAX), Meeting::Again);
            if depth > 1 {
                assert_eq!(v.meet(fingerprint(i), depth - 1, u64::MAX), Meeting::Closer);
            }
        }
        // Keys that share their top bits (one start place) probe past each other.
        let mut w = Visited::default();
        for low in 1..40u64 {
            assert_eq!(w.meet(low << DEPTH_BITS, 2, u64::MAX), Meeting::New);
        }
        for low in 1..40u64 {
            assert_eq!(w.meet(low << DEPTH_BITS, 2, u64::MAX), Meeting::Again);
        }
    }
}
