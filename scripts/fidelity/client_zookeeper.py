"""A ZooKeeper client: kazoo's Lock recipe (the same queue of
EPHEMERAL_SEQUENTIAL znodes as Curator's InterProcessMutex), one process per
client, with a connection-state listener that treats LOST as the end of the
lock, as the page's client does.

kazoo is a native-style client: it says SUSPENDED when no answer came for
two thirds of the session timeout and LOST only once it reaches the server
again and hears its session expired. With `zk_client: curator` the listener
also declares LOST itself once a whole session timeout has passed while
SUSPENDED, as Curator 3.0 and later do.

The fencing token is the znode's sequence number (the parent's cversion).

argv[1]: JSON settings from the runner (see runner.py).
"""

import json
import sys
import threading
import time

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import KazooException
from kazoo.retry import KazooRetry

from client_base import Commands, Counter, emit


class ZkLock:
    def __init__(self, settings, counter):
        self.hosts = "127.0.0.1:%d" % settings["service_port"]
        self.timeout_s = settings["ttl_ms"] / 1000
        self.path = settings["lock_path"]
        self.curator = settings.get("zk_client") == "curator"
        self.counter = counter
        self.zk = None
        self.lock = None
        self.holding = False
        self.busy = False
        self.suspended_at = None
        self.state = None

    def connect(self):
        """Opens the session and the lock directory before the story starts,
        so that connecting (a variable few hundred milliseconds on a busy
        machine) does not decide who queues first."""
        # Retry the connection every 50 ms, without kazoo's default doubling
        # backoff and jitter (0.1 s, x2, up to 0.4 s jitter), which would
        # put LOST anywhere up to a second after a partition heals: the
        # page's client reconnects as soon as it can.
        retry = KazooRetry(max_tries=-1, delay=0.05, backoff=1, max_jitter=0)
        self.zk = KazooClient(hosts=self.hosts, timeout=self.timeout_s, connection_retry=retry)
        self.zk.add_listener(self.on_state)
        self.zk.start(timeout=10)
        self.zk.ensure_path(self.path)
        self.warm_up()

    def warm_up(self):
        """Takes and frees a lock on a path of this client's own before the
        story starts: the first lock a fresh client takes runs code neither
        the server nor kazoo has yet run for it, and in one full run A's
        first acquisition was still under way when its pause struck at
        0.5 s, so the story told another tale. A path of its own leaves
        the story's sequence numbers (its tokens) alone."""
        warm = self.zk.Lock("%s-warm-up/%x" % (self.path, self.zk.client_id[0]))
        if warm.acquire(timeout=10):
            warm.release()

    def on_state(self, state):
        """kazoo's connection listener (runs on kazoo's thread)."""
        name = {KazooState.SUSPENDED: "SUSPENDED", KazooState.LOST: "LOST",
                KazooState.CONNECTED: "CONNECTED"}[state]
        if name == "LOST" and self.state == "LOST":
            return  # Curator mode said it already.
        self.state = name
        emit("zk", state=name)
        self.suspended_at = time.monotonic() if name == "SUSPENDED" else None
        if name == "LOST":
            self.lose()

    def lose(self):
        if self.holding:
            self.holding = False
            emit("lost", reason="session-lost")

    def curator_check(self):
        """Curator 3.0+: a whole session timeout SUSPENDED is LOST."""
        if not self.curator or self.suspended_at is None:
            return
        if time.monotonic() - self.suspended_at >= self.timeout_s:
            self.suspended_at = None
            self.state = "LOST"
            emit("zk", state="LOST")
            self.lose()

    def acquire(self):
        self.busy = True
        self.lock = self.zk.Lock(self.path)
        threading.Thread(target=self._acquire, args=(self.lock,), daemon=True).start()

    def _acquire(self, lock):
        try:
            got = lock.acquire(timeout=60)
        except KazooException as e:
            got = False
            emit("log", message="acquire: %r" % e)
        self.busy = False
        if got and lock is self.lock:
            self.holding = True
            self.counter.granted(int(lock.node[-10:]))
        elif lock is self.lock:
            emit("failed")

    def token_now(self):
        """The sequence number at the end of the lock's znode name."""
        return int(self.lock.node[-10:]) if self.lock and self.lock.node else None

    def release(self):
        lock, self.lock = self.lock, None
        self.holding = False
        self.busy = False
        emit("released")
        if lock is not None:
            threading.Thread(target=self._release, args=(lock,), daemon=True).start()

    @staticmethod
    def _release(lock):
        try:
            lock.cancel()
            lock.release()
        except KazooException as e:
            emit("log", message="release: %r" % e)


def handle(lock, command):
    what = command["do"]
    if what == "acquire" and not lock.holding and not lock.busy:
        lock.acquire()
    elif what in ("write", "write-delayed"):
        if lock.holding:
            lock.counter.write(lock.token_now(), command.get("extra_ms", 0))
        else:
            emit("refused", command=what)
    elif what == "release":
        lock.release()
    else:
        emit("refused", command=what)


def main():
    settings = json.loads(sys.argv[1])
    lock = ZkLock(settings, Counter(settings["counter_port"], settings["name"]))
    lock.connect()
    commands = Commands()
    emit("ready")
    while not commands.closed:
        commands.wait(0.02)
        # Commands first: a pause strikes between "I hold it" and the write.
        for command in commands.pending():
            handle(lock, command)
        lock.curator_check()


if __name__ == "__main__":
    main()
