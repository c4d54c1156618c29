"""Compares the simulator's rows with the real run's, row by row.

What must be equal: the order of grants and their tokens; every write's
client, token, verdict, whether it was stale and the counter after it (a
read-modify-write: a stale write's loss shows in the value) (etcd's tokens by their
order: see `token_words`); each client's own signals
(lost leases with their reason, ZooKeeper connection states, a Redlock
attempt refused for want of validity); which
clients believed they held the lock at once (an overlap no longer than the
tolerance, on one side alone, agrees with none: see `compare_overlaps`).
What is compared within a tolerance: the time of each of those rows (see
`tolerance_ms`).
"""

# Scheduling, process wake-up and the simulator's scaled network latency.
BASE_TOLERANCE_MS = 300


def tolerance_ms(backend):
    """Plus what neither side can choose: etcd's lessor checks for expired
    leases every 500 ms from the server's start, a phase the script cannot
    set; a Redlock client retries after a random 100-300 ms, drawn apart on
    each side, so a grant after a retry lands anywhere in that window.
    (ZooKeeper's session buckets the script can match: it starts on a tick
    boundary.)"""
    return BASE_TOLERANCE_MS + {"etcd": 500, "redlock": 300}.get(backend, 0)


def normal_reason(backend, reason):
    """The loss reasons a real client can tell apart. The etcd client only
    knows its session ended (deadline passed or 'lease not found')."""
    if backend == "etcd":
        return "lease-gone"
    return reason


def token_words(rows, backend):
    """How a token is named in the compared rows. etcd's token is its lock
    key's create_revision, a counter every write to the store bumps,
    deletions included: whether the lessor revokes the old holder's lease
    (a delete, one revision) just before or just after the next client's
    put is a race the lessor's 500 ms check decides, so the next holder's
    revision is one higher on one side and not the other. A fence compares
    tokens only by their order, so etcd's are compared as their rank among
    the grants' ("B granted the 2nd token"); the other systems' tokens count
    only the lock's own grants and are compared as they are."""
    if backend != "etcd":
        return lambda t: "token %s" % t
    rank = {t: i + 1 for i, t in enumerate(sorted({r["token"] for r in rows if r["what"] == "granted"}))}

    def words(t):
        if t not in rank:
            return "token %s" % t
        n = rank[t]
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return "the %d%s token" % (n, suffix)
    return words


def keyed(rows, backend):
    """The rows compared, each as (group, key, t_ms)."""
    out = []
    zk_state = {}
    token = token_words(rows, backend)
    for r in rows:
        what, c = r["what"], r.get("client")
        if what == "granted":
            out.append(("grants", "%s granted %s" % (c, token(r["token"])), r["t_ms"]))
        elif what == "write":
            stale = " stale" if r["stale"] else ""
            counter = ", counter %s" % r["value"] if r["verdict"] == "accepted" else ""
            out.append(("writes", "%s's write, %s: %s%s%s" % (c, token(r["token"]), r["verdict"], stale,
                                                              counter),
                        r["t_ms"]))
        elif what == "failed":
            out.append(("signals " + c, "%s did not get the lock" % c, r["t_ms"]))
        elif what == "retry" and r.get("failure") == "no-validity":
            # A Redlock attempt that won a quorum but used up the TTL. (How
            # many no-quorum retries a waiter makes depends on its random
            # delays, drawn apart on each side: those are not compared.)
            out.append(("signals " + c, "%s won a quorum with no validity left: not acquired" % c,
                        r["t_ms"]))
        elif what == "lost":
            out.append(("signals " + c, "%s lost the lock (%s)" % (c, normal_reason(backend, r["reason"])),
                        r["t_ms"]))
        elif what == "crashed":
            # A restarted client is a new process, which the runner starts
            # connected (as before the story): its first CONNECTED is not
            # compared either.
            zk_state.pop(c, None)
        elif what == "zk":
            before, zk_state[c] = zk_state.get(c), r["state"]
            if before is None and r["state"] == "CONNECTED":
                # The real clients connect before the story starts (or
                # before their restart).
                continue
            if before == "LOST" and r["state"] == "CONNECTED":
                # After LOST kazoo (like Curator) opens a new session at
                # once; the page's client stops there. Not what a story is about.
                continue
            out.append(("signals " + c, "%s is %s" % (c, r["state"]), r["t_ms"]))
    return out


