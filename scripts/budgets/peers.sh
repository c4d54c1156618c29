#!/usr/bin/env bash
# Prints the core's speed beside a SimPy model of the same lock workload
# (examples/simpy_lock.py and examples/chaos.rs: four clients cycling
# acquire, one to six writes with 1-9 s pauses, release; etcd, TTL 5 s):
# virtual seconds simulated per wall second, each run ROUNDS times in turn
# (interleaved, so a busy machine slows both alike), their medians and the
# ratio. Needs SimPy (`pip install simpy`).
#
#   bash scripts/budgets/peers.sh [VIRTUAL_SECONDS] [ROUNDS]
#
# The core runs in the `worker` profile (opt-level 3), as the page's
# explorer and finder do; the page's own wasm is built for size.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
seconds="${1:-20000}"
rounds="${2:-5}"

if ! python3 -c 'import simpy' 2>/dev/null; then
  echo "peers: SimPy is missing; run \`pip install simpy\`" >&2
  exit 1
fi
cargo build --quiet --profile worker --example chaos
core=target/worker/examples/chaos

rate() { sed -n 's/.*= \([0-9,]*\) virtual s per s.*/\1/p' | tr -d ,; }
core_rates=() simpy_rates=()
for ((i = 1; i <= rounds; i++)); do
  c="$("$core" "$seconds")"
  s="$(python3 examples/simpy_lock.py "$seconds" 7)"
  echo "round $i: $c"
  echo "round $i: $s"
  core_rates+=("$(rate <<<"$c")")
  simpy_rates+=("$(rate <<<"$s")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
core_median="$(median "${core_rates[@]}")"
simpy_median="$(median "${simpy_rates[@]}")"
awk -v c="$core_median" -v s="$simpy_median" -v n="$rounds" 'BEGIN {
  printf "virtual s per wall s, median of %d interleaved rounds: core %d, SimPy %d: %.1fx\n", n, c, s, c / s
}'
