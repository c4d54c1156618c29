//! etcd's lock keys, leases and revision.

use super::ServicePanelProps;
use crate::sim::{EtcdDetail, LeaseView, Millis};
use crate::ui::state::seconds_1;
use yew::prelude::*;

pub(super) fn panel(props: &ServicePanelProps, detail: &EtcdDetail) -> Html {
    let EtcdDetail {
        keys,
        leases,
        revision,
    } = detail;
    html! {
        <>
            <p class="service__counter">
                { "revision " }<strong>{ revision }</strong>
                { " (every write bumps it: puts, deletes, lease expiry)" }
            </p>
            <h3 class="panel__subtitle">{ "Keys under /lock/shared-counter/, lowest create_revision first" }</h3>
            if keys.is_empty() {
                <p class="panel__empty">{ "No lock keys: nobody holds or waits." }</p>
            } else {
                <div class="table-wrap">
                    <table class="keys">
                        <thead>
                            <tr>
                                <th scope="col">{ "key" }</th>
                                <th scope="col">{ "client" }</th>
                                <th scope="col">{ "create_rev" }</th>
                                <th scope="col">{ "mod_rev" }</th>
                                <th scope="col">{ "role" }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for keys.iter().enumerate().map(|(i, k)| html! {
                                <tr class={classes!((i == 0).then_some("keys__row--holder"))}>
                                    <td><code>{ format!("…/{:x}", k.lease) }</code></td>
                                    <td>{ k.owner.to_string() }</td>
                                    <td>{ k.create_rev }</td>
                                    <td>{ k.mod_rev }</td>
                                    <td>{ if i == 0 { "holds" } else { "waits" } }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
            <h3 class="panel__subtitle">{ "Leases" }</h3>
            { lease_table(props.now, leases) }
            { super::failover_button(props, "Fail over the etcd leader", "The Raft leader dies: the keys and revisions survive, and the new leader renews every lease to its full TTL", None) }
            <p class="panel__note">
                { "Simplified on purpose: the cluster is one service; a leader failover is instant, keeps every key and revision, and renews every lease to its full TTL, as etcd's new leader does. Every acquisition opens its own lease. The token is the lock key's create_revision." }
            </p>
        </>
    }
}

fn lease_table(now: Millis, leases: &[LeaseView]) -> Html {
    if leases.is_empty() {
        return html! { <p class="panel__empty">{ "No leases granted." }</p> };
    }
    html! {
        <div class="table-wrap">
            <table class="leases">
                <thead>
                    <tr>
                        <th scope="col">{ "lease" }</th>
                        <th scope="col">{ "client" }</th>
                        <th scope="col">{ "TTL" }</th>
                        <th scope="col">{ "left" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for leases.iter().map(|l| html! {
                        <tr>
                            <td><code>{ format!("{:x}", l.lease) }</code></td>
                            <td>{ l.owner.to_string() }</td>
                            <td>{ seconds_1(l.ttl_ms) }</td>
                            <td>{ seconds_1(now.until(l.expires_at)) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}
