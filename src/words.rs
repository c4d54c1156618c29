//! The words the page, the worker and the command line print for times,
//! durations, tokens and counts, and the one decimal parser they share.
//! Pure text from integers (and, for the odds' long spans, floats): no
//! yew, no clock, so the core (`sim/`) uses it too. Where two places print
//! a time differently, each way is a function here with its own name, so
//! a word on the page is found by the name of what prints it.

use std::fmt::Display;

// ---- Times -------------------------------------------------------------

/// Milliseconds as seconds with three decimals, as the event log and the
/// core's `Millis` print time: "12.345 s".
pub fn seconds_3(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}

/// `seconds_3` with a sign when below zero, as the Spanner story reckons:
/// "9.996 s", "-0.004 s".
pub fn signed_seconds_3(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    format!("{sign}{}", seconds_3(ms.unsigned_abs()))
}

/// Milliseconds as seconds with one decimal, rounded down to the tenth as
/// the cards and panels print times: "3.2 s".
pub fn seconds_1(ms: u64) -> String {
    format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
}

/// `seconds_1` with a hyphen when below zero, for a budget that has run
/// out: "-0.3 s", "2.5 s".
pub fn signed_seconds_1(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    format!("{sign}{}", seconds_1(ms.unsigned_abs()))
}

/// `seconds_1` always signed, with a true minus sign, for the clock
/// offsets in Redlock's table: "+0.0 s", "−1.5 s".
pub fn plus_minus_seconds_1(ms: i64) -> String {
    let sign = if ms < 0 { "−" } else { "+" };
    format!("{sign}{}", seconds_1(ms.unsigned_abs()))
}

/// The virtual clock as the status strip and the cards show it: "t=5.2 s".
pub fn clock_at(ms: u64) -> String {
    format!("t={}", seconds_1(ms))
}

/// A time on the timeline's axis: whole seconds bare ("5 s"), else to the
/// tenth ("5.2 s").
pub fn tick_seconds(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        seconds_1(ms)
    }
}

/// A clock skew, short: "+500 ms", "-2.0 s"; `None` for no skew, which
/// each place words its own way ("clock ok", "skew 0").
pub fn skew(skew_ms: i64) -> Option<String> {
    let sign = if skew_ms < 0 { "-" } else { "+" };
    let abs = skew_ms.unsigned_abs();
    match abs {
        0 => None,
        1..=999 => Some(format!("{sign}{abs} ms")),
        _ => Some(format!("{sign}{}.{} s", abs / 1000, (abs % 1000) / 100)),
    }
}

/// How a client's own clock differs from true time, on its card: "its
/// clock: 1.5 s ahead, running 10% slow: it judges its lease by it".
pub fn clock_offset(offset_ms: i64, rate_pct: i32) -> String {
    let ahead = if offset_ms >= 0 { "ahead" } else { "behind" };
    let mut words = format!("its clock: {} {ahead}", seconds_1(offset_ms.unsigned_abs()));
    match rate_pct {
        0 => {}
        r if r > 0 => words.push_str(&format!(", running {r}% fast")),
        r => words.push_str(&format!(
            ", running {}% slow: it judges its lease by it",
            -r
        )),
    }
    words
}

/// A TTL in seconds as code writes it: 5, or 2.5.
pub fn seconds_in_code(ms: u64) -> String {
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

// ---- Durations ---------------------------------------------------------

/// A duration as a reader says it, in the comparison: "12 ms", "25.3 s",
/// "4 min", "2 h 11 min".
pub fn duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms >= 3_600_000 {
        format!("{} h {} min", ms / 3_600_000, ms % 3_600_000 / 60_000)
    } else if ms >= 120_000 {
        format!("{} min", ms / 60_000)
    } else {
        seconds_1(ms)
    }
}

/// A duration to the whole second, every unit named: "25 s",
/// "2 h 11 min 15 s" (PostgreSQL's keepalive patience).
pub fn hours_minutes_seconds(ms: u64) -> String {
    let s = ms / 1_000;
    let (h, m, s) = (s / 3_600, s / 60 % 60, s % 60);
    let mut parts = Vec::new();
    if h > 0 {
        parts.push(format!("{h} h"));
    }
    if m > 0 {
        parts.push(format!("{m} min"));
    }
    if s > 0 || parts.is_empty() {
        parts.push(format!("{s} s"));
    }
    parts.join(" ")
}

/// How long a search took: "7.57 s", or "36 ms" under a second.
pub fn elapsed(secs: f64) -> String {
    if secs < 1.0 {
        format!("{:.0} ms", secs * 1000.0)
    } else {
        format!("{secs:.2} s")
    }
}

/// A span from milliseconds to ages, for how often something rare
/// happens: "45 s", "12 min", "3.5 hours", "2.1 days", "4.0 years",
/// "1.2 million years".
pub fn long_duration(seconds: f64) -> String {
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 3_600.0;
    const DAY: f64 = 86_400.0;
    const YEAR: f64 = 365.25 * DAY;
    if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1_000.0)
    } else if seconds < MINUTE {
        format!("{seconds:.0} s")
    } else if seconds < HOUR {
        format!("{:.0} min", seconds / MINUTE)
    } else if seconds < DAY {
        format!("{:.1} hours", seconds / HOUR)
    } else if seconds < YEAR {
        format!("{:.1} days", seconds / DAY)
    } else if seconds < 1e6 * YEAR {
        format!("{:.1} years", seconds / YEAR)
    } else {
        format!("{:.1} million years", seconds / YEAR / 1e6)
    }
}

// ---- Tokens, counts, sentences -----------------------------------------

