//! What redis-py sends (`Lock`, and the page's script that takes a fencing
//! token with the key), and its code as the Code view lists it: the
//! worker's text, none of it in the page's first load.

use super::{Redis, SingleRedisMsg, REDISSON_SYNC_TIMEOUT_MS, WAIT_TIMEOUT_MS};
use crate::sim::backend::real_client::{Listing, RealClient};
use crate::sim::backend::redis_node::real_client::{
    command, eval, redis_value, RedisLibrary, REDIS_KEY,
};
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;

/// redis-py's `Lock.LUA_RELEASE_SCRIPT` (redis/lock.py).
const REDIS_PY_RELEASE: &str = "local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
    return 0
end
redis.call('del', KEYS[1])
return 1";
/// redis-py's `Lock.LUA_EXTEND_SCRIPT`; `extend(ttl, replace_ttl=True)`
/// passes ARGV[3] = "1", so the new TTL replaces what is left.
const REDIS_PY_EXTEND: &str = "local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
    return 0
end
local expiration = redis.call('pttl', KEYS[1])
if not expiration then
    expiration = 0
end
if expiration < 0 then
    return 0
end

local newttl = ARGV[2]
if ARGV[3] == \"0\" then
    newttl = ARGV[2] + expiration
end
redis.call('pexpire', KEYS[1], newttl)
return 1";

/// Single Redis: the commands are redis-py's, sent to the master; WAIT
/// is its own.
impl RealClient for Redis {
    type Names = ();

    fn message_text(
        _config: &Config,
        _names: &mut (),
        _c: Option<ClientId>,
        m: &SingleRedisMsg,
        asked: Option<&SingleRedisMsg>,
    ) -> String {
        let asked = match asked {
            Some(SingleRedisMsg::Command { cmd }) => Some(*cmd),
            _ => None,
        };
        match *m {
            SingleRedisMsg::Command { cmd } | SingleRedisMsg::Answer { cmd } => {
                command::<Redis>(&cmd, asked)
            }
            SingleRedisMsg::Wait { redisson: false, .. } => format!("WAIT 1 {WAIT_TIMEOUT_MS}"),
            SingleRedisMsg::Wait { redisson: true, .. } => format!(
                "INFO replication   (connected_slaves)\nWAIT <connected_slaves> {REDISSON_SYNC_TIMEOUT_MS}   (Redisson's syncedEval)"
            ),
            SingleRedisMsg::WaitReply {
                replicas,
                connected,
                ..
            } => format!("(integer) {replicas}   ({connected} replica(s) connected)"),
        }
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }

    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        (fence == Some(FenceRule::LockHeld)).then_some(HELD)
    }
}

/// redis-py's `Lock`.
impl RedisLibrary for Redis {
    // redis-py lock.py `do_acquire`: `set(name, token, nx=True, px=...)`,
    // which commands/core.py `set` sends as SET name value NX PX ms.
    fn set(value: u64, px_ms: u64) -> String {
        format!("SET {REDIS_KEY} {} NX PX {px_ms}", redis_value(value))
    }

    fn set_reply(ok: bool) -> String {
        match ok {
            true => "OK".into(),
            false => "(nil)".into(),
        }
    }

    fn extend(value: u64, px_ms: u64) -> String {
        let (value, px) = (redis_value(value), px_ms.to_string());
        eval(REDIS_PY_EXTEND, &[REDIS_KEY], &[&value, &px, "1"])
    }

    fn unlock(value: u64) -> String {
        eval(REDIS_PY_RELEASE, &[REDIS_KEY], &[&redis_value(value)])
    }
}

const REDIS_PY: &str = "https://github.com/redis/redis-py/blob/master/redis/lock.py";
const REDIS_PY_CLIENT: &str = "https://github.com/redis/redis-py/blob/master/redis/client.py";
const REDIS_PY_CORE: &str = "https://github.com/redis/redis-py/blob/master/redis/commands/core.py";

const CLIENT: Listing = Listing {
    client: "redis-py",
    lang: "python",
    text: "\
|r = redis.Redis(host=\"redis\")
|lock = r.@lock@(\"lock:42\", timeout={ttl_s})  # the lease: the page's TTL
|
idle|def job(value):
acquire|    lock.@acquire@()  # SET lock:42 <uuid> NX PX {ttl_ms}, retried while taken
|    fence = r.@incr@(\"fence:lock:42\")  # the fencing token: it only grows
check|    if lock.@owned@():  # the check: GET lock:42 is still my uuid
write|        resource.write(value, fence)  # a pause here can outlive the lease
release|    lock.@release@()  # Lua: DEL only if the value is still mine
|
|# From a timer while the job runs, every TTL / 3:
renew|lock.@extend@({ttl_s}, replace_ttl=True)  # Lua: PEXPIRE only if mine
|# The model sends SET NX PX and INCR as one script, as the real-server check does.",
    api: &[
        ("lock", REDIS_PY_CLIENT),
        ("acquire", REDIS_PY),
        ("incr", REDIS_PY_CORE),
        ("owned", REDIS_PY),
        ("release", REDIS_PY),
        ("extend", REDIS_PY),
    ],
};

/// The resource's check in the same server: one script checks the
/// lock's value and writes.
const HELD: Listing = Listing {
    client: "the resource: one script checks the lock and writes (redis-py)",
    lang: "python",
    text: "\
|# The counter lives in the same Redis: the script runs as one step.
|WRITE = \"\"\"if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
|redis.call('incr', KEYS[2]) return 1\"\"\"
|if not r.@eval@(WRITE, 2, \"lock\", \"counter\", my_value):
|    raise Rejected()  # the key holds another client's value, or none",
    api: &[("eval", REDIS_PY_CORE)],
};
