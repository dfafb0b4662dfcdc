#!/usr/bin/env bash
# `npm run test:clock`: the date-sensitive suites (every HTTP, unit, feed and import test) under faketime, at the
# instants where a test that read the wall clock would break: just before and just after midnight UTC, and on the two
# European DST change days of 2027 around 01:00 UTC, with the process time zone set to UTC, America/New_York,
# Asia/Tokyo and Europe/Berlin.
# faketime shifts the clock of every process it starts (Jest and its workers) by a fixed offset, so time still runs.
# Extra arguments go to Jest (e.g. a test path to run fewer suites).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v faketime >/dev/null || { echo "test:clock needs faketime: apt-get install faketime" >&2; exit 1; }

runs=(
  "2026-11-25 23:58:30|UTC"
  "2026-11-26 00:00:30|America/New_York"
  "2027-03-28 00:59:30|Asia/Tokyo"
  "2027-10-31 00:59:30|America/New_York"
  "2027-10-31 00:59:30|Europe/Berlin"
)
suites=("${@:-test/http test/unit test/feeds test/imports}")
# the contract's shape (clients generated and compiled, the spec linted) reads no clock: once, in `npm test`, is enough
skip=(--testPathIgnorePatterns 'generated-clients|spec-lint')
for run in "${runs[@]}"; do
  instant=${run%|*} zone=${run#*|}
  echo "test:clock: ${instant} UTC, TZ=${zone}" >&2
  started=$SECONDS
  # the instant is read in UTC by faketime itself; the tests then run in the zone
  # the paths go before the ignore option: Jest reads every word after an array option as one more pattern
  TZ=UTC faketime "$instant" env TZ="$zone" npx jest ${suites[*]} "${skip[@]}"
  echo "test:clock: ${instant} UTC, TZ=${zone}: passed in $((SECONDS - started)) s" >&2
done
