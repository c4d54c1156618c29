//! Chubby's sequencer and lock-delay: the lock node with its generation
//! number, the sessions the master keeps, and the master itself.

use super::{Cell, Line, ServicePanelProps, SystemWords};
use crate::sim::{
    chubby_scaled_ms, ChubbyDetail, ChubbyOptions, ChubbySession, ChubbySessionView, ClientView,
    Config, Millis, NodeCommand, NodeId, CHUBBY_ELECTION_MS_MAX, CHUBBY_ELECTION_MS_MIN,
    CHUBBY_GRACE_MS, CHUBBY_LEASE_MS, CHUBBY_LOCK_DELAY_MS_MAX,
};
use crate::ui::state::Action;
use crate::words::seconds_1;
use std::rc::Rc;
use yew::prelude::*;

/// The lock-delays offered, in Chubby's own time: none, a quarter, a
/// third, half and the whole of the one-minute bound.
const LOCK_DELAY_CHOICES_MS: [u64; 5] = [
    0,
    CHUBBY_LOCK_DELAY_MS_MAX / 4,
    CHUBBY_LOCK_DELAY_MS_MAX / 3,
    CHUBBY_LOCK_DELAY_MS_MAX / 2,
    CHUBBY_LOCK_DELAY_MS_MAX,
];

/// What the page says of chubby outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "token = the lock generation number in its sequencer; the lease is the session's",
    service_says: "Chubby master says",
    // A KeepAlive is a long poll, not a timer.
    renewal: (
        "keeps a KeepAlive waiting at the master, which answers it shortly before the lease ends",
        "",
    ),
    exit: super::EXIT_ENDS_NOTHING,
    power_off: super::POWER_OFF_ENDS_NOTHING,
    holding_note: None,
    library_note: Some(library_note),
};

/// A client's Chubby session as its library reports it, in Chubby's own
/// words, for its card.
fn library_note(_: &Config, view: &ClientView, now: Millis) -> Option<String> {
    Some(match view.chubby? {
        ChubbySession::Live => "Chubby session: live (its KeepAlives are answered)".into(),
        ChubbySession::Jeopardy { grace_until } => format!(
            "Chubby session: jeopardy. Its local lease ran out; cache flushed, calls blocked; grace period until t={} ({} left)",
            seconds_1(grace_until.ms()),
            seconds_1(now.until(grace_until))
        ),
        ChubbySession::Safe => {
            "Chubby session: safe (a KeepAlive got through in the grace period)".into()
        }
        ChubbySession::Expired => "Chubby session: expired (the lock went with it)".into(),
    })
}

