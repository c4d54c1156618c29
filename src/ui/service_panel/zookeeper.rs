//! ZooKeeper's znode queue, its sessions and its settings.

use super::{Cell, Line, ServicePanelProps, SystemWords};
use crate::sim::{
    negotiated_timeout_ms, ClientView, Config, Millis, SessionView, ZkClient, ZkDetail, ZkOptions,
};
use crate::words::seconds_1;
use std::rc::Rc;
use yew::prelude::*;

/// What the page says of zookeeper outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "token = sequence number of the lock znode; the lease is the session",
    service_says: "ZooKeeper says",
    renewal: ("heartbeats its session", super::EVERY_THIRD),
    exit: super::EXIT_ENDS_NOTHING,
    power_off: super::POWER_OFF_ENDS_NOTHING,
    holding_note: None,
    library_note: Some(library_note),
};

/// A client's card names its ZooKeeper library and the connection state
/// the library reports.
fn library_note(config: &Config, view: &ClientView, _: Millis) -> Option<String> {
    let conn = view.zk_conn.map_or(String::new(), |c| format!(": {c}"));
    Some(format!(
        "ZooKeeper client: {}{conn}",
        config.zk.client.name()
    ))
}

/// The panel's controls, drawn above its books so the rows they gain
/// never push them.
pub(super) fn controls(props: &ServicePanelProps, _: &ZkDetail) -> Html {
    html! {
        <>
            { zk_options(props) }
            { super::failover_button(props, "Fail over the ZooKeeper leader", "The leader dies: the znodes survive, and the new leader gives every session a fresh timeout", None) }
        </>
    }
}

pub(super) fn panel(props: &ServicePanelProps, detail: &ZkDetail) -> Html {
    let ZkDetail {
        znodes,
        sessions,
        zxid,
        tick_ms,
    } = detail;
    html! {
        <>
            <p class="service__counter">
                { "zxid " }<strong>{ zxid }</strong>
                { format!(" · tick {}", seconds_1(*tick_ms)) }
            </p>
            <h3 class="panel__subtitle">{ "/locks/shared-counter: the queue, lowest first" }</h3>
            if znodes.is_empty() {
                <p class="panel__empty">{ "No znodes: nobody holds or waits." }</p>
            } else {
                <ol class="queue">
                    { for znodes.iter().enumerate().map(|(i, z)| html! {
                        <li class={classes!("queue__item", (i == 0).then_some("queue__item--holder"))}>
                            <code>{ format!("lock-{:010}", z.seq) }</code>
                            { format!(" {} · session 0x{:x} · czxid {}", z.owner, z.session, z.czxid) }
                            <span class="queue__role">{ if i == 0 { " · holds the lock" } else { " · waits (watches the one before)" } }</span>
                        </li>
                    }) }
                </ol>
            }
            <h3 class="panel__subtitle">{ "Sessions" }</h3>
            { session_table(props.now, sessions) }
            <p class="panel__note">
                { "Simplified on purpose: the ensemble is one server; a leader failover is instant, keeps every znode, and gives every session a fresh timeout, as ZooKeeper's new leader does. Each client keeps one session. Sessions expire in tick-sized buckets; the token is the znode's sequence number, which only creations advance." }
            </p>
        </>
    }
}

/// The tickTimes offered: ZooKeeper's default, and shorter ones as test
/// ensembles use so sessions expire in seconds.
const TICK_CHOICES_MS: [u64; 4] = [500, 1_000, 2_000, 3_000];

/// ZooKeeper's settings: tickTime (which clamps the session timeout) and
/// the client library, which decides when a cut-off client hears LOST.
fn zk_options(props: &ServicePanelProps) -> Html {
    let config = &props.config;
    let zk = config.zk;
    let negotiated = negotiated_timeout_ms(config.ttl_ms, zk.tick_ms);
    let with = |zk: ZkOptions| Config {
        zk,
        ..config.clone()
    };
    let tick = {
        let config = config.clone();
        move |tick_ms| Config {
            zk: ZkOptions { tick_ms, ..zk },
            ..config.clone()
        }
    };
    let library = |client: ZkClient, id: &'static str, words: &'static str| {
        let to = with(ZkOptions { client, ..zk });
        super::choice(props, "zk-client", id, words, zk.client == client, to)
    };
    let ticks = TICK_CHOICES_MS.iter().map(|&t| (t, seconds_1(t))).collect();
    html! {
        <fieldset class="service__options">
            <legend>{ "ZooKeeper settings (each starts a fresh run)" }</legend>
            { super::picker(props, "zk-tick", "tickTime", ticks, (zk.tick_ms, seconds_1(zk.tick_ms)), Rc::new(tick)) }
            <p class="panel__note" id="zk-clamp">
                if negotiated == props.config.ttl_ms {
                    { format!("Session timeout {} (the TTL setting), within 2-20 x tickTime.", seconds_1(negotiated)) }
                } else {
                    { format!("The clients ask for {} (the TTL setting); the server clamps it to 2-20 x tickTime and grants {}.", seconds_1(props.config.ttl_ms), seconds_1(negotiated)) }
                }
            </p>
            { library(ZkClient::Curator, "zk-curator", "Curator 3.0+: SUSPENDED after 2/3 of the session timeout without an answer, LOST a session timeout later (5/3 after its last answer), still cut off") }
            { library(ZkClient::Native, "zk-native", "kazoo, or the native client before 3.9.3: LOST only on reaching the server again (from 3.9.3 the native client ends its session itself, about 4/3 of the timeout after its last answer: not modelled)") }
        </fieldset>
    }
}

fn session_table(now: Millis, sessions: &[SessionView]) -> Html {
    if sessions.is_empty() {
        return html! { <p class="panel__empty">{ "No sessions open." }</p> };
    }
    let lines = sessions
        .iter()
        .map(|s| Line {
            holder: false,
            cells: vec![
                Cell::Code(format!("0x{:x}", s.session)),
                s.owner.to_string().into(),
                seconds_1(s.timeout_ms).into(),
                seconds_1(now.until(s.expires_at)).into(),
            ],
        })
        .collect();
    super::books(
        "sessions",
        &["session", "client", "timeout", "expires in"],
        lines,
    )
}
