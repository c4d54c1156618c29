//! Integer-only sampling: exponential gaps and log-normal lengths drawn
//! from quantile tables with a ChaCha8 stream. No `ln`, `exp` or `powf`
//! at run time (their results differ between libms), no floats at all:
//! the same seed gives the same pauses natively and in wasm32.

use super::tables::{EXP2, EXP_QUANTILE, EXP_TAIL, FRACTION_BITS, NORMAL_QUANTILE, POINTS, Z_P99};
use rand::Rng;

/// Fixed-point one: 24 fractional bits, as the tables.
const ONE: u64 = 1 << FRACTION_BITS;
/// Bits of a 32-bit draw below the 8 that pick a table segment.
const SEGMENT_BITS: u32 = 32 - POINTS.trailing_zeros();
/// Refinements of the exponential's last segment before the draw stops
/// there (reached with probability 2^-64).
const EXP_TAIL_ROUNDS_MAX: u32 = 8;

/// Linear interpolation between two table values, `frac` of the way.
fn lerp(lo: u32, hi: u32, frac: u32) -> u64 {
    let (lo, hi) = (u64::from(lo), u64::from(hi));
    lo + (((hi - lo) * u64::from(frac)) >> SEGMENT_BITS)
}

/// An exponential draw with mean one, fixed point (24 fractional bits).
pub(super) fn exp_unit(rng: &mut impl Rng) -> u64 {
    let mut sum = 0;
    for _ in 0..EXP_TAIL_ROUNDS_MAX {
        let r = rng.next_u32();
        let j = (r >> SEGMENT_BITS) as usize;
        let frac = r & ((1 << SEGMENT_BITS) - 1);
        if j + 1 < POINTS {
            return sum + lerp(EXP_QUANTILE[j], EXP_QUANTILE[j + 1], frac);
        }
        sum += u64::from(EXP_TAIL);
    }
    sum
}

/// |z| of a standard normal draw in its upper half, fixed point: the
/// table's last segment is spread over the next level's 256 points.
fn normal_upper(rng: &mut impl Rng) -> u64 {
    let last = NORMAL_QUANTILE.len() - 1;
    for (level, table) in NORMAL_QUANTILE.iter().enumerate() {
        let r = rng.next_u32();
        let j = (r >> SEGMENT_BITS) as usize;
        let frac = r & ((1 << SEGMENT_BITS) - 1);
        if j + 1 < POINTS {
            return lerp(table[j], table[j + 1], frac);
        }
        if level == last {
            return u64::from(table[POINTS - 1]);
        }
    }
    unreachable!("the last level returns")
}

/// A standard normal draw, fixed point, signed.
pub(super) fn normal_fixed(rng: &mut impl Rng) -> i64 {
    let (negative, z) = normal(rng);
    if negative {
        -(z as i64)
    } else {
        z as i64
    }
}

/// A standard normal draw, fixed point, as a sign and a magnitude.
fn normal(rng: &mut impl Rng) -> (bool, u64) {
    let negative = rng.next_u32() & 1 == 1;
    (negative, normal_upper(rng))
}

/// log2(x) for x >= 1, fixed point: the integer part from the bit length,
/// the fraction bit by bit by squaring the mantissa.
pub(super) fn log2_fixed(x: u64) -> i64 {
    debug_assert!(x >= 1);
    let int = 63 - x.leading_zeros();
    // The mantissa in [1, 2) with 32 fractional bits.
    let mut m: u128 = (u128::from(x) << 32) >> int;
    let mut frac = 0i64;
    for bit in (0..FRACTION_BITS).rev() {
        m = (m * m) >> 32;
        if m >= 2 << 32 {
            m >>= 1;
            frac |= 1 << bit;
        }
    }
    (i64::from(int) << FRACTION_BITS) + frac
}

/// `base * 2^e` for a fixed-point exponent `e`, rounded down, saturating.
pub(super) fn scale_pow2(base: u64, e: i64) -> u64 {
    let int = e >> FRACTION_BITS;
    let frac = (e & (ONE as i64 - 1)) as u64;
    // 2^frac from the table, interpolated: 8 bits pick the entry, 16 more
    // the point between it and the next.
    let j = (frac >> (FRACTION_BITS - 8)) as usize;
    let within = frac & ((1 << (FRACTION_BITS - 8)) - 1);
    let (lo, hi) = (EXP2[j], EXP2[j + 1]);
    let mantissa = lo + (((hi - lo) * within) >> (FRACTION_BITS - 8));
    let scaled = u128::from(base) * u128::from(mantissa);
    let value = if int >= 0 {
        scaled.checked_shl(int as u32).unwrap_or(u128::MAX) >> 32
    } else {
        scaled >> (32 + (-int).min(96) as u32)
    };
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// A log-normal distribution given by its median and its 99th percentile:
/// x = median * (p99 / median)^(z / z99), with z a standard normal draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LogNormal {
    median: u64,
    /// log2(p99 / median), fixed point.
    spread: i64,
}