pub(super) fn panel(props: &ServicePanelProps, detail: &ChubbyDetail) -> Html {
    html! {
        <>
            <p class="service__counter">
                { "lock generation number " }<strong>{ detail.generation }</strong>
                { " (rises each time the lock goes from free to held; kept in the replicated database)" }
            </p>
            { master_line(props.now, detail) }
            <h3 class="panel__subtitle">{ "Chubby's sequencer and lock-delay" }</h3>
            { lock_line(props.now, detail) }
            if !detail.blocked.is_empty() {
                <p class="service__blocked">
                    { format!("Acquire blocked at the master: {}",
                        detail.blocked.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")) }
                </p>
            }
            <h3 class="panel__subtitle">{ "Sessions" }</h3>
            { session_table(props.now, &detail.sessions) }
            <p class="panel__note">
                { format!(
                    "Times keep Chubby's ratios to its 12 s lease: the lease is the TTL setting, the client's grace period {} (45 s in Chubby), a one-minute lock-delay {}.",
                    seconds_1(detail.grace_ms),
                    seconds_1(chubby_scaled_ms(CHUBBY_LOCK_DELAY_MS_MAX, detail.lease_ms))
                ) }
            </p>
            <p class="panel__note">
                { "Simplified on purpose: the cell's five replicas and their Paxos are one master that can fail over (the replicated database keeps sessions, locks and generation numbers); each client opens one session and one handle on one lock node, all with the same lock-delay; blocked Acquires are served in arrival order; there is no file cache, no shared (reader) mode, no CheckSequencer() call (the resource keeps the highest generation it has seen, the paper's other way) and no master lease among the replicas. The client counts its lease from when it sent its KeepAlive, less 1% for the master's clock." }
            </p>
        </>
    }
}

fn master_line(now: Millis, detail: &ChubbyDetail) -> Html {
    let text = match detail.electing_until {
        Some(until) => format!(
            "No master: the replicas are electing one ({} left). Session timers are stopped meanwhile: no lease can run out.",
            seconds_1(now.until(until))
        ),
        None => format!("master epoch {}", detail.master_epoch),
    };
    html! { <p class="service__master">{ text }</p> }
}

fn lock_line(now: Millis, detail: &ChubbyDetail) -> Html {
    let sequencer = format!(
        "/ls/cell/shared-counter: exclusive, generation {}",
        detail.generation
    );
    let state = match (detail.holder, detail.lock_delay_until) {
        (Some(h), _) => format!(
            "held by {} (session {:x}) since t={}: its sequencer is ({sequencer})",
            h.client,
            h.session,
            seconds_1(h.since.ms())
        ),
        (None, Some(until)) => format!(
            "free, but nobody may claim it for {} more: the lock-delay after its holder's session failed (a release would have freed it at once)",
            seconds_1(now.until(until))
        ),
        (None, None) => "free".into(),
    };
    html! {
        <p class={classes!("service__lock", detail.lock_delay_until.is_some().then_some("service__lock--delay"))}>
            <code>{ "/ls/cell/shared-counter" }</code>{ format!(" is {state}.") }
        </p>
    }
}

fn session_table(now: Millis, sessions: &[ChubbySessionView]) -> Html {
    if sessions.is_empty() {
        return html! { <p class="panel__empty">{ "No sessions open." }</p> };
    }
    let lines = sessions
        .iter()
        .map(|s| Line {
            holder: false,
            cells: vec![
                Cell::Code(format!("{:x}", s.session)),
                s.owner.to_string().into(),
                seconds_1(now.until(s.lease_end)).into(),
                (if s.keep_alive_held {
                    "held by the master"
                } else {
                    "none waiting"
                })
                .into(),
            ],
        })
        .collect();
    super::books(
        "sessions",
        &["session", "client", "lease left", "KeepAlive"],
        lines,
    )
}

/// The panel's controls, drawn above its books so the rows they gain
/// never push them: the lock-delay the clients ask for, and the
/// master's failover.
pub(super) fn controls(props: &ServicePanelProps, detail: &ChubbyDetail) -> Html {
    let config = props.config.clone();
    let options = config.chubby;
    let to_config = move |lock_delay_ms| Config {
        chubby: ChubbyOptions { lock_delay_ms },
        ..config.clone()
    };
    let master = NodeId::new(1).expect("node 1 exists");
    let on_failover = props
        .dispatch
        .reform(move |_: MouseEvent| Action::Node(master, NodeCommand::Failover));
    let electing = detail.electing_until.is_some();
    let title = if electing {
        "A new master is already being elected".to_string()
    } else {
        format!(
            "The master dies; the replicas elect another in a few seconds ({} to {} here: the paper's elections took {} s and {} s). Locks and generation numbers survive; session timers stop meanwhile.",
            seconds_1(chubby_scaled_ms(CHUBBY_ELECTION_MS_MIN, props.config.ttl_ms)),
            seconds_1(chubby_scaled_ms(CHUBBY_ELECTION_MS_MAX, props.config.ttl_ms)),
            CHUBBY_ELECTION_MS_MIN / 1_000,
            CHUBBY_ELECTION_MS_MAX / 1_000
        )
    };
    let ttl = props.config.ttl_ms;
    html! {
        <fieldset class="service__options">
            <legend>{ "Chubby settings (each starts a fresh run)" }</legend>
            { super::picker(props, "chubby-lock-delay", "lock-delay",
                LOCK_DELAY_CHOICES_MS.iter().map(|&d| (d, delay_words(d, ttl))).collect(),
                (options.lock_delay_ms, delay_words(options.lock_delay_ms, ttl)),
                Rc::new(to_config)) }
            <p class="panel__note" id="chubby-lock-delay-note">
                { format!(
                    "A lock lost by failure (its holder's session expired) stays out of reach this long; a release frees it at once. Chubby allows up to one minute and names no default: the page starts at the minute, {} here against a {} lease ({} s in Chubby).",
                    seconds_1(chubby_scaled_ms(CHUBBY_LOCK_DELAY_MS_MAX, ttl)),
                    seconds_1(ttl),
                    CHUBBY_LEASE_MS / 1_000
                ) }
            </p>
            <p class="panel__note">{ partition_words(options.lock_delay_ms, ttl) }</p>
            <button type="button" class="button" onclick={on_failover} disabled={electing} title={title}
                aria-label="Master fails over">
                { "Master fails over" }
            </button>
            <p class="panel__note">
                { format!(
                    "A client whose local lease runs out meanwhile is in jeopardy; its grace period ({} here, {} s in Chubby) outlasts the election, and the new master's first answer makes it safe.",
                    seconds_1(chubby_scaled_ms(CHUBBY_GRACE_MS, ttl)),
                    CHUBBY_GRACE_MS / 1_000
                ) }
            </p>
        </fieldset>
    }
}

/// Whether a holder cut off from the master is stopped in time at this
/// lock-delay. It believes until its grace period ends, 45 s after its
/// local lease ran out; the master frees the lock when its own, up to a
/// lease later, ends: only a lock-delay past the rest of the grace period
/// (about 33 s in Chubby) keeps B out until then.
fn partition_words(lock_delay_ms: u64, ttl_ms: u64) -> String {
    let covers = lock_delay_ms >= CHUBBY_GRACE_MS - CHUBBY_LEASE_MS;
    let verdict = if covers {
        "long enough: B is granted only after a holder cut off from the master has stopped believing (its grace period over)"
    } else {
        "too short to cover a holder cut off from the master: B is granted while that holder is in jeopardy and still believes it holds, and only the sequencer stops its writes"
    };
    format!(
        "Lock-delay {} is {verdict}. A cut-off holder believes until its grace period ends ({} here); the master frees the lock up to a lease after the holder's own lease ran out, so it takes a lock-delay of about {} s in Chubby to reach past the grace period.",
        delay_words(lock_delay_ms, ttl_ms),
        seconds_1(chubby_scaled_ms(CHUBBY_GRACE_MS, ttl_ms)),
        (CHUBBY_GRACE_MS - CHUBBY_LEASE_MS) / 1_000
    )
}

/// "1 min (25.0 s here)", "none".
fn delay_words(chubby_ms: u64, ttl_ms: u64) -> String {
    if chubby_ms == 0 {
        return "none".into();
    }
    let real = if chubby_ms % 60_000 == 0 {
        format!("{} min", chubby_ms / 60_000)
    } else {
        format!("{} s", chubby_ms / 1_000)
    };
    format!(
        "{real} ({} here)",
        seconds_1(chubby_scaled_ms(chubby_ms, ttl_ms))
    )
}
