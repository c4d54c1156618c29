"""The real servers, started on loopback ports with data in a temporary
directory, never as system services, and stopped on every way out.

Every pid is also appended to `<tmp>/pids`, so that scripts/fidelity.sh can
stop what is left even if this process is killed outright.
"""

import os
import pwd
import shutil
import socket
import subprocess
import time

HOST = "127.0.0.1"


def wait_port(port, timeout_s=30.0):
    """Waits until something accepts connections on `port`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on %s:%d after %.0f s" % (HOST, port, timeout_s))


def port_free(port):
    with socket.socket() as s:
        # As the servers do: a port left in TIME_WAIT by the last run is free.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


class Process:
    """One server process, in its own process group."""

    def __init__(self, tmp, name, argv, log, user=None):
        self.tmp, self.name, self.argv, self.log, self.user = tmp, name, argv, log, user
        self.proc = None

    def start(self):
        out = open(self.log, "ab")
        kwargs = {}
        if self.user:
            entry = pwd.getpwnam(self.user)
            kwargs = {"user": entry.pw_uid, "group": entry.pw_gid}
        self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
        with open(os.path.join(self.tmp, "pids"), "a") as f:
            f.write("%d\n" % self.proc.pid)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None


class RedisNodes:
    """Five independent Redis masters for Redlock, persistence off."""

    def __init__(self, tmp, ports):
        self.ports = ports
        self.nodes = []
        for i, port in enumerate(ports, start=1):
            d = os.path.join(tmp, "redis%d" % i)
            os.makedirs(d, exist_ok=True)
            argv = ["redis-server", "--port", str(port), "--bind", HOST, "--save", "",
                    "--appendonly", "no", "--dir", d, "--protected-mode", "yes"]
            self.nodes.append(Process(tmp, "redis%d" % i, argv, os.path.join(d, "log")))

    def start(self):
        for node in self.nodes:
            node.start()
        for port in self.ports:
            wait_port(port)

    def crash(self, n):
        """Node n (1-5) dies at once; with persistence off it forgets everything."""
        self.nodes[n - 1].stop()

    def restart(self, n):
        self.nodes[n - 1].start()
        wait_port(self.ports[n - 1])

    def reset(self):
        """Every node up and empty before a story."""
        import redis
        for n, port in enumerate(self.ports, start=1):
            if self.nodes[n - 1].proc is None or self.nodes[n - 1].proc.poll() is not None:
                self.restart(n)
            redis.Redis(host=HOST, port=port, socket_timeout=2).flushall()

    def stop(self):
        for node in self.nodes:
            node.stop()

    def version(self):
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
        return "Redis " + out.split("v=")[1].split()[0]


class Etcd:
    """A single-node etcd, started afresh for every story so that its
    revision starts at 1 as the simulator's does."""

    def __init__(self, tmp, port, peer_port):
        self.tmp, self.port, self.peer_port = tmp, port, peer_port
        self.server = None
        self.runs = 0

    def start(self):
        self.runs += 1
        d = os.path.join(self.tmp, "etcd%d" % self.runs)
        client = "http://%s:%d" % (HOST, self.port)
        peer = "http://%s:%d" % (HOST, self.peer_port)
        argv = ["etcd", "--name", "fidelity", "--data-dir", d,
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "fidelity=" + peer, "--log-level", "error"]
        self.server = Process(self.tmp, "etcd", argv, os.path.join(self.tmp, "etcd.log"))
        self.server.start()
        wait_port(self.port)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ok = subprocess.run(["etcdctl", "--endpoints", "%s:%d" % (HOST, self.port),
                                 "--command-timeout=1s", "endpoint", "health"],
                                capture_output=True, env=dict(os.environ, ETCDCTL_API="3"))
            if ok.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("etcd did not become healthy")

    def reset(self):
        self.stop()
        self.start()

    def stop(self):
        if self.server:
            self.server.stop()
            self.server = None

    def version(self):
        out = subprocess.run(["etcd", "--version"], capture_output=True, text=True).stdout
        return "etcd " + out.split("etcd Version:")[1].split()[0]


