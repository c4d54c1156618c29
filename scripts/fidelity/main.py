"""Runs every story that the real servers here can play, on the real
servers and through the simulator's core, and prints one table, story x
system: agree / differ (with the differing rows). A story that differs plays
once more, and the results say so (run_one). Exits 1 on any difference.

usage: main.py --sim PATH_TO_EXAMPLE --tmp DIR --out DIR
               [--only etcd,zookeeper,...] [--stories gc-pause,...] [--scale 1.0]
               [--wall-clock-lib wall_clock.so] [--netns]
"""

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import compare
import net
import runner
import servers

# The systems as FIDELITY_ONLY names them, and the simulator's backend for each.
SYSTEMS = ["redlock", "etcd", "zookeeper", "redis", "postgres"]
BACKENDS = {"postgres": "postgresql"}
# The scenario to run first, fencing off and on, then every other story once
# (twice where fencing changes what the story shows).
STORIES = [("gc-pause", "off"), ("gc-pause", "on"), ("delayed-write", "off"),
           ("release-other", "off"), ("redlock-restart", "off"), ("redlock-clock-jump", "off"),
           ("redlock-no-fence", "on"), ("zk-partition", "off"), ("etcd-keepalive", "off"),
           ("crashed-holder", "off"), ("process-exit", "off"), ("slow-acquire", "off"), ("renew-after-expiry", "off"),
           ("redis-failover", "off"), ("redis-failover", "on"), ("postgres-no-lease", "off"),
           ("postgres-partition", "off"), ("postgres-partition", "on"),
           # Cases that are no story of the page's (examples/fidelity.rs `CASES`).
           ("etcd-first-keepalive", "off")]
COLUMNS = {"redlock": "Redlock", "etcd": "etcd", "zookeeper": "ZooKeeper", "redis": "Redis",
           "postgres": "PostgreSQL"}
# The stories' tickTime (ZooKeeper's default, and the page's), scaled with the story.
ZK_TICK_MS = 2000
PORTS = {"redis": [17101, 17102, 17103, 17104, 17105], "etcd": 17110, "etcd_peer": 17111,
         "zookeeper": 17120, "postgres": 17130, "single_redis": [17140, 17141, 17142]}


def backend_of(system):
    return BACKENDS.get(system, system)


class Servers:
    def __init__(self, tmp, systems, scale, netns, wall_clock_lib):
        self.redis = (servers.RedisNodes(tmp, PORTS["redis"], wall_clock_lib)
                      if "redlock" in systems else None)
        self.single_redis = (servers.SingleRedis(tmp, PORTS["single_redis"], scale)
                             if "redis" in systems else None)
        # Dropping packets in the kernel (a PostgreSQL client cut off, a
        # client's host dead) needs the harness's own network namespace
        # (scripts/fidelity/fidelity.sh makes one when it can).
        self.firewall = None
        self.netns = netns
        self.etcd = servers.Etcd(tmp, PORTS["etcd"], PORTS["etcd_peer"]) if "etcd" in systems else None
        self.zookeeper = (servers.ZooKeeper(tmp, PORTS["zookeeper"], round(ZK_TICK_MS * scale))
                          if "zookeeper" in systems else None)
        self.postgres = servers.Postgres(tmp, PORTS["postgres"]) if "postgres" in systems else None
        self.versions = {}

    def all(self):
        return [s for s in (self.redis, self.etcd, self.zookeeper, self.single_redis, self.postgres) if s]

    def start(self):
        busy = [p for s in self.all() for p in self.ports_of(s) if not servers.port_free(p)]
        if busy:
            raise RuntimeError("ports already in use: %s" % busy)
        for s in self.all():
            s.start()
        if self.netns:
            self.firewall = net.Firewall(self.postgres.port if self.postgres else None)
        names = {"redis": "redlock", "etcd": "etcd", "zookeeper": "zookeeper",
                 "single_redis": "redis", "postgres": "postgres"}
        for attr, name in names.items():
            s = getattr(self, attr)
            if s:
                self.versions[name] = s.version()

    @staticmethod
    def ports_of(s):
        if isinstance(s, (servers.RedisNodes, servers.SingleRedis)):
            return s.ports
        if isinstance(s, servers.Etcd):
            return [s.port, s.peer_port]
        return [s.port]

    def stop(self):
        if self.firewall:
            try:
                self.firewall.close()
            except Exception as e:
                print("removing the firewall's rules: %r" % e, file=sys.stderr)
        for s in self.all():
            try:
                s.stop()
            except Exception as e:  # Stop the others whatever one does.
                print("stopping %s: %r" % (type(s).__name__, e), file=sys.stderr)

    def reset(self, backend, scenario, scale):
        if backend == "redlock":
            self.redis.reset({a["node"] for a in scenario["actions"]
                              if a["command"]["do"] == "clock-jump"})
        elif backend == "etcd":
            self.etcd.reset()
        elif backend == "redis":
            self.single_redis.reset()
        elif backend == "postgresql":
            pg = scenario["config"]["pg"]
            # Whole seconds, as the server takes them.
            idle_s = max(1, round(pg["keepalives_idle_s"] * scale))
            interval_s = max(1, round(pg["keepalives_interval_s"] * scale))
            self.postgres.reset((idle_s, interval_s, pg["keepalives_count"]))


