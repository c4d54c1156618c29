//! The lock service's internals: the five Redis nodes of Redlock, the
//! ZooKeeper znode queue and sessions, or etcd's keys, leases and revision.

use super::dom::checked_of;
use super::state::{seconds_1, Action};
use crate::sim::Sim;
use crate::sim::{negotiated_timeout_ms, NodeCommand, RedisOptions, ZkClient, ZkOptions};
use crate::sim::{
    EtcdDetail, EtcdKeyView, HolderView, LeaseView, RedisNodeView, RedlockDetail, ServiceDetail,
    SessionView, ZkDetail, ZnodeView,
};
use crate::sim::{ExtendMode, Millis, NodeId, Persistence, ReleaseMode, RestartPolicy};
use yew::prelude::*;

/// How far "Clock +10 s" moves a node's wall clock.
pub const CLOCK_JUMP_MS: i64 = 10_000;
/// How much later a slowed node answers.
pub const SLOW_NODE_MS: u64 = 2_000;

/// Why each node button is disabled, `None` when enabled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChecks {
    pub node: NodeId,
    pub crash: Option<String>,
    pub restart: Option<String>,
    pub clock_jump: Option<String>,
    pub slow: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ServicePanelProps {
    pub now: Millis,
    pub detail: ServiceDetail,
    pub holder: Option<HolderView>,
    pub redis: RedisOptions,
    pub zk: ZkOptions,
    /// The session timeout the clients ask ZooKeeper for: the TTL setting.
    pub ttl_ms: u64,
    /// One per Redis node under Redlock, empty otherwise.
    pub node_checks: Vec<NodeChecks>,
    pub dispatch: Callback<Action>,
}

