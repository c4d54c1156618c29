//! Probabilities in the words people use for them: "about 1 in 11,000"
//! rather than "9.5e-5", each with its 95% interval, and the "none seen"
//! case as the upper bound it is. Only reporting: nothing here is counted.
//!
//! Numbers are rounded to two significant figures, which is all a
//! sampled estimate supports, and written with thousands separators, or
//! as millions, billions and trillions past a million.

use super::estimate::Estimate;
use crate::words::thousands;

/// At or above this chance a probability reads better as a percentage
/// ("23%") than as odds ("1 in 4.3").
const PERCENT_FROM: f64 = 0.1;

/// `x` rounded to two significant figures (0 stays 0).
pub fn two_figures(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    // Scale into [10, 100) by powers of ten, round, and scale back: only
    // *, / and round, the same on every platform.
    let (mut scaled, mut scale) = (x, 1.0_f64);
    while scaled >= 100.0 {
        scaled /= 10.0;
        scale *= 10.0;
    }
    while scaled < 10.0 {
        scaled *= 10.0;
        scale /= 10.0;
    }
    let rounded = scaled.round();
    if scale >= 1.0 {
        rounded * scale
    } else {
        rounded / (1.0 / scale).round()
    }
}

/// A count of one or more, rounded to two figures, for people: "4.3",
/// "11,000", "4.2 million", "1,200 trillion".
pub fn count_text(x: f64) -> String {
    let x = two_figures(x);
    if x < 10.0 {
        // Two figures below ten: one decimal, dropped when it is zero.
        let tenths = (x * 10.0).round() as u64;
        return match tenths % 10 {
            0 => (tenths / 10).to_string(),
            d => format!("{}.{d}", tenths / 10),
        };
    }
    const NAMES: [(f64, &str); 3] = [(1e12, "trillion"), (1e9, "billion"), (1e6, "million")];
    for (unit, name) in NAMES {
        if x >= unit {
            return format!("{} {name}", count_text(x / unit));
        }
    }
    thousands(x.round() as u64)
}

/// A percentage to two figures: "23%", "4.5%", "0.23%", "100%".
fn percent_text(p: f64) -> String {
    let v = two_figures(p * 100.0);
    if v >= 10.0 {
        format!("{}%", v.round() as u64)
    } else if v >= 1.0 {
        let tenths = (v * 10.0).round() as u64;
        match tenths % 10 {
            0 => format!("{}%", tenths / 10),
            d => format!("{}.{d}%", tenths / 10),
        }
    } else {
        // Below 1%: two figures after the leading zeros.
        let mut digits = 2;
        let mut probe = v;
        while probe < 1.0 && digits < 12 {
            probe *= 10.0;
            digits += 1;
        }
        let text = format!("{v:.digits$}", digits = digits - 1);
        format!("{}%", trim_zeros(&text))
    }
}

fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// Odds of `p` (above zero): "1 in 11,000".
pub fn one_in(p: f64) -> String {
    format!("1 in {}", count_text(1.0 / p))
}

/// Whether an estimate around `p` reads as a percentage.
fn as_percent(p: f64) -> bool {
    p >= PERCENT_FROM
}

/// A chance, in the form chosen for the estimate it belongs to.
fn chance(p: f64, percent: bool) -> String {
    if p <= 0.0 {
        "0".into()
    } else if percent {
        percent_text(p)
    } else {
        one_in(p)
    }
}

/// A chance alone, short: "1 in 11,000", "23%", or "0".
pub fn chance_text(p: f64) -> String {
    chance(p, as_percent(p))
}

impl Estimate {
    /// The estimate in words, with its 95% interval: "about 1 in 11,000
    /// (95%: 1 in 6,000 to 1 in 20,000)"; when nothing was seen, the
    /// bound: "none in 3,000 holds: at most about 1 in 780 (95%)".
    /// `unit` names what was counted ("holds").
    pub fn words(&self, unit: &str) -> String {
        if self.n == 0 {
            return format!("no {unit} to count");
        }
        if self.successes == 0 {
            return format!(
                "none in {} {unit}: at most about {} (95%)",
                thousands(self.n),
                chance_text(self.high)
            );
        }
        let (first, last) = self.interval_ends();
        format!(
            "about {} (95%: {first} to {last})",
            chance(self.p, as_percent(self.p))
        )
    }

    /// The 95% interval's ends in words, in reading order: odds count up
    /// from the likelier end, percentages up from the less likely, so both
    /// read from small to large numbers.
    fn interval_ends(&self) -> (String, String) {
        let percent = as_percent(self.p);
        let (first, last) = if percent {
            (self.low, self.high)
        } else {
            (self.high, self.low)
        };
        (chance(first, percent), chance(last, percent))
    }

    /// The estimate short, for a heatmap cell: "about 1 in 11,000", or
    /// "none in 3,000".
    pub fn short_words(&self) -> String {
        match (self.n, self.successes) {
            (0, _) => "not run".into(),
            (n, 0) => format!("none in {}", thousands(n)),
            _ => format!("about {}", chance_text(self.p)),
        }
    }

    /// The 95% interval alone, short: "95%: 1 in 6,000 to 1 in 20,000",
    /// or "95%: at most 1 in 780" when nothing was seen.
    pub fn interval_words(&self) -> String {
        if self.n == 0 {
            return String::new();
        }
        if self.successes == 0 {
            return format!("95%: at most {}", chance_text(self.high));
        }
        let (first, last) = self.interval_ends();
        format!("95%: {first} to {last}")
    }

    /// Whether the two 95% intervals overlap: then the difference between
    /// the two estimates may be sampling noise alone.
    pub fn overlaps(&self, other: &Estimate) -> bool {
        self.n > 0 && other.n > 0 && self.low <= other.high && other.low <= self.high
    }

    /// Whether the interval reaches zero: nothing was seen, so "never"
    /// cannot be told apart from "rarely".
    pub fn reaches_zero(&self) -> bool {
        self.low <= 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_figures_round_half_away_from_zero() {
        assert_eq!(two_figures(10_526.3), 11_000.0);
        assert_eq!(two_figures(10_499.0), 10_000.0);
        assert_eq!(two_figures(4.349), 4.3);
        assert_eq!(two_figures(0.000_123_4), 0.000_12);
        assert_eq!(two_figures(0.0), 0.0);
        assert_eq!(two_figures(f64::NAN), 0.0);
    }
}
