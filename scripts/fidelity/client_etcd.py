"""An etcd client: etcd's own v3 lock recipe, run by `etcdctl lock`.

`etcdctl lock --ttl N NAME` opens a session (a lease of N seconds kept alive
every N/3 by the Go client), runs client/v3/concurrency's Mutex.Lock, and
once it holds prints its lock key (JSON with `-w json`): the key's
create_revision is the fencing token. It exits with "session expired" as
soon as the Go client knows the lease is gone, either because its own
deadline passed without a keepalive answer (its deadline loop looks once a
second; the deadline is the last reply + the TTL, or 5 s after the first
keepalive until that one is answered) or because a keepalive came back
with "lease not found". On SIGINT it unlocks (deletes its key) and exits.
This process runs one etcdctl per acquire, as the simulator opens a new
lease per acquire, and both stop together on SIGSTOP (same process group).

argv[1]: JSON settings from the runner (see runner.py).
"""

import json
import math
import os
import signal
import subprocess
import sys

from client_base import Commands, Counter, emit

LOCK_NAME = "fidelity-lock"


class EtcdLock:
    def __init__(self, settings, counter):
        self.endpoint = "127.0.0.1:%d" % settings["service_port"]
        # Whole seconds, rounded up as the simulator rounds etcd's TTL.
        self.ttl_s = max(1, math.ceil(settings["ttl_ms"] / 1000))
        self.etcdctl = settings.get("etcdctl", "etcdctl")
        self.counter = counter
        self.proc = None
        self.out = b""
        self.token = None
        self.holding = False

    def acquire(self):
        # The lease client's first keepalive deadline is DialTimeout + 1 s
        # (client/v3/lease.go `NewLease`): etcdctl's own 2 s would make it
        # 3 s; 4 s makes it the library's 5 s (`defaultTTL`, what a client
        # with no dial timeout gets), which the simulator models.
        argv = [self.etcdctl, "--endpoints", self.endpoint, "--dial-timeout", "4s", "-w", "json",
                "lock", "--ttl", str(self.ttl_s), LOCK_NAME]
        env = dict(os.environ, ETCDCTL_API="3")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.out = b""

    def fds(self):
        return [self.proc.stdout.fileno()] if self.proc else []

    def on_output(self):
        """Reads what etcdctl printed; a grant or its exit are events."""
        try:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        if chunk:
            self.out += chunk
            lines = self.out.split(b"\n")
            self.out = lines.pop()
            for line in lines:
                self.on_line(line.decode(errors="replace").strip())
            return
        code = self.proc.wait()
        self.proc = None
        if self.holding:
            self.holding = False
            emit("lost", reason="lease-gone", exit=code, said=self.out.decode(errors="replace").strip())
        else:
            emit("failed", exit=code, said=self.out.decode(errors="replace").strip())

    def on_line(self, line):
        if line.startswith("{"):
            kvs = json.loads(line).get("kvs") or []
            if kvs:
                self.token = int(kvs[0]["create_revision"])
                self.holding = True
                self.counter.granted(self.token)
                return
        if line:
            self.out += (line + "\n").encode()

    def release(self):
        if not self.proc:
            return
        self.holding = False
        proc, self.proc = self.proc, None
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        emit("released")


def handle(lock, command):
    what = command["do"]
    if what == "acquire" and not lock.proc:
        lock.acquire()
    elif what in ("write", "write-delayed"):
        if lock.holding:
            lock.counter.write(lock.token, command.get("extra_ms", 0))
        else:
            emit("refused", command=what)
    elif what == "release":
        lock.release()
    else:
        emit("refused", command=what)


def main():
    settings = json.loads(sys.argv[1])
    lock = EtcdLock(settings, Counter(settings["counter_port"], settings["name"]))
    commands = Commands()
    emit("ready")
    try:
        while not commands.closed:
            ready = commands.wait(0.02, lock.fds())
            # Commands first: a pause strikes between "I hold it" and the write.
            for command in commands.pending():
                handle(lock, command)
            if lock.proc and lock.proc.stdout.fileno() in ready:
                lock.on_output()
    finally:
        if lock.proc:
            lock.proc.kill()


if __name__ == "__main__":
    main()
