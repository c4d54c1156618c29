#!/usr/bin/env bash
# Prints the page's budgets (see scripts/budgets/budgets.mjs): transfer size, time to
# first render beside a minimal Yew page, main-thread time per frame.
# Fails only if the first load is over 257 KiB gzip (SIZE_LIMIT_BYTES in
# budgets.mjs) or the rest of the page's wasm over 142 KiB (REST_LIMIT_BYTES).
#
# Expects the release build in dist/ (`trunk build --release --offline`).
# `bash scripts/budgets/budgets.sh --size` prints the transfer size alone (budget
# 1, the one that can fail) in a few seconds, without a browser.
# The minimal Yew page is generated and built in target/budgets/minimal (a
# crate of its own, with its own target/), and rebuilt only when its inputs
# change.
#
# scripts/check/test.sh (and so CI) runs only --size: the timings fail
# nothing, and their builds (the minimal page's release wasm, big_run's
# release profile natively) and runs take several minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
export PATH="$repo/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if [ ! -f dist/index.html ]; then
  echo "budgets: dist/index.html is missing; run \`trunk build --release --offline\` first" >&2
  exit 1
fi

if [ "${1:-}" = --size ]; then
  exec node scripts/budgets/budgets.mjs --dist dist --size-only
fi

minimal="$repo/target/budgets/minimal"

# The same shell as the real page (index.html, Trunk.toml, boot module, the
# release profile, the wasm-bindgen version) around one component that
# renders four labelled sections, and no stylesheet.
write_minimal_project() {
  local dir="$1" bindgen
  bindgen="$(awk '
    /^\[\[package\]\]/ { name = "" }
    /^name = / { name = $3; gsub(/"/, "", name) }
    /^version = / && name == "wasm-bindgen" { v = $3; gsub(/"/, "", v); print v; exit }
  ' Cargo.lock)"
  mkdir -p "$dir/src" "$dir/styles" "$dir/assets"
  cat >"$dir/Cargo.toml" <<EOF
[package]
name = "distlock"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
yew = { version = "0.23", features = ["csr"] }
wasm-bindgen = "=$bindgen"

$(awk '/^\[profile\.release\]/ { on = 1; print; next } /^\[/ { on = 0 } on' Cargo.toml)
EOF
  cat >"$dir/src/main.rs" <<'EOF'
use yew::prelude::*;

#[function_component]
fn App() -> Html {
    html! {
        <main>
            { for ["A", "B", "C", "D"].into_iter().map(|id| html! {
                <section aria-label={format!("Client {id}")}>
                    <h2>{ format!("Client {id}") }</h2>
                </section>
            }) }
        </main>
    }
}

fn main() {
    yew::Renderer::<App>::new().render();
}
EOF
  # The page's shell without its background worker, the worker's
  # stylesheet and the stories' words, which the minimal page has no
  # binary or file for (and the first render never waits on).
  grep -v 'data-type="worker"\|distlock-worker.css\|stories.json' index.html >"$dir/index.html"
  cp Trunk.toml "$dir/"
  mkdir -p "$dir/scripts/build"
  cp scripts/build/post-build.sh scripts/build/minify-glue.sh scripts/build/minify-boot.sh \
    scripts/build/prerender.sh scripts/build/split.sh "$dir/scripts/build/"
  cp assets/boot.js "$dir/assets/"
  : >"$dir/styles/main.css"
}

inputs="$(mktemp -d)"
trap 'rm -rf "$inputs"' EXIT
write_minimal_project "$inputs"
key="$( (cd "$inputs" && find . -type f | sort | xargs sha256sum; trunk --version; rustc --version) | sha256sum | cut -c1-16)"

if [ -f "$minimal/dist/index.html" ] && [ "$(cat "$minimal/.inputs" 2>/dev/null)" = "$key" ]; then
  echo "budgets: minimal Yew page: cached in $minimal"
else
  echo "budgets: minimal Yew page: building in $minimal"
  write_minimal_project "$minimal"
  if ! (
    cd "$minimal"
    [ -f Cargo.lock ] || cargo generate-lockfile --offline || cargo generate-lockfile
    cargo fetch --offline || cargo fetch
    trunk build --release --offline
  ) >"$minimal/build.log" 2>&1; then
    cat "$minimal/build.log" >&2
    echo "budgets: building the minimal Yew page failed (log above)" >&2
    exit 1
  fi
  echo "$key" >"$minimal/.inputs"
fi

# A run of more than 10,000 events for the timeline's figure.
big_run="$inputs/big-run.link"
cargo run --quiet --release --example big_run >"$big_run"

node scripts/budgets/budgets.mjs --dist dist --minimal "$minimal/dist" --big-run "$big_run"
