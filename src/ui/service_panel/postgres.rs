//! PostgreSQL's books: the pg_locks rows of advisory lock 42, each client's
//! backend connection with its TCP keepalive, the keepalive settings, and
//! the standby a visitor can promote.

use super::{Cell, Line, ServicePanelProps, SystemWords};
use crate::sim::{
    ClientId, Config, Millis, NodeCommand, NodeId, PgBackendView, PgClientConn, PgDetail,
    PgLockRow, PgOptions, PgState, PG_LOCK_KEY,
};
use crate::ui::state::Action;
use crate::words::{hours_minutes_seconds, seconds_1};
use yew::prelude::*;

/// What the page says of postgres outside this panel.
pub(super) const WORDS: SystemWords = SystemWords {
    token_line: "no token from the lock; fencing = the row's version column (WHERE version = n)",
    service_says: "PostgreSQL says",
    // Never shown: the switch is off, with the engine's reason.
    renewal: (
        "has nothing to renew: the lock lasts as long as its session",
        super::EVERY_THIRD,
    ),
    exit: "PostgreSQL reads EOF and frees its lock at once",
    power_off: "PostgreSQL keeps its session and lock until TCP keepalives give up",
    holding_note: None,
    library_note: None,
};

/// The panel's controls, drawn above its books so the rows they gain
/// never push them.
pub(super) fn controls(props: &ServicePanelProps, detail: &PgDetail) -> Html {
    html! {
        <>
            { pg_options(props, detail.options) }
            { failover(props) }
        </>
    }
}

pub(super) fn panel(props: &ServicePanelProps, detail: &PgDetail) -> Html {
    html! {
        <>
            <p class="service__counter">
                { "counter row version " }<strong>{ detail.version }</strong>
                { format!(" · timeline {}", detail.timeline) }
                { " (the lock and the data live in this one server)" }
            </p>
            <h3 class="panel__subtitle">
                { format!("pg_locks: locktype advisory, objid {PG_LOCK_KEY}, mode ExclusiveLock") }
            </h3>
            { lock_table(props.now, &detail.locks) }
            <h3 class="panel__subtitle">{ "Connections: each client's backend and its TCP keepalive" }</h3>
            { backend_table(props.now, &detail.backends, detail.options) }
            <p class="panel__note">
                { "Simplified on purpose: one primary with one asynchronous standby; each client keeps one connection for the lock and writes through another (a pool), so writing never tells it that its lock connection is gone; a keepalive probe is answered or not at the moment it is sent, and data left unacknowledged is not timed separately (no tcp_user_timeout); lock_timeout is 0, so a waiter waits for ever; a failover drops every session and advisory lock, but the counter keeps its last commits (a real asynchronous standby can lose them and hand out a version number again). The TTL setting plays no part: there is no lease." }
            </p>
        </>
    }
}

fn lock_table(now: Millis, locks: &[PgLockRow]) -> Html {
    if locks.is_empty() {
        return html! {
            <p class="panel__empty">{ "No rows: nobody holds or waits for advisory lock 42." }</p>
        };
    }
    let lines = locks
        .iter()
        .map(|l| Line {
            holder: l.granted,
            cells: vec![
                Cell::Code(l.pid.to_string()),
                l.client.to_string().into(),
                (if l.granted {
                    "t (holds it)"
                } else {
                    "f (blocked)"
                })
                .into(),
                seconds_1(l.since.until(now)).into(),
            ],
        })
        .collect();
    super::books("keys", &["pid", "client", "granted", "for"], lines)
}

fn backend_table(now: Millis, backends: &[PgBackendView], options: PgOptions) -> Html {
    if backends.is_empty() {
        return html! { <p class="panel__empty">{ "No client connections." }</p> };
    }
    let lines = backends
        .iter()
        .map(|b| Line {
            holder: false,
            cells: vec![
                Cell::Code(b.pid.to_string()),
                b.client.to_string().into(),
                match b.state {
                    PgState::Idle => "idle",
                    PgState::Active => "active (waiting: advisory)",
                }
                .into(),
                format!("{} ago", seconds_1(b.last_heard.until(now))).into(),
                b.probes_sent.into(),
                format!("{} of {}", b.probes_failed, options.keepalives_count).into(),
                seconds_1(now.until(b.next_probe_at)).into(),
            ],
        })
        .collect();
    super::books(
        "sessions",
        &[
            "pid",
            "client",
            "state",
            "last heard",
            "probes sent",
            "failed",
            "next probe in",
        ],
        lines,
    )
}

