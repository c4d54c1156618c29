//! etcd's lock keys, leases and revision.

use super::{Cell, Line, ServicePanelProps, SystemWords};
use crate::sim::{EtcdDetail, LeaseView, Millis};
use crate::words::seconds_1;
use yew::prelude::*;

/// What the page says of etcd outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "token = create_revision of the lock key",
    service_says: "etcd says",
    renewal: ("sends lease keepalives", super::EVERY_THIRD),
    exit: super::EXIT_ENDS_NOTHING,
    power_off: super::POWER_OFF_ENDS_NOTHING,
    holding_note: None,
    library_note: None,
};

/// The panel's controls, drawn above its books so the rows they gain
/// never push them.
pub(super) fn controls(props: &ServicePanelProps, _: &EtcdDetail) -> Html {
    super::failover_button(props, "Fail over the etcd leader", "The Raft leader dies: the keys and revisions survive, and the new leader renews every lease to its full TTL", None)
}

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
                { super::books("keys", &["key", "client", "create_rev", "mod_rev", "role"],
                    keys.iter().enumerate().map(|(i, k)| Line {
                        holder: i == 0,
                        cells: vec![
                            Cell::Code(format!("…/{:x}", k.lease)),
                            k.owner.to_string().into(),
                            k.create_rev.into(),
                            k.mod_rev.into(),
                            (if i == 0 { "holds" } else { "waits" }).into(),
                        ],
                    }).collect()) }
            }
            <h3 class="panel__subtitle">{ "Leases" }</h3>
            { lease_table(props.now, leases) }
            <p class="panel__note">
                { "Simplified on purpose: the cluster is one service; a leader failover is instant, keeps every key and revision, and renews every lease to its full TTL, as etcd's new leader does. Every acquisition opens its own lease. The client sends its first keepalive at once and, until that reply tells it the TTL, gives its session 5 s (firstKeepAliveTimeout); after that, each reply's TTL. Its deadline loop looks once a second, the server for expired leases every 500 ms. The token is the lock key's create_revision." }
            </p>
        </>
    }
}

fn lease_table(now: Millis, leases: &[LeaseView]) -> Html {
    if leases.is_empty() {
        return html! { <p class="panel__empty">{ "No leases granted." }</p> };
    }
    let lines = leases
        .iter()
        .map(|l| Line {
            holder: false,
            cells: vec![
                Cell::Code(format!("{:x}", l.lease)),
                l.owner.to_string().into(),
                seconds_1(l.ttl_ms).into(),
                seconds_1(now.until(l.expires_at)).into(),
            ],
        })
        .collect();
    super::books("leases", &["lease", "client", "TTL", "left"], lines)
}
