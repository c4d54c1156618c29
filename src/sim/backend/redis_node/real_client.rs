//! The Redis commands both lock systems' clients send: what is the
//! same for every client (INCR, a blind SET, DEL, a refused connection),
//! with each client library's own commands from its `RedisLibrary`. The
//! worker's text, none of it in the page's first load.

use super::super::redlock::RedisMsg;
use crate::sim::types::{ExtendMode, ReleaseMode};

/// The lock's key in Redis (both single Redis and each Redlock node).
pub(crate) const REDIS_KEY: &str = "lock:shared-counter";
/// The fencing counter beside it.
pub(crate) const REDIS_FENCE_KEY: &str = "fence:lock:shared-counter";
/// The page's single-Redis client: redis-py's `Lock` whose acquire also
/// takes the next fencing token in the same script
/// (scripts/fidelity/client_redis.py, `SET_AND_FENCE`).
pub(crate) const SET_AND_FENCE: &str =
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('incr', KEYS[2])
end
return false";

/// What a Redis client library sends for the lock's own commands.
pub(crate) trait RedisLibrary {
    /// Take the lock: `SET NX PX`, or the library's script.
    fn set(value: u64, px_ms: u64) -> String;
    fn set_reply(ok: bool) -> String;
    /// Extend the lock if its value is still mine.
    fn extend(value: u64, px_ms: u64) -> String;
    /// Release the lock if its value is still mine.
    fn unlock(value: u64) -> String;
}

/// One Redis command or answer, as client library `L` sends it;
/// `asked` is the request an answer answers.
pub(crate) fn command<L: RedisLibrary>(m: &RedisMsg, asked: Option<RedisMsg>) -> String {
    match *m {
        RedisMsg::Set { value, px_ms, .. } => L::set(value, px_ms),
        RedisMsg::SetReply { ok, .. } => L::set_reply(ok),
        RedisMsg::SetFenceReply { fence: None, .. } => "(nil)".into(),
        RedisMsg::SetFence { value, px_ms, .. } => eval(
            SET_AND_FENCE,
            &[REDIS_KEY, REDIS_FENCE_KEY],
            &[&redis_value(value), &px_ms.to_string()],
        ),
        RedisMsg::SetFenceReply { fence: Some(f), .. } | RedisMsg::IncrReply { fence: f, .. } => {
            format!("(integer) {f}")
        }
        RedisMsg::Incr { .. } => format!("INCR {REDIS_FENCE_KEY}"),
        RedisMsg::Extend {
            value,
            px_ms,
            mode: ExtendMode::BlindSet,
            ..
        } => format!("SET {REDIS_KEY} {} PX {px_ms}", redis_value(value)),
        RedisMsg::Extend {
            value,
            px_ms,
            mode: ExtendMode::CheckValue,
            ..
        } => L::extend(value, px_ms),
        RedisMsg::ExtendReply { ok, .. } => {
            let blind = matches!(
                asked,
                Some(RedisMsg::Extend {
                    mode: ExtendMode::BlindSet,
                    ..
                })
            );
            match (blind, ok) {
                // SET without NX always answers OK.
                (true, _) => "OK".into(),
                (false, ok) => count(ok),
            }
        }
        RedisMsg::Refused { .. } => {
            "connect(): Connection refused (ECONNREFUSED): the node is down".into()
        }
        RedisMsg::Unlock {
            mode: ReleaseMode::PlainDel,
            ..
        } => format!("DEL {REDIS_KEY}"),
        RedisMsg::Unlock {
            value,
            mode: ReleaseMode::CheckValue,
        } => L::unlock(value),
    }
}

/// A script's answer: the keys it set, 1 or 0.
pub(crate) fn count(ok: bool) -> String {
    format!("(integer) {}", u8::from(ok))
}

/// `EVAL script numkeys key... arg...`, as redis-cli would print it
/// (redis-py sends `EVALSHA` of the script's SHA1 once it is loaded).
pub(crate) fn eval(script: &str, keys: &[&str], args: &[&str]) -> String {
    let mut out = format!("EVAL \"{script}\" {}", keys.len());
    for word in keys.iter().chain(args) {
        out.push(' ');
        out.push_str(word);
    }
    out
}

/// A lock value as redis-py makes one (lock.py `acquire`:
/// `uuid.uuid1().hex`, 32 hex digits) and node-redlock too (`_random`:
/// `randomBytes(16).toString("hex")`), here from the run's own value.
pub(crate) fn redis_value(value: u64) -> String {
    let mix = value.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("{value:012x}{mix:016x}{:04x}", mix >> 48)
}
