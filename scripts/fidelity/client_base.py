"""What every client process shares: commands on stdin, events on stdout,
read-modify-writes of the fenced counter.

A client is one OS process (its own process group, so a GC pause is a real
SIGSTOP of everything it runs). The runner writes one JSON command per line
to its stdin; a command written while the client is stopped waits in the
pipe and runs the instant it wakes, before anything else it had pending,
as the simulator runs a click queued during a pause. The client prints one
JSON event per line, stamped with the machine's monotonic clock, which every
process on the machine shares.
"""

import json
import os
import select
import socket
import sys
import threading
import time


_EMIT = threading.Lock()


def emit(what, **fields):
    """Prints one event for the runner (clients with threads call it too)."""
    fields.update(t=time.monotonic(), what=what)
    with _EMIT:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


class Counter:
    """The client's connection to the fenced counter, through its own link
    (the runner can cut or delay that link). The client updates it by
    read-modify-write, as on the page: it reads the counter when its
    critical section starts (`granted`) and each write sends what it read
    plus one, so a write from an old read overwrites the increments made
    since."""

    def __init__(self, port, name):
        self.name = name
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.replies = b""
        self.known = 0
        self.mutex = threading.Lock()

    def granted(self, token):
        """The critical section starts: read the counter, then say so."""
        with self.mutex:
            self.sock.sendall((json.dumps({"client": self.name, "op": "read"}) + "\n").encode())
            while b"\n" not in self.replies:
                chunk = self.sock.recv(4096)
                if not chunk:
                    fail("the counter closed the connection during a read")
                self.replies += chunk
            line, self.replies = self.replies.split(b"\n", 1)
            self.known = json.loads(line)["value"]
        emit("granted", token=token, read=self.known)

    def write(self, token, delay_ms=0):
        with self.mutex:
            self.known += 1
            value = self.known
        line = {"client": self.name, "token": token, "delay_ms": delay_ms, "value": value}
        self.sock.sendall((json.dumps(line) + "\n").encode())
        emit("write-sent", token=token, value=value)


class Commands:
    """Reads whole command lines from stdin without blocking the caller."""

    def __init__(self):
        self.fd = sys.stdin.fileno()
        os.set_blocking(self.fd, False)
        self.buf = b""
        self.closed = False

    def wait(self, timeout_s, extra_fds=()):
        """Waits up to `timeout_s` for stdin or one of `extra_fds`."""
        fds = ([] if self.closed else [self.fd]) + list(extra_fds)
        if not fds:
            time.sleep(max(0.0, timeout_s))
            return []
        ready, _, _ = select.select(fds, [], [], max(0.0, timeout_s))
        return ready

    def pending(self):
        """Every complete command waiting on stdin, oldest first."""
        try:
            while True:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    self.closed = True
                    break
                self.buf += chunk
        except BlockingIOError:
            pass
        lines = self.buf.split(b"\n")
        self.buf = lines.pop()
        return [json.loads(line) for line in lines if line.strip()]


def fail(message):
    emit("error", message=message)
    sys.exit(3)
