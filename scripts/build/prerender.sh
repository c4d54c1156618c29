#!/usr/bin/env bash
# Trunk's last post-build hook: in release builds, draws the page's first
# screen into the built index.html (examples/prerender.rs), so the clients,
# the lock service and the resource are on screen before the wasm arrives.
# Debug builds (`trunk serve`) skip it: the wasm draws the page as before.
# It also minifies the boot module (below). The drawing is skipped where the
# example is absent (the budgets' minimal page copies Trunk.toml). It runs
# natively, in cargo's dev profile: `cargo test` has built most of it.
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
page="$TRUNK_STAGING_DIR/index.html"

# Trunk copies the page's boot module as it is (its minifier leaves module
# scripts alone), comments and all: terser shrinks it, and the page's
# integrity attribute for it is written again to match.
terser="node_modules/.bin/terser"
for boot in "$TRUNK_STAGING_DIR"/boot-*.js; do
  [ -f "$boot" ] && [ -x "$terser" ] || continue
  sri() { node -e 'const c=require("crypto");process.stdout.write("sha384-"+c.createHash("sha384").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$1"; }
  before="$(sri "$boot")"
  "$terser" "$boot" --module --compress --mangle --output "$boot.min"
  mv "$boot.min" "$boot"
  sed -i "s|$before|$(sri "$boot")|" "$page"
done

[ -f examples/prerender.rs ] || exit 0
# Trunk's own build is a wasm one; this one is for the machine it runs on.
# Offline first, as the release build is; fetch only if something is missing.
cargo run --quiet --offline --example prerender -- "$page" ||
  cargo run --quiet --example prerender -- "$page"
