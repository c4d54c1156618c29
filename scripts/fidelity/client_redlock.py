"""A Redlock client: the documented algorithm (antirez's Redlock, with
node-redlock's retry defaults) on redis-py, one process per client.

Acquire: SET key value NX PX ttl on each of the five nodes in turn, each
with a short per-node timeout; success iff three said OK and
validity = ttl - elapsed - (ttl/100 + 2 ms) > 0. On failure it unlocks
every node and retries after 200 +/- 100 ms, at most 10 attempts. The
fencing token is INCR on node 1 once a quorum is held (the usual bolt-on:
Redlock itself has none). While holding it extends on a quorum every ttl/3
with a value-checked script, and drops its belief at start + ttl - drift
by its own clock if no extension succeeded.

argv[1]: JSON settings from the runner (see runner.py).
"""

import json
import random
import sys
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from client_base import Commands, Counter, emit

KEY = "fidelity:lock"
FENCE_KEY = "fence:fidelity:lock"
QUORUM = 3
ATTEMPTS_MAX = 10
RETRY_DELAY_S = 0.200
RETRY_JITTER_S = 0.100
# A slow or silent node costs at most this much of an attempt.
NODE_TIMEOUT_S = 0.050
# How late a timer may fire at most.
TICK_S = 0.010
# Longer than any command takes here without a pause in between.
STALL_S = 0.5

UNLOCK = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""
EXTEND = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""


class Redlock:
    def __init__(self, settings, counter):
        self.ttl_ms = settings["ttl_ms"]
        self.release_mode = settings["release"]
        self.extend_mode = settings["extend"]
        self.renewal = settings["renewal"]
        self.counter = counter
        self.nodes = [
            redis.Redis(
                host="127.0.0.1",
                port=port,
                socket_timeout=NODE_TIMEOUT_S,
                socket_connect_timeout=NODE_TIMEOUT_S,
                retry=Retry(NoBackoff(), 0),
            )
            for port in settings["node_ports"]
        ]
        self.value = None
        self.token = None
        self.holding = False
        self.attempt = 0
        self.retry_at = None
        self.renew_at = None
        self.deadline = None

    def drift_s(self):
        return (self.ttl_ms / 100 + 2) / 1000

    def _each_node(self, call):
        """`call(node)` on every node in turn; how many returned truthy."""
        oks = 0
        for node in self.nodes:
            try:
                oks += 1 if call(node) else 0
            except redis.RedisError:
                pass  # Down, slow or cut off: this node says no.
        return oks

    def acquire(self):
        self.attempt = 0
        self.try_once()

    def try_once(self):
        self.retry_at = None
        self.attempt += 1
        self.value = "%016x" % random.getrandbits(64)
        start = time.monotonic()
        oks = self._each_node(lambda n: n.set(KEY, self.value, nx=True, px=self.ttl_ms))
        validity_ms = self.ttl_ms - (time.monotonic() - start) * 1000 - self.ttl_ms / 100 - 2
        if oks >= QUORUM and validity_ms > 0:
            self.token = self.fence()
            until = start + self.ttl_ms / 1000 - self.drift_s()
            if time.monotonic() < until:
                self.hold(until)
                self.counter.granted(self.token)
                return
        self._each_node(lambda n: n.eval(UNLOCK, 1, KEY, self.value))
        if self.attempt >= ATTEMPTS_MAX:
            self.value = None
            emit("failed", oks=oks)
            return
        delay = RETRY_DELAY_S + random.uniform(-RETRY_JITTER_S, RETRY_JITTER_S)
        self.retry_at = time.monotonic() + delay
        failure = "no-quorum" if oks < QUORUM else "no-validity"
        emit("retry", oks=oks, attempt=self.attempt + 1, failure=failure)

    def fence(self):
        try:
            return int(self.nodes[0].incr(FENCE_KEY))
        except redis.RedisError:
            return None

    def hold(self, until):
        self.holding = True
        self.deadline = until
        self.renew_at = time.monotonic() + self.ttl_ms / 3000 if self.renewal else None

    def extend(self):
        start = time.monotonic()
        if self.extend_mode == "blind-set":
            oks = self._each_node(lambda n: n.set(KEY, self.value, px=self.ttl_ms))
        else:
            oks = self._each_node(lambda n: n.eval(EXTEND, 1, KEY, self.value, self.ttl_ms))
        validity_ms = self.ttl_ms - (time.monotonic() - start) * 1000 - self.ttl_ms / 100 - 2
        if oks >= QUORUM and validity_ms > 0:
            self.hold(start + self.ttl_ms / 1000 - self.drift_s())
            emit("renewed")
        else:
            self.forget()
            emit("lost", reason="extension-failed")

    def release(self):
        if self.value is None:
            return
        value = self.value
        if self.release_mode == "plain-del":
            self._each_node(lambda n: n.delete(KEY))
        else:
            self._each_node(lambda n: n.eval(UNLOCK, 1, KEY, value))
        self.forget()
        emit("released")

    def forget(self):
        self.holding = False
        self.value = None
        self.renew_at = None
        self.deadline = None
        self.retry_at = None

    def next_timer(self):
        due = [t for t in (self.retry_at, self.renew_at, self.deadline) if t is not None]
        return min(due) if due else None

    def fire_timers(self):
        now = time.monotonic()
        if self.retry_at is not None and now >= self.retry_at:
            self.try_once()
        if self.holding and self.deadline is not None and now >= self.deadline:
            self.forget()
            emit("lost", reason="local-deadline")
        elif self.holding and self.renew_at is not None and now >= self.renew_at:
            self.extend()


def handle(lock, command):
    what = command["do"]
    if what == "acquire" and not lock.holding and lock.retry_at is None:
        lock.acquire()
    elif what in ("write", "write-delayed"):
        if lock.holding:
            lock.counter.write(lock.token, command.get("extra_ms", 0))
        else:
            emit("refused", command=what)
    elif what == "release":
        lock.release()
    elif what == "renewal":
        lock.renewal = command["on"]
        if lock.holding and lock.renewal:
            lock.renew_at = time.monotonic()
    else:
        emit("refused", command=what)


def main():
    settings = json.loads(sys.argv[1])
    lock = Redlock(settings, Counter(settings["counter_port"], settings["name"]))
    # Connect before the story starts, as a client with a connection pool
    # would be: the first acquire should not pay for five TCP handshakes.
    lock._each_node(lambda n: n.ping())
    commands = Commands()
    emit("ready")
    while not commands.closed:
        due = lock.next_timer()
        # Short waits: a select() stopped by SIGSTOP sleeps out the rest of
        # its timeout after SIGCONT, which would hold overdue timers back.
        commands.wait(TICK_S if due is None else min(TICK_S, due - time.monotonic()))
        # Commands first: a pause strikes between "I hold it" and the write.
        read_at = time.monotonic()
        for command in commands.pending():
            handle(lock, command)
        # A SIGSTOP can also land between the read above and the timers: if
        # time jumped since the read, read again before any timer fires.
        if time.monotonic() - read_at < STALL_S:
            lock.fire_timers()


if __name__ == "__main__":
    main()
