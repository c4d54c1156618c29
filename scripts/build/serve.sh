#!/usr/bin/env bash
# Installs what is missing, builds the page in release mode and serves it
# on http://127.0.0.1:8080 as a static host should: brotli- or gzip-
# compressed, as the browser accepts (scripts/lib/serve.mjs, on Node's own
# zlib). Compressed, the first load is about a third of its raw bytes, and
# a phone on a slow network paints the page seconds sooner (docs/budgets.md).
# The build splits the page's wasm in two by a committed list
# (scripts/build/split.mjs); the Chromium this installs, as the tests do,
# is what writes that list again.
# ADDRESS and PORT override the address and port; other arguments go to
# `trunk build`. To rebuild on every change while working on the page,
# `trunk serve --release` serves it uncompressed.
set -euo pipefail
cd "$(dirname "$0")/../.."

address="${ADDRESS:-127.0.0.1}"
port="${PORT:-8080}"

bash scripts/build/setup.sh --with-browser
# wasm-opt comes from node_modules; trunk looks for it on PATH.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

echo "serve: building the release page"
trunk build --release --offline "$@"
echo "serve: serving http://$address:$port compressed (Ctrl-C stops)"
exec node scripts/lib/serve.mjs dist "$port" --compress --address "$address"
