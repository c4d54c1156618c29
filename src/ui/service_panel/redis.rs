//! Single Redis: the master and its replica, how far the replica is
//! behind, and Sentinel's promotion when the master is down.

use super::redlock::{nodes_table, redis_options};
use super::{ServicePanelProps, SystemWords};
use crate::sim::RedisDetail;
use crate::words::seconds_1;
use yew::prelude::*;

/// What the page says of redis outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "the lock value is random (unique, not ordered); token = INCR fence counter on the master, which a failover can repeat",
    service_says: "the Redis master says",
    renewal: ("extends its key if the value is still its own", super::EVERY_THIRD),
    exit: super::EXIT_ENDS_NOTHING,
    power_off: super::POWER_OFF_ENDS_NOTHING,
    holding_note: None,
    library_note: None,
};

/// The panel's controls, drawn above its books so the rows they gain
/// never push them.
pub(super) fn controls(props: &ServicePanelProps, _: &RedisDetail) -> Html {
    redis_options(props, true)
}

pub(super) fn panel(props: &ServicePanelProps, detail: &RedisDetail) -> Html {
    let sentinel = match detail.promotion_at {
        Some(at) => format!(
            "The master is down: Sentinel promotes the replica in {} (down-after-milliseconds, then an election).",
            seconds_1(props.now.until(at))
        ),
        None if detail.replica_behind > 0 => format!(
            "The replica is {} write{} behind: asynchronous replication.",
            detail.replica_behind,
            if detail.replica_behind == 1 { "" } else { "s" }
        ),
        None => "The replica has every write.".into(),
    };
    html! {
        <>
            { nodes_table(
                props,
                "One Redis master and its replica, watched by Sentinel. Clients talk to the master.",
                "server",
                detail.servers.iter().map(|s| (&s.node, Some(if s.master { "master" } else { "replica" }))),
            ) }
            <p class="service__counter">{ sentinel }</p>
            <p class="panel__note">
                { "The value is random: unique, not ordered. The fence is an INCR counter in the same script, and it lives on the master: a failover to a replica that had not copied the last INCR hands the same number out again, and fencing with \"token >= highest\" accepts both writes. Simplified on purpose: one replica, Sentinel as one voice (no quorum of sentinels), replication as copies of the whole lock state arriving 20 ms late (about a hundred times a healthy LAN's lag: a replica that is behind, which the failover story needs); clients find the new master at once; the application's WAIT 1 fails the acquisition at once without an ack; Redisson gives the key back after a try in which no connected replica acked and tries 4 more times, 1-2 s apart (retryAttempts, EqualJitterDelay(1 s, 2 s), each delay drawn), before the caller sees NoSyncedSlavesException, while a WAIT with no answer is a timeout it does not try again, as in the failover story." }
            </p>
        </>
    }
}
