//! The hazard explorer's numbers as people read them: odds to two
//! significant figures with thousands separators, the 95% interval beside
//! each, an upper bound when nothing was seen, and overlapping intervals
//! told apart from real differences.

use distlock::tools::explore::{chance_text, count_text, one_in, two_figures, Estimate};
use distlock::words::thousands;

#[test]
fn counts_round_to_two_figures_with_separators() {
    assert_eq!(two_figures(10_526.3), 11_000.0);
    assert_eq!(count_text(10_526.3), "11,000");
    assert_eq!(count_text(10_499.0), "10,000");
    assert_eq!(count_text(1_234.0), "1,200");
    assert_eq!(count_text(999.0), "1,000");
    assert_eq!(count_text(95.0), "95");
    assert_eq!(count_text(4.349), "4.3");
    assert_eq!(count_text(3.0), "3");
    assert_eq!(count_text(1.0), "1");
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(thousands(12), "12");
}

#[test]
fn large_counts_are_millions_billions_and_trillions() {
    assert_eq!(count_text(4_249_999.0), "4.2 million");
    assert_eq!(count_text(42_000_000.0), "42 million");
    assert_eq!(count_text(999_999.0), "1 million");
    assert_eq!(count_text(3.1e9), "3.1 billion");
    assert_eq!(count_text(7.0e13), "70 trillion");
    assert_eq!(count_text(1.23e15), "1,200 trillion");
}

#[test]
fn probabilities_read_as_odds_or_percentages() {
    assert_eq!(one_in(9.5e-5), "1 in 11,000");
    assert_eq!(chance_text(9.5e-5), "1 in 11,000");
    assert_eq!(chance_text(1e-9), "1 in 1 billion");
    assert_eq!(chance_text(2.5e-13), "1 in 4 trillion");
    assert_eq!(chance_text(0.05), "1 in 20");
    assert_eq!(chance_text(0.3), "30%");
    assert_eq!(chance_text(0.234), "23%");
    assert_eq!(chance_text(1.0), "100%");
    assert_eq!(chance_text(0.0), "0");
}

#[test]
fn an_estimate_carries_its_interval() {
    let e = Estimate::wilson(10, 105_000);
    let words = e.words("holds");
    assert!(
        words.starts_with("about 1 in 11,000 (95%: 1 in "),
        "{words}"
    );
    // Odds read from the likelier end: 1 in 5,700 to 1 in 19,000.
    assert_eq!(words, "about 1 in 11,000 (95%: 1 in 5,700 to 1 in 19,000)");
    assert_eq!(e.short_words(), "about 1 in 11,000");
    assert_eq!(e.interval_words(), "95%: 1 in 5,700 to 1 in 19,000");

    let high = Estimate::wilson(30, 100);
    assert_eq!(high.words("holds"), "about 30% (95%: 22% to 40%)");
    let all = Estimate::wilson(20, 20);
    assert_eq!(all.words("holds"), "about 100% (95%: 84% to 100%)");
}

#[test]
fn none_seen_is_an_upper_bound() {
    let e = Estimate::wilson(0, 3_000);
    assert_eq!(
        e.words("holds"),
        "none in 3,000 holds: at most about 1 in 780 (95%)"
    );
    assert_eq!(e.short_words(), "none in 3,000");
    assert_eq!(e.interval_words(), "95%: at most 1 in 780");
    assert!(e.reaches_zero());
    assert!(!Estimate::wilson(1, 3_000).reaches_zero());
    assert_eq!(Estimate::wilson(0, 0).words("holds"), "no holds to count");
    // A handful of holds: the bound is a percentage.
    assert_eq!(
        Estimate::wilson(0, 12).words("holds"),
        "none in 12 holds: at most about 24% (95%)"
    );
}

#[test]
fn overlapping_intervals_are_sampling_noise() {
    let a = Estimate::wilson(12, 10_000);
    let b = Estimate::wilson(9, 10_000);
    let far = Estimate::wilson(300, 10_000);
    assert!(a.overlaps(&b) && b.overlaps(&a));
    assert!(!a.overlaps(&far) && !far.overlaps(&a));
    // None seen overlaps a small count: "never" is not told from "rarely".
    assert!(Estimate::wilson(0, 10_000).overlaps(&Estimate::wilson(2, 10_000)));
    assert!(
        !Estimate::wilson(0, 0).overlaps(&a),
        "nothing run is no evidence"
    );
}
