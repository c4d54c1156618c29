//! The seeded random streams: ChaCha with 8 rounds, a 64-bit block
//! counter and a 64-bit stream number, word for word the stream of
//! `rand_chacha::ChaCha8Rng` (a test draws both side by side).
//!
//! Written here rather than taken from `rand_chacha`, for bytes and for
//! the page's speed: that crate makes four blocks (64 words) at every
//! refill, in SIMD where the machine has it and in plain words in wasm.
//! Most of a run's streams draw a handful of words (an explorer trial
//! seeds six streams and five use a few words each), so their first
//! refill was most of their cost. One block at a time, the page's explorer
//! spends 5-6% of its time in ChaCha where it spent 10.5%; the page's wasm
//! is 1.5 KiB smaller (gzip); a stream is 112 bytes to copy where that
//! one's is 304 (the finder copies a run's streams with its states).
//! Natively a long stream costs a little more without SIMD (the chaos
//! workload, `examples/chaos.rs`, 2.7% more instructions).

use std::convert::Infallible;

use rand::rand_core::block::{BlockRng, Generator};
use rand::rand_core::TryRng;
use rand::SeedableRng;

/// "expand 32-byte k", ChaCha's first four words.
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
/// Double rounds: ChaCha8.
const DOUBLE_ROUNDS: usize = 4;
const BLOCK_WORDS: u64 = 16;

/// ChaCha8's key, block counter and stream: what makes the next block.
#[derive(Clone)]
struct ChaCha8Core {
    key: [u32; 8],
    /// The next block's number.
    block: u64,
    stream: u64,
}

/// Says nothing of the key, as `rand_chacha`'s does not.
impl std::fmt::Debug for ChaCha8Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChaCha8Core {}")
    }
}

#[inline(always)]
fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

impl Generator for ChaCha8Core {
    type Output = [u32; 16];

    fn generate(&mut self, out: &mut [u32; 16]) {
        let k = &self.key;
        let input = [
            SIGMA[0],
            SIGMA[1],
            SIGMA[2],
            SIGMA[3],
            k[0],
            k[1],
            k[2],
            k[3],
            k[4],
            k[5],
            k[6],
            k[7],
            self.block as u32,
            (self.block >> 32) as u32,
            self.stream as u32,
            (self.stream >> 32) as u32,
        ];
        let mut x = input;
        for _ in 0..DOUBLE_ROUNDS {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        for ((o, x), i) in out.iter_mut().zip(x).zip(input) {
            *o = x.wrapping_add(i);
        }
        self.block = self.block.wrapping_add(1);
    }
}

/// A seeded ChaCha8 stream (`seed_from_u64`, then `set_stream`).
#[derive(Clone, Debug)]
pub struct ChaCha8Rng {
    rng: BlockRng<ChaCha8Core>,
}

impl SeedableRng for ChaCha8Rng {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> ChaCha8Rng {
        let mut key = [0u32; 8];
        for (k, bytes) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *k = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        ChaCha8Rng {
            rng: BlockRng::new(ChaCha8Core {
                key,
                block: 0,
                stream: 0,
            }),
        }
    }
}

impl TryRng for ChaCha8Rng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.rng.next_word())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.rng.next_u64_from_u32())
    }

    #[inline]
    fn try_fill_bytes(&mut self, bytes: &mut [u8]) -> Result<(), Infallible> {
        self.rng.fill_bytes(bytes);
        Ok(())
    }
}

impl ChaCha8Rng {
    /// How many words the stream has given.
    pub fn get_word_pos(&self) -> u128 {
        let mut block = self.rng.core.block;
        // A block begun was counted when it was made.
        if self.rng.word_offset() != 0 {
            block = block.wrapping_sub(1);
        }
        u128::from(block) * u128::from(BLOCK_WORDS) + self.rng.word_offset() as u128
    }

    /// Moves the stream to its `word`th word.
    pub fn set_word_pos(&mut self, word: u128) {
        self.rng.core.block = (word / u128::from(BLOCK_WORDS)) as u64;
        self.rng
            .reset_and_skip((word % u128::from(BLOCK_WORDS)) as usize);
    }

    /// Switches to stream `stream` of the same key, at the same word.
    pub fn set_stream(&mut self, stream: u64) {
        self.rng.core.stream = stream;
        if self.rng.word_offset() != 0 {
            let word = self.get_word_pos();
            self.set_word_pos(word);
        }
    }