/// What a grant or a write carries: "token 3", or "no token".
pub fn token<T: Display>(token: Option<T>) -> String {
    match token {
        Some(t) => format!("token {t}"),
        None => "no token".into(),
    }
}

/// 1234567 as "1,234,567".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The sentence with its first letter upper-case.
pub fn capitalize(sentence: &str) -> String {
    let mut chars = sentence.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

// ---- Decimals ----------------------------------------------------------

/// What a decimal with more places than asked for means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    /// Not a number here: the worker's forms and the command line, where
    /// the same text must give the same plan.
    Refuse,
    /// Rounded half up at the last place: the page's TTL and speed
    /// fields, where a browser's number input may carry more digits.
    Round,
}

/// Whether `text` is digits with at most `places` decimals after a point
/// (".5" and "7." count; signs, exponents and words do not).
pub fn is_decimal(text: &str, places: u32) -> bool {
    well_formed(text) && text.split_once('.').map_or(0, |(_, f)| f.len()) <= places as usize
}

fn well_formed(text: &str) -> bool {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !(whole.is_empty() && fraction.is_empty()) && digits(whole) && digits(fraction)
}

/// A decimal as typed ("2.5", " 30 ", ".125") times 10^places, from
/// integers only, so the same text is the same number on every machine:
/// `decimal("1.25", 3, Extra::Refuse) == Some(1250)`. `None` for anything
/// else, a number too large to hold, or (with `Extra::Refuse`) more
/// decimals than `places`.
pub fn decimal(text: &str, places: u32, extra: Extra) -> Option<u64> {
    let text = text.trim();
    let fits = match extra {
        Extra::Refuse => is_decimal(text, places),
        Extra::Round => well_formed(text),
    };
    if !fits {
        return None;
    }
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let places = places as usize;
    let kept = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(places)
        .fold(0, |v, b| v * 10 + u64::from(b - b'0'));
    let round_up = u64::from(fraction.as_bytes().get(places).is_some_and(|&b| b >= b'5'));
    whole
        .checked_mul(10u64.pow(places as u32))?
        .checked_add(kept + round_up)
}

/// A scaled decimal as people write it: `decimal_text(1250, 3) == "1.25"`.
pub fn decimal_text(v: u64, places: u32) -> String {
    let unit = 10u64.pow(places);
    let (whole, fraction) = (v / unit, v % unit);
    if fraction == 0 {
        return whole.to_string();
    }
    let fraction = format!("{fraction:0width$}", width = places as usize);
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_read_without_floats() {
        for extra in [Extra::Refuse, Extra::Round] {
            assert_eq!(decimal("1.25", 3, extra), Some(1_250));
            assert_eq!(decimal(" 30 ", 3, extra), Some(30_000));
            assert_eq!(decimal(".5", 3, extra), Some(500));
            assert_eq!(decimal("7.", 3, extra), Some(7_000));
            assert_eq!(decimal("2", 0, extra), Some(2));
            for bad in ["-1", "", ".", "1e3", "+2", "1.2.3", "two"] {
                assert_eq!(decimal(bad, 3, extra), None, "{bad:?}");
            }
            assert_eq!(decimal("99999999999999999999", 0, extra), None);
        }
    }

    #[test]
    fn extra_decimals_are_refused_or_rounded_half_up() {
        assert_eq!(decimal("1.2345", 3, Extra::Refuse), None);
        assert_eq!(decimal("1.0005", 3, Extra::Round), Some(1_001));
        assert_eq!(decimal("1.0004", 3, Extra::Round), Some(1_000));
        assert!(is_decimal("1.25", 2) && !is_decimal("1.25", 1));
        assert_eq!(decimal_text(1_250, 3), "1.25");
        assert_eq!(decimal_text(2, 0), "2");
    }

    #[test]
    fn times_read_as_each_place_prints_them() {
        assert_eq!(seconds_3(12_345), "12.345 s");
        assert_eq!(signed_seconds_3(-4), "-0.004 s");
        assert_eq!(seconds_1(3_299), "3.2 s");
        assert_eq!(signed_seconds_1(-300), "-0.3 s");
        assert_eq!(plus_minus_seconds_1(-1_500), "−1.5 s");
        assert_eq!(plus_minus_seconds_1(0), "+0.0 s");
        assert_eq!(clock_at(5_200), "t=5.2 s");
        assert_eq!(
            (tick_seconds(5_000), tick_seconds(5_250)),
            ("5 s".into(), "5.2 s".into())
        );
        assert_eq!(skew(0), None);
        assert_eq!(skew(-500).as_deref(), Some("-500 ms"));
        assert_eq!(skew(2_000).as_deref(), Some("+2.0 s"));
        assert_eq!(seconds_in_code(2_500), "2.5");
        assert_eq!(seconds_in_code(5_000), "5");
    }

    #[test]
    fn durations_counts_and_tokens() {
        assert_eq!(duration(12), "12 ms");
        assert_eq!(duration(25_300), "25.3 s");
        assert_eq!(duration(7_860_000), "2 h 11 min");
        assert_eq!(hours_minutes_seconds(7_875_000), "2 h 11 min 15 s");
        assert_eq!(hours_minutes_seconds(0), "0 s");
        assert_eq!(elapsed(0.036), "36 ms");
        assert_eq!(elapsed(7.566), "7.57 s");
        assert_eq!(long_duration(90.0), "2 min");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(capitalize("élan"), "Élan");
        assert_eq!(token(Some(3)), "token 3");
        assert_eq!(token(None::<u64>), "no token");
    }
}
