//! An empirical pause profile: the pause lengths an engineer observed
//! (from GC logs, a monitoring histogram, a list of incidents), each with
//! how often it was seen, drawn from as they are: a pause is one of the
//! observed lengths, chosen with probability count / total.
//!
//! Written as text in one of three ways, mixed freely, one entry a line
//! (a `;` also ends a line, so a link can carry it on one line):
//! - `20,5`: CSV, a length in ms and its count (a `length_ms,count`
//!   header line is skipped);
//! - `20:5`: the same, the compact form a link carries
//!   (`hist=20:5;100:40;2000:3`);
//! - `20 35 20 1200`: observed pauses, each counted once, separated by
//!   spaces (a column pasted from a spreadsheet arrives one a line).
//!
//! Lengths are milliseconds with at most three decimals (whole
//! microseconds); equal lengths are merged.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Distinct lengths a histogram holds at most: a small histogram, so a
/// plan (and a link) stays small and a draw walks a short list.
pub const HISTOGRAM_BINS_MAX: usize = 32;
/// Observations a histogram counts at most, so a draw's arithmetic stays
/// in 64 bits.
pub const HISTOGRAM_TOTAL_MAX: u64 = 1_000_000_000;

/// Pause lengths (µs, rising) with their counts. Fixed-size, so the
/// profiles that carry it stay `Copy`; only `len` bins are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<(u64, u32)>", into = "Vec<(u64, u32)>")]
pub struct Histogram {
    bins: [(u64, u32); HISTOGRAM_BINS_MAX],
    len: u8,
    total: u64,
}

/// Why a histogram cannot be made from its bins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistogramError {
    Empty,
    TooManyLengths { lengths: usize },
    TooManyPauses { total: u64 },
}

impl fmt::Display for HistogramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistogramError::Empty => f.write_str("give at least one pause length"),
            HistogramError::TooManyLengths { lengths } => write!(
                f,
                "{lengths} different lengths, more than the {HISTOGRAM_BINS_MAX} a histogram \
                 can hold (round them, or count them in bins)"
            ),
            HistogramError::TooManyPauses { total } => write!(
                f,
                "{total} pauses in all, more than {HISTOGRAM_TOTAL_MAX}: divide the counts"
            ),
        }
    }
}

impl Histogram {
    /// A histogram of `(length_us, count)` pairs in any order; equal
    /// lengths are merged and zero counts dropped.
    pub fn new(pairs: &[(u64, u64)]) -> Result<Histogram, HistogramError> {
        let mut merged: Vec<(u64, u64)> = Vec::new();
        let mut sorted: Vec<(u64, u64)> = pairs.iter().copied().filter(|p| p.1 > 0).collect();
        sorted.sort_unstable();
        for (length, count) in sorted {
            match merged.last_mut() {
                Some(last) if last.0 == length => last.1 = last.1.saturating_add(count),
                _ => merged.push((length, count)),
            }
        }
        let total = merged.iter().fold(0u64, |t, p| t.saturating_add(p.1));
        if merged.is_empty() {
            return Err(HistogramError::Empty);
        }
        if merged.len() > HISTOGRAM_BINS_MAX {
            return Err(HistogramError::TooManyLengths {
                lengths: merged.len(),
            });
        }
        if total > HISTOGRAM_TOTAL_MAX {
            return Err(HistogramError::TooManyPauses { total });
        }
        let mut bins = [(0, 0); HISTOGRAM_BINS_MAX];
        for (bin, &(length, count)) in bins.iter_mut().zip(&merged) {
            // Each count is at most the total, which fits in 32 bits.
            *bin = (length, count as u32);
        }
        Ok(Histogram {
            bins,
            len: merged.len() as u8,
            total,
        })
    }

    /// Reads the text a visitor pasted (see the module's notes). Every
    /// entry that cannot be read is named with its text as typed.
    pub fn parse(text: &str) -> Result<Histogram, Vec<String>> {
        let mut pairs = Vec::new();
        let mut wrong = Vec::new();
        for line in text.split(['\n', '\r', ';']).map(str::trim) {
            if line.is_empty() || line.eq_ignore_ascii_case("length_ms,count") {
                continue;
            }
            if let Err(why) = read_line(line, &mut pairs) {
                wrong.push(why);
            }
        }
        if !wrong.is_empty() {
            return Err(wrong);
        }
        Histogram::new(&pairs).map_err(|e| vec![e.to_string()])
    }

    /// The bins in use, lengths rising.
    pub fn bins(&self) -> &[(u64, u32)] {
        &self.bins[..usize::from(self.len)]
    }

    /// Pauses counted in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The longest length.
    pub fn max_us(&self) -> u64 {
        self.bins().last().map_or(0, |b| b.0)
    }

    /// The smallest length at or below which at least `per_mille`/1000 of
    /// the pauses lie: the median is `quantile_us(500)`.
    pub fn quantile_us(&self, per_mille: u64) -> u64 {
        let want = (self.total * per_mille).div_ceil(1_000).max(1);
        let mut seen = 0;
        for &(length, count) in self.bins() {
            seen += u64::from(count);
            if seen >= want {
                return length;
            }
        }
        self.max_us()
    }

