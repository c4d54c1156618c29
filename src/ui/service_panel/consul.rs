//! Consul's session and indexes: the lock key with its Session, LockIndex,
//! ModifyIndex and CreateIndex, the sessions with their timers, the
//! lock-delay, the clients polling, and Consul's settings.

use super::{Cell, Line, ServicePanelProps, SystemWords};
use crate::sim::{
    lock_delay_ms, rpc_hold_ms, session_words, ClientId, Config, ConsulDetail, ConsulKeyView,
    ConsulOptions, ConsulPhase, ConsulSessionView, ConsulToken, KeyCleanup, Millis,
    CONSUL_SESSION_TTL_MS, LOCK_DELAY_S_DEFAULT, LOCK_DELAY_S_MAX, SESSION_TTL_MULTIPLIER,
};
use crate::words::seconds_1;
use std::rc::Rc;
use yew::prelude::*;

/// The lock-delays offered, in real seconds: none, Consul's default, the
/// docs' maximum, and two between.
const LOCK_DELAY_CHOICES_S: [u64; 5] = [0, 5, LOCK_DELAY_S_DEFAULT, 30, LOCK_DELAY_S_MAX];

/// What monitorLock does on an error, for MonitorRetries `n`.
fn retry_words(n: u32) -> String {
    match n {
        0 => "0: give the lock up (api default)".into(),
        3 => "3, 1 s apart (consul lock)".into(),
        n => format!("{n}, 1 s apart"),
    }
}

/// What the page says of consul outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "token = the lock key's ModifyIndex (or its LockIndex, or the sequencer LockIndex + Session: a setting); the lease is a session",
    service_says: "Consul says",
    renewal: ("renews its session (RenewPeriodic)", " every half of the TTL"),
    exit: "its agent stays healthy, so the session lives until 2 x TTL",
    power_off: "Serf marks its node failed within seconds, and the session ends then",
    holding_note: None,
    library_note: None,
};

/// The panel's controls, drawn above its books so the rows they gain
/// never push them.
pub(super) fn controls(props: &ServicePanelProps, detail: &ConsulDetail) -> Html {
    html! {
        <>
            { consul_options(props) }
            { failover(props, detail) }
        </>
    }
}

pub(super) fn panel(props: &ServicePanelProps, detail: &ConsulDetail) -> Html {
    let now = props.now;
    html! {
        <>
            <p class="service__counter">
                { "Raft index " }<strong>{ detail.raft_index }</strong>
                { " (every write moves it: sessions, acquires, releases, deletes)" }
            </p>
            if let Some(until) = detail.electing_until {
                <p class="service__alarm" role="status">
                    { format!("No leader: the servers are electing one ({} left); requests wait: a call that does not block at most the agent's 7 s hold ({} here), then fails; a blocking GET, such as the holder's watch, its own wait and 7 s more.", seconds_1(now.until(until)), seconds_1(rpc_hold_ms(props.config.ttl_ms))) }
                </p>
            }
            <h3 class="panel__subtitle">{ "Consul's session and indexes: key locks/shared-counter" }</h3>
            { key_table(detail.key, detail.token) }
            { lock_delay_line(now, detail.lock_delay_until) }
            <h3 class="panel__subtitle">{ "Sessions" }</h3>
            { session_table(now, &detail.sessions) }
            { pollers(detail) }
            <p class="panel__note">
                { "Simplified on purpose: the servers are one Raft cluster seen as one service; a failover is one follower standing for election 5 to almost 15 s after the leader's last word (its heartbeat timer, 1x-2x the 5 s timeout, fires again until 5 s have passed; drawn from the seed), and the vote is taken as won at once, where a split vote takes longer; a request waits for it at most the agent's 7 s hold (rpc_hold_timeout), then fails, but a blocking GET waits its own wait and 7 s more, so only a call that does not block (the watch's first GET, a retry) can fail; the acquire's answer carries the key's indexes, where a real application reads the key once more; Unlock's release, cleanup and session destroy travel as one request; serf's pool is the 3 servers and the 4 clients' agents, so a suspicion's timer starts at 24 s and falls to its 4 s minimum once 2 other members' probes confirm it, within 6 s (a pool of 3 or fewer would take 4 s at once); a holder cut off from the servers learns only when its agent's connection fails its keepalive (a ping every 30 s, 10 s to answer), since monitorLock's blocking GET waits on that connection, and then at once if serf has dropped the servers, else after a 10 s re-dial (all scaled to the TTL, which stands for Consul's 15 s); the sessions have no health checks but serfHealth." }
            </p>
        </>
    }
}

