"""Plays one scenario (the core's Scenario JSON) against the real servers
and returns what happened in the same rows the simulator prints.

Each client A-D is its own OS process (client_<system>.py) in its own
process group: a GC pause is SIGSTOP/SIGCONT of that group; a process
exit ("exit") is SIGKILL, after which the client's kernel closes its
sockets; a dead host ("crash", the page's power off) is SIGSTOP plus every
packet of the client's TCP connections dropped in the kernel (Firewall); a
partition cuts the client's proxies to the service (and to the counter
when the scope says so), or, for PostgreSQL, its address in the kernel. Times are the script's times multiplied
by `scale`; rows come back in the simulator's milliseconds.
"""

import asyncio
import json
import os
import signal
import sys
import time

import net
import servers as servers_mod
from net import Counter, Link, Proxy, Slowness

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = "ABCD"
# The ZooKeeper server's tickTime here (main.ZK_TICK_MS).
ZK_TICK_MS = 2000
# How long a write on the single-Redis master takes to reach its replica in
# the simulator (src/sim/backend/redis/mod.rs, REPLICATION_LAG_MS): whatever the
# master wrote this long before it crashes is lost with it.
REDIS_REPLICATION_LAG_MS = 20


# A pause this soon after the same client's acquire strikes inside the
# acquisition (slow-acquire): its requests have left, no answer is counted.
INSIDE_ACQUIRE_MS = 5


class Unsupported(Exception):
    """A story step the real servers here cannot play."""


def pause_inside(actions, i):
    """The gc-pause that strikes inside the acquisition that actions[i]
    starts, or None."""
    acquire = actions[i]
    if acquire["command"]["do"] != "acquire":
        return None
    for later in actions[i + 1:]:
        if later["at_ms"] - acquire["at_ms"] >= INSIDE_ACQUIRE_MS:
            return None
        if later.get("client") == acquire["client"] and later["command"]["do"] == "gc-pause":
            return later
    return None


def check_playable(scenario, can_jump_clocks):
    """Raises Unsupported, with the reason, for steps that cannot run here.
    `can_jump_clocks`: a Redlock node can run with a wall clock that jumps
    (scripts/fidelity/fidelity.sh built wall_clock.c)."""
    config = scenario["config"]
    for i, action in enumerate(scenario["actions"]):
        command = action["command"]["do"]
        if pause_inside(scenario["actions"], i) and config["backend"] != "redlock":
            raise Unsupported("the pause must strike inside an acquisition, which takes a fraction of a "
                              "millisecond on loopback; only Redlock's clients reach their servers "
                              "through the runner's proxies, which place it")
        if config["backend"] == "zookeeper" and config.get("zk", {}).get("tick_ms", ZK_TICK_MS) != ZK_TICK_MS:
            raise Unsupported("the ZooKeeper server here runs the default tickTime")
        if command == "clock-jump" and config["backend"] == "redlock" and not can_jump_clocks:
            raise Unsupported("no C compiler here to build the library through which one Redis node's "
                              "wall clock jumps (scripts/fidelity/wall_clock.c)")
        if command == "renewal" and config["backend"] not in ("redlock", "redis"):
            raise Unsupported("etcdctl and kazoo cannot turn their keepalives off")
        if config["backend"] == "redis" and "node" in action and (
                command != "crash" or action["node"] != 1):
            raise Unsupported("only the single-Redis master's crash is scripted here")
        if config["backend"] == "redis" and command == "partition":
            raise Unsupported("single-Redis clients are not cut off here yet")
        if config["backend"] == "postgresql" and "node" in action:
            raise Unsupported("the PostgreSQL server here has no standby to fail over to")
    if config["backend"] not in ("redlock", "redis", "postgresql") and not all(config["renewal"]):
        raise Unsupported("etcdctl and kazoo cannot turn their keepalives off")
    # A run's WAIT is "wait" ("redisson", "app-wait-1"), left out while off;
    # older runs wrote "wait_replica": true for the application's WAIT 1.
    redis = config.get("redis", {})
    if config["backend"] == "redis" and (redis.get("wait", "off") != "off" or redis.get("wait_replica")):
        raise Unsupported("a WAIT after taking the key is not scripted here yet")
    if config["backend"] == "redlock" and config["redis"]["restart"] == "delayed":
        raise Unsupported("a delayed restart is not scripted here yet")
    if config["backend"] == "redlock" and config["redis"]["persistence"] != "none":
        raise Unsupported("the Redis nodes run with persistence off")


