//! What Consul's Go api sends (`api.Lock`, HTTP), and its code as the Code
//! view lists it: the worker's text, none of it in the page's first load.

use super::{AcquireResult, Consul, ConsulMsg, GetPurpose, KeyCleanup, Rpc, LOCK_DELAY_S_DEFAULT};
use crate::sim::backend::real_client::{secs_text, Listing, RealClient};
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;

const CONSUL_KEY: &str = "locks/shared-counter";
/// api/lock.go `DefaultLockSessionTTL`: the page's TTL stands for it.
const CONSUL_TTL: &str = "15s";
/// consul/api's `LockFlagValue`, set on the key by `Lock()`.
const CONSUL_LOCK_FLAG: u64 = 0x2ddc_cbc0_58a5_0c18;

impl RealClient for Consul {
    type Names = ();

    fn message_text(
        config: &Config,
        _names: &mut (),
        _c: Option<ClientId>,
        m: &ConsulMsg,
        _asked: Option<&ConsulMsg>,
    ) -> String {
        match *m {
            // api/lock.go `createSession`: SessionEntry{Name, TTL,
            // LockDelay} (or LockOptions.SessionOpts), which session.go
            // `Create` sends with only the fields set, the lock-delay as
            // api.go `durToMsec`; Go writes a map's keys in sorted order.
            ConsulMsg::SessionCreate { cleanup, .. } => session_create(config, cleanup),
            ConsulMsg::SessionCreateReply { session } => {
                format!("200 OK\n{{\"ID\": \"{}\"}}", consul_id(session))
            }
            // session.go `RenewPeriodic` (started by lock.go `Lock`): `Renew`
            // every TTL/2, every 1 s after an error.
            ConsulMsg::SessionRenew { session } => {
                format!("PUT /v1/session/renew/{}\n(RenewPeriodic, every TTL/2)", consul_id(session))
            }
            ConsulMsg::SessionRenewReply {
                session,
                found: true,
            } => format!(
                "200 OK\n[{{\"ID\": \"{}\", \"TTL\": \"{CONSUL_TTL}\", ...}}]",
                consul_id(session)
            ),
            ConsulMsg::SessionRenewReply {
                session,
                found: false,
            } => format!("404 Not Found\nSession id '{}' not found", consul_id(session)),
            ConsulMsg::SessionDestroy { session } => {
                format!("PUT /v1/session/destroy/{}", consul_id(session))
            }
            ConsulMsg::KvGet {
                wait_index,
                purpose,
            } => consul_get(wait_index, purpose),
            ConsulMsg::KvGetReply { session, index, .. } => {
                let holder = match session {
                    Some(s) => format!(", \"Session\": \"{}\"", consul_id(s)),
                    None => String::new(),
                };
                format!(
                    "200 OK, X-Consul-Index: {index}\n[{{\"Key\": \"{CONSUL_KEY}\", \"Flags\": {CONSUL_LOCK_FLAG}{holder}, ...}}]"
                )
            }
            // api/kv.go `Acquire`: params acquire and flags (decimal), which
            // url.Values.Encode writes sorted by name.
            ConsulMsg::KvAcquire { session } => format!(
                "PUT /v1/kv/{CONSUL_KEY}?acquire={}&flags={CONSUL_LOCK_FLAG}",
                consul_id(session)
            ),
            ConsulMsg::KvAcquireReply { session, result } => match result {
                AcquireResult::Locked {
                    lock_index,
                    modify_index,
                } => format!(
                    "200 OK\ntrue\n(the key now reads LockIndex {lock_index}, ModifyIndex {modify_index})"
                ),
                AcquireResult::NotLocked => "200 OK\nfalse".into(),
                AcquireResult::InvalidSession => format!(
                    "500 Internal Server Error\ninvalid session \"{}\"",
                    consul_id(session)
                ),
            },
            ConsulMsg::Unlock {
                session,
                delete_key,
            } => {
                let id = consul_id(session);
                let delete = if delete_key {
                    format!("\nDELETE /v1/kv/{CONSUL_KEY}?cas=<its ModifyIndex> (if no one holds it)")
                } else {
                    String::new()
                };
                // api/kv.go `Release`: flags, then release (sorted by name);
                // lock.go `Unlock` closes sessionRenew, and RenewPeriodic
                // then destroys the session; `Destroy` is kv.go `DeleteCAS`.
                format!(
                    "PUT /v1/kv/{CONSUL_KEY}?flags={CONSUL_LOCK_FLAG}&release={id}{delete}\nPUT /v1/session/destroy/{id}"
                )
            }
            ConsulMsg::NoLeader { rpc } => {
                let what = match rpc {
                    Rpc::SessionCreate => "session create",
                    Rpc::SessionRenew => "session renew",
                    Rpc::KvGet { .. } => "GET of the key",
                    Rpc::KvAcquire => "PUT ?acquire",
                };
                format!("500 Internal Server Error\nNo cluster leader (to the {what}, after the agent held it rpc_hold_timeout, a blocking GET its wait more)")
            }
        }
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }

