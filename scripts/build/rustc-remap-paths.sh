#!/bin/sh
# Cargo runs every rustc through this script (.cargo/config.toml). For the
# wasm targets it keeps this machine's folders out of what is built: rustc
# writes a file's path into the wasm wherever a panic can name its place,
# and cargo gives it absolute paths for every crate outside this clone
# (CARGO_HOME's registry), so two machines would ship different bytes.
#   - A crate outside this clone loses its folder's parent:
#     `$CARGO_HOME/registry/src/index.crates.io-…/yew-0.23.0/src/lib.rs`
#     becomes `yew-0.23.0/src/lib.rs` (as cargo's unstable trim-paths does).
#   - This clone's folder goes too (its own crate's paths are relative
#     already; a build script's output under target/ is not).
# Other targets (tests, build scripts, tools) are left as they are, so a
# debugger and a backtrace find their sources.
set -eu
wasm=false
previous=
for arg in "$@"; do
  case "$arg" in --target=wasm32-*) wasm=true ;; esac
  case "$previous $arg" in "--target wasm32-"*) wasm=true ;; esac
  previous="$arg"
done
[ "$wasm" = true ] || exec "$@"

clone="$(cd "$(dirname "$0")/../.." && pwd -P)"
set -- "$@" "--remap-path-prefix=$clone/="
# The later remapping wins where two match.
case "${CARGO_MANIFEST_DIR:-$clone}" in
  "$clone" | "$clone"/*) ;;
  *) set -- "$@" "--remap-path-prefix=$(dirname "$CARGO_MANIFEST_DIR")/=" ;;
esac
exec "$@"
