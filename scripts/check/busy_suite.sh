#!/usr/bin/env bash
# Runs the browser suite N times in a row (default 10) while a release build
# of the crate runs beside it, over and over, so the machine stays busy. A
# browser test must pass whatever the machine's speed: this is how to check.
#
#   bash scripts/check/busy_suite.sh [N]
#
# It tests the release build in dist/ (copied first, so a rebuild meanwhile
# does not change it) and builds in its own target directory.
set -u
cd "$(dirname "$0")/../.."
runs="${1:-10}"
copy="$(mktemp -d)"
target="$(mktemp -d)"
cp -r dist "$copy/dist"
(
  while true; do
    CARGO_TARGET_DIR="$target" cargo build --release --quiet >/dev/null 2>&1
    cargo clean --quiet --release --target-dir "$target" >/dev/null 2>&1
  done
) &
builder=$!
trap 'kill -- -$builder 2>/dev/null; kill $builder 2>/dev/null; pkill -P $builder 2>/dev/null; rm -rf "$copy" "$target"' EXIT
passed=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  if DIST_DIR="$copy/dist" node --test --test-concurrency=1 tests/e2e/*.test.mjs >"$copy/run-$i.log" 2>&1; then
    passed=$((passed + 1))
    verdict=green
  else
    verdict=red
    grep -E "^not ok|# fail" "$copy/run-$i.log" | head -5
    cp "$copy/run-$i.log" "/tmp/busy-suite-run-$i.log"
  fi
  echo "run $i: $verdict in $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "$passed of $runs runs green, beside a release build"
[ "$passed" = "$runs" ]
