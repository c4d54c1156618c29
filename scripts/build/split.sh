#!/usr/bin/env bash
# Trunk's last post-build hook: in release builds, splits the page's wasm in
# two (scripts/build/split.mjs): what a cold load runs, and the rest, which
# the page fetches once it has started. Finding what a cold load runs takes
# a headless Chromium; where there is none, the wasm stays whole and the
# page works as before (its first load is then larger). Debug builds
# (`trunk serve`) skip it.
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
[ -f split/Cargo.toml ] || exit 0 # the budgets' minimal page copies Trunk.toml
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ] || [ ! -d node_modules/playwright-core ]; then
  echo "split: no headless Chromium ($chromium) or playwright-core to find what a cold load runs;" \
    "the page's wasm stays whole (bash scripts/build/setup.sh --with-browser installs both)" >&2
  exit 0
fi
# A native tool, built once; offline first, as the page is.
cargo build --quiet --release --manifest-path split/Cargo.toml --offline ||
  cargo build --quiet --release --manifest-path split/Cargo.toml
node scripts/build/split.mjs "$TRUNK_STAGING_DIR"
