#!/usr/bin/env bash
# Fuzzes the link decoder with libFuzzer for a fixed number of executions
# (RUNS, default 200000), starting from every preset's link. Installs
# cargo-fuzz if it is missing; needs the nightly toolchain
# (`rustup toolchain install nightly`). Crashes land in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

runs="${RUNS:-200000}"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: installing the nightly toolchain"
  rustup toolchain install nightly --profile minimal
fi

# Seeds: one link per preset, backend and fencing setting.
corpus="fuzz/corpus/decode_link"
mkdir -p "$corpus"
FUZZ_SEEDS_DIR="$PWD/$corpus" cargo test --quiet --test core_link write_fuzz_seeds -- --ignored >/dev/null

echo "fuzz: decode_link, $runs executions from $(ls "$corpus" | wc -l) seeds"
start=$(date +%s)
cargo +nightly fuzz run decode_link "$corpus" -- -runs="$runs" -max_len=20000 -rss_limit_mb=2048 2>&1 | tail -n 12
echo "fuzz: $runs executions in $(( $(date +%s) - start )) s, no crash"
