//! A stable 64-bit fingerprint of a run's state, the same on every platform.

use std::hash::Hasher;

/// FNV-1a over the bytes `Hash` feeds it. Sizes and enum discriminants are
/// widened to 64 bits first, so wasm32 and x86_64 hash the same state to
/// the same number. Hand-written: a dozen lines, where a crate would add a
/// dependency for the same loop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn write_isize(&mut self, i: isize) {
        self.write_i64(i as i64);
    }
}

/// The fingerprint of one value.
pub(crate) fn of(value: &impl std::hash::Hash) -> u64 {
    let mut h = Fnv::default();
    value.hash(&mut h);
    h.finish()
}