def seconds(t_ms):
    return "%.2f s" % (t_ms / 1000) if t_ms is not None else "the end"


def suspended_tolerance_ms(ttl_ms):
    """When a ZooKeeper client notices silence depends on where in its
    heartbeat cycle the partition lands: the Java client gives up two thirds
    of the session timeout after the last answer, and answers come every
    third of it; kazoo pings every third minus up to 0.4 s of jitter and
    gives up when a ping has had no answer by the next. So SUSPENDED lands
    anywhere in a window a third of the session timeout wide."""
    return ttl_ms // 3


# etcd's client library looks at its lease deadlines once a second
# (client/v3/lease.go `deadlineLoop`), from when its first KeepAlive starts
# the loop: a few milliseconds after the grant on either side, but not the
# same few. A deadline that falls near a tick is noticed at that tick on
# one side and a second later on the other, so a lease lost to its
# deadline may be a whole loop late.
ETCD_DEADLINE_LOOP_MS = 1000


def row_slack_ms(backend, words, ttl_ms):
    """What a row's time may differ by besides the system's tolerance, for
    a cadence the script cannot set."""
    if words.endswith(" is SUSPENDED"):
        return suspended_tolerance_ms(ttl_ms)
    if backend == "etcd" and words.endswith(" lost the lock (lease-gone)"):
        return ETCD_DEADLINE_LOOP_MS
    return 0


# Sentinel's own cadence: it pings the master every second and, once the
# master is down, waits for the promoted replica's INFO, sent every second.
# Its promotion lands 0.1-1 s after down-after-milliseconds here; the
# simulator's takes 0.5 s.
SENTINEL_SLACK_MS = 1000
# Linux runs a timer wheel: a timer seconds away fires up to an eighth of
# its delay late (at HZ 250, 256 ms for each of the keepalive's 5-10 s
# timers), and the server's keepalives are three or four such timers.
KEEPALIVE_SLACK = 1 / 8


def late_after(sim, backend):
    """From when in the simulator's run, and by how much more, the real
    rows may be late, for a cadence the script cannot set: (from_ms, ms)."""
    config = sim["scenario"]["config"]
    if backend == "redis":
        crashes = [a["at_ms"] for a in sim["scenario"]["actions"]
                   if a.get("node") == 1 and a["command"]["do"] == "crash"]
        return (min(crashes), SENTINEL_SLACK_MS) if crashes else (None, 0)
    if backend == "postgresql":
        ends = [r["t_ms"] for r in sim["rows"]
                if r["what"] == "service" and r["said"].startswith("TCP keepalives gave up")]
        pg = config["pg"]
        dead_after_ms = (pg["keepalives_idle_s"] + pg["keepalives_count"] * pg["keepalives_interval_s"]) * 1000
        return (min(ends), round(dead_after_ms * KEEPALIVE_SLACK)) if ends else (None, 0)
    return (None, 0)


def compare_lists(group, sim, real, tol, end_ms, ttl_ms, backend, late=(None, 0)):
    diffs = []
    for i in range(max(len(sim), len(real))):
        s = sim[i] if i < len(sim) else None
        r = real[i] if i < len(real) else None
        if (s is None or r is None) and (s or r)[2] > end_ms - tol:
            continue  # Within the tolerance of the end: the other may be just past it.
        if s and r and s[1] == r[1]:
            row_tol = tol + row_slack_ms(backend, s[1], ttl_ms)
            if late[0] is not None and s[2] >= late[0]:
                row_tol += late[1]
            if abs(s[2] - r[2]) > row_tol:
                diffs.append("%s: %s at %s in the simulator, %s on the real server (more than %d ms apart)"
                             % (group, s[1], seconds(s[2]), seconds(r[2]), row_tol))
            continue
        diffs.append("%s, row %d: simulator: %s | real: %s" % (
            group, i + 1, "%s at %s" % (s[1], seconds(s[2])) if s else "(none)",
            "%s at %s" % (r[1], seconds(r[2])) if r else "(none)"))
    return diffs


