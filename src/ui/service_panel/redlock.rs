//! Redlock's five Redis nodes: keys, clocks, fence counters, and buttons to
//! crash, restart, jump or slow each one.

use super::{NodeChecks, ServicePanelProps, SystemWords, CLOCK_JUMP_MS, SLOW_NODE_MS};
use crate::sim::{
    Config, ExtendMode, NodeCommand, NodeId, Persistence, RedisNodeView, RedisOptions,
    RedlockDetail, ReleaseMode, ReplicaWait, RestartPolicy,
};
use crate::ui::browser::checked_of;
use crate::ui::state::Action;
use crate::words::{plus_minus_seconds_1, seconds_1};
use yew::prelude::*;

/// The random lock value, cut to its first 6 hex digits: enough to tell
/// owners apart; the whole value is in the tooltip.
fn short_value(value: u64) -> String {
    let hex = format!("{value:x}");
    match hex.get(..6) {
        Some(head) if hex.len() > 6 => format!("{head}…"),
        _ => hex,
    }
}

/// One Redis server's row; `role` names it where roles differ (single
/// Redis's master and replica), and a master gets a Failover button.
fn node_row(props: &ServicePanelProps, node: &RedisNodeView, role: Option<&str>) -> Html {
    let n = node.node;
    let (up_word, up_mark) = if node.up {
        ("up", "▲")
    } else {
        ("down", "▼")
    };
    let down_note = node
        .restart_at
        .map(|at| format!(" until t={}", seconds_1(at.ms())))
        .unwrap_or_default();
    let role_note = role.map(|r| format!(" · {r}")).unwrap_or_default();
    html! {
        <tr class={classes!("nodes__row", (!node.up).then_some("nodes__row--down"))}>
            <th scope="row">{ n.number() }</th>
            <td class="nodes__up"><span aria-hidden="true">{ up_mark }</span>{ " " }{ up_word }{ down_note }{ role_note }</td>
            { key_cells(node) }
            <td>{ plus_minus_seconds_1(node.clock_offset_ms) }</td>
            <td>{ node.fence }</td>
            <td class="nodes__faults">
                <div class="nodes__actions">
                    { for faults(props, node, role).into_iter().map(|f| fault_button(props, n, f)) }
                </div>
            </td>
        </tr>
    }
}

/// The lock key's owner, value and time left on one node, or dashes.
fn key_cells(node: &RedisNodeView) -> Html {
    match node.key {
        Some(k) => html! {
            <>
                <td>{ k.owner.to_string() }</td>
                <td><code title={format!("{:016x}", k.value)}>{ short_value(k.value) }</code></td>
                <td>{ seconds_1(k.ttl_left_ms) }</td>
            </>
        },
        None => html! { <><td>{ "—" }</td><td>{ "—" }</td><td>{ "—" }</td></> },
    }
}

/// The faults a node's row offers, with why each is disabled if it is.
fn faults(props: &ServicePanelProps, node: &RedisNodeView, role: Option<&str>) -> Vec<Fault> {
    let n = node.node;
    let checks = props.node_checks.iter().find(|c| c.node == n);
    let why = |pick: fn(&NodeChecks) -> &Option<String>| checks.and_then(|c| pick(c).clone());
    let number = n.number();
    let mut buttons = vec![
        if node.up {
            Fault {
                name: "Crash",
                label: format!("Crash node {number}"),
                why: why(|c| &c.crash),
                hint: "The node goes down; without persistence it forgets its keys",
                command: NodeCommand::Crash,
            }
        } else {
            Fault {
                name: "Restart",
                label: format!("Restart node {number}"),
                why: why(|c| &c.restart),
                hint: "The node comes back",
                command: NodeCommand::Restart,
            }
        },
        Fault {
            name: "Clock +10 s",
            label: format!("Clock +10 s on node {number}"),
            why: why(|c| &c.clock_jump),
            hint: "The node's wall clock jumps 10 s forward: its key expires early",
            command: NodeCommand::ClockJump {
                jump_ms: CLOCK_JUMP_MS,
            },
        },
        Fault {
            name: if node.slow_ms > 0 { "Speed up" } else { "Slow" },
            label: if node.slow_ms > 0 {
                format!("Speed up node {number}")
            } else {
                format!("Slow node {number} by 2 s")
            },
            why: why(|c| &c.slow),
            hint: "The node answers 2 s later than usual, or normally again",
            command: NodeCommand::Slow {
                extra_ms: if node.slow_ms > 0 { 0 } else { SLOW_NODE_MS },
            },
        },
    ];
    if role == Some("master") {
        buttons.push(Fault {
            name: "Fail over",
            label: format!("Fail over from node {number}"),
            why: why(|c| &c.failover),
            hint: "Sentinel fails over now: the replica becomes master with whatever it has copied",
            command: NodeCommand::Failover,
        });
    }
    buttons
}

