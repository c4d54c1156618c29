"""The network between the clients and the rest: a TCP proxy per client and
service that a partition stops, and the fenced counter.

A cut proxy stops forwarding both ways but keeps what it read, and sends it
on when the partition heals: TCP retransmits across a partition (within its
retry limit, far longer than any story) rather than losing the bytes.
"""

import asyncio
import json
import os
import socket
import struct
import subprocess
import time


class Link:
    """Whether one client's traffic to one place flows now."""

    def __init__(self):
        self.open = asyncio.Event()
        self.open.set()

    def cut(self):
        self.open.clear()

    def heal(self):
        self.open.set()


class Slowness:
    """How much later than usual a server's answers arrive (a slow node)."""

    def __init__(self):
        self.delay_s = 0.0


class Proxy:
    """Forwards 127.0.0.1:<port> to an upstream port while its link is open,
    the server's answers delayed by its slowness. `on_request`, if set, is
    called once before the client's next bytes are forwarded."""

    def __init__(self, upstream_port, link, slowness):
        self.upstream_port = upstream_port
        self.link = link
        self.slowness = slowness
        self.on_request = None
        self.server = None
        self.port = None
        self.writers = []
        self.upstreams = []

    async def start(self):
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _accept(self, reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()  # The server is down: the client sees a refused request.
            return
        self.writers += [writer, up_writer]
        self.upstreams.append(up_writer)
        try:
            await asyncio.gather(self._pump(reader, up_writer, requests=True),
                                 self._pump(up_reader, writer, self.slowness),
                                 return_exceptions=True)
        except asyncio.CancelledError:
            pass  # The story is over and its event loop closes.

    async def _pump(self, reader, writer, slowness=None, requests=False):
        loop = asyncio.get_running_loop()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await self.link.open.wait()
                if requests and self.on_request is not None:
                    self.on_request()
                if slowness and slowness.delay_s > 0:
                    # Later answers are not held behind this one: a slow
                    # server, not a queue in the network.
                    loop.call_later(slowness.delay_s, self._late_write, writer, data)
                    continue
                writer.write(data)
                await writer.drain()
        finally:
            if not (slowness and slowness.delay_s > 0):
                writer.close()

    def upstream_connections(self):
        """The proxy's open connections to the server, as Firewall names
        them: the server's side of a client's connections."""
        out = []
        for w in self.upstreams:
            sock = w.get_extra_info("socket")
            if w.is_closing() or sock is None or sock.fileno() < 0:
                continue
            try:
                out.append((sock.getsockname()[:2], sock.getpeername()[:2]))
            except OSError:
                continue  # Already gone.
        return out

    @staticmethod
    def _late_write(writer, data):
        if not writer.is_closing():
            writer.write(data)

    def close(self):
        if self.server:
            self.server.close()
        for w in self.writers:
            w.close()


class Counter:
    """The fenced shared counter: the page's rule, one listener per client
    (so that a client's link to it can be cut or a write delayed).

    Fencing on: accept a write iff its token >= the highest accepted token.
    Fencing off: accept every write. An accepted write sets the counter to
    the value it carries (what its writer read, plus one): a read-modify-
    write. A read ({"op": "read"}) is answered with the counter's value.
    Every write is recorded with its arrival time, verdict and the counter
    after it.
    """

    def __init__(self, fencing_on):
        self.fencing_on = fencing_on
        self.highest = None
        self.value = 0
        self.writes = []
        self.servers = []
        self.ports = {}
        self.links = {}

    async def listen(self, client):
        link = Link()
        server = await asyncio.start_server(
            lambda r, w: self._serve(r, w, link), "127.0.0.1", 0)
        self.servers.append(server)
        self.links[client] = link
        self.ports[client] = server.sockets[0].getsockname()[1]

    async def _serve(self, reader, writer, link):
        while True:
            try:
                line = await reader.readline()
            except asyncio.CancelledError:
                # The story is over while a dead host's connection was
                # still open (its FIN was dropped with everything else).
                break
            if not line:
                break
            write = json.loads(line)
            await link.open.wait()
            if write.get("op") == "read":
                writer.write((json.dumps({"value": self.value}) + "\n").encode())
                await writer.drain()
                continue
            if write.get("delay_ms"):
                # The packet sits in the network; later writes do not wait for it.
                asyncio.get_running_loop().call_later(write["delay_ms"] / 1000, self.apply, write)
            else:
                self.apply(write)
        writer.close()

    def apply(self, write):
        token = write["token"]
        if self.fencing_on and (token is None or (self.highest is not None and token < self.highest)):
            verdict = "rejected"
        else:
            verdict = "accepted"
            self.value = write["value"]
            if token is not None:
                self.highest = token if self.highest is None else max(self.highest, token)
        self.writes.append({"t": time.monotonic(), "client": write["client"], "token": token,
                            "verdict": verdict, "value": self.value})

    def close(self):
        for s in self.servers:
            s.close()


class Firewall:
    """Drops packets in the kernel (nftables, in the private network
    namespace the harness runs in), both ways: unlike a proxy that stops
    forwarding, whose own kernel would go on acknowledging, nothing answers
    the server's TCP keepalive probes, as when a host is cut off or dead.

    Two kinds of rule. A PostgreSQL partition cuts a client's address:
    each PostgreSQL client reaches the server at an address of its own, so
    a cut catches every connection it has or opens. A dead host
    (`drop_connections`) loses the TCP connections it had, each named by
    its two ends, whatever the server: the host is stopped, so it opens
    no others."""

    TABLE = "distlock_fidelity"

    def __init__(self, pg_port=None):
        self.pg_port = pg_port
        self.cut_hosts = set()
        self.dead = {}
        self.rebooted = {}
        self._nft("add table ip %s" % self.TABLE)
        self._nft("add chain ip %s out { type filter hook output priority 0 ; }" % self.TABLE)
        self._nft("flush chain ip %s out" % self.TABLE)

    @staticmethod
    def _nft(command):
        subprocess.run(["nft", command], check=True, capture_output=True, text=True)

    def _rules(self):
        out = []
        for host in sorted(self.cut_hosts):
            out.append("add rule ip %s out ip daddr %s tcp dport %d drop" % (self.TABLE, host, self.pg_port))
            out.append("add rule ip %s out ip saddr %s tcp sport %d drop" % (self.TABLE, host, self.pg_port))
        def rule(src, dst, verdict):
            return ("add rule ip %s out ip saddr %s tcp sport %d ip daddr %s tcp dport %d %s"
                    % ((self.TABLE,) + src + dst + (verdict,)))

        for conns in self.dead.values():
            for near, far in sorted(conns):
                out += [rule(near, far, "drop"), rule(far, near, "drop")]
        for conns in self.rebooted.values():
            # The host is back with none of the old connections: it says
            # nothing on them but a reset to whatever arrives on one, as a
            # rebooted kernel does. (The reset nftables sends for it leaves
            # from the host's end, hence the flags.)
            for near, far in sorted(conns):
                out += [rule(near, far, "tcp flags & rst == 0 drop"),
                        rule(far, near, "reject with tcp reset")]
        return out

    def _apply(self):
        script = "\n".join(["flush chain ip %s out" % self.TABLE] + self._rules()) + "\n"
        subprocess.run(["nft", "-f", "-"], input=script, check=True, capture_output=True, text=True)

    def cut(self, host):
        self.cut_hosts.add(host)
        self._apply()

    def heal(self, host):
        self.cut_hosts.discard(host)
        self._apply()

    def drop_connections(self, name, conns):
        """From now on no packet of these connections (each a pair of
        (addr, port), the dead host's end first) gets through, either way:
        `name`'s host is dead."""
        self.dead[name] = set(conns)
        self._apply()

    def reboot(self, name):
        """The dead host is up again: the server's next packet on each of
        its old connections is answered with a reset (the process that
        held them is gone; the runner has killed it)."""
        conns = self.dead.pop(name, None)
        if conns is not None:
            self.rebooted.setdefault(name, set()).update(conns)
            self._apply()

    def heal_all(self):
        self.cut_hosts.clear()
        self.dead.clear()
        self.rebooted.clear()
        self._apply()

    def close(self):
        self._nft("delete table ip %s" % self.TABLE)


def _proc_tcp_sockets():
    """Every IPv4 TCP socket in this network namespace that is not
    listening: inode -> ((local addr, port), (remote addr, port))."""
    out = {}
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                continue

            def end(hexed):
                addr, port = hexed.split(":")
                return socket.inet_ntoa(struct.pack("<I", int(addr, 16))), int(port, 16)

            out[int(fields[9])] = (end(fields[1]), end(fields[2]))
    return out


def group_connections(pgid):
    """The TCP connections that the processes of group `pgid` have open,
    as ((local addr, port), (remote addr, port)), read from /proc: every
    client library, and any program it runs (etcdctl), alike."""
    inodes = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                # The fields after the command's name, which may hold spaces.
                rest = f.read().rsplit(")", 1)[1].split()
            if int(rest[2]) != pgid:
                continue
            for fd in os.listdir("/proc/%s/fd" % pid):
                target = os.readlink("/proc/%s/fd/%s" % (pid, fd))
                if target.startswith("socket:["):
                    inodes.add(int(target[8:-1]))
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue  # The process ended meanwhile.
    sockets = _proc_tcp_sockets()
    return [sockets[i] for i in sorted(inodes) if i in sockets]
