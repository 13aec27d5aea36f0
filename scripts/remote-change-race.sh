#!/usr/bin/env bash
# Usage: scripts/remote-change-race.sh [ROUNDS]      (default: 1000)
#   Runs the remote-change race of the conformance suite (RemoteChangeTests' first-save race) ROUNDS times on each
#   store: a fresh store, a first save whose keys are reserved in a write of their own, and a check that every
#   notification carries the store's URL and UUID and the token of a transaction its history holds. CI runs 20
#   rounds per store inside swift test; this is the long run. Prints each store's count of bad notifications.
#   Exit status: 0 none, 1 a bad notification (or a build or test failure).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1000}
log=$(mktemp)
swift build --build-tests >/dev/null
status=0
STACKLAB_REMOTE_CHANGE_ROUNDS=$rounds swift test --skip-build --filter 'RemoteChangeTests/firstSaveRace' >"$log" 2>&1 \
    || status=$?
grep 'remote change race on' "$log" || true
if [ "$status" -ne 0 ]; then
    grep -E '✘|error' "$log" | head -20 >&2
fi
rm -f "$log"
exit "$status"
