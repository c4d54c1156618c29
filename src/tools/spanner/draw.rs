//! "Spanner: clocks with an error bar", drawn in the worker: the story
//! told twice, with L1's clock as TrueTime and as a clock that runs slow.
//! Both are drawn at once and a radio switch shows one (in the stylesheet,
//! no script), so switching needs no round trip to the worker.

use crate::markup::escape;
use crate::tools::spanner::{story, Interval, L1Clock, Story, EPSILON_MS};
use crate::words::signed_seconds_3;
use std::fmt::Write;

/// The section's body below its lead: the switch and both tellings.
pub fn body() -> String {
    let mut h = String::new();
    h.push_str(r#"<fieldset class="spanner__switch"><legend>L1's clock</legend>"#);
    for (id, words, checked) in [
        (
            "spanner-truetime",
            format!("TrueTime (error bar ±{EPSILON_MS} ms)"),
            " checked",
        ),
        (
            "spanner-slow",
            "runs 20% slow, no error bar".to_string(),
            "",
        ),
    ] {
        let _ = write!(
            h,
            r#"<label class="spanner__option" for="{id}"><input type="radio" id="{id}" name="spanner-clock"{checked}><span>{}</span></label>"#,
            escape(&words)
        );
    }
    h.push_str("</fieldset>");
    for (clock, class) in [
        (L1Clock::TrueTime, "spanner__variant--truetime"),
        (L1Clock::Slow, "spanner__variant--slow"),
    ] {
        let s = story(clock);
        let _ = write!(h, r#"<div class="spanner__variant {class}">"#);
        picture(&mut h, &s, class);
        h.push_str(r#"<ol class="spanner__events">"#);
        for e in &s.events {
            let alarm = if e.alarm {
                r#" class="spanner__event--alarm""#
            } else {
                ""
            };
            let _ = write!(
                h,
                r#"<li{alarm}><span class="spanner__at">{}</span> {}</li>"#,
                signed_seconds_3(e.at_ms),
                escape(&e.text)
            );
        }
        h.push_str("</ol>");
        let alarm = if s.stale_read_ms.is_some() {
            " spanner__outcome--alarm"
        } else {
            ""
        };
        let _ = write!(
            h,
            r#"<p class="spanner__outcome{alarm}">{}</p></div>"#,
            escape(&outcome(&s))
        );
    }
    h.push_str(r#"<p class="spanner__lesson">Bounded uncertainty lets a leader know when its lease is over, even after a pause: L1 reads TrueTime when it wakes, the error bar is honest, so it stops before any replica may vote again and the leases never overlap. No fencing switch is needed: lock and data are one Paxos-replicated state, a deposed leader's write needs a quorum that has moved on, and the commit timestamp, which only grows across leaders, is the token. A clock that merely runs slow cannot know it: nothing bounds its error, so L1 serves reads from a lease that is over. That is why Spanner is not a ninth backend above: it has no client lease and no separate resource to fence, only the clock.</p>"#);
    h
}

fn outcome(s: &Story) -> String {
    match s.stale_read_ms {
        Some(at) => format!(
            "⚠ Stale read at {}: two leaders from {} to {}.",
            signed_seconds_3(at),
            signed_seconds_3(s.l2.from_ms),
            signed_seconds_3(s.l1_reckoned.to_ms)
        ),
        None => format!(
            "✓ No stale read, no stale write: L1 stops at {}, L2 leads from {}.",
            signed_seconds_3(s.l1_reckoned.to_ms),
            signed_seconds_3(s.l2.from_ms)
        ),
    }
}

/// The time axis runs 0 to 14 s over the viewBox's 62 to 392.
const AXIS_MS: i64 = 14_000;

fn x(t_ms: i64) -> i64 {
    62 + t_ms.clamp(0, AXIS_MS) * 330 / AXIS_MS
}

fn bar(h: &mut String, class: &str, row_y: i64, i: &Interval) {
    let _ = write!(
        h,
        r#"<rect class="{class}" x="{}" y="{row_y}" width="{}" height="14" rx="2"/>"#,
        x(i.from_ms),
        x(i.to_ms) - x(i.from_ms)
    );
}

fn label(h: &mut String, x_at: i64, y: i64, class: &str, words: &str) {
    let _ = write!(
        h,
        r#"<text class="{class}" x="{x_at}" y="{y}">{}</text>"#,
        escape(words)
    );
}

/// The two leaders' leases on one axis: L1's as the replicas hold it and as
/// L1 reckons it, L2's, the pause, L2's commit and what L1 did on waking.
/// `id` keeps the two drawings' title and description ids apart.
fn picture(h: &mut String, s: &Story, id: &str) {
    let wake = s.pause.to_ms;
    let desc = format!(
        "L1's lease as the replicas hold it: {} to {}. As L1 reckons it: {} to {}. L1 frozen {} to {}. L2 leads from {} (its lease runs past the axis to {}) and commits x=2 at {}. {}",
        signed_seconds_3(s.l1_real.from_ms), signed_seconds_3(s.l1_real.to_ms), signed_seconds_3(s.l1_reckoned.from_ms), signed_seconds_3(s.l1_reckoned.to_ms),
        signed_seconds_3(s.pause.from_ms), signed_seconds_3(wake), signed_seconds_3(s.l2.from_ms), signed_seconds_3(s.l2.to_ms), signed_seconds_3(s.l2_commit_ms), outcome(s)
    );
    let overlap = s.stale_read_ms.map(|_| Interval {
        from_ms: s.l2.from_ms,
        to_ms: s.l1_reckoned.to_ms,
    });
    let (woke, caption) = match overlap {
        Some(o) => (
            "⚠ stale read",
            format!(
                "⚠ two leaders for {}",
                signed_seconds_3(o.to_ms - o.from_ms)
            ),
        ),
        None => (
            "✗ refuses",
            format!(
                "✓ never two leaders: L1 stops {} ms before L2",
                s.l2.from_ms - s.l1_reckoned.to_ms
            ),
        ),
    };
    let _ = write!(
        h,
        r#"<svg class="spanner__svg" viewBox="0 0 400 130" role="img" aria-labelledby="{id}-title {id}-desc"><title id="{id}-title">The two leaders' leases on a time axis</title><desc id="{id}-desc">{}</desc>"#,
        escape(&desc)
    );
    if let Some(o) = overlap {
        let _ = write!(
            h,
            r#"<rect class="spanner__overlap" x="{}" y="4" width="{}" height="80"/>"#,
            x(o.from_ms),
            x(o.to_ms) - x(o.from_ms)
        );
    }
    label(h, 4, 21, "spanner__row", "L1 real");
    label(h, 4, 49, "spanner__row", "L1 thinks");
    label(h, 4, 77, "spanner__row", "L2");
    bar(h, "spanner__l1", 10, &s.l1_real);
    bar(h, "spanner__l1", 38, &s.l1_reckoned);
    bar(h, "spanner__pause", 38, &s.pause);
    label(h, x(s.pause.from_ms) + 4, 49, "spanner__mark", "frozen");
    label(h, x(wake) + 3, 49, "spanner__mark", woke);
    let l2 = Interval {
        from_ms: s.l2.from_ms,
        to_ms: AXIS_MS,
    };
    bar(h, "spanner__l2", 66, &l2);
    let commit = x(s.l2_commit_ms);
    let _ = write!(
        h,
        r#"<line class="spanner__commit" x1="{commit}" x2="{commit}" y1="62" y2="84"/>"#
    );
    label(h, commit + 3, 77, "spanner__mark", "x=2");
    h.push_str(r#"<line class="spanner__axis" x1="62" x2="392" y1="92" y2="92"/>"#);
    for i in 0..=AXIS_MS / 2_000 {
        label(
            h,
            x(i * 2_000) - 3,
            106,
            "spanner__tick",
            &(i * 2).to_string(),
        );
    }
    label(h, 4, 106, "spanner__tick", "true s");
    label(h, 4, 124, "spanner__caption", &caption);
    h.push_str("</svg>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(html: &str, class: &str) -> String {
        let start = html.find(&format!("spanner__variant {class}")).unwrap();
        let end = html[start..].find("</div>").unwrap();
        html[start..start + end].to_string()
    }

    #[test]
    fn truetime_tells_l1_its_lease_is_over() {
        let html = body();
        let tt = variant(&html, "spanner__variant--truetime");
        for words in [
            "TT.before(9.996 s) is false",
            "serves nothing",
            "✗ refuses",
            "✓ No stale read, no stale write",
            "<desc id=\"spanner__variant--truetime-desc\">",
        ] {
            assert!(tt.contains(words), "missing {words:?} in {tt}");
        }
        assert!(!tt.contains("stale read at"), "{tt}");
        assert!(
            !tt.contains("spanner__overlap"),
            "the leases do not overlap"
        );
        assert!(html.contains("TrueTime (error bar ±4 ms)"));
        assert!(html.contains("No fencing switch is needed"));
        assert_eq!(html.matches("type=\"radio\"").count(), 2);
        assert_eq!(
            html.matches(" checked").count(),
            1,
            "TrueTime is shown first"
        );
    }

    #[test]
    fn a_slow_clock_serves_a_stale_read() {
        let slow = variant(&body(), "spanner__variant--slow");
        for words in [
            "its clock reads 8.800 s, before 10.000 s",
            "a stale read, missing L2&#39;s x=2",
            "⚠ Stale read at 11.000 s: two leaders from 10.011 s to 12.500 s.",
            "⚠ two leaders for 2.489 s",
            "spanner__overlap",
            "spanner__event--alarm",
        ] {
            assert!(slow.contains(words), "missing {words:?} in {slow}");
        }
    }
}