    /// The length of draw `r`, for `r` in `0..total`: bin by bin, so each
    /// length comes out `count` times in `total`.
    pub fn at(&self, mut r: u64) -> u64 {
        for &(length, count) in self.bins() {
            if r < u64::from(count) {
                return length;
            }
            r -= u64::from(count);
        }
        self.max_us()
    }

    /// The compact form a link carries: `20:5;100:40;2000:3` (ms:count).
    pub fn compact(&self) -> String {
        let entries: Vec<String> = self
            .bins()
            .iter()
            .map(|&(us, count)| format!("{}:{count}", ms_text(us)))
            .collect();
        entries.join(";")
    }
}

/// Microseconds as milliseconds without trailing zeros: 1500 → "1.5".
pub fn ms_text(us: u64) -> String {
    match us % 1_000 {
        0 => (us / 1_000).to_string(),
        part => format!(
            "{}.{}",
            us / 1_000,
            format!("{part:03}").trim_end_matches('0')
        ),
    }
}

/// One line: a `length,count` or `length:count` pair, or observed
/// lengths separated by spaces.
fn read_line(line: &str, pairs: &mut Vec<(u64, u64)>) -> Result<(), String> {
    if let Some((length, count)) = line.split_once([',', ':']) {
        let length = length_us(length.trim())?;
        let count = count.trim();
        let count = count
            .parse::<u64>()
            .ok()
            .filter(|c| count.bytes().all(|b| b.is_ascii_digit()) && *c <= HISTOGRAM_TOTAL_MAX)
            .ok_or_else(|| {
                format!(
                    "\"{}\": the count \"{}\" is not a whole number from 0 to {HISTOGRAM_TOTAL_MAX}",
                    shown(line),
                    shown(count)
                )
            })?;
        pairs.push((length, count));
        return Ok(());
    }
    for word in line.split_whitespace() {
        pairs.push((length_us(word)?, 1));
    }
    Ok(())
}

/// A length in ms (at most three decimals) as whole microseconds.
fn length_us(text: &str) -> Result<u64, String> {
    let refuse = || {
        format!(
            "\"{}\" is not a length in ms (digits, at most three decimals)",
            shown(text)
        )
    };
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty())
        || !digits(whole)
        || !digits(fraction)
        || fraction.len() > 3
    {
        return Err(refuse());
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| refuse())?
    };
    let fraction: u64 = format!("{fraction:0<3}").parse().map_err(|_| refuse())?;
    whole
        .checked_mul(1_000)
        .and_then(|us| us.checked_add(fraction))
        .ok_or_else(refuse)
}

/// Typed text as a refusal names it: control characters as spaces.
fn shown(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl TryFrom<Vec<(u64, u32)>> for Histogram {
    type Error = HistogramError;

    fn try_from(bins: Vec<(u64, u32)>) -> Result<Histogram, HistogramError> {
        let pairs: Vec<(u64, u64)> = bins.into_iter().map(|(l, c)| (l, u64::from(c))).collect();
        Histogram::new(&pairs)
    }
}

impl From<Histogram> for Vec<(u64, u32)> {
    fn from(h: Histogram) -> Vec<(u64, u32)> {
        h.bins().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_read_alike() {
        let csv = Histogram::parse("length_ms,count\r\n20,5\r\n100,40\r\n2000,3\r\n").unwrap();
        let compact = Histogram::parse("20:5;100:40;2000:3").unwrap();
        let mut listed = "20 20 20 20 20\n".to_string();
        listed.push_str(&"100 ".repeat(40));
        listed.push_str("\n2000\n2000\n2000");
        assert_eq!(csv, compact);
        assert_eq!(Histogram::parse(&listed).unwrap(), compact);
        assert_eq!(compact.compact(), "20:5;100:40;2000:3");
        assert_eq!(compact.total(), 48);
        assert_eq!(compact.quantile_us(500), 100_000);
        assert_eq!(compact.quantile_us(990), 2_000_000);
        assert_eq!(
            Histogram::parse("0.5:2;.25").unwrap().compact(),
            "0.25:1;0.5:2"
        );
    }

    #[test]
    fn every_wrong_entry_is_named_as_typed() {
        let why = Histogram::parse("20,5\nabc\n100,x;1.2345").unwrap_err();
        assert_eq!(
            why,
            [
                "\"abc\" is not a length in ms (digits, at most three decimals)",
                "\"100,x\": the count \"x\" is not a whole number from 0 to 1000000000",
                "\"1.2345\" is not a length in ms (digits, at most three decimals)",
            ]
        );
        assert_eq!(
            Histogram::parse(" ; \n").unwrap_err(),
            ["give at least one pause length"]
        );
        let many: Vec<String> = (1..=33).map(|n| n.to_string()).collect();
        assert!(Histogram::parse(&many.join(" ")).unwrap_err()[0].contains("33 different"));
    }
}