def simulate(sim_bin, *args):
    done = subprocess.run([sim_bin, *args], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError("simulator: " + done.stderr.strip())
    return json.loads(done.stdout)


def play_ms(sim, backend):
    """How long a story plays here: a whole lease (the story's TTL) after
    the last thing the script does or the simulator shows that is
    compared, or the story's own length if that is shorter. A story's
    length on the page is its longest system's (gc-pause plays 22 s for
    Consul's sake, while on these systems its last row is at 8-10 s): a
    lease past the last row, anything that row sets off has happened."""
    acts = sim["scenario"]["actions"]
    ends = [a["at_ms"] + a["command"].get("pause_ms", 0) + a["command"].get("extra_ms", 0)
            for a in acts]
    ends += [t for _, _, t in compare.keyed(sim["rows"], backend)]
    ends += [t for o in sim["overlaps"] for t in (o["from_ms"], o["to_ms"]) if t is not None]
    return min(sim["run_ms"], max(ends) + sim["scenario"]["config"]["ttl_ms"])


def simulate_story(sim_bin, story, backend, fencing, tmp):
    """The simulator's run of a story, cut at its play_ms."""
    sim = simulate(sim_bin, "--preset", story, "--backend", backend, "--fencing", fencing)
    until_ms = play_ms(sim, backend)
    if until_ms >= sim["run_ms"]:
        return sim
    path = os.path.join(tmp, "scenario.json")
    with open(path, "w") as f:
        json.dump(sim["scenario"], f)
    return simulate(sim_bin, "--scenario", path, "--until-ms", str(until_ms))


def run_one(sim_bin, srv, story, backend, fencing, scale, out_dir, tmp):
    """One story on one system: 'agree', 'differ' (with rows) or 'not run'."""
    sim = simulate_story(sim_bin, story, backend, fencing, tmp)
    scenario = sim["scenario"]
    try:
        runner.check_playable(scenario, can_jump_clocks=bool(srv.redis and srv.redis.wall_clock_lib))
        if backend == "postgresql" and not srv.firewall and any(
                a["command"]["do"] == "partition" for a in scenario["actions"]):
            raise runner.Unsupported("cutting a client off PostgreSQL needs the harness's own network "
                                     "namespace (run as root)")
        if not srv.firewall and any(a["command"]["do"] == "crash" and "client" in a
                                    for a in scenario["actions"]):
            raise runner.Unsupported("a dead host's packets are dropped with nftables, in the harness's "
                                     "own network namespace (run as root)")
    except runner.Unsupported as e:
        return {"result": "not run", "why": str(e)}
    name = "%s-%s-fencing-%s" % (story, backend, fencing)
    first = None
    for attempt in (1, 2):
        srv.reset(backend, scenario, scale)
        log_dir = os.path.join(out_dir, name + ("" if attempt == 1 else "-try-2"))
        os.makedirs(log_dir, exist_ok=True)
        story_run = runner.Story(scenario, sim["run_ms"], srv, scale, sim["zk_client"],
                                 uuid.uuid4().hex[:12], log_dir)
        real_rows = asyncio.run(story_run.play())
        real_overlaps = runner.overlaps(real_rows)
        diffs = compare.compare(sim, real_rows, real_overlaps, backend)
        with open(log_dir + ".json", "w") as f:
            json.dump({"simulator": sim, "real": {"rows": real_rows, "overlaps": real_overlaps},
                       "differences": diffs}, f, indent=1)
        # A real server's run is one draw of its scheduling: a story whose
        # timing a busy machine upset once plays again, and the results say
        # that it did and what the first run showed. A difference the model
        # owns comes back the second time.
        if not diffs or first is not None:
            break
        first = diffs
    return {"result": "differ" if diffs else "agree", "rows": diffs, "first_try": first,
            "handover": handover(scenario, sim["rows"], real_rows)}


FAULTS = {"crash": "host dies", "exit": "process exits"}


def handover(scenario, sim_rows, real_rows):
    """For a story in which a holder's process exits or its host dies: the
    fault, when, and when the next client was granted the lock after it,
    in the simulator and on the real server (None: not within the run)."""
    faults = [a for a in scenario["actions"] if a.get("client") and a["command"]["do"] in FAULTS]
    if not faults:
        return None
    fault = faults[0]

    def next_grant(rows):
        return next((r["t_ms"] for r in rows if r["what"] == "granted"
                     and r["client"] != fault["client"] and r["t_ms"] >= fault["at_ms"]), None)

    return {"client": fault["client"], "fault": FAULTS[fault["command"]["do"]], "at_ms": fault["at_ms"],
            "sim_ms": next_grant(sim_rows), "real_ms": next_grant(real_rows)}


def handover_table(results, systems):
    """When the lock changed hands after each fault, side by side."""
    lines = ["| story | system | fault | next holder granted, simulator | real server |",
             "|---|---|---|---|---|"]
    for (story, fencing), cells in results.items():
        for system in systems:
            h = (cells.get(system) or {}).get("handover")
            if not h:
                continue

            def after(t_ms):
                if t_ms is None:
                    return "not within the run"
                return "%s (%.1f s after)" % (compare.seconds(t_ms), (t_ms - h["at_ms"]) / 1000)

            lines.append("| %s | %s | %s's %s at %s | %s | %s |" % (
                story, COLUMNS[system], h["client"], h["fault"], compare.seconds(h["at_ms"]),
                after(h["sim_ms"]), after(h["real_ms"])))
    return "\n".join(lines) if len(lines) > 2 else ""


def table(results, systems):
    # Each system's heading says the tolerance its times were compared within.
    lines = ["| story | " + " | ".join("%s (times within %d ms)" % (COLUMNS[s], compare.tolerance_ms(backend_of(s)))
                                       for s in systems) + " |",
             "|---" * (len(systems) + 1) + "|"]
    for (story, fencing), cells in results.items():
        label = story + (" (fencing on)" if fencing == "on" else "")
        row = []
        for system in systems:
            cell = cells.get(system)
            if cell is None:
                row.append("")
            elif cell["result"] == "not run":
                row.append("not run")
            else:
                row.append(cell["result"] + (" (%d)" % len(cell["rows"]) if cell["rows"] else "")
                           + (" (2nd try)" if cell.get("first_try") else ""))
        lines.append("| %s | %s |" % (label, " | ".join(row)))
    return "\n".join(lines)


def interrupted(signum, frame):
    """SIGTERM (from the shell's trap) unwinds like Ctrl-C, so servers stop."""
    raise KeyboardInterrupt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--stories", default="")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--wall-clock-lib", default="",
                    help="wall_clock.c built as a shared library (a Redis node's clock jumps)")
    ap.add_argument("--netns", action="store_true",
                    help="this process runs in a network namespace of its own")
    args = ap.parse_args()
    wanted = [s for s in args.only.split(",") if s] or SYSTEMS
    unknown = [s for s in wanted if s not in SYSTEMS]
    if unknown:
        print("FIDELITY_ONLY: no system %s (the systems: %s)" % (", ".join(unknown), ", ".join(SYSTEMS)),
              file=sys.stderr)
        return 2
    systems = [s for s in SYSTEMS if s in wanted]
    os.makedirs(args.out, exist_ok=True)
    signal.signal(signal.SIGTERM, interrupted)
    started = time.monotonic()
    srv = Servers(args.tmp, wanted, args.scale, args.netns, args.wall_clock_lib or None)
    results = {}
    try:
        srv.start()
        suits = {p["id"]: p["backends"] for p in simulate(args.sim, "--list")}
        only_stories = [s for s in args.stories.split(",") if s]
        for story, fencing in STORIES:
            if only_stories and story not in only_stories:
                continue
            if story not in suits:
                print("%-20s not among the simulator's stories" % story, flush=True)
                continue
            cells = results.setdefault((story, fencing), {})
            for system in systems:
                backend = backend_of(system)
                if backend not in suits[story]:
                    continue
                t = time.monotonic()
                cells[system] = run_one(args.sim, srv, story, backend, fencing, args.scale, args.out,
                                        args.tmp)
                print("%-20s %-10s fencing %-3s %-7s %4.1f s" % (story, system, fencing,
                      cells[system]["result"], time.monotonic() - t), flush=True)
    finally:
        srv.stop()
    results = {k: v for k, v in results.items() if v}
    print()
    if systems:
        print(table(results, systems))
        handovers = handover_table(results, systems)
        if handovers:
            print()
            print(handovers)
    print()
    differ = False
    for (story, fencing), cells in results.items():
        for backend, cell in cells.items():
            if cell.get("first_try"):
                print("%s, %s, fencing %s: %s on a second try; the first differed:" % (
                    story, backend, fencing, "differs again" if cell["rows"] else "agreed"))
                for row in cell["first_try"]:
                    print("  - " + row)
            if cell["result"] == "differ":
                differ = True
                print("%s, %s, fencing %s differs:" % (story, backend, fencing))
                for row in cell["rows"]:
                    print("  - " + row)
            elif cell["result"] == "not run":
                print("%s, %s: not run: %s" % (story, backend, cell["why"]))
    print()
    print("Servers: " + ", ".join(srv.versions[k] for k in sorted(srv.versions)))
    if systems:
        print("Time scale %.2f; timings compared within %s." % (args.scale, ", ".join(
            "%s %d ms" % (COLUMNS[s], compare.tolerance_ms(backend_of(s))) for s in systems)))
    print("Took %.0f s." % (time.monotonic() - started))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"versions": srv.versions, "table": table(results, systems),
                   "handovers": handover_table(results, systems)}, f, indent=1)
    if args.only or args.stories:
        print("A subset was run: %s is left as it was." % RESULTS_DOC)
    else:
        write_results_doc(results, systems, srv.versions, args.scale, time.monotonic() - started)
        print("The latest results are in %s (the page links to them)." % RESULTS_DOC)
    return 1 if differ else 0


