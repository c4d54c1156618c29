"""The real servers, started on loopback ports with data in a temporary
directory, never as system services, and stopped on every way out.

Every pid is also appended to `<tmp>/pids`, so that scripts/fidelity/fidelity.sh can
stop what is left even if this process is killed outright.
"""

import os
import pwd
import shutil
import socket
import struct
import subprocess
import threading
import time

HOST = "127.0.0.1"
# PostgreSQL's clients A-D each reach it at an address of their own, so that
# a partition can drop one client's packets (net.Firewall).
CLIENT_HOSTS = ["127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4"]


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

    def __init__(self, tmp, name, argv, log, user=None, env=None):
        self.tmp, self.name, self.argv, self.log, self.user = tmp, name, argv, log, user
        self.env = env
        self.proc = None

    def start(self):
        out = open(self.log, "ab")
        kwargs = {}
        if self.user:
            entry = pwd.getpwnam(self.user)
            kwargs = {"user": entry.pw_uid, "group": entry.pw_gid}
        env = dict(os.environ, **self.env) if self.env else None
        self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                     stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
        with open(os.path.join(self.tmp, "pids"), "a") as f:
            f.write("%d\n" % self.proc.pid)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None


class RedisNodes:
    """Five independent Redis masters for Redlock, persistence off.

    A node whose wall clock a story makes jump runs with `wall_clock.c`
    preloaded (built by scripts/fidelity/fidelity.sh as `wall_clock_lib`): its
    gettimeofday, time and CLOCK_REALTIME read the machine's clock plus
    an offset in a file of its own, which `jump_clock` moves. Every other
    node, and every node in the other stories, runs as Debian ships it."""

    def __init__(self, tmp, ports, wall_clock_lib=None):
        self.ports = ports
        self.wall_clock_lib = wall_clock_lib
        self.nodes = []
        self.offset_files = []
        for i, port in enumerate(ports, start=1):
            d = os.path.join(tmp, "redis%d" % i)
            os.makedirs(d, exist_ok=True)
            argv = ["redis-server", "--port", str(port), "--bind", HOST, "--save", "",
                    "--appendonly", "no", "--dir", d, "--protected-mode", "yes"]
            self.nodes.append(Process(tmp, "redis%d" % i, argv, os.path.join(d, "log")))
            self.offset_files.append(os.path.join(d, "wall-clock-offset"))

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

    def set_clock_offset(self, n, offset_ms):
        """Node n's wall clock reads the machine's plus `offset_ms` from now on."""
        with open(self.offset_files[n - 1], "r+b") as f:
            # One aligned 8-byte write: the node reads the value on every call.
            os.pwrite(f.fileno(), struct.pack("<q", offset_ms), 0)

    def jump_clock(self, n, jump_ms):
        """Node n's wall clock steps `jump_ms` forward (backward if negative)."""
        with open(self.offset_files[n - 1], "rb") as f:
            offset_ms = struct.unpack("<q", f.read(8))[0]
        self.set_clock_offset(n, offset_ms + jump_ms)

    def _set_clock_mode(self, n, jumps):
        """Restarts node n if it runs with the wrong clock for the story."""
        node = self.nodes[n - 1]
        env = None
        if jumps:
            path = self.offset_files[n - 1]
            if os.path.exists(path):
                # Never truncated: a running node has it mapped.
                self.set_clock_offset(n, 0)
            else:
                with open(path, "wb") as f:
                    f.write(struct.pack("<q", 0))
            env = {"LD_PRELOAD": self.wall_clock_lib, "DISTLOCK_WALL_CLOCK_FILE": path}
        if node.env != env:
            node.stop()
            node.env = env

    def reset(self, jumping=()):
        """Every node up and empty before a story, the nodes in `jumping`
        with a wall clock that can jump (at the machine's time for now)."""
        import redis
        if jumping and not self.wall_clock_lib:
            raise RuntimeError("no wall-clock library to make a node's clock jump")
        for n in range(1, len(self.ports) + 1):
            self._set_clock_mode(n, n in jumping)
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
        # Each client connects to an address of its own (CLIENT_HOSTS).
        with open(os.path.join(data, "pg_hba.conf"), "a") as f:
            f.write("host all all 127.0.0.0/8 trust\n")
        listen = ",".join([HOST] + CLIENT_HOSTS)
        # No story crashes the server, so no commit has to wait for the disk
        # (shared with whatever else the machine is doing) to answer.
        opts = ("-p %d -c listen_addresses=%s -k %s -c synchronous_commit=off"
                % (self.port, listen, self.dir))
        done = self._as_postgres([os.path.join(self.bin, "pg_ctl"), "-D", data, "-o", opts,
                                  "-l", os.path.join(self.dir, "log"), "-w", "-t", "30", "start"])
        if done.returncode != 0:
            raise RuntimeError("pg_ctl start failed: " + done.stdout + done.stderr)
        self.started = True

    def sql(self, statement):
        done = self._as_postgres(["psql", "-h", HOST, "-p", str(self.port), "-U", "postgres",
                                  "-At", "-v", "ON_ERROR_STOP=1", "-c", statement])
        if done.returncode != 0:
            raise RuntimeError("psql: " + done.stderr.strip())
        return done.stdout.strip()

    def reset(self, keepalives):
        """Before a story: no other session (so no lock), the counter row
        at version 0, and the story's TCP keepalives (idle, interval,
        count; whole seconds) for the sessions it opens."""
        idle_s, interval_s, count = keepalives
        self.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                 "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
        self.sql("ALTER SYSTEM SET tcp_keepalives_idle = %d" % idle_s)
        self.sql("ALTER SYSTEM SET tcp_keepalives_interval = %d" % interval_s)
        self.sql("ALTER SYSTEM SET tcp_keepalives_count = %d" % count)
        self.sql("SELECT pg_reload_conf()")
        self.sql("DROP TABLE IF EXISTS counter; "
                 "CREATE TABLE counter (id int PRIMARY KEY, version bigint NOT NULL); "
                 "INSERT INTO counter VALUES (1, 0)")
        deadline = time.monotonic() + 10
        while self.sql("SHOW tcp_keepalives_idle") not in ("%d" % idle_s, "%ds" % idle_s):
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not take the keepalive settings")
            time.sleep(0.05)

    def version(self):
        return "PostgreSQL " + self.sql("SHOW server_version").split()[0]

    def stop(self):
        if self.started:
            self._as_postgres([os.path.join(self.bin, "pg_ctl"), "-D",
                               os.path.join(self.dir, "data"), "-m", "immediate", "-w", "stop"])
            self.started = False


