//! DynamoDB's lock item with its RVN and lease clock, each waiter's watch,
//! each holder's own view of its lease, and the lock client's settings.

use super::{Cell, Line, ServicePanelProps, SystemWords};
use crate::sim::{
    rvn_text, Config, DynamoDetail, DynamoHolderView, DynamoItemView, DynamoOptions,
    DynamoWatchView, Millis, DYNAMO_EXTRA_WAIT_PCT_DEFAULT,
};
use crate::words::seconds_1;
use std::rc::Rc;
use yew::prelude::*;

/// What the page says of dynamodb outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "no token: the RVN is a random UUID, new every heartbeat (unique, not ordered); fencing checks the lock item's owner",
    service_says: "DynamoDB's item says",
    renewal: (
        "heartbeats the lock item, writing a new random RVN",
        " every heartbeat period (a quarter of the lease by default)",
    ),
    exit: super::EXIT_ENDS_NOTHING,
    power_off: super::POWER_OFF_ENDS_NOTHING,
    holding_note: Some("no token: the lock item's RVN is a random UUID, new every heartbeat; unique, not ordered, so no resource can compare it"),
    library_note: None,
};

pub(super) fn panel(props: &ServicePanelProps, detail: &DynamoDetail) -> Html {
    html! {
        <>
            <p class="service__counter">
                { format!(
                    "leaseDuration {} · heartbeat every {} · waiters read every {}",
                    Millis(detail.lease_ms),
                    Millis(detail.heartbeat_ms),
                    Millis(detail.refresh_ms)
                ) }
            </p>
            <h3 class="panel__subtitle">{ "Table lockTable, item key = \"shared-counter\"" }</h3>
            { item_table(props.now, detail.item.as_ref()) }
            <p class="panel__note">
                { "The item stores no expiry time. A waiter may replace it only after seeing the same RVN for a whole lease by its own clock; every heartbeat writes a new random RVN (a UUID): unique, not ordered, so no resource can compare two of them." }
            </p>
            <h3 class="panel__subtitle">{ "Waiters' watches (no queue: each polls the item)" }</h3>
            { watches(&detail.watches) }
            <h3 class="panel__subtitle">{ "Holders' own clocks (isExpired)" }</h3>
            { holders(props.now, &detail.holders) }
            <p class="panel__note">
                { "Simplified on purpose: the table is one always-available service (no regions, no throttling, no failover a client could see); each client runs one lock and its own heartbeat thread; a call that gets no answer fails after the SDK's read timeout (a lease and a half), without the SDK's retries; release deletes the item (deleteLockOnRelease); holdLockOnServiceUnavailable stays off. Fencing on is a DynamoDB transaction whose ConditionCheck requires the lock item to name the writer: the library writes no counter a resource could order." }
            </p>
        </>
    }
}

fn item_table(now: Millis, item: Option<&DynamoItemView>) -> Html {
    let Some(item) = item else {
        return html! { <p class="panel__empty">{ "No lock item: nobody holds the lock." }</p> };
    };
    let idle = now.until(item.rvn_at.plus(item.lease_ms));
    let line = Line {
        holder: true,
        cells: vec![
            Cell::Code("shared-counter".into()),
            item.owner.to_string().into(),
            Cell::Code(rvn_text(item.rvn)),
            seconds_1(item.lease_ms).into(),
            format!(
                "t={} ({} heartbeats since the put)",
                seconds_1(item.rvn_at.ms()),
                item.heartbeats
            )
            .into(),
        ],
    };
    html! {
        <>
            { super::books("keys dynamo-item", &["key", "ownerName", "RVN", "leaseDuration", "RVN written"], vec![line]) }
            <p class="panel__note">
                { format!(
                    "A waiter that saw this RVN when it was written could take the item over in {}.",
                    seconds_1(idle)
                ) }
            </p>
        </>
    }
}

fn watches(list: &[DynamoWatchView]) -> Html {
    if list.is_empty() {
        return html! { <p class="panel__empty">{ "Nobody is asking for the lock." }</p> };
    }
    html! {
        <ul class="queue">
            { for list.iter().map(|w| html! { <li class="queue__item">{ watch_words(w) }</li> }) }
        </ul>
    }
}

fn watch_words(w: &DynamoWatchView) -> String {
    let gives_up = format!(
        "asking for {} of at most {}",
        seconds_1(w.waited_ms),
        seconds_1(w.wait_ms)
    );
    match (w.rvn, w.owner) {
        (Some(rvn), Some(owner)) => format!(
            "{} saw {owner}'s RVN {} at {} by its own clock: unchanged for {} ({gives_up})",
            w.client,
            rvn_text(rvn),
            seconds_1(w.seen_local_ms.max(0) as u64),
            seconds_1(w.watched_ms)
        ),
        _ => format!("{} is reading the item ({gives_up})", w.client),
    }
}

fn holders(now: Millis, list: &[DynamoHolderView]) -> Html {
    if list.is_empty() {
        return html! { <p class="panel__empty">{ "No client believes it holds the lock." }</p> };
    }
    html! {
        <ul class="queue">
            { for list.iter().map(|h| html! {
                <li class="queue__item">
                    { format!(
                        "{} knows RVN {}; by its own clock its lease ends in {}{}",
                        h.client,
                        rvn_text(h.rvn),
                        seconds_1(now.until(h.expires_at)),
                        if h.heartbeating { "" } else { " (its heartbeat failed its condition: the thread stopped, and only logged it)" }
                    ) }
                </li>
            }) }
        </ul>
    }
}

