//! What psycopg sends (SQL in simple Query messages), and its code as the
//! Code view lists it: the worker's text, none of it in the page's first
//! load.

use super::{PgMsg, Postgres, PG_LOCK_KEY};
use crate::sim::backend::real_client::{Listing, RealClient};
use crate::sim::net::ResourceMsg;
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;

impl RealClient for Postgres {
    type Names = ();

    fn message_text(
        _config: &Config,
        _names: &mut (),
        _c: Option<ClientId>,
        m: &PgMsg,
        _asked: Option<&PgMsg>,
    ) -> String {
        match *m {
            PgMsg::Connect => "StartupMessage{user: \"app\", database: \"app\"}\n(psycopg.connect)".into(),
            PgMsg::ConnectReply { pid: Some(pid) } => {
                format!("AuthenticationOk, BackendKeyData{{process ID: {pid}}}, ReadyForQuery")
            }
            PgMsg::ConnectReply { pid: None } => {
                "ErrorResponse{FATAL 53300: sorry, too many clients already}".into()
            }
            // psycopg's `execute` of a query without parameters sends a simple
            // Query message (cursor `_execute_send`: `send_query`).
            PgMsg::Lock { .. } => format!(
                "SELECT pg_advisory_lock({PG_LOCK_KEY});   (blocks in the server while another session holds it)\nSELECT version FROM counter WHERE id = 1;\n(two queries in the client, one after the other; the model sends them as one)"
            ),
            PgMsg::Locked { version, .. } => {
                format!("pg_advisory_lock: (one row, void)\nversion: {version}")
            }
            PgMsg::Unlock { .. } => format!("SELECT pg_advisory_unlock({PG_LOCK_KEY});"),
            PgMsg::Cancel { pid, .. } => format!(
                "CancelRequest{{process ID: {pid}, secret key}} on a new connection (libpq's PQcancel)"
            ),
            PgMsg::Reset { .. } => "TCP RST: the server knows no such connection".into(),
            PgMsg::Fin { .. } => "TCP FIN: the client's kernel closed the socket as its process exited".into(),
        }
    }

    /// The counter is a row of the same server: each write is an UPDATE
    /// that sets what its writer read plus one, with fencing on one that
    /// checks the version read.
    fn resource_text(config: &Config, _c: Option<ClientId>, m: &ResourceMsg) -> Option<String> {
        let fencing = config.fencing.is_on();
        let held = fencing && config.backend.fence_rule_in(config) == FenceRule::LockHeld;
        Some(match *m {
            ResourceMsg::Write { value, .. } if held => format!("UPDATE counter SET version = {value} WHERE id = 1 RETURNING version\n(on the session that holds advisory lock 42)"),
            ResourceMsg::WriteReply { accepted: false, .. } if held => {
                "refused: the writer's session no longer holds advisory lock 42 (its connection is gone; pg_advisory_xact_lock(42) would wait for the holder)".into()
            }
            ResourceMsg::Write { token, value, .. } => match token.filter(|_| fencing) {
                Some(v) => format!("UPDATE counter SET version = {value} WHERE id = 1 AND version = {v} RETURNING version"),
                None => format!("UPDATE counter SET version = {value} WHERE id = 1 RETURNING version\n(the version it read, plus one)"),
            },
            ResourceMsg::WriteReply { accepted: true, version } => {
                format!("UPDATE 1\nversion = {version}")
            }
            ResourceMsg::WriteReply { accepted: false, .. } => {
                "UPDATE 0 (no row has the version read: someone wrote since)".into()
            }
            ResourceMsg::Announce { .. } => return None,
        })
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }

    /// The counter's row: without fencing an UPDATE of any session
    /// lands; with it, the row's version is checked.
    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        match fence {
            None => Some(FENCING_OFF),
            Some(FenceRule::Version) => Some(VERSION),
            Some(FenceRule::LockHeld) => Some(SAME_SESSION),
            Some(_) => None,
        }
    }
}

const PSYCOPG: &str =
    "https://github.com/psycopg/psycopg/blob/master/psycopg/psycopg/connection.py";
const PSYCOPG_CURSOR: &str =
    "https://github.com/psycopg/psycopg/blob/master/psycopg/psycopg/cursor.py";
const PSYCOPG_BASE: &str =
    "https://github.com/psycopg/psycopg/blob/master/psycopg/psycopg/_cursor_base.py";

const CLIENT: Listing = Listing {
    client: "psycopg 3",
    lang: "python",
    text: "\
|conn = psycopg.@connect@(\"dbname=app\", autocommit=True)  # the lock lives with this session
|# No renewal: a session lock has no lease. TCP keepalives find a dead peer.
|
idle|def job(value):
acquire|    conn.@execute@(\"SELECT pg_advisory_lock(42)\")  # blocks in the server while taken
|    v = conn.execute(\"SELECT version FROM counter WHERE id = 1\").@fetchone@()[0]
check|    # the check: none; the lock holds while this connection lives
write|    cur = conn.execute(WRITE, (v,))  # the resource's check is in WRITE
|    ok = cur.@rowcount@ == 1
release|    conn.execute(\"SELECT pg_advisory_unlock(42)\")",
    api: &[
        ("connect", PSYCOPG),
        ("execute", PSYCOPG),
        ("fetchone", PSYCOPG_CURSOR),
        ("rowcount", PSYCOPG_BASE),
    ],
};

/// The resource with fencing off, in SQL.
const FENCING_OFF: Listing = Listing {
    client: "the resource, fencing off (SQL)",
    lang: "sql",
    text: "\
|-- WRITE: what I read when granted, plus one; no version condition,
|-- so a write from any session lands, over whatever was written since.
|UPDATE counter SET version = %s WHERE id = 1;",
    api: &[],
};

/// The resource's check in the write's own transaction: the lock and the
/// data live in one server.
const SAME_SESSION: Listing = Listing {
    client: "the resource: the lock checked in the write's transaction (SQL)",
    lang: "sql",
    text: "\
|-- WRITE on conn, the session that holds advisory lock 42, not a pooled one:
|UPDATE counter SET version = %s WHERE id = 1;  -- what I read, plus one
|-- fails once that session has ended: the lock went with it.
|-- Or on any connection, the lock taken inside the write's transaction:
|BEGIN;
|SELECT @pg_advisory_xact_lock@(42);  -- waits while another session holds 42
|UPDATE counter SET version = %s WHERE id = 1;
|COMMIT;  -- the transaction's lock goes with it
|-- The model refuses a write whose session no longer holds the lock.",
    api: &[("pg_advisory_xact_lock", PG_ADVISORY_DOCS)],
};

const PG_ADVISORY_DOCS: &str =
    "https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS";

/// The resource's check: the row's version.
const VERSION: Listing = Listing {
    client: "the resource: the row's version (SQL)",
    lang: "sql",
    text: "\
|-- WRITE: the data carries its own version, checked and set in one statement.
|UPDATE counter SET version = %s  -- what I read, plus one
|  WHERE id = 1 AND version = %s;  -- 0 rows: someone wrote since I read",
    api: &[],
};