class Relay:
    """A TCP relay between a replica and its master, in threads of its own:
    it forwards both ways until it is put on hold, then keeps what it reads,
    and `drop` throws that away and closes both sides, as the master's death
    would. It is how a story says "the copy had not reached the replica
    yet": on loopback a real copy arrives well under a millisecond after the
    write, far sooner than any script can place a crash."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.listener = socket.create_server((HOST, 0))
        self.port = self.listener.getsockname()[1]
        self.held = False
        self.dropped = False
        self.socks = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            try:
                up = socket.create_connection((HOST, self.upstream_port), timeout=1)
                up.settimeout(None)
            except OSError:
                down.close()
                continue
            with self.lock:
                if self.dropped:
                    down.close()
                    up.close()
                    continue
                self.socks += [down, up]
            threading.Thread(target=self._pump, args=(down, up), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, down), daemon=True).start()

    def _pump(self, src, dst):
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            with self.lock:
                if self.held or self.dropped:
                    continue  # Kept (and, once dropped, lost).
            try:
                dst.sendall(data)
            except OSError:
                break
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def hold(self):
        with self.lock:
            self.held = True

    def drop(self):
        with self.lock:
            self.dropped = True
            socks, self.socks = self.socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.drop()
        self.listener.close()


class SingleRedis:
    """One Redis master, one replica (which copies it through a `Relay`) and
    one Sentinel watching them, started afresh for every story: a failover
    leaves the roles swapped and the counter where the story left it.

    Sentinel's down-after-milliseconds is the simulator's (5 s) times the
    story's scale, with a single Sentinel as the quorum. Its INFO period is
    shortened (SENTINEL DEBUG, 100 ms): the replica it promotes was heard
    from recently, as it would be at the default period of a real
    deployment's longer down-after, and the promotion is seen at the next
    INFO. At an INFO period of 1 s the new master appeared from 6.0 s to
    past 7.0 s into the failover story (the simulator's: 5.5 s), and a
    client that asked for it at 6.0 s once found none until after its
    write at 7.0 s. What is left of the spread is the PING period (1 s):
    the master is found down 5 to 6 s after the crash. (A PING period of
    100 ms as well stopped the second story's Sentinel from promoting at
    all, for a reason not found.)"""

    MASTER_NAME = "fidelity"
    DOWN_AFTER_MS = 5000

    def __init__(self, tmp, ports, scale):
        self.tmp = tmp
        self.master_port, self.replica_port, self.sentinel_port = ports
        self.ports = list(ports)
        self.scale = scale
        self.runs = 0
        self.master = self.replica = self.sentinel = self.relay = None

    def _redis(self, name, port, extra):
        d = os.path.join(self.tmp, "redis-%s%d" % (name, self.runs))
        os.makedirs(d, exist_ok=True)
        argv = ["redis-server", "--port", str(port), "--bind", HOST, "--save", "",
                "--appendonly", "no", "--dir", d, "--protected-mode", "yes"] + extra
        p = Process(self.tmp, name, argv, os.path.join(d, "log"))
        p.start()
        wait_port(port)
        return p

    def start(self):
        import redis
        self.runs += 1
        # The replica syncs at once, not after diskless replication's 5 s wait.
        self.master = self._redis("master", self.master_port, ["--repl-diskless-sync-delay", "0"])
        self.relay = Relay(self.master_port)
        self.replica = self._redis("replica", self.replica_port,
                                   ["--replicaof", HOST, str(self.relay.port)])
        replica = redis.Redis(host=HOST, port=self.replica_port, socket_timeout=2)
        deadline = time.monotonic() + 30
        while replica.info("replication").get("master_link_status") != "up":
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis replica did not sync")
            time.sleep(0.05)
        d = os.path.join(self.tmp, "sentinel%d" % self.runs)
        os.makedirs(d, exist_ok=True)
        conf = os.path.join(d, "sentinel.conf")
        down_after = max(100, round(self.DOWN_AFTER_MS * self.scale))
        with open(conf, "w") as f:
            f.write("port %d\nbind %s\ndir %s\n"
                    "sentinel monitor %s %s %d 1\n"
                    "sentinel down-after-milliseconds %s %d\n"
                    "sentinel failover-timeout %s 60000\n"
                    % (self.sentinel_port, HOST, d, self.MASTER_NAME, HOST, self.master_port,
                       self.MASTER_NAME, down_after, self.MASTER_NAME))
        self.sentinel = Process(self.tmp, "sentinel", ["redis-server", conf, "--sentinel"],
                                os.path.join(d, "log"))
        self.sentinel.start()
        wait_port(self.sentinel_port)
        sentinel = redis.Redis(host=HOST, port=self.sentinel_port, socket_timeout=2,
                               decode_responses=True)
        sentinel.execute_command("SENTINEL", "DEBUG", "info-period", "100")
        while True:
            replicas = sentinel.execute_command("SENTINEL", "REPLICAS", self.MASTER_NAME)
            if any(self._field(r, "flags") == "slave" and self._field(r, "master-link-status") == "ok"
                   for r in replicas):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("Sentinel did not find the replica")
            time.sleep(0.05)

    @staticmethod
    def _field(row, name):
        if isinstance(row, dict):
            return row.get(name)
        pairs = dict(zip(row[::2], row[1::2]))
        return pairs.get(name)

    def hold_replication(self):
        """What the master writes from now on does not reach the replica."""
        self.relay.hold()

    def crash(self, n):
        """Node 1 is the first master: it dies, and what it had not copied
        dies with it."""
        if n != 1:
            raise RuntimeError("only the master's crash is scripted here")
        self.master.stop()
        self.relay.drop()

    def reset(self):
        self.stop()
        self.start()

    def stop(self):
        for p in (self.sentinel, self.replica, self.master):
            if p:
                p.stop()
        if self.relay:
            self.relay.close()
        self.master = self.replica = self.sentinel = self.relay = None

    def version(self):
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
        return "Redis " + out.split("v=")[1].split()[0] + " (with Sentinel)"
