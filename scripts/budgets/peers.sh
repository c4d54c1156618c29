#!/usr/bin/env bash
# Prints the core's speed beside a SimPy model of the same lock workload
# (examples/simpy_lock.py and examples/chaos.rs: four clients cycling
# acquire, one to six writes with 1-9 s pauses, release; etcd, TTL 5 s):
# virtual seconds simulated per second, each run ROUNDS times in turn
# (interleaved, so a busy machine slows both alike), by wall time and by
# processor time (which barely moves with the machine's load), their
# medians and the ratios. Needs SimPy (`pip install simpy`).
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
cpu_file="$(mktemp)"
trap 'rm -f "$cpu_file"' EXIT

# One run: its line, then virtual seconds per wall second and per
# processor second.
run() {
  local line virtual wall cpu
  line="$(/usr/bin/time -f '%U %S' -o "$cpu_file" "$@")"
  virtual="$(sed -n 's/^[^:]*: \([0-9,]*\) virtual s in.*/\1/p' <<<"$line" | tr -d ,)"
  wall="$(sed -n 's/.* in \([0-9.]*\) s wall.*/\1/p' <<<"$line")"
  cpu="$(awk '{ print $1 + $2 }' "$cpu_file")"
  echo "$line"
  awk -v v="$virtual" -v w="$wall" -v c="$cpu" 'BEGIN { printf "%d %d\n", v / w, v / (c > 0 ? c : 0.01) }'
}

core_wall=() core_cpu=() simpy_wall=() simpy_cpu=()
for ((i = 1; i <= rounds; i++)); do
  { read -r c_line; read -r c_wall c_cpu; } < <(run "$core" "$seconds")
  { read -r s_line; read -r s_wall s_cpu; } < <(run python3 examples/simpy_lock.py "$seconds" 7)
  echo "round $i: $c_line"
  echo "round $i: $s_line"
  core_wall+=("$c_wall") core_cpu+=("$c_cpu") simpy_wall+=("$s_wall") simpy_cpu+=("$s_cpu")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
awk -v n="$rounds" \
  -v cw="$(median "${core_wall[@]}")" -v sw="$(median "${simpy_wall[@]}")" \
  -v cc="$(median "${core_cpu[@]}")" -v sc="$(median "${simpy_cpu[@]}")" 'BEGIN {
  printf "virtual s per second, medians of %d interleaved rounds:\n", n
  printf "  by wall time:      core %d, SimPy %d: %.1fx\n", cw, sw, cw / sw
  printf "  by processor time: core %d, SimPy %d: %.1fx\n", cc, sc, cc / sc
}'