class ClientProcess:
    def __init__(self, name, argv, events, log):
        self.name, self.argv, self.events, self.log = name, argv, events, log
        self.proc = None
        self.reader_task = None
        self.powered_off = False

    async def start(self):
        with open(self.log, "ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=log, start_new_session=True, cwd=HERE)
        ready = asyncio.get_running_loop().create_future()
        self.reader_task = asyncio.create_task(self._read(ready))
        await asyncio.wait_for(ready, 30)

    async def _read(self, ready):
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                return
            event = json.loads(line)
            event["client"] = self.name
            if event["what"] == "ready":
                if not ready.done():
                    ready.set_result(True)
                continue
            self.events.append(event)

    def send(self, command):
        self.proc.stdin.write((json.dumps(command) + "\n").encode())

    def power_off(self):
        """Stops the process for good: nothing wakes it, not even the
        SIGCONT before its SIGKILL at the end of the story."""
        self.signal(signal.SIGSTOP)
        self.powered_off = True

    def signal(self, sig):
        if self.proc and self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    async def kill(self):
        if not self.powered_off:
            self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        if self.proc:
            await self.proc.wait()
        if self.reader_task:
            self.reader_task.cancel()


class Story:
    """One run of one scenario against the real servers."""

    def __init__(self, scenario, run_ms, servers, scale, zk_client, run_id, log_dir):
        self.scenario = scenario
        self.config = scenario["config"]
        self.backend = self.config["backend"]
        self.run_ms = run_ms
        self.servers = servers
        self.scale = scale
        self.zk_client = zk_client
        self.run_id = run_id
        self.log_dir = log_dir
        self.events = []
        self.clients = {}
        self.proxies = {c: [] for c in CLIENTS}
        self.links = {c: Link() for c in CLIENTS}
        self.slowness = [Slowness() for _ in self.service_ports()]
        self.counter = Counter(self.config["fencing"] == "on")
        self.t0 = None
        # Pauses that a client's first request sets off, and those not yet
        # set off, by client (see arm_pause_on_request).
        self.placed_pauses = []
        self.pause_on_request = {}

    def service_ports(self):
        """The ports the runner puts a proxy before, one per client each.
        Single-Redis clients go straight to Sentinel and the master it
        names; PostgreSQL's are cut in the kernel (net.Firewall)."""
        if self.backend in ("redis", "postgresql"):
            return []
        if self.backend == "redlock":
            return self.servers.redis.ports
        if self.backend == "etcd":
            return [self.servers.etcd.port]
        return [self.servers.zookeeper.port]

    def settings(self, name, proxy_ports):
        ttl_ms = round(self.config["ttl_ms"] * self.scale)
        renewal = self.config["renewal"][CLIENTS.index(name)]
        return {
            "name": name, "ttl_ms": ttl_ms, "counter_port": self.counter.ports[name],
            "node_ports": proxy_ports, "service_port": proxy_ports[0] if proxy_ports else None,
            "release": self.config["redis"]["release"], "extend": self.config["redis"]["extend"],
            "renewal": renewal, "lock_path": "/fidelity/%s/lock" % self.run_id,
            "zk_client": self.zk_client, "fencing": self.config["fencing"],
            "sentinel_port": self.servers.single_redis.sentinel_port if self.servers.single_redis else None,
            "master_name": servers_mod.SingleRedis.MASTER_NAME,
            "pg_host": servers_mod.CLIENT_HOSTS[CLIENTS.index(name)],
            "pg_port": self.servers.postgres.port if self.servers.postgres else None,
        }

    async def spawn(self, name):
        ports = [p.port for p in self.proxies[name]]
        argv = [sys.executable, os.path.join(HERE, "client_%s.py" % self.backend),
                json.dumps(self.settings(name, ports))]
        log = os.path.join(self.log_dir, "client-%s.log" % name)
        client = ClientProcess(name, argv, self.events, log)
        await client.start()
        self.clients[name] = client

    async def setup(self):
        for name in CLIENTS:
            await self.counter.listen(name)
            for port, slowness in zip(self.service_ports(), self.slowness):
                proxy = Proxy(port, self.links[name], slowness)
                await proxy.start()
                self.proxies[name].append(proxy)
        await asyncio.gather(*(self.spawn(name) for name in CLIENTS))

    def at(self, sim_ms):
        return self.t0 + sim_ms * self.scale / 1000

    async def sleep_until(self, sim_ms):
        await asyncio.sleep(max(0.0, self.at(sim_ms) - time.monotonic()))

    def mark(self, what, name, **fields):
        fields.update(t=time.monotonic(), what=what, client=name)
        self.events.append(fields)

    async def act(self, action, inside=None):
        """Plays one step; `inside`: the pause that strikes inside the
        acquisition this step starts."""
        args = action["command"]
        command = args["do"]
        if "node" in action:
            await self.node_act(action["node"], args)
            return
        name = action["client"]
        client = self.clients.get(name)
        if inside is not None:
            self.arm_pause_on_request(name, inside)
            client.send({"do": command})
        elif command == "gc-pause" and any(a is action for a in self.placed_pauses):
            # Placed by the client's own request (arm_pause_on_request).
            self.wake_at(name, action["at_ms"] + args["pause_ms"])
        elif command in ("acquire", "write", "release"):
            client.send({"do": command})
        elif command == "write-delayed":
            client.send({"do": command, "extra_ms": round(args["extra_ms"] * self.scale)})
        elif command == "renewal":
            client.send({"do": command, "on": args["on"]})
        elif command == "gc-pause":
            self.pause(name)
            self.wake_at(name, action["at_ms"] + args["pause_ms"])
        elif command == "crash":
            self.power_off(name)
        elif command == "exit":
            # The process exits (SIGKILL): its kernel closes its sockets, so
            # every server reads a FIN at once; what each does with it is
            # the server's own (nothing is said on the client's behalf).
            # Its belief ends with the signal: marked before waiting for
            # the process to be reaped, or a grant the FIN frees (as
            # PostgreSQL's does within a millisecond) is heard first and
            # reads as two holders for no time at all.
            self.mark("crashed", name)
            await client.kill()
        elif command == "restart":
            # A host that was powered off comes back with none of what
            # it had open: the old process is killed (its FINs dropped)
            # and the servers' packets on its old connections are answered
            # with resets.
            await client.kill()
            if self.servers.firewall:
                self.servers.firewall.reboot(name)
            if self.backend == "postgresql":
                self.heal(name)
            await self.spawn(name)
        elif command == "partition" and self.backend == "postgresql":
            self.cut(name)
        elif command == "heal" and self.backend == "postgresql":
            self.heal(name)
        elif command == "partition":
            self.links[name].cut()
            if args["scope"] == "service-and-resource":
                self.counter.links[name].cut()
        elif command == "heal":
            self.links[name].heal()
            self.counter.links[name].heal()

    def power_off(self, name):
        """The client's host dies (or is cut off for good): its process
        stops (SIGSTOP, so it never runs again, never closes a socket) and
        every packet of every TCP connection it had is dropped in the
        kernel, both ways, including the server's side of the proxies it
        reaches its service through: no FIN, no RST, and no ACK from its
        kernel to the server's keepalive probes. The servers hear silence."""
        client = self.clients[name]
        client.power_off()
        self.mark("crashed", name)
        conns = net.group_connections(client.proc.pid)
        for proxy in self.proxies[name]:
            conns += proxy.upstream_connections()
        self.servers.firewall.drop_connections(name, conns)
        self.log(name, "powered off: dropping %d TCP connections: %s" % (
            len(conns), ", ".join("%s:%d-%s:%d" % (a + b) for a, b in conns)))

    def log(self, name, message):
        with open(os.path.join(self.log_dir, "client-%s.log" % name), "a") as f:
            f.write("[runner] %s\n" % message)

    def cut(self, name):
        self.servers.firewall.cut(servers_mod.CLIENT_HOSTS[CLIENTS.index(name)])

    def heal(self, name):
        self.servers.firewall.heal(servers_mod.CLIENT_HOSTS[CLIENTS.index(name)])

    def pause(self, name):
        self.clients[name].signal(signal.SIGSTOP)
        self.mark("paused", name)

    def wake_at(self, name, sim_ms):
        loop = asyncio.get_running_loop()
        loop.call_at(loop.time() + max(0.0, self.at(sim_ms) - time.monotonic()), self.wake, name)

    def wake(self, name):
        if self.pause_on_request.pop(name, None) is not None:
            # Its request never came: there is nothing to wake from.
            for proxy in self.proxies[name]:
                proxy.on_request = None
            self.mark("pause-missed", name)
            return
        self.clients[name].signal(signal.SIGCONT)
        self.mark("woke", name)

    def arm_pause_on_request(self, name, pause_action):
        """Stops the client the instant its first request reaches a proxy:
        the requests of the acquisition have started to leave, and no
        answer can be read before the stop, since the request itself is
        forwarded only once the SIGSTOP has been sent. A timer cannot do
        this: on loopback the whole acquisition takes a fraction of a
        millisecond."""
        self.placed_pauses.append(pause_action)
        self.pause_on_request[name] = pause_action

        def fire():
            if self.pause_on_request.pop(name, None) is None:
                return
            for proxy in self.proxies[name]:
                proxy.on_request = None
            self.pause(name)

        for proxy in self.proxies[name]:
            proxy.on_request = fire

    async def node_act(self, node, args):
        command = args["do"]
        loop = asyncio.get_running_loop()
        if self.backend == "redis":
            if command == "crash":
                await loop.run_in_executor(None, self.servers.single_redis.crash, node)
            return
        if command == "slow":
            self.slowness[node - 1].delay_s = args["extra_ms"] * self.scale / 1000
        elif command == "clock-jump":
            self.servers.redis.jump_clock(node, round(args["jump_ms"] * self.scale))
        elif command == "crash":
            await loop.run_in_executor(None, self.servers.redis.crash, node)
        elif command == "restart":
            await loop.run_in_executor(None, self.servers.redis.restart, node)

    def start_time(self):
        """When the script's t=0 is. For ZooKeeper, on a tick boundary of the
        machine's monotonic clock: the server puts session expiries in
        buckets at multiples of tickTime of that clock (System.nanoTime), as
        the simulator does from its own t=0, so the two expire alike."""
        now = time.monotonic()
        if self.backend != "zookeeper":
            return now
        tick_s = self.servers.zookeeper.tick_ms / 1000
        return (int(now / tick_s) + 1) * tick_s

    def replication_holds(self):
        """When the single-Redis master's copies stop reaching its replica:
        the replication lag before each crash of the master."""
        if self.backend != "redis":
            return []
        return [max(0, a["at_ms"] - REDIS_REPLICATION_LAG_MS) for a in self.scenario["actions"]
                if a.get("node") == 1 and a["command"]["do"] == "crash"]

    async def hold_replication_at(self, sim_ms):
        await self.sleep_until(sim_ms)
        self.servers.single_redis.hold_replication()

    async def play(self):
        await self.setup()
        holds = self.replication_holds()
        if 0 in holds:
            self.servers.single_redis.hold_replication()
        self.t0 = self.start_time()
        await asyncio.sleep(max(0.0, self.t0 - time.monotonic()))
        for at in holds:
            if at > 0:
                asyncio.get_running_loop().create_task(self.hold_replication_at(at))
        try:
            actions = self.scenario["actions"]
            for i, action in enumerate(actions):
                await self.sleep_until(action["at_ms"])
                await self.act(action, pause_inside(actions, i))
            await self.sleep_until(self.run_ms)
        finally:
            for client in self.clients.values():
                await client.kill()
            for proxies in self.proxies.values():
                for proxy in proxies:
                    proxy.close()
            self.counter.close()
            if self.servers.firewall:
                self.servers.firewall.heal_all()
        return self.rows()

    def sim_ms(self, t):
        return round((t - self.t0) * 1000 / self.scale)

    def rows(self):
        """The real run in the simulator's rows and milliseconds."""
        rows = []
        writes = [{"t": w["t"], "client": w["client"], "token": w["token"], "verdict": w["verdict"],
                   "value": w["value"]}
                  for w in self.counter.writes]
        for e in self.events:
            if e["what"] == "write-done":
                # PostgreSQL's client reports its own writes: the data
                # lives in the lock's server, not in the runner's counter.
                writes.append(e)
                continue
            row = {"t_ms": self.sim_ms(e["t"]), "what": e["what"], "client": e["client"]}
            for key in ("token", "reason", "state", "said", "message", "failure"):
                if key in e:
                    row[key] = e[key]
            rows.append(row)
        grants = [r for r in rows if r["what"] == "granted"]
        for w in writes:
            t_ms = self.sim_ms(w["t"])
            rows.append({"t_ms": t_ms, "what": "write", "client": w["client"], "token": w["token"],
                         "verdict": w["verdict"], "stale": stale(w, t_ms, grants),
                         "value": w.get("value")})
        rows.sort(key=lambda r: r["t_ms"])
        return rows


def stale(write, t_ms, grants):
    """Whether a write came from a client the service had already replaced:
    another client was granted a larger token before the write landed, or
    was granted at all since the writer's own last grant (this second rule
    is what catches tokens that repeat, as Redlock's INCR counter does after
    node 1 restarts empty, and writes with no token)."""
    own = [g["t_ms"] for g in grants if g["client"] == write["client"] and g["t_ms"] <= t_ms]
    since = own[-1] if own else -1
    token = write["token"]
    for g in grants:
        if g["client"] == write["client"] or g["t_ms"] > t_ms:
            continue
        if g["t_ms"] > since:
            return True
        if token is not None and g["token"] is not None and g["token"] > token:
            return True
    return False


def overlaps(rows):
    """Stretches in which two or more clients believed they held the lock."""
    holding = {}
    out = []
    changes = []
    for r in rows:
        name = r["client"]
        if r["what"] == "granted":
            holding[name] = True
        elif r["what"] in ("lost", "released", "crashed", "failed"):
            holding[name] = False
        else:
            continue
        believers = sorted(c for c, h in holding.items() if h)
        changes.append((r["t_ms"], believers))
    current = None
    for t_ms, believers in changes:
        if len(believers) >= 2:
            if current and current["clients"] != believers:
                current["to_ms"] = t_ms
                current = None
            if current is None:
                current = {"from_ms": t_ms, "to_ms": None, "clients": believers}
                out.append(current)
        elif current:
            current["to_ms"] = t_ms
            current = None
    return out
