#!/usr/bin/env bash
# Builds the release page twice from the commit checked out (HEAD), in two
# clones in different folders, the second with a CARGO_HOME of its own (a
# copy of this one's registry), and compares every file of the two dist/
# folders by sha256: the same commit must build the same bytes on any
# machine. Prints each file's hash, and fails if a file differs or is in
# one build only. Each build starts from nothing (a target/ of its own), so
# this takes two full release builds; uncommitted changes are not built.
#
# Usage: bash scripts/build/reproducible.sh [--keep]
#   --keep   leaves the clones and their build logs in the folder it names
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
home="${CARGO_HOME:-$HOME/.cargo}"
export PATH="$repo/node_modules/.bin:$home/bin:$PATH"

keep=false
for arg in "$@"; do
  case "$arg" in
    --keep) keep=true ;;
    -h | --help)
      sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "reproducible: unknown option '$arg' (try --help)" >&2
      exit 2
      ;;
  esac
done

commit="$(git rev-parse HEAD)"
work="$(mktemp -d "${TMPDIR:-/tmp}/distlock-reproducible.XXXXXX")"
if $keep; then
  echo "reproducible: the clones stay in $work"
else
  trap 'rm -rf "$work"' EXIT
fi

# Clones the commit into $1 and builds it there with CARGO_HOME=$2.
build() {
  local dir="$1" cargo_home="$2"
  mkdir -p "$(dirname "$dir")"
  git clone --quiet --no-checkout "$repo" "$dir"
  git -C "$dir" checkout --quiet --detach "$commit"
  # The npm tools (terser, wasm-opt) are the same files for both builds.
  ln -s "$repo/node_modules" "$dir/node_modules"
  echo "reproducible: building $commit in $dir (CARGO_HOME=$cargo_home)"
  if ! (cd "$dir" && CARGO_HOME="$cargo_home" trunk build --release --offline) >"$dir.log" 2>&1; then
    tail -30 "$dir.log" >&2
    echo "reproducible: the build in $dir failed (log above, all of it in $dir.log)" >&2
    exit 1
  fi
}

first="$work/one/distlock"
second="$work/two/a/deeper/folder/distlock-copy"
build "$first" "$home"
other_home="$work/two/cargo-home"
mkdir -p "$other_home"
cp -a "$home/registry" "$other_home/"
[ ! -d "$home/git" ] || cp -a "$home/git" "$other_home/"
build "$second" "$other_home"

hashes() { (cd "$1/dist" && find . -type f | sort | xargs sha256sum); }
hashes "$first" >"$work/one.sha256"
hashes "$second" >"$work/two.sha256"
cat "$work/one.sha256"
if diff "$work/one.sha256" "$work/two.sha256" >"$work/diff.txt"; then
  echo "reproducible: the two builds are the same bytes, $(wc -l <"$work/one.sha256") files"
else
  echo "reproducible: the two builds differ (< the first, > the second):" >&2
  cat "$work/diff.txt" >&2
  exit 1
fi
