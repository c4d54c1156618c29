#!/usr/bin/env bash
# Runs every test: formatting and lints, the core and component tests, the
# wasm build, the release build, the real-browser suite, the stories on the
# real servers and the size budget.
# Installs what is missing first (including Chromium and the servers).
#
# The stories on the real servers mostly wait on real time (about ten
# minutes of it, and little CPU): they play in the background, beside the
# builds and the browser suite, at a higher CPU priority (nice -10; without
# root the rest steps back to nice 10 instead), so that a server or client
# that wakes up gets a core at once, as when the stories run alone. Their
# output follows when they end.
#
# Each section prints its wall time and its CPU time (user + system of the
# commands it ran, which depends less on what else the machine is doing),
# and a table of all of them closes the run, passed or failed.
# The budgets' timings (first render, frames), which print figures and
# fail nothing, are not run here: `bash scripts/budgets/budgets.sh`.
set -euo pipefail
cd "$(dirname "$0")/../.."

# --- section timing -----------------------------------------------------------
TICKS="$(getconf CLK_TCK)"
SUMMARY=()
CURRENT=""
RUN_START="$(date +%s.%N)"
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
# User + system time, in clock ticks, of shell $1 and the children it has
# waited for.
cpu_ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }
# m:ss of a number of seconds.
mmss() { awk -v s="$1" 'BEGIN { s = int(s + 0.5); printf "%d:%02d", s / 60, s % 60 }'; }
section_done() { # name wall_seconds cpu_seconds
  printf -- '---- %s: %s wall, %s CPU\n' "$1" "$(mmss "$2")" "$(mmss "$3")"
  SUMMARY+=("$(printf '%s\t%s\t%s' "$1" "$2" "$3")")
}
# Runs the function $2 as the section named $1.
section() {
  local name="$1" me=$BASHPID t0 c0 t1 c1
  shift
  printf '\n==== %s ====\n' "$name"
  CURRENT="$name"
  t0="$(date +%s.%N)"
  c0="$(cpu_ticks "$me")"
  "$@"
  t1="$(date +%s.%N)"
  c1="$(cpu_ticks "$me")"
  CURRENT=""
  section_done "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    "$(awk -v a="$c0" -v b="$c1" -v t="$TICKS" 'BEGIN { print (b - a) / t }')"
}
summary() {
  local status=$? wall cpu
  bg_stop
  wall="$(awk -v a="$RUN_START" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
  cpu="$(awk -v c="$(cpu_ticks $$)" -v t="$TICKS" 'BEGIN { print c / t }')"
  printf '\n==== times (m:ss) ====\n'
  printf '%-72s %8s %8s\n' section wall CPU
  local row name w c
  for row in "${SUMMARY[@]}"; do
    IFS=$'\t' read -r name w c <<<"$row"
    printf '%-72s %8s %8s\n' "$name" "$(mmss "$w")" "$(mmss "$c")"
  done
  [ -z "$CURRENT" ] || printf '%-72s %8s\n' "$CURRENT (failed or stopped)" ""
  printf '%-72s %8s %8s\n' "total" "$(mmss "$wall")" "$(mmss "$cpu")"
  printf 'load average: %s at the start, %s at the end (%s cores)\n' \
    "$LOAD_START" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
  exit "$status"
}
trap summary EXIT

# The section running in the background: its name, pid and log.
BG_NAME=""
BG_PID=""
BG_LOG=""
# Starts the function $2 in the background as the section named $1, its
# output kept in a log until bg_wait prints it.
bg_start() {
  BG_NAME="$1"
  shift
  mkdir -p target/check
  BG_LOG="target/check/background.log"
  printf '\n==== %s: started in the background (its output follows when it ends) ====\n' "$BG_NAME"
  (
    set +e
    me=$BASHPID
    # Ahead of everything else on the machine where it can be (as root).
    [ "$(id -u)" -ne 0 ] || renice -n -10 -p "$me" >/dev/null || true
    t0="$(date +%s.%N)"
    "$@" >"$BG_LOG" 2>&1
    status=$?
    printf '%s %s %s\n' "$t0" "$(date +%s.%N)" "$(cpu_ticks "$me")" >"$BG_LOG.times"
    exit "$status"
  ) &
  BG_PID=$!
}
# Waits for the background section, prints its output and its times, and
# fails the run if it failed.
bg_wait() {
  local status=0 t0 t1 ticks
  printf '\n==== %s ====\n' "$BG_NAME"
  CURRENT="$BG_NAME"
  wait "$BG_PID" || status=$?
  BG_PID=""
  cat "$BG_LOG"
  read -r t0 t1 ticks <"$BG_LOG.times"
  [ "$status" -eq 0 ] || exit "$status"
  CURRENT=""
  section_done "$BG_NAME (background)" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    "$(awk -v c="$ticks" -v t="$TICKS" 'BEGIN { print c / t }')"
}
# A run that fails or is stopped stops the background section too (its
# script then stops its servers) and shows what it had printed.
bg_stop() {
  [ -n "$BG_PID" ] || return 0
  printf '\n==== %s: stopped ====\n' "$BG_NAME"
  local child
  for child in $(ps -o pid= --ppid "$BG_PID"); do kill -TERM "$child" 2>/dev/null || true; done
  wait "$BG_PID" 2>/dev/null || true
  cat "$BG_LOG" 2>/dev/null || true
}

# --- the sections ---------------------------------------------------------------
run_setup() {
  bash scripts/build/setup.sh --with-browser --with-servers
}
section "setup" run_setup
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# CI explores more random command sequences than the quick local loop.
if [ "${CI:-}" = "true" ]; then
  export PROPTEST_CASES=1000
fi

check_fmt() {
  cargo fmt --check
  cargo fmt --check --manifest-path split/Cargo.toml
}
section "cargo fmt --check" check_fmt

# The simulator the stories compare against, in the dev profile that
# `cargo test` builds anyway; then the stories play beside what follows.
section "fidelity: the real servers' packages and the simulator" \
  bash scripts/fidelity/fidelity.sh --prepare
bg_start "fidelity: the stories on real Redis, etcd, ZooKeeper and PostgreSQL" \
  bash scripts/fidelity/fidelity.sh --prepared
# Without root the stories cannot be put ahead: what follows steps back.
[ "$(id -u)" -eq 0 ] || renice -n 10 -p $$ >/dev/null

check_clippy() {
  cargo clippy --all-targets -- -D warnings
  cargo clippy --release --manifest-path split/Cargo.toml -- -D warnings
}
section "cargo clippy" check_clippy

# The library's tests, and the split tool's (how it lists a function's name).
run_tests() {
  cargo test
  cargo test --release --manifest-path split/Cargo.toml
}
section "cargo test${PROPTEST_CASES:+ (PROPTEST_CASES=$PROPTEST_CASES)}" run_tests

section "wasm32: the core gives the same history fingerprints in Node" \
  cargo test --target wasm32-unknown-unknown --test determinism

section "trunk build --release" trunk build --release --offline

# Two test files at a time: the suite mostly waits on the page (polls, runs
# that play in real time), about half a core's CPU one file at a time.
section "real browser (headless Chromium)" node --test --test-concurrency=2 tests/e2e/*.test.mjs

# Budget 1, the one that can fail; the others only print figures.
section "budgets: transfer size" bash scripts/budgets/budgets.sh --size

bg_wait

printf '\n==== all tests passed ====\n'
