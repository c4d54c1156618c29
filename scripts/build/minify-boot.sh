#!/usr/bin/env bash
# Trunk's post-build step (scripts/build/post-build.sh): in release builds,
# minifies the page's boot module (assets/boot.js). Trunk copies it as it is
# (its minifier leaves module scripts alone), comments and all: terser
# shrinks it, and the page's integrity attribute for it is written again to
# match. It is part of the first load (docs/budgets.md).
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
terser="$(dirname "$0")/../../node_modules/.bin/terser"
if [ ! -x "$terser" ]; then
  echo "minify-boot: terser is not installed (bash scripts/build/setup.sh installs it); the boot module stays as it is" >&2
  exit 0
fi
page="$TRUNK_STAGING_DIR/index.html"
sri() { node -e 'const c=require("crypto");process.stdout.write("sha384-"+c.createHash("sha384").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$1"; }
for boot in "$TRUNK_STAGING_DIR"/boot-*.js; do
  [ -f "$boot" ] || continue
  before="$(sri "$boot")"
  "$terser" "$boot" --module --compress --mangle --output "$boot.min"
  mv "$boot.min" "$boot"
  sed -i "s|$before|$(sri "$boot")|" "$page"
done
