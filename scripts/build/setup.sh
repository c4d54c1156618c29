#!/usr/bin/env bash
# Installs what building and testing the page needs, skipping anything
# already installed at the right version:
#   - the wasm32-unknown-unknown Rust target
#   - trunk 0.21.14
#   - wasm-bindgen-cli at the version Cargo.lock pins
#   - the npm dev tools (binaryen for wasm-opt, playwright-core, axe-core)
#   - with --with-browser: Debian's chromium and chromium-driver
#   - the crates in Cargo.lock, so later builds can run --offline
#
# Usage: bash scripts/build/setup.sh [--with-browser] [--help]

set -euo pipefail

TRUNK_VERSION="0.21.14"
WASM_TARGET="wasm32-unknown-unknown"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

with_browser=false
for arg in "$@"; do
  case "$arg" in
    --with-browser) with_browser=true ;;
    -h | --help)
      sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup: unknown option '$arg' (try --help)" >&2
      exit 2
      ;;
  esac
done

cd "$(dirname "$0")/../.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
need() {
  command -v "$1" >/dev/null 2>&1 || {
    echo "setup: '$1' is required but not installed. $2" >&2
    exit 1
  }
}

need cargo "Install Rust from https://rustup.rs first."
need node "Install Node.js 20 or newer first."
need npm "Install npm (it ships with Node.js) first."

# --- Rust target ------------------------------------------------------------
if command -v rustup >/dev/null 2>&1; then
  if rustup target list --installed | grep -qx "$WASM_TARGET"; then
    say "$WASM_TARGET target: present"
  else
    say "$WASM_TARGET target: installing"
    rustup target add "$WASM_TARGET"
  fi
elif [ -d "$(rustc --print sysroot)/lib/rustlib/$WASM_TARGET" ]; then
  say "$WASM_TARGET target: present (no rustup)"
else
  echo "setup: the $WASM_TARGET target is missing and rustup is not installed to add it" >&2
  exit 1
fi

# rustfmt and clippy run in scripts/check/test.sh; minimal toolchains lack them.
if command -v rustup >/dev/null 2>&1; then
  for component in rustfmt clippy; do
    if rustup component list --installed | grep -q "^$component"; then
      say "$component: present"
    else
      say "$component: installing"
      rustup component add "$component"
    fi
  done
fi

# --- trunk --------------------------------------------------------------------
if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION: present"
else
  say "trunk $TRUNK_VERSION: installing with cargo (several minutes on a fresh machine)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi

# --- Cargo.lock and crates ----------------------------------------------------
if [ ! -f Cargo.lock ]; then
  say "Cargo.lock: generating"
  cargo generate-lockfile
fi
# Fetching for every target now lets trunk and cargo build --offline later.
if cargo fetch --offline >/dev/null 2>&1; then
  say "crates: present"
else
  say "crates: fetching"
  cargo fetch
fi

# --- wasm-bindgen-cli, matching Cargo.lock --------------------------------------
# The CLI must equal the wasm-bindgen crate version exactly, or the
# generated glue does not match the compiled wasm.
bindgen_version="$(awk '
  /^\[\[package\]\]/ { name = "" }
  /^name = / { name = $3; gsub(/"/, "", name) }
  /^version = / && name == "wasm-bindgen" { v = $3; gsub(/"/, "", v); print v; exit }
' Cargo.lock)"
if [ -z "$bindgen_version" ]; then
  echo "setup: no wasm-bindgen package in Cargo.lock" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$bindgen_version" ]; then
  say "wasm-bindgen-cli $bindgen_version: present"
else
  say "wasm-bindgen-cli $bindgen_version: installing with cargo (several minutes on a fresh machine)"
  cargo install wasm-bindgen-cli --version "=$bindgen_version"
fi

# --- npm dev tools (wasm-opt from binaryen, playwright-core, axe-core) -----------
# Up to date means every devDependency is installed at its pinned version.
npm_up_to_date() {
  [ -d node_modules ] || return 1
  node -e '
    const fs = require("fs");
    const wanted = JSON.parse(fs.readFileSync("package.json", "utf8")).devDependencies || {};
    for (const [name, version] of Object.entries(wanted)) {
      const file = `node_modules/${name}/package.json`;
      if (!fs.existsSync(file) || JSON.parse(fs.readFileSync(file, "utf8")).version !== version) process.exit(1);
    }
  '
}
if npm_up_to_date; then
  say "npm dev tools: present"
elif [ -f package-lock.json ]; then
  say "npm dev tools: installing (npm ci)"
  npm ci --no-audit --no-fund
else
  say "npm dev tools: installing (npm install)"
  npm install --no-audit --no-fund
fi
say "wasm-opt: $(node_modules/.bin/wasm-opt --version)"

# --- Chromium, for the real-browser tests and budgets -----------------------------
if $with_browser; then
  if [ -x "$CHROMIUM" ]; then
    say "chromium: present"
  else
    need apt-get "Install Chromium by hand and set CHROMIUM_PATH."
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
      need sudo "Run as root or install sudo."
      sudo_cmd=(sudo)
    fi
    say "chromium: installing with apt-get"
    "${sudo_cmd[@]}" apt-get update
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
  fi
fi

say "done"
