//! What node-redlock sends to each node (its Lua scripts), and its code as
//! the Code view lists it: the worker's text, none of it in the page's
//! first load.

use super::{RedisMsg, Redlock};
use crate::sim::backend::real_client::{Listing, RealClient};
use crate::sim::backend::redis_node::real_client::{
    command, count, eval, redis_value, RedisLibrary, REDIS_KEY,
};
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;

/// node-redlock's `ACQUIRE_SCRIPT` (src/index.ts, without the first and
/// last newline of its template string): Redlock's `SET NX PX`
/// as node-redlock sends it to each node, one script for all the keys of
/// a lock. It answers how many keys it set (1 here), 0 if one existed.
const REDLOCK_ACQUIRE: &str = r#"  -- Return 0 if an entry already exists.
  for i, key in ipairs(KEYS) do
    if redis.call("exists", key) == 1 then
      return 0
    end
  end

  -- Create an entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries added.
  return #KEYS"#;
/// node-redlock's `EXTEND_SCRIPT` (src/index.ts): the value-checked
/// extension re-sets the key with a new PX (not PEXPIRE).
const REDLOCK_EXTEND: &str = r#"  -- Return 0 if an entry exists with a *different* lock value.
  for i, key in ipairs(KEYS) do
    if redis.call("get", key) ~= ARGV[1] then
      return 0
    end
  end

  -- Update the entry for each provided key.
  for i, key in ipairs(KEYS) do
    redis.call("set", key, ARGV[1], "PX", ARGV[2])
  end

  -- Return the number of entries updated.
  return #KEYS"#;
/// node-redlock's `RELEASE_SCRIPT` (src/index.ts): delete only the keys
/// that still hold this lock's value; it answers how many it deleted.
const REDLOCK_UNLOCK: &str = r#"  local count = 0
  for i, key in ipairs(KEYS) do
    -- Only remove entries for *this* lock value.
    if redis.call("get", key) == ARGV[1] then
      redis.pcall("del", key)
      count = count + 1
    end
  end

  -- Return the number of entries removed.
  return count"#;
/// node-redlock's `_attemptOperationOnClient` sends `EVALSHA` of the
/// script's SHA1 first and the script itself only on `NOSCRIPT`; the text
/// shows the script, as the node runs it.
const REDLOCK_EVALSHA_NOTE: &str =
    "(node-redlock sends EVALSHA <sha1 of the script> first, EVAL only on NOSCRIPT)";

impl RealClient for Redlock {
    type Names = ();

    fn message_text(
        _config: &Config,
        _names: &mut (),
        _c: Option<ClientId>,
        m: &RedisMsg,
        asked: Option<&RedisMsg>,
    ) -> String {
        command::<Redlock>(m, asked.copied())
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }
}

/// node-redlock: one script per operation on each node.
impl RedisLibrary for Redlock {
    // node-redlock `acquire` -> `_execute(acquireScript, keys, [value, duration])`.
    fn set(value: u64, px_ms: u64) -> String {
        redlock_eval(REDLOCK_ACQUIRE, value, Some(px_ms))
    }

    fn set_reply(ok: bool) -> String {
        count(ok)
    }

    fn extend(value: u64, px_ms: u64) -> String {
        redlock_eval(REDLOCK_EXTEND, value, Some(px_ms))
    }

    fn unlock(value: u64) -> String {
        redlock_eval(REDLOCK_UNLOCK, value, None)
    }
}

/// One of node-redlock's scripts on one node: one key, then the lock's
/// value and (to acquire or extend) its duration in ms.
fn redlock_eval(script: &str, value: u64, px_ms: Option<u64>) -> String {
    let value = redis_value(value);
    let mut args = vec![value.as_str()];
    let px = px_ms.map(|ms| ms.to_string());
    args.extend(px.as_deref());
    format!(
        "{}\n{REDLOCK_EVALSHA_NOTE}",
        eval(script, &[REDIS_KEY], &args)
    )
}

const REDLOCK_JS: &str = "https://github.com/mike-marcacci/node-redlock/blob/main/src/index.ts";
const IOREDIS: &str = "https://github.com/redis/ioredis/blob/main/lib/utils/RedisCommander.ts";

const CLIENT: Listing = Listing {
    client: "node-redlock",
    lang: "javascript",
    text: "\
|const redlock = new @Redlock@([r1, r2, r3, r4, r5]);  // five independent nodes
|
idle|async function job(value) {
acquire|  let lock = await redlock.@acquire@([\"lock:42\"], {ttl_ms});  // Lua on each node: SET PX if absent
|  const fence = await r1.@incr@(\"fence:lock:42\");  // one node's counter: a restart empties it
check|  if (lock.@expiration@ > Date.now()) {  // the check: validity by my own clock
write|    await resource.write(value, fence);  // a pause here can outlive the validity
|  }
release|  await lock.@release@();  // Lua on every node: DEL only if the value is mine
|}
|// While the job runs, every TTL / 3 (redlock.@using@() does this for you):
renew|lock = await lock.@extend@({ttl_ms});  // Lua on every node: SET PX again if mine
|// The model's random value cannot be ordered: only the INCR can fence.",
    api: &[
        ("Redlock", REDLOCK_JS),
        ("acquire", REDLOCK_JS),
        ("incr", IOREDIS),
        ("expiration", REDLOCK_JS),
        ("release", REDLOCK_JS),
        ("using", REDLOCK_JS),
        ("extend", REDLOCK_JS),
    ],
};