# The page links to this file (built into its docs/ by scripts/build/docs.mjs):
# every full run writes its results here, to be committed with the code
# they were checked against.
RESULTS_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "fidelity.md")


# What the results were compared within, beside them.
TOLERANCE_WORDS = ("What must agree: the order of grants and their tokens, every write's verdict and staleness, "
                   "each client's signals, and who held at once. Each row's time is compared within its system's "
                   "tolerance, in each heading: %d ms for scheduling and the simulator's latency, plus 500 ms on etcd "
                   "(its lessor checks leases every 500 ms, at a phase the script cannot set) and 300 ms on Redlock "
                   "(a retry after a random 100-300 ms, drawn apart on each side); a ZooKeeper SUSPENDED row a third "
                   "of the session timeout more, an etcd lease lost to its client's deadline 1 s more (the "
                   "deadline loop's tick, from a start the script cannot set), and a Redis Sentinel promotion 1 s "
                   "more. Two clients believing "
                   "they hold for no longer than the tolerance, on one side alone, agree with none: its ends are a "
                   "loss and a grant already compared within it, and their order is what the tolerance cannot tell "
                   "(scripts/fidelity/compare.py).")


def write_results_doc(results, systems, versions, scale, took_s):
    lines = ["# The real-server check: latest results", "",
             "Written by `bash scripts/fidelity/fidelity.sh` on its last full run (%s UTC), which plays" % time.strftime(
                 "%Y-%m-%d %H:%M", time.gmtime()),
             "every story against the real servers and through the simulator's core and compares",
             "them ([real-servers.md](real-servers.md)).", "",
             "Servers: %s. Time scale %.2f; %.0f s." % (", ".join(versions[k] for k in sorted(versions)), scale, took_s),
             "", TOLERANCE_WORDS % compare.BASE_TOLERANCE_MS, "", table(results, systems), ""]
    handovers = handover_table(results, systems)
    if handovers:
        lines += ["When the next client got the lock after a holder's process exited or its host died:", "",
                  handovers, ""]
    for (story, fencing), cells in results.items():
        for backend, cell in cells.items():
            if cell.get("first_try"):
                lines.append("- %s, %s, fencing %s was played twice; the first run differed: %s" % (
                    story, backend, fencing, "; ".join(cell["first_try"])))
            if cell["result"] == "differ":
                lines.append("- %s, %s, fencing %s differs: %s" % (story, backend, fencing, "; ".join(cell["rows"])))
            elif cell["result"] == "not run":
                lines.append("- %s, %s: not run: %s" % (story, backend, cell["why"]))
    with open(RESULTS_DOC, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("fidelity: interrupted; every server was stopped", file=sys.stderr)
        sys.exit(130)
