#!/usr/bin/env bash
# Runs every test: formatting and lints, the core and component tests, the
# wasm build, the release build, the real-browser suite, the stories on the
# real servers and the budgets.
# Installs what is missing first (including Chromium).
set -euo pipefail
cd "$(dirname "$0")/../.."

section() { printf '\n==== %s ====\n' "$*"; }

section "setup"
bash scripts/build/setup.sh --with-browser
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# CI explores more random command sequences than the quick local loop.
if [ "${CI:-}" = "true" ]; then
  export PROPTEST_CASES=1000
fi

section "cargo fmt --check"
cargo fmt --check
cargo fmt --check --manifest-path split/Cargo.toml

section "cargo clippy"
cargo clippy --all-targets -- -D warnings
cargo clippy --release --manifest-path split/Cargo.toml -- -D warnings

section "cargo test${PROPTEST_CASES:+ (PROPTEST_CASES=$PROPTEST_CASES)}"
cargo test
cargo test --release --manifest-path split/Cargo.toml

section "wasm32: the core gives the same history fingerprints in Node"
cargo test --target wasm32-unknown-unknown --test determinism

section "trunk build --release"
trunk build --release --offline

section "real browser (headless Chromium)"
node --test --test-concurrency=1 tests/e2e/*.test.mjs

section "fidelity: the stories on real Redis, etcd, ZooKeeper and PostgreSQL"
bash scripts/fidelity/fidelity.sh

section "budgets"
bash scripts/budgets/budgets.sh

section "all tests passed"