fn key_table(key: Option<ConsulKeyView>, token: ConsulToken) -> Html {
    let Some(k) = key else {
        return html! {
            <p class="panel__empty">{ "No key: nobody has locked it yet, or it was deleted. The next acquire creates it with LockIndex 1." }</p>
        };
    };
    let session = match (k.session, k.owner) {
        (Some(s), Some(owner)) => format!("{} ({owner})", session_words(s)),
        _ => "empty: free".into(),
    };
    let mark = |which: bool| if which { " (the token)" } else { "" };
    let sequencer = token == ConsulToken::Sequencer;
    let session_head = if sequencer {
        "Session (with LockIndex, the sequencer)"
    } else {
        "Session"
    };
    let lock_index = format!(
        "LockIndex{}",
        mark(token == ConsulToken::LockIndex || sequencer)
    );
    let modify_index = format!("ModifyIndex{}", mark(token == ConsulToken::ModifyIndex));
    let line = Line {
        holder: k.session.is_some(),
        cells: vec![
            session.into(),
            k.lock_index.into(),
            k.modify_index.into(),
            k.create_index.into(),
        ],
    };
    super::books(
        "keys",
        &[session_head, &lock_index, &modify_index, "CreateIndex"],
        vec![line],
    )
}

fn lock_delay_line(now: Millis, until: Option<Millis>) -> Html {
    match until.filter(|&u| u > now) {
        Some(u) => html! {
            <p class="service__lock-delay" role="status">
                { format!("lock-delay: the key refuses every acquire until t={} ({} left).", seconds_1(u.ms()), seconds_1(now.until(u))) }
            </p>
        },
        None => html! {},
    }
}

fn session_table(now: Millis, sessions: &[ConsulSessionView]) -> Html {
    if sessions.is_empty() {
        return html! { <p class="panel__empty">{ "No sessions." }</p> };
    }
    let lines = sessions
        .iter()
        .map(|s| Line {
            holder: false,
            cells: vec![
                Cell::Code(session_words(s.session)),
                s.owner.to_string().into(),
                seconds_1(s.ttl_ms).into(),
                Cell::Hinted(
                    seconds_1(now.until(s.invalidate_at)),
                    "TTL x 2 after the last renewal: the TTL is only a lower bound",
                ),
                seconds_1(s.lock_delay_ms).into(),
                (if s.node_healthy {
                    "passing"
                } else {
                    "critical"
                })
                .into(),
            ],
        })
        .collect();
    super::books(
        "sessions",
        &[
            "session",
            "client",
            "TTL",
            "invalidated in",
            "lock-delay",
            "serfHealth",
        ],
        lines,
    )
}

/// Waiters are not queued: each polls the key on its own.
fn pollers(detail: &ConsulDetail) -> Html {
    let waiting: Vec<String> = detail
        .clients
        .iter()
        .filter(|c| {
            !matches!(
                c.phase,
                ConsulPhase::Idle | ConsulPhase::Held | ConsulPhase::CreatingSession
            )
        })
        .map(|c| format!("{}: {}", c.client, c.phase.words()))
        .collect();
    if waiting.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h3 class="panel__subtitle">{ "Waiters poll, in no order (no queue)" }</h3>
            <ul class="service__pollers">
                { for waiting.into_iter().map(|w| html! { <li>{ w }</li> }) }
            </ul>
        </>
    }
}

fn failover(props: &ServicePanelProps, detail: &ConsulDetail) -> Html {
    let why = detail
        .electing_until
        .map(|_| "Consul is already electing a new leader".to_string());
    super::failover_button(
        props,
        "Fail over the Consul leader",
        "The Raft leader dies: the KV store and its indexes survive, and the new leader restarts every session's timer",
        why,
    )
}

