#!/usr/bin/env bash
# Installs what building and testing the page needs, skipping anything
# already installed at the right version:
#   - the wasm32-unknown-unknown Rust target
#   - trunk 0.21.14
#   - wasm-bindgen-cli at the version Cargo.lock pins
#   - the npm dev tools (binaryen for wasm-opt, playwright-core, axe-core)
#   - with --with-browser: Debian's chromium and chromium-driver
#   - with --with-servers: the Debian packages of the real-server check
#     (scripts/fidelity/packages.sh)
#   - the crates in Cargo.lock, so later builds can run --offline
#
# Usage: bash scripts/build/setup.sh [--with-browser] [--with-servers] [--help]
#
# On a fresh machine the time goes to compiling trunk and wasm-bindgen-cli
# (crates.io has no prebuilt binaries of them): they are built with a
# lighter release profile than their own (no LTO, opt-level 1), and one
# apt-get run for every Debian package downloads and unpacks meanwhile.
# Each step prints how long it took.

set -euo pipefail

TRUNK_VERSION="0.21.14"
WASM_TARGET="wasm32-unknown-unknown"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

with_browser=false
with_servers=false
for arg in "$@"; do
  case "$arg" in
    --with-browser) with_browser=true ;;
    --with-servers) with_servers=true ;;
    -h | --help)
      sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
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
setup_start=$SECONDS
step_start=$SECONDS
# Ends a step: what it did and how many seconds it took.
took() {
  say "$* ($((SECONDS - step_start)) s)"
  step_start=$SECONDS
}
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

# --- Debian packages, in the background ---------------------------------------
# One apt-get update and one apt-get install for Chromium and the servers
# together, started first so that the downloads and dpkg run while trunk
# and wasm-bindgen-cli compile. Chromium comes without Debian's recommended
# extras (printing, avahi, a notification daemon: nothing a headless run
# uses) but with the fonts they would bring, so that the page lays out as
# it does on a desktop Debian.
apt_packages=()
if $with_browser; then
  if [ -x "$CHROMIUM" ]; then
    say "chromium: present"
  else
    apt_packages+=(chromium chromium-driver fonts-liberation)
  fi
fi
if $with_servers; then
  # FIDELITY_APT_PACKAGES.
  source scripts/fidelity/packages.sh
  for p in "${FIDELITY_APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || apt_packages+=("$p")
  done
  [ "${#apt_packages[@]}" -gt 0 ] || say "the real servers' packages: present"
fi
apt_pid=""
apt_log=""
# dpkg stopped half-way leaves the package database broken: if a step
# below fails, the background install still runs to its end.
trap '[ -z "$apt_pid" ] || wait "$apt_pid" 2>/dev/null || true' EXIT
if [ "${#apt_packages[@]}" -gt 0 ]; then
  need apt-get "Install ${apt_packages[*]} by hand (or set CHROMIUM_PATH)."
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    need sudo "Run as root or install sudo."
    sudo_cmd=(sudo)
  fi
  apt_install() {
    "${sudo_cmd[@]}" apt-get update -qq
    # The servers' packages would start their own services (Redis on
    # 6379, a PostgreSQL cluster...): Debian's policy-rc.d hook refuses that.
    local policy=/usr/sbin/policy-rc.d own_policy="" status=0
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
      "${sudo_cmd[@]}" chmod 755 "$policy"
      own_policy=1
    fi
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${apt_packages[@]}" || status=$?
    if [ -n "$own_policy" ]; then "${sudo_cmd[@]}" rm -f "$policy"; fi
    return "$status"
  }
  if [ "${#sudo_cmd[@]}" -eq 0 ] || sudo -n true 2>/dev/null; then
    say "Debian packages: installing ${apt_packages[*]} in the background"
    apt_log="$(mktemp "${TMPDIR:-/tmp}/distlock-setup-apt.XXXXXX")"
    apt_install >"$apt_log" 2>&1 &
    apt_pid=$!
  else
    # sudo will ask for a password: in the foreground.
    say "Debian packages: installing ${apt_packages[*]}"
    apt_install
    took "Debian packages: installed"
  fi
fi
apt_started=$SECONDS

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
step_start=$SECONDS
if npm_up_to_date; then
  say "npm dev tools: present"
elif [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
  took "npm dev tools: installed (npm ci)"
else
  npm install --no-audit --no-fund
  took "npm dev tools: installed (npm install)"
fi
say "wasm-opt: $(node_modules/.bin/wasm-opt --version)"

# --- Cargo.lock and crates ----------------------------------------------------
if [ ! -f Cargo.lock ]; then
  say "Cargo.lock: generating"
  cargo generate-lockfile
fi
# Fetching for every target now lets trunk and cargo build --offline later.
step_start=$SECONDS
if cargo fetch --offline >/dev/null 2>&1; then
  say "crates: present"
else
  cargo fetch
  took "crates: fetched"
fi

# --- trunk and wasm-bindgen-cli, compiled from crates.io ---------------------------
# Their own release profiles are built for the smallest, fastest binary
# (trunk's: whole-program LTO in one codegen unit, about 8 minutes on two
# cores). What they do here (run cargo, wasm-bindgen and wasm-opt, copy,
# hash and minify a few files; read and write one wasm) takes them no
# noticeable time with far less optimization, and they build in half the
# time or less (docs/testing.md, "Time").
light_profile=(env
  CARGO_PROFILE_RELEASE_LTO=false
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1
  CARGO_PROFILE_RELEASE_DEBUG=false
  CARGO_PROFILE_RELEASE_INCREMENTAL=false)

step_start=$SECONDS
if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION: present"
else
  say "trunk $TRUNK_VERSION: installing with cargo (a few minutes on a fresh machine)"
  "${light_profile[@]}" cargo install --locked trunk --version "$TRUNK_VERSION"
  took "trunk $TRUNK_VERSION: installed"
fi

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
step_start=$SECONDS
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$bindgen_version" ]; then
  say "wasm-bindgen-cli $bindgen_version: present"
else
  say "wasm-bindgen-cli $bindgen_version: installing with cargo (a few minutes on a fresh machine)"
  # Not --locked: the Cargo.lock it was released with names a webpki-roots
  # version that the registry does not serve.
  "${light_profile[@]}" cargo install wasm-bindgen-cli --version "=$bindgen_version"
  took "wasm-bindgen-cli $bindgen_version: installed"
fi

# --- the Debian packages' background run -------------------------------------------
if [ -n "$apt_pid" ]; then
  apt_status=0
  wait "$apt_pid" || apt_status=$?
  apt_pid=""
  if [ "$apt_status" -eq 0 ]; then
    say "Debian packages: installed ($((SECONDS - apt_started)) s, beside the steps above)"
    rm -f "$apt_log"
  else
    cat "$apt_log" >&2
    echo "setup: installing ${apt_packages[*]} failed (apt-get's output above)" >&2
    rm -f "$apt_log"
    exit 1
  fi
fi

say "done ($((SECONDS - setup_start)) s)"