/// The two keepalive settings a visitor can choose, and what they cost.
fn pg_options(props: &ServicePanelProps, pg: PgOptions) -> Html {
    let choice = |options: PgOptions, id: &'static str, words: &'static str| {
        let to = Config {
            pg: options,
            ..props.config.clone()
        };
        super::choice(props, "pg-keepalives", id, words, pg == options, to)
    };
    let custom = pg != PgOptions::TUNED && pg != PgOptions::LINUX;
    html! {
        <fieldset class="service__options">
            <legend>{ "PostgreSQL's TCP keepalives (each starts a fresh run)" }</legend>
            { choice(PgOptions::LINUX, "pg-linux",
                "PostgreSQL's default, Linux defaults (the settings at 0): 7200 s, then 9 probes 75 s apart (about 2 h 11 min)") }
            { choice(PgOptions::TUNED, "pg-tuned",
                "Tuned: tcp_keepalives_idle 10 s, interval 5 s, count 3 (about 25 s)") }
            <p class="panel__note" id="pg-keepalive-cost">
                { format!(
                    "{}A dead or cut-off holder keeps advisory lock 42 for {} after its last packet: only then does the server end its session. A holder whose process exits frees it at once: its kernel's FIN ends the session. A paused holder keeps it for ever: its kernel answers the probes. (idle_session_timeout, off by default since it came in PostgreSQL 14, would also end a session idle that long, and its lock with it: a live holder's too, if it sends nothing in that time. The model leaves it off.)",
                    if custom {
                        format!(
                            "From the link: idle {} s, interval {} s, count {}. ",
                            pg.keepalives_idle_s, pg.keepalives_interval_s, pg.keepalives_count
                        )
                    } else {
                        String::new()
                    },
                    hours_minutes_seconds(pg.dead_after_ms())
                ) }
            </p>
        </fieldset>
    }
}

fn failover(props: &ServicePanelProps) -> Html {
    let Some(primary) = NodeId::new(1) else {
        return Html::default();
    };
    let onclick = props
        .dispatch
        .reform(move |_: MouseEvent| Action::Node(primary, NodeCommand::Failover));
    html! {
        <p class="service__failover">
            <button type="button" class="button" {onclick}
                title="The primary dies and the asynchronous standby is promoted: advisory locks are never WAL-logged, so every lock is gone, and the proxy resets every connection">
                { "Fail over to the standby" }
            </button>
            { " Advisory locks exist only in the primary's memory: the promoted standby has none, and a holder, idle on its connection, still believes it holds the lock." }
        </p>
    }
}

/// What a client card says of a running client `c`'s connection, if
/// anything; a crashed client's line is the crash note (`Sim::crash_note`).
pub fn card_note(detail: &PgDetail, c: ClientId, crashed: bool) -> Option<String> {
    if crashed {
        return None;
    }
    let holds = |pid: u64| detail.locks.iter().any(|l| l.pid == pid && l.granted);
    let side = *detail.clients.get(c.index())?;
    Some(match side {
        PgClientConn::None => return None,
        PgClientConn::Connecting => "connecting to PostgreSQL".into(),
        PgClientConn::Reset { pid } => {
            format!("connection pid {pid} was reset; its next statement on it fails, and the next acquire opens a new one")
        }
        PgClientConn::Open { pid } => match detail.backends.iter().find(|b| b.pid == pid) {
            None => format!(
                "connection pid {pid}: PostgreSQL has ended this session; {c} learns when it next uses it"
            ),
            Some(_) if holds(pid) => {
                format!("connection pid {pid}, idle, holds advisory lock 42: no lease to run out")
            }
            Some(b) if b.state == PgState::Active => {
                format!("connection pid {pid}, blocked in pg_advisory_lock(42)")
            }
            Some(_) => format!("connection pid {pid}, idle"),
        },
    })
}
