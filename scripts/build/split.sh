#!/usr/bin/env bash
# Trunk's last post-build step (scripts/build/post-build.sh): in release
# builds, splits the page's wasm in two (scripts/build/split.mjs): the
# functions split/first-part.txt names, those a cold load runs, and the
# rest, which the page fetches once it has started. The list is a committed
# file (`node scripts/build/split.mjs --trace` writes it again), so the
# build needs no browser. Debug builds (`trunk serve`) skip it.
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
if [ ! -f split/Cargo.toml ]; then
  # The budgets' minimal page copies Trunk.toml and index.html but not the
  # split: its wasm stays whole, without the names wasm-opt kept (-g).
  for wasm in "$TRUNK_STAGING_DIR"/*_bg.wasm; do
    node -e '
      const fs = require("fs");
      const file = process.argv[1];
      const b = fs.readFileSync(file);
      let at = 8;
      const leb = () => { let n = 0, shift = 0, x; do { x = b[at++]; n += (x & 127) * 2 ** shift; shift += 7; } while (x & 128); return n; };
      const kept = [b.subarray(0, 8)];
      while (at < b.length) {
        const start = at, id = b[at++], size = leb(), end = at + size;
        let name = "";
        if (id === 0) { const length = leb(); name = b.toString("utf8", at, at + length); }
        if (name !== "name") kept.push(b.subarray(start, end));
        at = end;
      }
      fs.writeFileSync(file, Buffer.concat(kept));
    ' "$wasm"
  done
  exit 0
fi
# A native tool, built once; offline first, as the page is.
cargo build --quiet --release --manifest-path split/Cargo.toml --offline ||
  cargo build --quiet --release --manifest-path split/Cargo.toml
node scripts/build/split.mjs "$TRUNK_STAGING_DIR"