impl ServicePanelProps {
    pub fn from_sim(sim: &Sim, dispatch: Callback<Action>) -> Self {
        let detail = sim.service_detail();
        let node_checks = match &detail {
            ServiceDetail::Redlock(RedlockDetail { nodes }) => nodes
                .iter()
                .map(|n| {
                    let why = |cmd| sim.check_node(n.node, cmd).err().map(|e| e.to_string());
                    NodeChecks {
                        node: n.node,
                        crash: why(NodeCommand::Crash),
                        restart: why(NodeCommand::Restart),
                        clock_jump: why(NodeCommand::ClockJump {
                            jump_ms: CLOCK_JUMP_MS,
                        }),
                        slow: why(NodeCommand::Slow {
                            extra_ms: if n.slow_ms > 0 { 0 } else { SLOW_NODE_MS },
                        }),
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        ServicePanelProps {
            now: sim.now(),
            detail,
            holder: sim.holder(),
            redis: sim.config().redis,
            zk: sim.config().zk,
            ttl_ms: sim.config().ttl_ms,
            node_checks,
            dispatch,
        }
    }
}

#[component]
pub fn ServicePanel(props: &ServicePanelProps) -> Html {
    let body = match &props.detail {
        ServiceDetail::Redlock(RedlockDetail { nodes }) => redlock(props, nodes),
        ServiceDetail::ZooKeeper(ZkDetail {
            znodes,
            sessions,
            zxid,
            tick_ms,
        }) => zookeeper(props, znodes, sessions, *zxid, *tick_ms),
        ServiceDetail::Etcd(EtcdDetail {
            keys,
            leases,
            revision,
        }) => etcd(props, keys, leases, *revision),
    };
    html! {
        <section class="panel service" aria-label="Lock service">
            <h2 class="panel__title">{ "Lock service" }</h2>
            { holder_line(props) }
            { body }
        </section>
    }
}

fn holder_line(props: &ServicePanelProps) -> Html {
    let text = match props.holder {
        Some(h) => {
            let token = h
                .token
                .map_or("no token".to_string(), |t| format!("token {t}"));
            let until = h.until.map_or(String::new(), |u| {
                format!(", {} left", seconds_1(props.now.until(u)))
            });
            format!(
                "The service says {} holds the lock ({token}{until}).",
                h.client
            )
        }
        None => "The service says nobody holds the lock.".into(),
    };
    html! { <p class="service__holder">{ text }</p> }
}

/// The random lock value, cut to its first 6 hex digits: enough to tell
/// owners apart; the whole value is in the tooltip.
fn short_value(value: u64) -> String {
    let hex = format!("{value:x}");
    match hex.get(..6) {
        Some(head) if hex.len() > 6 => format!("{head}…"),
        _ => hex,
    }
}

fn signed_seconds(ms: i64) -> String {
    let sign = if ms < 0 { "−" } else { "+" };
    format!("{sign}{}", seconds_1(ms.unsigned_abs()))
}

fn node_row(props: &ServicePanelProps, node: &RedisNodeView) -> Html {
    let n = node.node;
    let checks = props.node_checks.iter().find(|c| c.node == n);
    let why = |pick: fn(&NodeChecks) -> &Option<String>| checks.and_then(|c| pick(c).clone());
    let send = |command: NodeCommand| {
        props
            .dispatch
            .reform(move |_: MouseEvent| Action::Node(n, command))
    };
    let (up_word, up_mark) = if node.up {
        ("up", "▲")
    } else {
        ("down", "▼")
    };
    let key = match node.key {
        Some(k) => html! {
            <>
                <td>{ k.owner.to_string() }</td>
                <td><code title={format!("{:016x}", k.value)}>{ short_value(k.value) }</code></td>
                <td>{ seconds_1(k.ttl_left_ms) }</td>
            </>
        },
        None => html! { <><td>{ "—" }</td><td>{ "—" }</td><td>{ "—" }</td></> },
    };
    let down_note = node
        .restart_at
        .map(|at| format!(" until t={}", seconds_1(at.ms())))
        .unwrap_or_default();
    let (toggle_name, toggle_cmd, toggle_why) = if node.up {
        ("Crash", NodeCommand::Crash, why(|c| &c.crash))
    } else {
        ("Restart", NodeCommand::Restart, why(|c| &c.restart))
    };
    let (slow_name, slow_label, slow_cmd) = if node.slow_ms > 0 {
        (
            "Speed up",
            format!("Speed up node {}", n.number()),
            NodeCommand::Slow { extra_ms: 0 },
        )
    } else {
        (
            "Slow",
            format!("Slow node {} by 2 s", n.number()),
            NodeCommand::Slow {
                extra_ms: SLOW_NODE_MS,
            },
        )
    };
    let slow_why = why(|c| &c.slow);
    let jump_why = why(|c| &c.clock_jump);
    html! {
        <tr class={classes!("nodes__row", (!node.up).then_some("nodes__row--down"))}>
            <th scope="row">{ n.number() }</th>
            <td class="nodes__up"><span aria-hidden="true">{ up_mark }</span>{ " " }{ up_word }{ down_note }</td>
            { key }
            <td>{ signed_seconds(node.clock_offset_ms) }</td>
            <td>{ node.fence }</td>
            <td class="nodes__faults">
                <div class="nodes__actions">
                    <button type="button" class="button button--small"
                        aria-label={format!("{toggle_name} node {}", n.number())}
                        disabled={toggle_why.is_some()}
                        title={toggle_why.clone().unwrap_or_else(|| toggle_hint(node.up))}
                        onclick={send(toggle_cmd)}>{ toggle_name }</button>
                    <button type="button" class="button button--small"
                        aria-label={format!("Clock +10 s on node {}", n.number())}
                        disabled={jump_why.is_some()}
                        title={jump_why.clone().unwrap_or_else(|| "The node's wall clock jumps 10 s forward: its key expires early".into())}
                        onclick={send(NodeCommand::ClockJump { jump_ms: CLOCK_JUMP_MS })}>{ "Clock +10 s" }</button>
                    <button type="button" class="button button--small"
                        aria-label={slow_label}
                        disabled={slow_why.is_some()}
                        title={slow_why.clone().unwrap_or_else(|| "The node answers 2 s later than usual, or normally again".into())}
                        onclick={send(slow_cmd)}>{ slow_name }</button>
                </div>
            </td>
        </tr>
    }
}

fn toggle_hint(up: bool) -> String {
    if up {
        "The node goes down; without persistence it forgets its keys".into()
    } else {
        "The node comes back".into()
    }
}

fn redlock(props: &ServicePanelProps, nodes: &[RedisNodeView]) -> Html {
    html! {
        <>
            <p id="nodes-caption" class="service__caption">{ "Five independent Redis masters; a lock needs 3 of them." }</p>
            <div class="table-wrap">
                <table class="nodes" aria-labelledby="nodes-caption">
                    <thead>
                        <tr>
                            <th scope="col">{ "node" }</th>
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
                        { for nodes.iter().map(|n| node_row(props, n)) }
                    </tbody>
                </table>
            </div>
            { redis_options(props) }
            <p class="panel__note">
                { "Simplified on purpose: a client asks all five nodes at once, gives each a timeout of a few tens of milliseconds, and decides as soon as three said OK (a down node refuses at once); each node expires keys by its own clock; the fencing token is an INCR counter on node 1, which only grows while node 1 keeps its data." }
            </p>
        </>
    }
}

/// One Redis option as a checkbox; changing it starts a fresh run.
fn redis_toggle(
    props: &ServicePanelProps,
    id: &'static str,
    label: &'static str,
    on: bool,
    apply: fn(RedisOptions, bool) -> RedisOptions,
) -> Html {
    let redis = props.redis;
    let onchange = props
        .dispatch
        .reform(move |e: Event| Action::SetRedis(apply(redis, checked_of(&e))));
    html! {
        <label class="toggle" for={id}>
            <input {id} type="checkbox" class="toggle__input" checked={on} {onchange} />
            <span class="toggle__text">{ label }</span>
        </label>
    }
}

fn redis_options(props: &ServicePanelProps) -> Html {
    let r = props.redis;
    html! {
        <fieldset class="service__options">
            <legend>{ "Redis options (each starts a fresh run)" }</legend>
            { redis_toggle(props, "redis-release", "Value-checked release (off: plain DEL)",
                r.release == ReleaseMode::CheckValue,
                |o, on| RedisOptions { release: if on { ReleaseMode::CheckValue } else { ReleaseMode::PlainDel }, ..o }) }
            { redis_toggle(props, "redis-extend", "Checked extension (off: blind SET)",
                r.extend == ExtendMode::CheckValue,
                |o, on| RedisOptions { extend: if on { ExtendMode::CheckValue } else { ExtendMode::BlindSet }, ..o }) }
            { redis_toggle(props, "redis-persist", "Persistence: fsync always",
                r.persistence == Persistence::Fsync,
                |o, on| RedisOptions { persistence: if on { Persistence::Fsync } else { Persistence::None }, ..o }) }
            { redis_toggle(props, "redis-delay", "Delayed restart (stay down a whole TTL)",
                r.restart == RestartPolicy::Delayed,
                |o, on| RedisOptions { restart: if on { RestartPolicy::Delayed } else { RestartPolicy::Immediate }, ..o }) }
        </fieldset>
    }
}

fn zookeeper(
    props: &ServicePanelProps,
    znodes: &[ZnodeView],
    sessions: &[SessionView],
    zxid: u64,
    tick_ms: u64,
) -> Html {
    html! {
        <>
            <p class="service__counter">
                { "zxid " }<strong>{ zxid }</strong>
                { format!(" · tick {}", seconds_1(tick_ms)) }
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
            { zk_options(props) }
            <p class="panel__note">
                { "Simplified on purpose: the ensemble is one always-available server (no ZAB, no leader election) and each client keeps one session. Sessions expire in tick-sized buckets; the token is the znode's sequence number, which only creations advance." }
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
    let zk = props.zk;
    let negotiated = negotiated_timeout_ms(props.ttl_ms, zk.tick_ms);
    let on_tick = props.dispatch.reform(move |e: Event| {
        let tick_ms = super::dom::value_of(&e).parse().unwrap_or(zk.tick_ms);
        Action::SetZk(ZkOptions { tick_ms, ..zk })
    });
    let library = |client: ZkClient, id: &'static str, words: &'static str| {
        let onchange = props
            .dispatch
            .reform(move |_: Event| Action::SetZk(ZkOptions { client, ..zk }));
        html! {
            <label class="toggle" for={id}>
                <input {id} type="radio" name="zk-client" class="toggle__input"
                    checked={zk.client == client} {onchange} />
                <span class="toggle__text">{ words }</span>
            </label>
        }
    };
    html! {
        <fieldset class="service__options">
            <legend>{ "ZooKeeper settings (each starts a fresh run)" }</legend>
            <label class="field" for="zk-tick">
                <span>{ "tickTime" }</span>
                <select id="zk-tick" onchange={on_tick}>
                    { for TICK_CHOICES_MS.iter().map(|&t| html! {
                        <option value={t.to_string()} selected={t == zk.tick_ms}>{ seconds_1(t) }</option>
                    }) }
                </select>
            </label>
            <p class="panel__note" id="zk-clamp">
                if negotiated == props.ttl_ms {
                    { format!("Session timeout {} (the TTL setting), within 2-20 x tickTime.", seconds_1(negotiated)) }
                } else {
                    { format!("The clients ask for {} (the TTL setting); the server clamps it to 2-20 x tickTime and grants {}.", seconds_1(props.ttl_ms), seconds_1(negotiated)) }
                }
            </p>
            { library(ZkClient::Curator, "zk-curator", "Curator 3.0+: LOST once a session timeout has passed while SUSPENDED") }
            { library(ZkClient::Native, "zk-native", "Native client or kazoo: LOST only on reaching the server again") }
        </fieldset>
    }
}

fn session_table(now: Millis, sessions: &[SessionView]) -> Html {
    if sessions.is_empty() {
        return html! { <p class="panel__empty">{ "No sessions open." }</p> };
    }
    html! {
        <div class="table-wrap">
            <table class="sessions">
                <thead>
                    <tr>
                        <th scope="col">{ "session" }</th>
                        <th scope="col">{ "client" }</th>
                        <th scope="col">{ "timeout" }</th>
                        <th scope="col">{ "expires in" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for sessions.iter().map(|s| html! {
                        <tr>
                            <td><code>{ format!("0x{:x}", s.session) }</code></td>
                            <td>{ s.owner.to_string() }</td>
                            <td>{ seconds_1(s.timeout_ms) }</td>
                            <td>{ seconds_1(now.until(s.expires_at)) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn etcd(
    props: &ServicePanelProps,
    keys: &[EtcdKeyView],
    leases: &[LeaseView],
    revision: u64,
) -> Html {
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
            <p class="panel__note">
                { "Simplified on purpose: the cluster is one always-available service (no Raft, no leader change, so no lease extension on election), and every acquisition opens its own lease. The token is the lock key's create_revision." }
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
