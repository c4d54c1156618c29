#!/usr/bin/env bash
# Trunk's post-build step (scripts/build/post-build.sh): in release builds,
# draws the page's first screen into the built index.html
# (examples/prerender.rs), so the clients, the lock service and the resource
# are on screen before the wasm arrives. Debug builds (`trunk serve`) skip
# it: the wasm draws the page as before. Skipped where the example is absent
# (the budgets' minimal page copies Trunk.toml). It runs natively, in
# cargo's dev profile: `cargo test` has built most of it.
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
[ -f examples/prerender.rs ] || exit 0
page="$TRUNK_STAGING_DIR/index.html"
# Trunk's own build is a wasm one; this one is for the machine it runs on.
# Offline first, as the release build is; fetch only if something is missing.
cargo run --quiet --offline --example prerender -- "$page" ||
  cargo run --quiet --example prerender -- "$page"
