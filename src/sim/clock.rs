//! A participant's own clock: it can run fast or slow and it can jump.
//! Redis nodes expire keys by theirs; clients judge their leases by theirs.

use serde::{Deserialize, Serialize};

/// The fastest or slowest a clock may run, in percent of real time.
pub const CLOCK_RATE_PCT_MAX: i32 = 50;

/// A clock as an affine function of virtual time: it read `base_local` at
/// virtual `base_ms` and advances `100 + rate_pct` ms for every 100 ms.
/// Integer arithmetic only, so every platform reads the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Clock {
    base_ms: u64,
    base_local: i64,
    rate_pct: i32,
}

impl Clock {
    /// What the clock reads at virtual time `now_ms`.
    pub fn read(&self, now: super::types::Millis) -> i64 {
        let elapsed = now.ms().saturating_sub(self.base_ms) as i64;
        // Most clocks run true: skip the division (this runs on every
        // event, for every Redis node).
        if self.rate_pct == 0 {
            return self.base_local + elapsed;
        }
        self.base_local + elapsed * i64::from(100 + self.rate_pct) / 100
    }

    /// The reading minus virtual time: how far the clock is off now.
    pub fn offset_ms(&self, now: super::types::Millis) -> i64 {
        self.read(now) - now.ms() as i64
    }

    pub fn rate_pct(&self) -> i32 {
        self.rate_pct
    }

    /// The first virtual time at which the clock reads `local` or more
    /// (`now` if it already does).
    pub fn when_reads(&self, local: i64, now: super::types::Millis) -> super::types::Millis {
        let ahead = local - self.read(now);
        if ahead <= 0 {
            return now;
        }
        now.plus(self.virtual_ms(ahead as u64))
    }

    /// Virtual milliseconds this clock takes to count `local_ms`.
    pub fn virtual_ms(&self, local_ms: u64) -> u64 {
        if self.rate_pct == 0 {
            return local_ms;
        }
        let speed = (100 + self.rate_pct) as u64;
        (local_ms * 100).div_ceil(speed)
    }

    /// The clock jumps by `jump_ms` (negative: backwards).
    pub fn jump(&mut self, now: super::types::Millis, jump_ms: i64) {
        self.rebase(now);
        self.base_local += jump_ms;
    }

    /// From now on the clock runs at `rate_pct` percent off real time.
    pub fn set_rate(&mut self, now: super::types::Millis, rate_pct: i32) {
        self.rebase(now);
        self.rate_pct = rate_pct.clamp(-CLOCK_RATE_PCT_MAX, CLOCK_RATE_PCT_MAX);
    }

    fn rebase(&mut self, now: super::types::Millis) {
        self.base_local = self.read(now);
        self.base_ms = now.ms();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::types::Millis;

    #[test]
    fn a_slow_clock_counts_less_and_its_deadlines_come_later() {
        let mut clock = Clock::default();
        clock.set_rate(Millis(1_000), -20);
        assert_eq!(clock.read(Millis(6_000)), 5_000);
        assert_eq!(clock.virtual_ms(4_000), 5_000);
        assert_eq!(clock.when_reads(5_000, Millis(2_000)), Millis(6_000));
    }

    #[test]
    fn a_jump_moves_the_reading_and_not_the_rate() {
        let mut clock = Clock::default();
        clock.set_rate(Millis(0), 10);
        clock.jump(Millis(1_000), 3_000);
        assert_eq!(clock.read(Millis(1_000)), 4_100);
        assert_eq!(clock.read(Millis(2_000)), 5_200);
        assert_eq!(clock.offset_ms(Millis(2_000)), 3_200);
    }
}