fn consul_options(props: &ServicePanelProps) -> Html {
    let config = &props.config;
    let o = config.consul;
    let with = {
        let config = config.clone();
        move |consul: ConsulOptions| Config {
            consul,
            ..config.clone()
        }
    };
    let radio =
        |name: &'static str,
         id: &'static str,
         words: &'static str,
         checked: bool,
         to: ConsulOptions| { super::choice(props, name, id, words, checked, with(to)) };
    let delay_words = |s: u64| {
        format!(
            "{s} s on a {} s session: {} here",
            CONSUL_SESSION_TTL_MS / 1_000,
            seconds_1(lock_delay_ms(s, config.ttl_ms))
        )
    };
    let delays = LOCK_DELAY_CHOICES_S
        .iter()
        .map(|&s| (s, delay_words(s)))
        .collect();
    let to_delay = {
        let with = with.clone();
        move |lock_delay_s| with(ConsulOptions { lock_delay_s, ..o })
    };
    let retries = [0, ConsulOptions::CONSUL_LOCK_MONITOR_RETRIES]
        .iter()
        .map(|&n| (u64::from(n), retry_words(n)))
        .collect();
    let to_retries = {
        let with = with.clone();
        move |n: u64| {
            let monitor_retries = u32::try_from(n).unwrap_or(u32::MAX);
            with(ConsulOptions {
                monitor_retries,
                ..o
            })
        }
    };
    html! {
        <fieldset class="service__options">
            <legend>{ "Consul settings (each starts a fresh run)" }</legend>
            { radio("consul-token", "consul-modify-index", "Fence with ModifyIndex: the Raft index of the key's last write, which only grows",
                o.token == ConsulToken::ModifyIndex, ConsulOptions { token: ConsulToken::ModifyIndex, ..o }) }
            { radio("consul-token", "consul-lock-index", "Fence with LockIndex alone, as a number that must not go down: it restarts at 1 when the key is created again",
                o.token == ConsulToken::LockIndex, ConsulOptions { token: ConsulToken::LockIndex, ..o }) }
            { radio("consul-token", "consul-sequencer", "Fence with the sequencer (LockIndex and Session), as the docs define it: a write passes only while the key holds that LockIndex under that Session",
                o.token == ConsulToken::Sequencer, ConsulOptions { token: ConsulToken::Sequencer, ..o }) }
            { radio("consul-cleanup", "consul-keep", "Keep the key when a lock ends (Behavior=release)",
                o.cleanup == KeyCleanup::Keep, ConsulOptions { cleanup: KeyCleanup::Keep, ..o }) }
            { radio("consul-cleanup", "consul-delete", "Delete the key when a lock ends (Behavior=delete, consul lock's cleanup)",
                o.cleanup == KeyCleanup::Delete, ConsulOptions { cleanup: KeyCleanup::Delete, ..o }) }
            { super::picker(props, "consul-lock-delay", "lock-delay", delays,
                (o.lock_delay_s, delay_words(o.lock_delay_s)), Rc::new(to_delay)) }
            { super::picker(props, "consul-monitor-retries", "watch retries",
                retries, (u64::from(o.monitor_retries), retry_words(o.monitor_retries)), Rc::new(to_retries)) }
            <p class="panel__note">
                { "Watch retries: the holder's library watches the lock key (monitorLock) and, on any error, such as a leader election that outlasts its agent's 7 s hold of the watch's first GET (a blocking GET is held for the election), or a connection lost while cut off, gives the lock up at once (MonitorRetries 0, the api's default) unless it may ask again (consul lock asks 3 times, 1 s apart)." }
            </p>
            <p class="panel__note">
                { format!("The TTL setting ({}) stands for Consul's default {} s session TTL; every other duration keeps its ratio to it. The server invalidates a session only {} after its last renewal (TTL x {SESSION_TTL_MULTIPLIER}).", seconds_1(config.ttl_ms), CONSUL_SESSION_TTL_MS / 1_000, seconds_1(config.ttl_ms * SESSION_TTL_MULTIPLIER)) }
            </p>
        </fieldset>
    }
}

/// What client `c`'s card says about its session and leaderCh.
pub fn card_line(detail: &ConsulDetail, c: ClientId) -> Option<String> {
    let side = detail.clients.iter().find(|s| s.client == c)?;
    let mut words = match side.session {
        Some(s) => format!(
            "Consul session {}: {}",
            session_words(s),
            side.phase.words()
        ),
        None => side.phase.words().to_string(),
    };
    if let Some(reason) = side.closed {
        words = format!("leaderCh closed: {reason}");
    }
    match (side.agent_down, side.phase) {
        (true, ConsulPhase::Held) => words.push_str(
            "; its agent cannot reach the servers, but leaderCh stays open until the connection's keepalive fails",
        ),
        (true, _) => words.push_str("; its agent cannot reach the servers"),
        _ => {}
    }
    (side.session.is_some() || side.closed.is_some() || side.agent_down).then_some(words)
}
