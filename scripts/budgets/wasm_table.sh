#!/usr/bin/env bash
# Prints what the page's wasm holds, by crate, by module and by item, and
# the words it carries by source file (docs/budgets.md, "What the page's
# wasm holds", says how to read them).
#
# The shipped wasm has no names, so this builds the same one with them:
# the page's binary relinked with `-C strip=none` (only the final link is
# redone, the dependencies are reused), then
# wasm-bindgen, then wasm-opt with the page's own flags (index.html) and
# `-g`, which keeps the names through the optimization. Sizes are counted
# without the names section; the figure printed for the shipped file is the
# same wasm with its names dropped, which matches trunk's within a few
# bytes. The next `trunk build` relinks the binary stripped again.
#
# Usage: bash scripts/budgets/wasm_table.sh [OUT_DIR]   (default ${TMPDIR:-/tmp}/distlock-wasm-table)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
out="${1:-${TMPDIR:-/tmp}/distlock-wasm-table}"
mkdir -p "$out"
command -v twiggy >/dev/null || cargo install --locked twiggy

cargo rustc --quiet --release --offline --target wasm32-unknown-unknown --bin distlock -- -C strip=none
cp target/wasm32-unknown-unknown/release/distlock.wasm "$out/named.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$out" "$out/named.wasm"

# The flags of index.html's `data-wasm-opt-params` for the page's wasm.
mapfile -t flags < <(grep -o 'data-bin="distlock" data-wasm-opt="z" data-wasm-opt-params="[^"]*"' index.html |
  sed -E 's/.*data-wasm-opt-params="([^"]*)"/\1/' | tr ' ' '\n')
features=()
for flag in "${flags[@]}"; do [[ "$flag" == --enable-* ]] && features+=("$flag"); done
wasm-opt -Oz -g "${flags[@]}" "$out/named_bg.wasm" -o "$out/page-named.wasm"
wasm-opt --strip-debug "${features[@]}" "$out/page-named.wasm" -o "$out/page.wasm"

twiggy top -n 1000000 --format csv "$out/page-named.wasm" >"$out/top.csv"
node scripts/budgets/wasm_table.mjs "$out/top.csv" --top 30 --wasm "$out/page.wasm" --named "$out/page-named.wasm" --src src