impl LogNormal {
    /// `median <= p99`, both at least one (any unit).
    pub fn new(median: u64, p99: u64) -> LogNormal {
        debug_assert!(1 <= median && median <= p99);
        LogNormal {
            median,
            spread: log2_fixed(p99) - log2_fixed(median),
        }
    }

    /// The exponent for a normal quantile `z` (fixed point): z / z99 * spread.
    fn exponent(&self, negative: bool, z: u64) -> i64 {
        let e = (i128::from(self.spread) * i128::from(z) / i128::from(Z_P99)) as i64;
        if negative {
            -e
        } else {
            e
        }
    }

    /// The length for a signed normal quantile `x` (fixed point).
    pub fn at(&self, x: i64) -> u64 {
        let e = (i128::from(self.spread) * i128::from(x) / i128::from(Z_P99)) as i64;
        scale_pow2(self.median, e)
    }

    /// The normal quantile at which the length reaches `length` (fixed
    /// point): log2(length / median) / spread * z99; `None` for a
    /// profile without spread.
    pub fn quantile_of(&self, length: u64) -> Option<i64> {
        (self.spread > 0).then(|| {
            let up = log2_fixed(length.max(1)) - log2_fixed(self.median);
            (i128::from(up) * i128::from(Z_P99) / i128::from(self.spread)) as i64
        })
    }

    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        let (negative, z) = normal(rng);
        scale_pow2(self.median, self.exponent(negative, z))
    }

    /// The largest value a draw can give (the tables end at z = 6.34).
    pub fn max(&self) -> u64 {
        let z = NORMAL_QUANTILE[NORMAL_QUANTILE.len() - 1][POINTS - 1];
        scale_pow2(self.median, self.exponent(false, u64::from(z)))
    }
}

/// An exponential gap with the given mean, rounded down, saturating.
pub(super) fn exp_gap(mean: u64, rng: &mut impl Rng) -> u64 {
    let scaled = (u128::from(mean) * u128::from(exp_unit(rng))) >> FRACTION_BITS;
    u64::try_from(scaled).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::ChaCha8Rng;
    use rand::SeedableRng;

    #[test]
    fn log2_of_powers_of_two_is_exact() {
        for k in 0..63 {
            assert_eq!(log2_fixed(1 << k), (k as i64) << FRACTION_BITS);
        }
    }

    #[test]
    fn log2_of_ten_is_close() {
        let got = log2_fixed(10) as f64 / ONE as f64;
        assert!((got - 10f64.log2()).abs() < 1e-6, "{got}");
    }

    #[test]
    fn scaling_by_a_power_of_two() {
        assert_eq!(scale_pow2(1_000, 0), 1_000);
        assert_eq!(scale_pow2(1_000, 3 << FRACTION_BITS), 8_000);
        assert_eq!(scale_pow2(1_000, -(1 << FRACTION_BITS)), 500);
        // 2^0.5 = 1.41421...
        let root = scale_pow2(1_000_000, (ONE / 2) as i64);
        assert!((1_414_212..=1_414_214).contains(&root), "{root}");
    }

    #[test]
    fn median_and_p99_come_out_where_they_were_put() {
        let dist = LogNormal::new(100_000, 2_000_000);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut draws: Vec<u64> = (0..200_000).map(|_| dist.sample(&mut rng)).collect();
        draws.sort_unstable();
        let median = draws[draws.len() / 2];
        let p99 = draws[draws.len() * 99 / 100];
        assert!((97_000..=103_000).contains(&median), "median {median}");
        assert!((1_900_000..=2_100_000).contains(&p99), "p99 {p99}");
        assert!(draws[draws.len() - 1] <= dist.max());
    }

    #[test]
    fn a_zero_spread_gives_the_median_every_time() {
        let dist = LogNormal::new(5_000, 5_000);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert!((0..1_000).all(|_| dist.sample(&mut rng) == 5_000));
        assert_eq!(dist.max(), 5_000);
    }

    #[test]
    fn exponential_gaps_have_their_mean() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 200_000u64;
        let sum: u64 = (0..n).map(|_| exp_gap(1_000_000, &mut rng)).sum();
        let mean = sum / n;
        assert!((990_000..=1_010_000).contains(&mean), "mean {mean}");
    }

    #[test]
    fn the_exponential_table_matches_ln() {
        for (j, &q) in EXP_QUANTILE.iter().enumerate() {
            let want = -(1.0 - j as f64 / POINTS as f64).ln();
            assert!((q as f64 / ONE as f64 - want).abs() < 1e-6, "entry {j}");
        }
    }

    #[test]
    fn the_normal_tables_rise_and_join() {
        for level in NORMAL_QUANTILE {
            assert!(level.windows(2).all(|w| w[0] < w[1]));
        }
        // z(0.975) = 1.959964 is point 243.2 of level 0; z(0.5) = 0.
        assert_eq!(NORMAL_QUANTILE[0][0], 0);
        assert!((Z_P99 as f64 / ONE as f64 - 2.326348).abs() < 1e-6);
        for k in 1..NORMAL_QUANTILE.len() {
            assert_eq!(NORMAL_QUANTILE[k][0], NORMAL_QUANTILE[k - 1][POINTS - 1]);
        }
    }
}
