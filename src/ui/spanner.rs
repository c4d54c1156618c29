//! "Spanner: clocks with an error bar": the articles' contrast, told as one
//! story with a switch for L1's clock. Not a ninth backend: Spanner's lock
//! and data are one replicated state, so the lesson here is the clock.

use crate::lesson::spanner::{secs, story, Interval, L1Clock, Story, EPSILON_MS};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SpannerProps {
    /// The clock the section opens with (tests render both).
    #[prop_or_default]
    pub clock: L1Clock,
}

#[component]
pub fn Spanner(props: &SpannerProps) -> Html {
    let clock = use_state(|| props.clock);
    let s = story(*clock);
    let option = |c: L1Clock, words: String| {
        let onchange = {
            let clock = clock.clone();
            Callback::from(move |_: Event| clock.set(c))
        };
        html! {
            <label class={classes!("spanner__option", (c == *clock).then_some("spanner__option--on"))}>
                <input type="radio" name="spanner-clock" checked={c == *clock} {onchange} />
                <span>{ words }</span>
            </label>
        }
    };
    html! {
        <section class="panel spanner" aria-labelledby="spanner-title">
            <h2 id="spanner-title" class="panel__title">{ "Spanner: clocks with an error bar" }</h2>
            <p class="spanner__lead">
                { "Spanner's Paxos leaders hold 10 s leases too. Leader L1 freezes for 6 s, past its lease; L2 is elected and commits x=2; L1 wakes with a read waiting. Whether it answers depends only on what its clock can tell it." }
            </p>
            <fieldset class="spanner__switch">
                <legend>{ "L1's clock" }</legend>
                { option(L1Clock::TrueTime, format!("TrueTime (error bar ±{EPSILON_MS} ms)")) }
                { option(L1Clock::Slow, "runs 20% slow, no error bar".into()) }
            </fieldset>
            { picture(&s) }
            <ol class="spanner__events">
                { for s.events.iter().map(|e| html! {
                    <li class={classes!(e.alarm.then_some("spanner__event--alarm"))}>
                        <span class="spanner__at">{ secs(e.at_ms) }</span>{ " " }{ &e.text }
                    </li>
                }) }
            </ol>
            <p class={classes!("spanner__outcome", s.stale_read_ms.map(|_| "spanner__outcome--alarm"))}>
                { outcome(&s) }
            </p>
            <p class="spanner__lesson">
                { "Bounded uncertainty lets a leader know when its lease is over, even after a pause: L1 reads TrueTime when it wakes, the error bar is honest, so it stops before any replica may vote again and the leases never overlap. No fencing switch is needed: lock and data are one Paxos-replicated state, a deposed leader's write needs a quorum that has moved on, and the commit timestamp, which only grows across leaders, is the token. A clock that merely runs slow cannot know it: nothing bounds its error, so L1 serves reads from a lease that is over. That is why Spanner is not a ninth backend above: it has no client lease and no separate resource to fence, only the clock." }
            </p>
        </section>
    }
}

fn outcome(s: &Story) -> String {
    match s.stale_read_ms {
        Some(at) => format!(
            "⚠ Stale read at {}: two leaders from {} to {}.",
            secs(at),
            secs(s.l2.from_ms),
            secs(s.l1_reckoned.to_ms)
        ),
        None => format!(
            "✓ No stale read, no stale write: L1 stops at {}, L2 leads from {}.",
            secs(s.l1_reckoned.to_ms),
            secs(s.l2.from_ms)
        ),
    }
}

/// The time axis runs 0 to 14 s over the viewBox's 62 to 392.
const AXIS_MS: i64 = 14_000;

fn x(t_ms: i64) -> i64 {
    62 + t_ms.clamp(0, AXIS_MS) * 330 / AXIS_MS
}

fn bar(class: &'static str, row_y: i64, i: &Interval) -> Html {
    html! {
        <rect class={class} x={x(i.from_ms).to_string()} y={row_y.to_string()}
            width={(x(i.to_ms) - x(i.from_ms)).to_string()} height="14" rx="2" />
    }
}

fn label(x_at: i64, y: i64, class: &'static str, words: String) -> Html {
    html! { <text class={class} x={x_at.to_string()} y={y.to_string()}>{ words }</text> }
}

/// The two leaders' leases on one axis: L1's as the replicas hold it and as
/// L1 reckons it, L2's, the pause, L2's commit and what L1 did on waking.
fn picture(s: &Story) -> Html {
    let wake = s.pause.to_ms;
    let desc = format!(
        "L1's lease as the replicas hold it: {} to {}. As L1 reckons it: {} to {}. L1 frozen {} to {}. L2 leads from {} (its lease runs past the axis to {}) and commits x=2 at {}. {}",
        secs(s.l1_real.from_ms), secs(s.l1_real.to_ms), secs(s.l1_reckoned.from_ms), secs(s.l1_reckoned.to_ms),
        secs(s.pause.from_ms), secs(wake), secs(s.l2.from_ms), secs(s.l2.to_ms), secs(s.l2_commit_ms), outcome(s)
    );
    let overlap = s.stale_read_ms.map(|_| Interval {
        from_ms: s.l2.from_ms,
        to_ms: s.l1_reckoned.to_ms,
    });
    let (woke, caption) = match overlap {
        Some(o) => (
            "⚠ stale read",
            format!("⚠ two leaders for {}", secs(o.to_ms - o.from_ms)),
        ),
        None => {
            let gap = s.l2.from_ms - s.l1_reckoned.to_ms;
            (
                "✗ refuses",
                format!("✓ never two leaders: L1 stops {gap} ms before L2"),
            )
        }
    };
    html! {
        <svg class="spanner__svg" viewBox="0 0 400 130" role="img" aria-labelledby="spanner-svg-title spanner-svg-desc">
            <title id="spanner-svg-title">{ "The two leaders' leases on a time axis" }</title>
            <desc id="spanner-svg-desc">{ desc }</desc>
            { for overlap.map(|o| html! {
                <rect class="spanner__overlap" x={x(o.from_ms).to_string()} y="4"
                    width={(x(o.to_ms) - x(o.from_ms)).to_string()} height="80" />
            }) }
            { label(4, 21, "spanner__row", "L1 real".into()) }
            { label(4, 49, "spanner__row", "L1 thinks".into()) }
            { label(4, 77, "spanner__row", "L2".into()) }
            { bar("spanner__l1", 10, &s.l1_real) }
            { bar("spanner__l1", 38, &s.l1_reckoned) }
            { bar("spanner__pause", 38, &s.pause) }
            { label(x(s.pause.from_ms) + 4, 49, "spanner__mark", "frozen".into()) }
            { label(x(wake) + 3, 49, "spanner__mark", woke.into()) }
            { bar("spanner__l2", 66, &Interval { from_ms: s.l2.from_ms, to_ms: AXIS_MS }) }
            <line class="spanner__commit" x1={x(s.l2_commit_ms).to_string()} x2={x(s.l2_commit_ms).to_string()} y1="62" y2="84" />
            { label(x(s.l2_commit_ms) + 3, 77, "spanner__mark", "x=2".into()) }
            <line class="spanner__axis" x1="62" x2="392" y1="92" y2="92" />
            { for (0..=AXIS_MS / 2_000).map(|i| label(x(i * 2_000) - 3, 106, "spanner__tick", (i * 2).to_string())) }
            { label(4, 106, "spanner__tick", "true s".into()) }
            { label(4, 124, "spanner__caption", caption) }
        </svg>
    }
}
