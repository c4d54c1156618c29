//! Single Redis: the master and its replica, how far the replica is
//! behind, and Sentinel's promotion when the master is down.

use super::redlock::{node_row, redis_options};
use super::ServicePanelProps;
use crate::sim::RedisDetail;
use crate::ui::state::seconds_1;
use yew::prelude::*;

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
            <p id="nodes-caption" class="service__caption">{ "One Redis master and its replica, watched by Sentinel. Clients talk to the master." }</p>
            <div class="table-wrap">
                <table class="nodes" aria-labelledby="nodes-caption">
                    <thead>
                        <tr>
                            <th scope="col">{ "server" }</th>
                            <th scope="col">{ "state" }</th>
                            <th scope="col">{ "key owner" }</th>
                            <th scope="col">{ "value" }</th>
                            <th scope="col">{ "TTL left" }</th>
                            <th scope="col">{ "clock" }</th>
                            <th scope="col">{ "fence" }</th>
                            <th scope="col">{ "faults" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for detail.servers.iter().map(|s| node_row(props, &s.node, Some(if s.master { "master" } else { "replica" }))) }
                    </tbody>
                </table>
            </div>
            <p class="service__counter">{ sentinel }</p>
            { redis_options(props, true) }
            <p class="panel__note">
                { "The value is random: unique, not ordered. The fence is an INCR counter in the same script, and it lives on the master: a failover to a replica that had not copied the last INCR hands the same number out again, and fencing with \"token >= highest\" accepts both writes. Simplified on purpose: one replica, Sentinel as one voice (no quorum of sentinels), replication as copies of the whole lock state arriving 20 ms late; clients find the new master at once." }
            </p>
        </>
    }
}
