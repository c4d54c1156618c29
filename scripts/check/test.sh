#!/usr/bin/env bash
# Runs every test: formatting and lints, the core and component tests, the
# wasm build, the release build, the real-browser suite, the stories on the
# real servers and the budgets.
# Installs what is missing first (including Chromium).
# Each section prints its wall time and its CPU time (user + system of the
# commands it ran, which depends less on what else the machine is doing),
# and a table of all of them closes the run, passed or failed.
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
  wall="$(awk -v a="$RUN_START" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
  cpu="$(awk -v c="$(cpu_ticks $$)" -v t="$TICKS" 'BEGIN { print c / t }')"
  printf '\n==== times (m:ss) ====\n'
  printf '%-58s %8s %8s\n' section wall CPU
  local row name w c
  for row in "${SUMMARY[@]}"; do
    IFS=$'\t' read -r name w c <<<"$row"
    printf '%-58s %8s %8s\n' "$name" "$(mmss "$w")" "$(mmss "$c")"
  done
  [ -z "$CURRENT" ] || printf '%-58s %8s\n' "$CURRENT (failed or stopped)" ""
  printf '%-58s %8s %8s\n' "total" "$(mmss "$wall")" "$(mmss "$cpu")"
  printf 'load average: %s at the start, %s at the end (%s cores)\n' \
    "$LOAD_START" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
  exit "$status"
}
trap summary EXIT

# --- the sections ---------------------------------------------------------------
run_setup() {
  bash scripts/build/setup.sh --with-browser
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

check_clippy() {
  cargo clippy --all-targets -- -D warnings
  cargo clippy --release --manifest-path split/Cargo.toml -- -D warnings
}
section "cargo clippy" check_clippy

section "cargo test${PROPTEST_CASES:+ (PROPTEST_CASES=$PROPTEST_CASES)}" cargo test

section "wasm32: the core gives the same history fingerprints in Node" \
  cargo test --target wasm32-unknown-unknown --test determinism

section "trunk build --release" trunk build --release --offline

section "real browser (headless Chromium)" node --test --test-concurrency=1 tests/e2e/*.test.mjs

section "fidelity: the stories on real Redis, etcd, ZooKeeper and PostgreSQL" \
  bash scripts/fidelity/fidelity.sh

section "budgets" bash scripts/budgets/budgets.sh

printf '\n==== all tests passed ====\n'
