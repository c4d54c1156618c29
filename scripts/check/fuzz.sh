#!/usr/bin/env bash
# Fuzzes every reader of outside input and the core with libFuzzer, each
# target for a given time, from the committed seeds (fuzz/seeds/TARGET/,
# written from tests/core/bad_links.txt, every story's link and run file,
# explorer queries and worker messages by tests/core/fuzz_corpora.rs), and
# prints each target's executions and executions per second.
#
# Usage: bash scripts/check/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET: default 180 (or $FUZZ_SECONDS); the targets
#   default to all five: decode_link run_file explore_query worker_message
#   core_commands.
#   JOBS=N runs N fuzzing processes per target (default 1).
#   FUZZ_BUILD=0 runs the targets as last built, without building again.
#   FUZZ_TIMEOUT=S: a case running longer than S seconds is a failure
#   (default 10). The clock is the wall's: a fuzzer paused (SIGSTOP, to
#   measure something else on the machine meanwhile) counts the pause
#   against the case in hand, so give a pause's length or more.
#
# The targets are built without a sanitizer (`-s none`): the crate has no
# unsafe code, so AddressSanitizer could only find a memory error in a
# dependency, and it cost three to five times the time of every execution
# (docs/robustness.md). Every assertion (debug ones included), bounds
# check and overflow check stays. Each target takes inputs up to the size
# its real input needs (`max_len` below).
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
cargo test --quiet --test core fuzz_corpora::write_fuzz_seeds -- --ignored >/dev/null
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  cargo +nightly fuzz build -s none
fi
bin="fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"

# The longest input libFuzzer makes for a target: links and run files up
# to 20,000 bytes (every story's link and the seeds' run files fit); an
# explorer query to 4,096 (its 30 fields, each with room to spare); the
# core's commands to 1,024 (its settings and 48 commands take a few
# hundred bytes, and bytes past what a case reads change nothing).
max_len() {
  case "$1" in
    explore_query) echo 4096 ;;
    core_commands) echo 1024 ;;
    *) echo 20000 ;;
  esac
}

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
    -max_total_time="$seconds" -max_len="$(max_len "$target")" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-10}" \
    "${parallel[@]}" -print_final_stats=1 >"$log" 2>&1 || status=$?
  # With -jobs each worker writes a fuzz-N.log, and libFuzzer copies a
  # finished worker's log into its own output too: count the workers'
  # files alone, or each execution would count twice.
  if [ "$jobs" -gt 1 ]; then counted=(fuzz-*.log); else counted=("$log"); fi
  execs=$(cat "${counted[@]}" 2>/dev/null |
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