def compare_overlaps(sim, real, tol, brief, end_ms, late=(None, 0)):
    def key(o):
        return " and ".join(o["clients"])

    def words(o):
        if o is None:
            return "(none)"
        return "%s believe they hold from %s until %s" % (
            key(o), seconds(o["from_ms"]), seconds(o["to_ms"]))

    def until(o):
        # Stopping within the tolerance of the end agrees with running to it.
        return None if o["to_ms"] is None or o["to_ms"] > end_ms - tol else o["to_ms"]

    def brief_alone(o, others):
        """An overlap no longer than `brief` (the tolerance, and on etcd
        its deadline loop besides), with none of the same clients near it on
        the other side: its ends are one client's loss and another's grant,
        rows already compared within that, and whether they overlap is
        their order, which it cannot tell (etcd: the client's deadline
        loop, every second, against the lessor's check, every 500 ms from
        the server's start: a partitioned holder notices its deadline up to
        a second late, the next holder is granted up to half a second after
        the expiry)."""
        if o["to_ms"] is None or o["to_ms"] - o["from_ms"] > brief:
            return False
        return not any(key(x) == key(o) and abs(x["from_ms"] - o["from_ms"]) <= tol for x in others)

    sim, real = ([o for o in sim if not brief_alone(o, real)],
                 [o for o in real if not brief_alone(o, sim)])
    diffs = []
    for i in range(max(len(sim), len(real))):
        s = sim[i] if i < len(sim) else None
        r = real[i] if i < len(real) else None
        if not (s and r and key(s) == key(r)):
            diffs.append("two holders, row %d: simulator: %s | real: %s" % (i + 1, words(s), words(r)))
            continue
        from_tol = tol + (late[1] if late[0] is not None and s["from_ms"] >= late[0] else 0)
        if abs(s["from_ms"] - r["from_ms"]) > from_tol:
            diffs.append("two holders (%s): from %s in the simulator, %s on the real server"
                         % (key(s), seconds(s["from_ms"]), seconds(r["from_ms"])))
        a, b = until(s), until(r)
        until_tol = tol + (late[1] if late[0] is not None and a is not None and a >= late[0] else 0)
        if (a is None) != (b is None) or (a is not None and abs(a - b) > until_tol):
            diffs.append("two holders (%s): until %s in the simulator, %s on the real server"
                         % (key(s), seconds(s["to_ms"]), seconds(r["to_ms"])))
    return diffs


def compare(sim, real_rows, real_overlaps, backend):
    """The differing rows, as sentences; empty when the two agree."""
    tol = tolerance_ms(backend)
    end_ms = sim["run_ms"]
    sim_keyed = keyed(sim["rows"], backend)
    real_keyed = keyed(real_rows, backend)
    groups = sorted({k[0] for k in sim_keyed + real_keyed},
                    key=lambda g: (not g.startswith("grants"), not g.startswith("writes"), g))
    late = late_after(sim, backend)
    diffs = []
    for group in groups:
        diffs += compare_lists(group, [k for k in sim_keyed if k[0] == group],
                               [k for k in real_keyed if k[0] == group], tol, end_ms,
                               sim["scenario"]["config"]["ttl_ms"], backend, late)
    # An overlap's end may be a loss to etcd's deadline, a loop late.
    brief = tol + (ETCD_DEADLINE_LOOP_MS if backend == "etcd" else 0)
    diffs += compare_overlaps(sim["overlaps"], real_overlaps, tol, brief, end_ms, late)
    return diffs
