#!/usr/bin/env bash
# Trunk's one post-build hook (Trunk.toml). Trunk 0.21 starts every hook of
# a stage at once, and these steps read and write the same files (the glue,
# index.html), so they run here one after the other, in an order that makes
# the build the same every time. Each step skips what a debug build
# (`trunk serve`) does not need.
set -euo pipefail
here="$(dirname "$0")"

# Mends the worker's loader and minifies the page's wasm-bindgen glue.
bash "$here/minify-glue.sh"
# Minifies the page's boot module (assets/boot.js).
bash "$here/minify-boot.sh"
# The project's own docs as pages beside the page (docs/readme.html,
# docs/sources.html, docs/fidelity.html), which it links to relatively:
# fetched only when a link is followed, never in the first load. Skipped
# where the script is absent (the budgets' minimal page copies this file).
[ ! -f "$here/docs.mjs" ] || node "$here/docs.mjs"
# Draws the page's first screen into the release build's index.html
# (examples/prerender.rs), so it is on screen before the wasm arrives.
bash "$here/prerender.sh"
# Splits the release page's wasm in two: what a cold load runs (the
# committed list split/first-part.txt), and the rest, fetched once the page
# has started (scripts/build/split.mjs). Last: it reads the minified glue.
bash "$here/split.sh"