/// A fault a node's row offers: a button, or why it is disabled.
struct Fault {
    name: &'static str,
    label: String,
    why: Option<String>,
    hint: &'static str,
    command: NodeCommand,
}

fn fault_button(props: &ServicePanelProps, n: NodeId, f: Fault) -> Html {
    let command = f.command;
    let disabled = f.why.is_some();
    let onclick = props
        .dispatch
        .reform(move |_: MouseEvent| Action::Node(n, command));
    html! {
        <button type="button" class="button button--small" aria-label={f.label}
            {disabled} title={f.why.unwrap_or_else(|| f.hint.into())}
            {onclick}>{ f.name }</button>
    }
}

/// The Redis servers' table: one row per server, each with its role where
/// the servers have roles.
pub(super) fn nodes_table<'a>(
    props: &ServicePanelProps,
    caption: &'static str,
    first: &'static str,
    rows: impl Iterator<Item = (&'a RedisNodeView, Option<&'static str>)>,
) -> Html {
    html! {
        <>
            <p id="nodes-caption" class="service__caption">{ caption }</p>
            <div class="table-wrap">
                <table class="nodes" aria-labelledby="nodes-caption">
                    <thead>
                        <tr>
                            <th scope="col">{ first }</th>
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
                        { for rows.map(|(node, role)| node_row(props, node, role)) }
                    </tbody>
                </table>
            </div>
        </>
    }
}

/// What the page says of redlock outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line:
        "the lock value is random (unique, not ordered); token = INCR fence counter on node 1",
    service_says: "Redis nodes say",
    renewal: ("extends its key on a majority of nodes", super::EVERY_THIRD),
    exit: super::EXIT_ENDS_NOTHING,
    power_off: super::POWER_OFF_ENDS_NOTHING,
    holding_note: None,
    library_note: None,
};

/// The panel's controls, drawn above its books so the rows they gain
/// never push them.
pub(super) fn controls(props: &ServicePanelProps, _: &RedlockDetail) -> Html {
    redis_options(props, false)
}

pub(super) fn panel(props: &ServicePanelProps, detail: &RedlockDetail) -> Html {
    let RedlockDetail { nodes } = detail;
    html! {
        <>
            { nodes_table(
                props,
                "Five independent Redis masters; a lock needs 3 of them.",
                "node",
                nodes.iter().map(|n| (n, None)),
            ) }
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
    let config = props.config.clone();
    let onchange = props.dispatch.reform(move |e: Event| {
        let redis = apply(config.redis, checked_of(&e));
        Action::Reconfigure(Config {
            redis,
            ..config.clone()
        })
    });
    html! {
        <label class="toggle" for={id}>
            <input {id} type="checkbox" class="toggle__input" checked={on} {onchange} />
            <span class="toggle__text">{ label }</span>
        </label>
    }
}

/// Single Redis's WAIT after taking the key, one of three: what each does
/// when the master fails over is the choice.
fn wait_choices(props: &ServicePanelProps) -> Html {
    let r = props.config.redis;
    let radio = |id: &'static str, words: &'static str, wait: ReplicaWait| {
        let config = Config {
            redis: RedisOptions { wait, ..r },
            ..props.config.clone()
        };
        super::choice(props, "redis-wait", id, words, r.wait == wait, config)
    };
    html! {
        <fieldset class="service__options">
            <legend>{ "After taking the key, the client" }</legend>
            { radio("redis-wait-off", "does not WAIT: the key may exist on the master alone (redis-py's Lock)", ReplicaWait::Off) }
            { radio("redis-wait-redisson", "WAITs as Redisson does by default (checkLockSyncedSlaves, with Sentinel; useSingleServer sends no WAIT): for the replicas INFO reports connected, 1 s; fails only if none acked while some were connected, so a master with no replica grants unreplicated. After a try in which none acked it gives the key back and tries again, 4 more times 1-2 s apart, before throwing NoSyncedSlavesException; a WAIT with no answer is a timeout, which it does not try again", ReplicaWait::Redisson) }
            { radio("redis-wait-app", "WAITs 1 itself (the application's WAIT 1 100 ms): fails unless a replica acked, so with no replica nobody gets the lock", ReplicaWait::AppWait1) }
        </fieldset>
    }
}

/// The Redis options; `single` is a single master with its replica,
/// where WAIT 1 applies and a delayed restart does not.
pub(super) fn redis_options(props: &ServicePanelProps, single: bool) -> Html {
    let r = props.config.redis;
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
            if single {
                { wait_choices(props) }
            } else {
                { redis_toggle(props, "redis-delay", "Delayed restart (stay down a whole TTL)",
                    r.restart == RestartPolicy::Delayed,
                    |o, on| RedisOptions { restart: if on { RestartPolicy::Delayed } else { RestartPolicy::Immediate }, ..o }) }
            }
        </fieldset>
    }
}