    /// The sequencer's check, or the check-session Txn with an index
    /// alone.
    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        match fence? {
            FenceRule::Sequencer => Some(SEQUENCER),
            FenceRule::LockHeld => Some(HELD),
            _ => None,
        }
    }
}

/// The session `Lock()` creates: the page's TTL stands for
/// `DefaultLockSessionTTL`, so the text carries Consul's own values.
fn session_create(config: &Config, cleanup: KeyCleanup) -> String {
    let delay_s = config.consul.lock_delay_s;
    let mut fields = Vec::new();
    if cleanup == KeyCleanup::Delete {
        fields.push("\"Behavior\": \"delete\"".to_string());
    }
    // A LockDelay of 0 is left out, and the server applies its 15 s.
    let delay_note = match delay_s {
        LOCK_DELAY_S_DEFAULT => "no LockDelay: the server's default, 15 s",
        0 => "a zero lock-delay: consul/api leaves a zero LockDelay out (the server would apply 15 s), so this body is written by hand",
        _ => "LockOptions.LockDelay",
    };
    if delay_s != LOCK_DELAY_S_DEFAULT {
        fields.push(format!("\"LockDelay\": \"{}ms\"", delay_s * 1_000));
    }
    fields.push("\"Name\": \"Consul API Lock\"".into());
    fields.push(format!("\"TTL\": \"{CONSUL_TTL}\""));
    let behavior = match cleanup {
        KeyCleanup::Keep => "no Behavior: the server's default, release",
        KeyCleanup::Delete => "Behavior delete: a session of LockOptions.SessionOpts",
    };
    format!(
        "PUT /v1/session/create\n{{{}}}\n(consul/api Lock.Lock; {delay_note}; {behavior}; the page's TTL of {} stands for DefaultLockSessionTTL, {CONSUL_TTL})",
        fields.join(", "),
        secs_text(config.ttl_ms)
    )
}

/// api/lock.go `Lock`'s blocking read (QueryOptions{WaitTime:
/// DefaultLockWaitTime, WaitIndex}) and `monitorLock`'s
/// (RequireConsistent): api.go `setQueryOptions` sets index only when
/// non-zero, wait as `durToMsec`, consistent as an empty value.
fn consul_get(wait_index: u32, purpose: GetPurpose) -> String {
    let path = format!("GET /v1/kv/{CONSUL_KEY}");
    match (purpose, wait_index) {
        (GetPurpose::Monitor, 0) => format!("{path}?consistent=\n(monitorLock)"),
        (GetPurpose::Monitor, i) => {
            format!("{path}?consistent=&index={i}\n(monitorLock: blocks until the key changes)")
        }
        (_, 0) => format!("{path}?wait=15000ms"),
        (_, i) => format!(
            "{path}?index={i}&wait=15000ms\n(blocks until the key changes, at most LockWaitTime)"
        ),
    }
}

