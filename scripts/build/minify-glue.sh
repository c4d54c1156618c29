#!/usr/bin/env bash
# Trunk's post-build step (scripts/build/post-build.sh): mends the worker's
# loader (below) and, in release builds, minifies the page's and the
# worker's wasm-bindgen glue with terser (trunk's own JS minifier cannot
# read the page's `export default` and copies it as it is). The glue is part
# of the page's first load, which counts its bytes (docs/budgets.md).
set -euo pipefail

# Trunk's loader for the background worker starts it with a bare path,
# which wasm-bindgen 0.2.130 still reads but warns about in the console on
# every start ("using deprecated parameters"); it wants the path in an object.
loader="$TRUNK_STAGING_DIR/distlock-worker_loader.js"
if [ -f "$loader" ]; then
  sed -E -i 's/wasm_bindgen\(\s*("[^"]+")\s*\)/wasm_bindgen({module_or_path:\1})/' "$loader"
fi

[ "${TRUNK_PROFILE:-}" = release ] || exit 0
terser="$(dirname "$0")/../../node_modules/.bin/terser"
if [ ! -x "$terser" ]; then
  echo "minify-glue: terser is not installed (bash scripts/build/setup.sh installs it); the glue stays as it is" >&2
  exit 0
fi
for glue in "$TRUNK_STAGING_DIR"/distlock-*.js; do
  case "$(basename "$glue")" in
    distlock-worker_loader.js) ;; # trunk's two statements
    distlock-worker.js)
      # The worker's glue, a classic script, trunk minifies itself, but its
      # minifier orders the declarations differently from one run to the
      # next, so two builds of one commit would differ: terser minifies
      # wasm-bindgen's own output (in cargo's target folder) in its place.
      target="$(cargo metadata --format-version 1 --no-deps --offline |
        node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')"
      "$terser" "$target/wasm-bindgen/release/distlock-worker.js" --compress --mangle --output "$glue"
      ;;
    *)
      "$terser" "$glue" --module --compress --mangle --output "$glue.min"
      mv "$glue.min" "$glue"
      ;;
  esac
done
