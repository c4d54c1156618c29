#!/usr/bin/env bash
# Fuzzes every reader of outside input and the core with libFuzzer, each
# target for a given time, from the committed seeds (fuzz/seeds/TARGET/,
# written from tests/bad_links.txt, every story's link and run file,
# explorer queries and worker messages by tests/fuzz_corpora.rs), and
# prints each target's executions and executions per second.
#
# Usage: bash scripts/check/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET: default 180 (or $FUZZ_SECONDS); the targets
#   default to all five: decode_link run_file explore_query worker_message
#   core_commands.
#   JOBS=N runs N fuzzing processes per target (default 1).
#   FUZZ_BUILD=0 runs the targets as last built, without building again.
#
# Installs the nightly toolchain and cargo-fuzz when missing. CI does not
# run it (`cargo test` replays the seeds and regressions instead). A crash
# leaves its input in fuzz/artifacts/TARGET/: copy it into
# fuzz/regressions/TARGET/, fix the bug, and `cargo test --test
# fuzz_corpora` keeps it fixed. The grown corpora stay in fuzz/corpus/
# (not committed).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

seconds="${1:-${FUZZ_SECONDS:-180}}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(decode_link run_file explore_query worker_message core_commands)
fi
jobs="${JOBS:-1}"
parallel=()
if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: installing the nightly toolchain"
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# Fresh seeds from the project's corpora, then each target's own corpus.
cargo test --quiet --test fuzz_corpora write_fuzz_seeds -- --ignored >/dev/null
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  cargo +nightly fuzz build
fi
bin="fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"

summary=()
for target in "${targets[@]}"; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  cp -n fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
  log="fuzz/artifacts/$target.log"
  mkdir -p "fuzz/artifacts/$target"
  echo "fuzz: $target for ${seconds} s from $(ls "$corpus" | wc -l) inputs"
  status=0
  # The built target itself, so the time given is all fuzzing.
  "$bin/$target" "$corpus" -artifact_prefix="fuzz/artifacts/$target/" \
    -max_total_time="$seconds" -max_len=20000 -rss_limit_mb=2048 -timeout=10 \
    "${parallel[@]}" -print_final_stats=1 >"$log" 2>&1 || status=$?
  # With -jobs the workers write fuzz-N.log files; their stats add up.
  execs=$({ cat "$log"; cat fuzz-*.log 2>/dev/null || true; } |
    awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  rate=$(( execs / (seconds > 0 ? seconds : 1) ))
  rm -f fuzz-*.log
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $status), see $log and fuzz/artifacts/$target/"
    tail -n 30 "$log"
    summary+=("$target: $execs executions, $rate/s, CRASHED")
  else
    summary+=("$target: $execs executions in ${seconds} s, $rate/s, no crash")
  fi
done

echo
echo "fuzz: summary"
printf '  %s\n' "${summary[@]}"