/// Consul's session ID, a UUID; its first group is the one the page shows.
fn consul_id(session: u64) -> String {
    let mix = session.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        session & 0xffff_ffff,
        mix >> 48,
        (mix >> 32) & 0xffff,
        (mix >> 16) & 0xffff,
        mix & 0xffff_ffff_ffff
    )
}

const CONSUL_LOCK: &str = "https://github.com/hashicorp/consul/blob/main/api/lock.go";
const CONSUL_SESSION: &str = "https://github.com/hashicorp/consul/blob/main/api/session.go";
const CONSUL_KV: &str = "https://github.com/hashicorp/consul/blob/main/api/kv.go";
const CONSUL_TXN: &str = "https://github.com/hashicorp/consul/blob/main/api/txn.go";

const CLIENT: Listing = Listing {
    client: "Consul api",
    lang: "go",
    text: "\
|lock, _ := client.@LockOpts@(&api.@LockOptions@{Key: \"lock/widget-42\", SessionTTL: \"{ttl_s}s\"})
renew|// Lock() starts Session().@RenewPeriodic@(ttl, id, ...): a renewal every TTL / 2.
|
idle|func job(value int64) {
acquire|	lost, _ := lock.@Lock@(nil)  // KV GET (blocking), then PUT ?acquire=<session>
|	pair, _, _ := client.@KV@().@Get@(\"lock/widget-42\", nil)  // the sequencer's parts
check|	select { case <-lost: return; default: }  // the check: lost not yet closed
write|	resource.Write(value, pair.@LockIndex@, pair.@Session@, pair.@ModifyIndex@)
release|	lock.@Unlock@()  // PUT ?release=<session>; the session is destroyed
|}",
    api: &[
        ("LockOpts", CONSUL_LOCK),
        ("LockOptions", CONSUL_LOCK),
        ("RenewPeriodic", CONSUL_SESSION),
        ("Lock", CONSUL_LOCK),
        ("KV", CONSUL_KV),
        ("Get", CONSUL_KV),
        ("LockIndex", CONSUL_KV),
        ("Session", CONSUL_KV),
        ("ModifyIndex", CONSUL_KV),
        ("Unlock", CONSUL_LOCK),
    ],
};

/// The resource's check of Consul's sequencer: the key still names the
/// writer's session and LockIndex.
const SEQUENCER: Listing = Listing {
    client: "the resource: Consul's sequencer (Go api)",
    lang: "go",
    text:
        "\
|pair, _, _ := client.@KV@().@Get@(\"lock/widget-42\", &api.@QueryOptions@{RequireConsistent: true})
|if pair == nil || pair.@Session@ != w.Session || pair.@LockIndex@ != w.LockIndex {
|	return errRejected  // the key no longer names this holder
|}
|counter.Apply(w.Value)  // the model checks and writes at one instant; a real read leaves a window",
    api: &[
        ("KV", CONSUL_KV),
        ("Get", CONSUL_KV),
        (
            "QueryOptions",
            "https://github.com/hashicorp/consul/blob/main/api/api.go",
        ),
        ("Session", CONSUL_KV),
        ("LockIndex", CONSUL_KV),
    ],
};

/// The resource's check in the same transaction: the counter lives in
/// Consul's KV too, and one Txn checks the session and writes.
const HELD: Listing = Listing {
    client: "the resource: check-session in a Txn (Go api)",
    lang: "go",
    text: "\
|// The counter lives in Consul's KV too: the check and the write are one Txn.
|ok, _, _, err := client.KV().@Txn@(api.KVTxnOps{
|\t{Verb: api.@KVCheckSession@, Key: \"lock/widget-42\", Session: w.Session},
|\t{Verb: api.KVSet, Key: \"counter\", Value: next},
|}, nil)
|if err != nil || !ok {
|\treturn errRejected // the key no longer names this session
|}",
    api: &[("Txn", CONSUL_TXN), ("KVCheckSession", CONSUL_TXN)],
};
