"""A single-Redis client: redis-py's `Lock` on the master that Sentinel
names, one process per client.

redis-py's Lock is `SET name <random token> NX PX ttl`, released and
extended by scripts that check the token first. The fencing token is
`INCR` on a counter key in the same script as the SET, as the page's
client does (redis-py's own Lock has none): `FencedLock` changes only that
one step. A taken key means "try again after 0.1 s", redis-py's default
sleep, with no queue; the client runs that loop on its own timer
(`acquire(blocking=False)` every 0.1 s, which is what `acquire()` does
inside) so that it can read its commands meanwhile. While holding it
extends the key every ttl/3 (redis-py's `extend(ttl, replace_ttl=True)`,
value-checked; or a blind `SET` when the story asks) and believes it holds
until an extension finds its token gone. It asks Sentinel for the master
on every new connection, so after a failover its next command reaches the
promoted replica.

argv[1]: JSON settings from the runner (see runner.py).
"""

import json
import sys
import time

import redis
from redis.backoff import NoBackoff
from redis.exceptions import LockError, LockNotOwnedError
from redis.lock import Lock
from redis.retry import Retry
from redis.sentinel import Sentinel

from client_base import Commands, Counter, emit

KEY = "fidelity:lock"
FENCE_KEY = "fence:fidelity:lock"
RETRY_S = 0.1
TICK_S = 0.010
STALL_S = 0.5
# A dead master does not answer: the simulator's client gives up after 500 ms.
REPLY_TIMEOUT_S = 0.5

SET_AND_FENCE = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('incr', KEYS[2])
end
return false
"""


class FencedLock(Lock):
    """redis-py's Lock whose SET also takes the next fencing token."""

    fence = None

    def do_acquire(self, token):
        px = int(self.timeout * 1000)
        fence = self.redis.eval(SET_AND_FENCE, 2, self.name, FENCE_KEY, token, px)
        if fence is None:
            return False
        self.fence = int(fence)
        return True


class Client:
    def __init__(self, settings, counter):
        self.ttl_s = settings["ttl_ms"] / 1000
        self.release_mode = settings["release"]
        self.extend_mode = settings["extend"]
        self.renewal = settings["renewal"]
        self.counter = counter
        sentinel = Sentinel([("127.0.0.1", settings["sentinel_port"])], socket_timeout=REPLY_TIMEOUT_S)
        # One reconnection at once (through Sentinel) rather than redis-py's
        # growing, jittered backoff.
        self.r = sentinel.master_for(settings["master_name"], socket_timeout=REPLY_TIMEOUT_S,
                                     socket_connect_timeout=REPLY_TIMEOUT_S, retry=Retry(NoBackoff(), 1))
        self.lock = None
        self.holding = False
        self.retry_at = None
        self.renew_at = None

    def new_lock(self):
        return FencedLock(self.r, KEY, timeout=self.ttl_s, sleep=RETRY_S, blocking=False,
                          thread_local=False)

    def acquire(self):
        self.lock = self.new_lock()
        self.try_once()

    def try_once(self):
        self.retry_at = None
        try:
            got = self.lock.acquire(blocking=False)
        except redis.RedisError as e:
            emit("log", message="acquire: %r" % e)
            got = False
        if got:
            self.holding = True
            self.arm_renew()
            self.counter.granted(self.lock.fence)
        else:
            self.retry_at = time.monotonic() + RETRY_S

    def arm_renew(self):
        self.renew_at = time.monotonic() + self.ttl_s / 3 if self.renewal else None

    def extend(self):
        try:
            if self.extend_mode == "blind-set":
                self.r.set(KEY, self.lock.local.token, px=int(self.ttl_s * 1000))
            else:
                self.lock.extend(self.ttl_s, replace_ttl=True)
        except LockNotOwnedError:
            self.forget()
            emit("lost", reason="not-mine")
            return
        except redis.RedisError as e:
            emit("log", message="extend: %r" % e)  # Tried again next period.
            self.arm_renew()
            return
        self.arm_renew()
        emit("renewed")

    def release(self):
        if self.lock is None:
            return
        try:
            if self.release_mode == "plain-del":
                self.r.delete(KEY)
            else:
                self.lock.release()
        except (LockError, redis.RedisError) as e:
            emit("log", message="release: %r" % e)
        self.forget()
        emit("released")

    def forget(self):
        self.holding = False
        self.lock = None
        self.retry_at = None
        self.renew_at = None

    def next_timer(self):
        due = [t for t in (self.retry_at, self.renew_at) if t is not None]
        return min(due) if due else None

    def fire_timers(self):
        now = time.monotonic()
        if self.retry_at is not None and now >= self.retry_at:
            self.try_once()
        if self.holding and self.renew_at is not None and now >= self.renew_at:
            self.extend()


def handle(client, command):
    what = command["do"]
    if what == "acquire" and not client.holding and client.retry_at is None:
        client.acquire()
    elif what in ("write", "write-delayed"):
        if client.holding:
            client.counter.write(client.lock.fence, command.get("extra_ms", 0))
        else:
            emit("refused", command=what)
    elif what == "release":
        client.release()
    elif what == "renewal":
        client.renewal = command["on"]
        if client.holding and client.renewal:
            client.renew_at = time.monotonic()
    else:
        emit("refused", command=what)


def main():
    settings = json.loads(sys.argv[1])
    client = Client(settings, Counter(settings["counter_port"], settings["name"]))
    # Connected before the story starts, as a client with a pool would be.
    client.r.ping()
    commands = Commands()
    emit("ready")
    while not commands.closed:
        due = client.next_timer()
        commands.wait(TICK_S if due is None else min(TICK_S, due - time.monotonic()))
        # Commands first: a pause strikes between "I hold it" and the write.
        read_at = time.monotonic()
        for command in commands.pending():
            handle(client, command)
        if time.monotonic() - read_at < STALL_S:
            client.fire_timers()


if __name__ == "__main__":
    main()
