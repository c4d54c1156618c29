#!/usr/bin/env bash
# Runs the stories against real Redis (five nodes for Redlock; a master, a
# replica and Sentinel for single Redis), etcd, ZooKeeper and PostgreSQL,
# and the same scripts through the simulator's core, and prints one table:
# agree / differ, with the differing rows. Exits non-zero on any
# difference. FIDELITY_ONLY=etcd (or a comma list of redlock, etcd,
# zookeeper, redis, postgres) runs a subset, FIDELITY_STORIES=gc-pause,zk-partition
# a subset of the stories; FIDELITY_SCALE=0.5 plays every story
# at half its times (1 by default: server cadences, such as etcd's 500 ms
# expiry check, do not scale).
#
# Installs what is missing first: Debian's redis-server, etcd-server,
# etcd-client, zookeeper, postgresql and nftables, and redis-py, kazoo and
# psycopg in a venv under the cache directory. Builds
# scripts/fidelity/wall_clock.c with the C compiler that Rust's linker
# needs anyway, for the story in which one Redis node's wall clock jumps.
# Every server runs on a loopback port, with its data in a temporary
# directory, and is stopped on the way out. As root, everything runs in a network namespace of its own:
# its loopback is private, and a partition of a PostgreSQL client drops
# that client's packets there (nftables) without touching the host's rules.
#
# Each client A-D is an OS process of its own holding its real connection,
# session or lease through the real client library (redis-py, etcdctl,
# kazoo, psycopg). A holder fails in one of two ways, as on the page:
# - process exit ("process-exit"; the page's "Crash (process exits)"):
#   SIGKILL of the client's process group. Its kernel closes its sockets,
#   so each server reads a FIN at once and does what it does with one:
#   PostgreSQL ends the session and frees the advisory lock; Redis keeps
#   the key to its TTL, etcd the lease to its TTL, ZooKeeper the session
#   to its timeout.
# - host death ("crashed-holder"; the page's "Power off (host dies)"):
#   SIGSTOP of the group, so it never sends anything again, plus every
#   packet of every TCP connection it had dropped both ways (nftables in
#   the namespace), so that not even its kernel's ACKs to the server's TCP
#   keepalive probes get through: no FIN, no RST, silence. PostgreSQL runs
#   the story's keepalives (tcp_keepalives_idle/_interval/_count) and ends
#   the session when they give up. Without root (no namespace) the
#   host-death stories are reported not run.
# The table after the results says, for both, when the next client got the
# lock after the fault, in the simulator and on the real server.
#
# --prepare installs what is missing and builds the simulator, and stops
# there; --prepared then skips both. scripts/check/test.sh runs the one
# before its builds and the other beside them, so that the stories, which
# mostly wait on real time, never wait for cargo's lock on target/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=""
case "${1:-}" in
  --prepare | --prepared) mode="$1" ;;
  "") ;;
  *)
    echo "fidelity: unknown option '$1' (--prepare or --prepared)" >&2
    exit 2
    ;;
esac
# No __pycache__ left in the work tree by the harness's modules.
export PYTHONDONTWRITEBYTECODE=1

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/distlock-fidelity"
VENV="$CACHE/venv"
# FIDELITY_APT_PACKAGES and FIDELITY_PY_PACKAGES.
source scripts/fidelity/packages.sh

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_missing() {
  local missing=()
  for p in "${FIDELITY_APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]}"
    as_root apt-get update -qq
    # The packages would start their own services (Redis on 6379, a
    # PostgreSQL cluster...): Debian's policy-rc.d hook refuses that.
    local policy=/usr/sbin/policy-rc.d own_policy=""
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
      as_root chmod 755 "$policy"
      own_policy=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
      { [ -n "$own_policy" ] && as_root rm -f "$policy"; return 1; }
    if [ -n "$own_policy" ]; then as_root rm -f "$policy"; fi
  fi
  if ! "$VENV/bin/python" -c "import redis, kazoo, psycopg" 2>/dev/null; then
    echo "installing ${FIDELITY_PY_PACKAGES[*]} into $VENV"
    mkdir -p "$CACHE"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "${FIDELITY_PY_PACKAGES[@]}"
  fi
}

TMP=""
PY_PID=""
cleanup() {
  # The runner stops its servers itself; this catches whatever is left if
  # it was killed outright (every server pid is listed in $TMP/pids).
  if [ -n "$PY_PID" ] && kill -0 "$PY_PID" 2>/dev/null; then
    kill -TERM "$PY_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$PY_PID" 2>/dev/null || break; sleep 0.2; done
  fi
  if [ -n "$TMP" ] && [ -f "$TMP/pids" ]; then
    while read -r pid; do
      kill -KILL -- "-$pid" 2>/dev/null || true
    done <"$TMP/pids"
  fi
  if [ -n "$TMP" ] && [ -d "$TMP/postgres/data" ] && [ -f "$TMP/postgres/data/postmaster.pid" ]; then
    kill -KILL "$(head -1 "$TMP/postgres/data/postmaster.pid")" 2>/dev/null || true
  fi
  if [ -n "$TMP" ]; then rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
if [ "$mode" != --prepared ]; then
  install_missing
  # The dev profile: the stories take the core milliseconds either way, and
  # `cargo test` builds the same crate and dependencies, whereas the
  # release profile (size-optimized, whole-program LTO) would build them
  # again, for minutes.
  cargo build --example fidelity
fi
if [ "$mode" = --prepare ]; then
  echo "fidelity: installed and built in $(( $(date +%s) - started )) s"
  exit 0
fi
TMP="$(mktemp -d "${TMPDIR:-/tmp}/distlock-fidelity.XXXXXX")"
chmod 755 "$TMP"
# A copy of the simulator, which a build beside this run cannot replace.
cp target/debug/examples/fidelity "$TMP/simulator"
OUT="target/fidelity"
rm -rf "$OUT"

# The library through which one Redlock node's wall clock jumps (see its
# header); without a C compiler, redlock-clock-jump is reported not run.
WALL_CLOCK_LIB=""
if command -v cc >/dev/null; then
  cc -O2 -Wall -shared -fPIC -o "$TMP/wall_clock.so" scripts/fidelity/wall_clock.c
  WALL_CLOCK_LIB="$TMP/wall_clock.so"
fi

# A network namespace of its own, with its loopback up, when it can have one.
NETNS=()
if [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
  NETNS=(unshare --net sh -c 'ip link set lo up && exec "$@"' sh)
  NETNS_FLAG=--netns
else
  NETNS_FLAG=
  echo "not root: running on the host's loopback; PostgreSQL's partition and every host-death story are not run"
fi

status=0
"${NETNS[@]}" "$VENV/bin/python" scripts/fidelity/main.py \
  --sim "$TMP/simulator" --tmp "$TMP" --out "$OUT" $NETNS_FLAG \
  --only "${FIDELITY_ONLY:-}" --stories "${FIDELITY_STORIES:-}" --scale "${FIDELITY_SCALE:-1}" \
  --wall-clock-lib "$WALL_CLOCK_LIB" &
PY_PID=$!
wait "$PY_PID" || status=$?
PY_PID=""
echo "fidelity: $(( $(date +%s) - started )) s in all, installs and build included; rows in $OUT/"
exit "$status"
