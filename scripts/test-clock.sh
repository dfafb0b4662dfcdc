#!/usr/bin/env bash
# `npm run test:clock`: the suites again under faketime, at the instants where a test that read the wall clock would
# break: just before and just after midnight UTC, and on the two European DST change days of 2027 around 01:00 UTC,
# with the process time zone set to UTC, America/New_York, Asia/Tokyo and Europe/Berlin.
# What runs where: the suites about dates (unit; the list window, series and scheduled posts over HTTP; iCalendar
# export and import) run at every instant; every other HTTP, feed and import suite runs at one instant of the five,
# dealt round-robin, so each suite meets a hostile clock at least once and CI stays within its time.
# faketime shifts the clock of every process it starts (Jest and its workers) by a fixed offset, so time still runs.
# Arguments replace both sets with the Jest paths given (e.g. one test file), run at every instant.
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
dated='test/(http/(events-list|series|scheduled-posts)|feeds/ical-[a-z-]+|imports/ics-[a-z-]+)\.test\.ts$'
# the contract's shape (clients generated and compiled, the spec linted) reads no clock: once, in `npm test`, is enough
shapes='test/http/(generated-clients|spec-lint)\.test\.ts$'
suites=$(ls test/http/*.test.ts test/feeds/*.test.ts test/imports/*.test.ts)
everywhere=(test/unit $(grep -E "$dated" <<<"$suites"))
mapfile -t dealt < <(grep -Ev "$dated|$shapes" <<<"$suites")

for i in "${!runs[@]}"; do
  instant=${runs[$i]%|*} zone=${runs[$i]#*|}
  if [ $# -gt 0 ]; then
    suites=("$@")
  else
    suites=("${everywhere[@]}")
    for ((j = i; j < ${#dealt[@]}; j += ${#runs[@]})); do suites+=("${dealt[$j]}"); done
  fi
  echo "test:clock: ${instant} UTC, TZ=${zone}: ${#suites[@]} paths" >&2
  started=$SECONDS
  # the instant is read in UTC by faketime itself; the tests then run in the zone
  TZ=UTC faketime "$instant" env TZ="$zone" npx jest "${suites[@]}"
  echo "test:clock: ${instant} UTC, TZ=${zone}: passed in $((SECONDS - started)) s" >&2
done
