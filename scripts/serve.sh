#!/usr/bin/env bash
# Installs what is missing, then builds the page in release mode and serves
# it on http://127.0.0.1:8080, rebuilding when a source file changes.
# ADDRESS and PORT override the address and port; other arguments go to
# `trunk serve`.
set -euo pipefail
cd "$(dirname "$0")/.."

address="${ADDRESS:-127.0.0.1}"
port="${PORT:-8080}"

bash scripts/setup.sh
# wasm-opt comes from node_modules; trunk looks for it on PATH.
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

echo "serve: building, then serving http://$address:$port (Ctrl-C stops)"
exec trunk serve --release --offline --address "$address" --port "$port" "$@"
