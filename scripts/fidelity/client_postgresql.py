"""A PostgreSQL client: psycopg with a session-level advisory lock and the
version column as the fence, one process per client.

Acquire: a connection of its own for the lock (autocommit, so that it sits
idle between statements), `SELECT pg_advisory_lock(42)`, which blocks in
the server while another session holds it, then `SELECT version FROM
counter` in a statement of its own, so that its snapshot is taken after
the lock was granted: the version read is the token. The lock lasts as
long as that session; nothing renews it, and the client learns nothing
while it does not use that connection.

Writes go through another connection (a pool of one, opened before the
story and opened again if the server dropped it), as a read-modify-write:
the client read the version when it was granted the lock, and each write
sets what it read plus one, `UPDATE counter SET version = m WHERE id = 1
[AND version = n] RETURNING version`, the condition with fencing on. A
write from an old read overwrites the increments made since. A row back is
"accepted" (the client then names the new version in its next write), none
is "rejected". The client
reports each write itself, as the data lives in the lock's own server.

Every connection goes to the client's own loopback address (127.0.1.1 for
A, ...), so that the runner can cut that client's packets, both ways, at
the kernel: a partition the server's TCP keepalives have to notice.

argv[1]: JSON settings from the runner (see runner.py).
"""

import json
import sys
import threading
import time

import psycopg

from client_base import Commands, emit

LOCK_KEY = 42


class Client:
    def __init__(self, settings):
        self.dsn = "host=%s port=%d user=postgres dbname=postgres connect_timeout=10" % (
            settings["pg_host"], settings["pg_port"])
        self.fencing = settings["fencing"] == "on"
        self.lock_conn = None
        self.write_conn = None
        self.write_mutex = threading.Lock()
        self.version = None
        self.known = 0
        self.holding = False
        self.acquiring = False

    def connect(self):
        return psycopg.connect(self.dsn, autocommit=True)

    def open_pool(self):
        self.write_conn = self.connect()

    def acquire(self):
        self.acquiring = True
        threading.Thread(target=self._acquire, daemon=True).start()

    def _acquire(self):
        try:
            if self.lock_conn is None or self.lock_conn.closed:
                self.lock_conn = self.connect()
            self.lock_conn.execute("SELECT pg_advisory_lock(%s)", (LOCK_KEY,))
            version = self.lock_conn.execute("SELECT version FROM counter WHERE id = 1").fetchone()[0]
        except psycopg.Error as e:
            self.acquiring = False
            self.lock_conn = None
            emit("failed", said=repr(e))
            return
        self.version = version
        self.known = version
        self.acquiring = False
        self.holding = True
        emit("granted", token=version)

    def write(self, extra_ms):
        token = self.version
        self.known += 1
        value = self.known
        threading.Thread(target=self._write, args=(token, value, extra_ms), daemon=True).start()
        emit("write-sent", token=token, value=value)

    def _write(self, token, value, extra_ms):
        if extra_ms:
            time.sleep(extra_ms / 1000)
        if self.fencing:
            sql, args = ("UPDATE counter SET version = %s WHERE id = 1 AND version = %s "
                         "RETURNING version", (value, token))
        else:
            sql, args = "UPDATE counter SET version = %s WHERE id = 1 RETURNING version", (value,)
        with self.write_mutex:
            for attempt in (1, 2):
                try:
                    if self.write_conn is None or self.write_conn.closed:
                        self.write_conn = self.connect()
                    row = self.write_conn.execute(sql, args).fetchone()
                    break
                except psycopg.OperationalError as e:
                    # The server dropped this connection (its keepalives gave
                    # up during a partition): the pool opens a new one.
                    emit("log", message="write, attempt %d: %r" % (attempt, e))
                    self.write_conn = None
            else:
                return
        if row is not None:
            # The writer now holds the version its write made.
            if self.holding and self.version == token:
                self.version = row[0]
            emit("write-done", token=token, verdict="accepted", value=row[0])
        else:
            emit("write-done", token=token, verdict="rejected")

    def release(self):
        # The client stops believing when it decides to let go, before the
        # unlock reaches the server (whose next holder may be told first).
        holding, self.holding = self.holding, False
        emit("released")
        if holding and self.lock_conn is not None:
            try:
                self.lock_conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
            except psycopg.Error as e:
                emit("log", message="release: %r" % e)
        elif self.acquiring and self.lock_conn is not None:
            self.lock_conn.cancel()


def handle(client, command):
    what = command["do"]
    if what == "acquire" and not client.holding and not client.acquiring:
        client.acquire()
    elif what in ("write", "write-delayed"):
        if client.holding:
            client.write(command.get("extra_ms", 0))
        else:
            emit("refused", command=what)
    elif what == "release":
        client.release()
    else:
        emit("refused", command=what)


def main():
    settings = json.loads(sys.argv[1])
    client = Client(settings)
    client.open_pool()
    commands = Commands()
    emit("ready")
    while not commands.closed:
        commands.wait(0.02)
        # Commands first: a pause strikes between "I hold it" and the write.
        for command in commands.pending():
            handle(client, command)


if __name__ == "__main__":
    main()