    /// Makes this stream draw what `source` draws from here on, as
    /// `clone_from` does, but leaves it alone where the two already stand
    /// at the same word of the same stream of the same key. A search's
    /// copy into a spare of the same run most often finds its streams
    /// (the network's, the lock system's) where the source's are: a move
    /// drew nothing. The same block to come and the same offset into the
    /// block made last is the same word (`get_word_pos`), and the words
    /// left in that block are then the same ones. A stream is 112 bytes,
    /// cloned through a copy on the stack.
    pub fn copy_from(&mut self, source: &ChaCha8Rng) {
        let (to, from) = (&self.rng.core, &source.rng.core);
        let same = to.block == from.block
            && self.rng.word_offset() == source.rng.word_offset()
            && to.stream == from.stream
            && to.key == from.key;
        if !same {
            self.clone_from(source);
        }
    }

    pub fn get_stream(&self) -> u64 {
        self.rng.core.stream
    }

    pub fn get_seed(&self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        for (bytes, k) in seed.chunks_exact_mut(4).zip(self.rng.core.key) {
            bytes.copy_from_slice(&k.to_le_bytes());
        }
        seed
    }
}

#[cfg(test)]
mod tests {
    use super::ChaCha8Rng;
    use rand::{Rng, RngExt, SeedableRng};

    /// Every use the runs make, against `rand_chacha`'s stream: words,
    /// pairs of words across a block's end, ranges, bytes, a stream
    /// switched before and after drawing, a position set and read.
    #[test]
    fn draws_the_words_rand_chacha_draws() {
        for seed in [0, 1, 7, 11, 0xdead_beef, u64::MAX] {
            for stream in [0, 1, 2, 3, 9, 1 << 40] {
                let mut ours = ChaCha8Rng::seed_from_u64(seed);
                let mut theirs = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                ours.set_stream(stream);
                theirs.set_stream(stream);
                assert_eq!(ours.get_seed(), theirs.get_seed());
                for i in 0..300u64 {
                    assert_eq!(ours.get_word_pos(), theirs.get_word_pos());
                    match i.wrapping_add(seed) % 5 {
                        0 => assert_eq!(ours.next_u32(), theirs.next_u32()),
                        1 => assert_eq!(ours.next_u64(), theirs.next_u64()),
                        2 => assert_eq!(
                            ours.random_range(0..=i * 1_000),
                            theirs.random_range(0..=i * 1_000)
                        ),
                        3 => {
                            let (mut a, mut b) = ([0u8; 7], [0u8; 7]);
                            ours.fill_bytes(&mut a);
                            theirs.fill_bytes(&mut b);
                            assert_eq!(a, b);
                        }
                        _ => assert_eq!(ours.random::<u64>(), theirs.random::<u64>()),
                    }
                }
                ours.set_stream(stream + 1);
                theirs.set_stream(stream + 1);
                assert_eq!(ours.get_stream(), theirs.get_stream());
                for pos in [0, 5, 16, 63, 64, 65, 1_000] {
                    ours.set_word_pos(pos);
                    theirs.set_word_pos(pos);
                    assert_eq!(ours.get_word_pos(), pos);
                    assert_eq!(ours.next_u64(), theirs.next_u64());
                    assert_eq!(ours.get_word_pos(), theirs.get_word_pos());
                }
            }
        }
    }

    /// A copy draws what its source draws: from another key, another
    /// stream, another place, or the same place reached another way (a
    /// block drawn to its end, or a position set at that block's end).
    #[test]
    fn a_copy_draws_what_its_source_draws() {
        let at = |seed: u64, stream: u64, words: usize| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(stream);
            for _ in 0..words {
                rng.next_u32();
            }
            rng
        };
        let mut set = at(7, 1, 0);
        set.set_word_pos(16);
        let places = [
            at(7, 1, 0),
            at(7, 1, 5),
            at(7, 1, 16),
            at(7, 2, 5),
            at(8, 1, 5),
            at(7, 1, 21),
            set,
        ];
        for source in &places {
            for to in &places {
                let (mut to, mut source) = (to.clone(), source.clone());
                to.copy_from(&source);
                assert_eq!(to.get_word_pos(), source.get_word_pos());
                for _ in 0..40 {
                    assert_eq!(to.next_u32(), source.next_u32());
                }
            }
        }
    }
}