/// Heartbeats per lease offered: twice (the least the client accepts),
/// four times (its defaults: 5 s of 20 s), ten times.
const HEARTBEAT_CHOICES: [u32; 3] = [2, 4, 10];
/// additionalTimeToWaitForLock offered, in percent of the lease: the
/// default 1 s of 20 s, and 60 s of 20 s as in systems.md's story.
const WAIT_CHOICES_PCT: [(u32, &str); 2] = [
    (
        DYNAMO_EXTRA_WAIT_PCT_DEFAULT,
        "a lease + 1/20 (the default 1 s of 20 s)",
    ),
    (300, "a lease + 3 leases (60 s of 20 s)"),
];

/// The panel's controls, drawn above its books so the rows they gain
/// never push them: the lock client's settings; each change starts a
/// fresh run.
pub(super) fn controls(props: &ServicePanelProps, _: &DynamoDetail) -> Html {
    let config = &props.config;
    let dynamo = config.dynamo;
    let with = {
        let config = config.clone();
        move |dynamo: DynamoOptions| Config {
            dynamo,
            ..config.clone()
        }
    };
    let beats_words = |n: u32| {
        format!(
            "lease / {n} = {}",
            Millis(config.ttl_ms / u64::from(n.max(1)))
        )
    };
    let beats = HEARTBEAT_CHOICES
        .iter()
        .map(|&n| (u64::from(n), beats_words(n)))
        .collect();
    let waits = WAIT_CHOICES_PCT
        .iter()
        .map(|&(p, words)| (u64::from(p), words.to_string()))
        .collect();
    let now_beats = dynamo.heartbeats_per_lease;
    let now_wait = dynamo.extra_wait_pct;
    let to_beats = {
        let with = with.clone();
        move |n: u64| {
            with(DynamoOptions {
                heartbeats_per_lease: u32::try_from(n).unwrap_or(now_beats),
                ..dynamo
            })
        }
    };
    let to_wait = {
        let with = with.clone();
        move |p: u64| {
            with(DynamoOptions {
                extra_wait_pct: u32::try_from(p).unwrap_or(now_wait),
                ..dynamo
            })
        }
    };
    // (isExpired() polled, session monitor set): the application's ways
    // to learn its lock is gone.
    let checks = |id: &'static str, words: &'static str, (on, monitor): (bool, bool)| {
        let config = with(DynamoOptions {
            app_checks_expiry: on,
            session_monitor: monitor,
            ..dynamo
        });
        let chosen = (dynamo.app_checks_expiry, dynamo.session_monitor) == (on, monitor)
            || (monitor && dynamo.session_monitor);
        super::choice(props, "dynamo-checks", id, words, chosen, config)
    };
    html! {
        <fieldset class="service__options">
            <legend>{ "DynamoDB lock client settings (each starts a fresh run)" }</legend>
            { super::picker(props, "dynamo-heartbeat", "heartbeatPeriod", beats,
                (u64::from(now_beats), beats_words(now_beats)), Rc::new(to_beats)) }
            { super::picker(props, "dynamo-wait", "a waiter gives up after", waits,
                (u64::from(now_wait), format!("a lease + {now_wait}% of a lease")), Rc::new(to_wait)) }
            { checks("dynamo-checks-on", "The application polls isExpired() before each write: a holder stops at its own deadline, a lease after its last heartbeat", (true, false)) }
            { checks("dynamo-checks-monitor", "The application acquires withSessionMonitor(safeTimeWithoutHeartbeat, callback), the library's opt-in other way: once no heartbeat has succeeded for the safe time (here half the lease) the callback runs, and the application stops, before isExpired() would say so", (true, true)) }
            { checks("dynamo-checks-off", "The application never asks: the library only logs a failed or late heartbeat, and the holder believes it holds until it releases", (false, false)) }
            <p class="panel__note">
                { if dynamo.session_monitor {
                    "Now: the session monitor. The library runs the application's callback when the lock enters its danger zone, half a lease without a successful heartbeat; the safe time must lie between the heartbeat period and the lease."
                } else if dynamo.app_checks_expiry {
                    "Now: the application checks. A holder that stops in time here does so because its own code asks isExpired(); the library tells it nothing unless it sets a session monitor."
                } else {
                    "Now: the application never asks. A holder cut off or paused past its lease goes on writing as the holder; only a fenced write (a ConditionCheck on the lock item) stops it."
                } }
            </p>
            <p class="panel__note">
                { "The lease is the TTL setting (the library's default is 20 s). A waiter behind a live holder sees a new RVN every heartbeat, so its count keeps starting again and it gives up with LockNotGrantedException: there is no queue." }
            </p>
        </fieldset>
    }
}

/// What a holder's card says of its application: the library tells it
/// nothing, so whether it stops at its deadline is its own code.
pub fn card_note(config: &Config) -> String {
    if config.dynamo.session_monitor {
        "its application set a session monitor: the library runs its callback, which stops it, once no heartbeat has succeeded for half a lease".into()
    } else if config.dynamo.app_checks_expiry {
        "its application polls isExpired() before each write, so it stops believing at its own deadline (the library only logs a failed heartbeat)".into()
    } else {
        "its application never asks isExpired(): it believes it holds until it releases, whatever the library logged".into()
    }
}