class ZooKeeper:
    """A standalone ZooKeeper whose tickTime (and so its session clamp and
    expiry buckets) is set by the runner."""

    JARS = ["zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar", "slf4j-simple.jar",
            "netty-all.jar", "metrics-core.jar", "commons-cli.jar", "snappy-java.jar"]

    def __init__(self, tmp, port, tick_ms):
        self.tmp, self.port, self.tick_ms = tmp, port, tick_ms
        self.server = None

    def start(self):
        d = os.path.join(self.tmp, "zookeeper")
        os.makedirs(d, exist_ok=True)
        cfg = os.path.join(d, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write("tickTime=%d\ndataDir=%s\nclientPort=%d\nclientPortAddress=%s\n"
                    "admin.enableServer=false\nmaxClientCnxns=0\n4lw.commands.whitelist=srvr\n"
                    % (self.tick_ms, os.path.join(d, "data"), self.port, HOST))
        cp = ":".join(os.path.join("/usr/share/java", j) for j in self.JARS)
        argv = ["java", "-Xmx256m", "-cp", cp, "-Dzookeeper.admin.enableServer=false",
                "org.apache.zookeeper.server.ZooKeeperServerMain", cfg]
        self.server = Process(self.tmp, "zookeeper", argv, os.path.join(d, "log"))
        self.server.start()
        wait_port(self.port)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if "Mode: standalone" in self.srvr():
                return
            time.sleep(0.1)
        raise RuntimeError("ZooKeeper did not start")

    def srvr(self):
        try:
            with socket.create_connection((HOST, self.port), timeout=1) as s:
                s.sendall(b"srvr")
                return s.makefile().read()
        except OSError:
            return ""

    def stop(self):
        if self.server:
            self.server.stop()
            self.server = None

    def version(self):
        line = self.srvr().splitlines()[0]
        return "ZooKeeper " + line.split("version: ")[1].split("-")[0]


class Postgres:
    """A PostgreSQL cluster in a temporary directory, run as the `postgres`
    user (the server refuses root), listening on loopback only."""

    def __init__(self, tmp, port):
        self.port = port
        self.dir = os.path.join(tmp, "postgres")
        self.bin = self._bindir()
        self.started = False

    @staticmethod
    def _bindir():
        base = "/usr/lib/postgresql"
        versions = sorted(os.listdir(base), key=lambda v: int(v.split(".")[0]))
        return os.path.join(base, versions[-1], "bin")

    def _as_postgres(self, argv):
        entry = pwd.getpwnam("postgres")
        return subprocess.run(argv, user=entry.pw_uid, group=entry.pw_gid, capture_output=True,
                              text=True, timeout=60, cwd="/")

    def start(self):
        entry = pwd.getpwnam("postgres")
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(os.path.dirname(self.dir), 0o755)
        shutil.chown(self.dir, entry.pw_uid, entry.pw_gid)
        data = os.path.join(self.dir, "data")
        done = self._as_postgres([os.path.join(self.bin, "initdb"), "-D", data, "-A", "trust",
                                  "-U", "postgres"])
        if done.returncode != 0:
            raise RuntimeError("initdb failed: " + done.stdout + done.stderr)
        opts = ("-p %d -c listen_addresses=%s -k %s -c tcp_keepalives_idle=1 "
                "-c tcp_keepalives_interval=1 -c tcp_keepalives_count=3" % (self.port, HOST, self.dir))
        done = self._as_postgres([os.path.join(self.bin, "pg_ctl"), "-D", data, "-o", opts,
                                  "-l", os.path.join(self.dir, "log"), "-w", "-t", "30", "start"])
        if done.returncode != 0:
            raise RuntimeError("pg_ctl start failed: " + done.stdout + done.stderr)
        self.started = True

    def version(self):
        done = self._as_postgres(["psql", "-h", HOST, "-p", str(self.port), "-U", "postgres",
                                  "-At", "-c", "SHOW server_version"])
        return "PostgreSQL " + done.stdout.strip().split()[0]

    def stop(self):
        if self.started:
            self._as_postgres([os.path.join(self.bin, "pg_ctl"), "-D",
                               os.path.join(self.dir, "data"), "-m", "immediate", "-w", "stop"])
            self.started = False
