//! Spanner's TrueTime leader leases, the contrast story of systems.md §6:
//! with TrueTime L1 knows its lease is over when it wakes; with a clock that
//! runs 20% slow it serves a stale read.

use distlock::tools::spanner::{story, tt_now, L1Clock, EPSILON_MS, LEASE_MS};
use distlock::words::signed_seconds_3;

#[test]
fn truetime_leases_are_disjoint_and_l1_refuses_on_waking() {
    let s = story(L1Clock::TrueTime);
    assert_eq!(s.stale_read_ms, None, "no stale read");
    assert!(
        !s.l1_reckoned.overlaps(&s.l2),
        "{:?} {:?}",
        s.l1_reckoned,
        s.l2
    );
    assert!(!s.l1_real.overlaps(&s.l2), "{:?} {:?}", s.l1_real, s.l2);
    // L1 notes v = -0.004, its lease ends at 9.996 on TrueTime, and it
    // stops serving when TT.now().latest reaches that: true 9.992.
    assert_eq!(s.l1_reckoned.to_ms, 9_992);
    assert!(s.l1_reckoned.to_ms <= s.l1_real.to_ms);
    let wake = s
        .events
        .iter()
        .find(|e| e.at_ms == s.pause.to_ms)
        .expect("L1 wakes");
    assert!(
        wake.text.contains("TT.before(9.996 s) is false"),
        "{}",
        wake.text
    );
    assert!(wake.text.contains("serves nothing"), "{}", wake.text);
    assert!(s.events.iter().all(|e| !e.alarm));
}

#[test]
fn l2_leads_only_after_every_vote_has_lapsed() {
    for clock in [L1Clock::TrueTime, L1Clock::Slow] {
        let s = story(clock);
        // Votes granted at 0.001 last to TT latest + 10 s = 10.005; TT.after
        // that holds from 10.010, and L2's quorum is back at 10.011.
        assert_eq!(s.l1_real.to_ms, 10_010, "{clock:?}");
        assert_eq!(s.l2.from_ms, 10_011, "{clock:?}");
        assert!(s.l2.to_ms - s.l2.from_ms < LEASE_MS);
        let refused = s
            .events
            .iter()
            .any(|e| e.at_ms == 9_000 && e.text.contains("refuses"));
        assert!(refused, "{clock:?}: L2's early ask is refused");
    }
}

#[test]
fn l2s_commit_waits_about_two_epsilon() {
    let s = story(L1Clock::TrueTime);
    let wait = s.l2_commit_ms - 10_500;
    assert!(
        (2 * EPSILON_MS..=2 * EPSILON_MS + 2).contains(&wait),
        "{wait} ms"
    );
    assert_eq!(s.l2_commit_ms, 10_509);
}

#[test]
fn a_slow_clock_serves_a_stale_read_while_two_leaders_overlap() {
    let s = story(L1Clock::Slow);
    assert_eq!(s.stale_read_ms, Some(11_000), "at true 11 s");
    assert!(s.stale_read_ms > Some(s.l2_commit_ms), "after L2's commit");
    assert!(s.l1_reckoned.overlaps(&s.l2));
    // Its clock reads 10 s only at true 12.5 s.
    assert_eq!(s.l1_reckoned.to_ms, 12_500);
    let read = s
        .events
        .iter()
        .find(|e| e.alarm)
        .expect("the stale read is told");
    assert_eq!(read.at_ms, 11_000);
    assert!(
        read.text.contains("its clock reads 8.800 s"),
        "{}",
        read.text
    );
    assert!(read.text.contains("stale read"), "{}", read.text);
}

#[test]
fn a_deposed_leaders_write_is_refused_either_way() {
    for clock in [L1Clock::TrueTime, L1Clock::Slow] {
        let s = story(clock);
        let refused = s
            .events
            .iter()
            .any(|e| e.at_ms == s.pause.to_ms + 1 && e.text.contains("refuse it"));
        assert!(refused, "{clock:?}: the in-flight accept is refused");
    }
}

#[test]
fn the_story_is_deterministic_and_in_time_order() {
    for clock in [L1Clock::TrueTime, L1Clock::Slow] {
        let s = story(clock);
        assert_eq!(s, story(clock));
        assert!(s.events.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    }
}

#[test]
fn times_print_from_integers() {
    assert_eq!(signed_seconds_3(9_996), "9.996 s");
    assert_eq!(signed_seconds_3(-4), "-0.004 s");
    assert_eq!(signed_seconds_3(12_500), "12.500 s");
    assert_eq!(tt_now(11_000), (10_996, 11_004));
}
