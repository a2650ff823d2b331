#!/usr/bin/env bash
# Runs a command under another Node line (and npm major) from the registry: installs them once
# (install-node.sh, cached), puts them first on PATH and points native builds at that Node's
# headers. Node 20 on a machine that has it still comes from the registry, so rows compare alike.
# Usage: .ci/with-node.sh <node major> [npm major] -- <command> [arguments...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
versions=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do versions+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "usage: with-node.sh <node major> [npm major] -- <command...>" >&2; exit 2; }
shift
folders="$("$here/install-node.sh" "${versions[@]}")"
node_folder="$(sed -n 1p <<<"$folders")"
npm_folder="$(sed -n 2p <<<"$folders")"
export PATH="${npm_folder:+$npm_folder:}$node_folder:$PATH"
# The machine's ~/.npmrc may point nodedir at its own Node's headers: a native module built
# against them would not load in this Node.
export npm_config_nodedir="$(dirname "$node_folder")"
exec "$@"
