#!/usr/bin/env bash
# Usage: scripts/api-check.sh [BASELINE]      (default: the commit named in .api-baseline)
#   Checks that the public API of the ObjectStack, ObjectStackSQLite and ObjectStackLMDB libraries has not broken
#   since BASELINE (swift package diagnose-api-breaking-changes), allowing the breaks listed in
#   .api-breakage-allowlist (one per line, as this script prints them). Adding API is not a break.
#
#   The baseline is a commit on main, so it is in every clone of main and survives the rebase of a branch (a
#   branch's own commits get new hashes when it is rebased; main's do not). A deliberate break moves
#   .api-baseline and the allowlist in the same commit, with a CHANGELOG line: see CONTRIBUTING.md.
#
#   The current package is built in .build, where `swift test` has built it already (debug), so only the baseline is
#   compiled: once, in a checkout under .build/TRIPLE/apidiff that is deleted afterwards; its API (one JSON file per
#   module) is kept in .build/api-baselines/COMMIT and reused by the next check against the same commit.
#   Exit status: 0 no break (or only allowed ones), 1 a break or a baseline that is not in this clone's history.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=${1:-$(tr -d '[:space:]' <.api-baseline)}
if ! commit=$(git rev-parse --quiet --verify "$baseline^{commit}"); then
    echo "api-check: the baseline '$baseline' is no commit of this clone: name a commit on main in .api-baseline" >&2
    exit 1
fi
if ! git merge-base --is-ancestor "$commit" HEAD; then
    echo "api-check: the baseline ${commit:0:12} is not in HEAD's history (a branch's commit, rebased away?):" \
        "name a commit on main in .api-baseline" >&2
    exit 1
fi
allow=()
if [ -s .api-breakage-allowlist ]; then
    allow=(--breakage-allowlist-path "$PWD/.api-breakage-allowlist")
fi
subject=$(git log -1 --format=%s "$commit" | cut -c1-60)
echo "api-check: ObjectStack, ObjectStackSQLite, ObjectStackLMDB against ${commit:0:12} ($subject)"
status=0
swift package diagnose-api-breaking-changes "$commit" \
    --products ObjectStack ObjectStackSQLite ObjectStackLMDB \
    --baseline-dir "$PWD/.build/api-baselines" "${allow[@]}" || status=$?
# The baseline's checkout and its build are large and not needed once its API is dumped.
rm -rf .build/*/apidiff/*-checkout .build/*/debug/apidiff/*-checkout
exit "$status"
