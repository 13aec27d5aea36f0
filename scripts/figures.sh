#!/usr/bin/env bash
# Usage: scripts/figures.sh [--check]
#   Regenerates every figure the README and the lab's articles quote from the committed result CSVs
#   (results/baselines/*.csv and results/charts/*.csv): each number sits between marker comments that name its CSV,
#   cells and format (`stacklab figures --help`), and `stacklab figures` writes what the CSV says between them.
#   Run it after scripts/baseline.sh (which runs it itself) and commit the documents with the baselines; then re-read
#   the prose around the numbers, whose verdicts a re-run may have changed. --check changes nothing and exits 1 when
#   a figure differs from its CSV, as CI runs it. Uses the release build of stacklab when there is one, else builds
#   the debug one. Exit status: 0 every figure matches its CSV (or was rewritten), 1 --check found one that does not,
#   2 a marker that cannot be read or answered.
set -euo pipefail
cd "$(dirname "$0")/.."
documents=(README.md results/README.md results/charts/README.md Sources/LabCore/LabCore.docc/*.md)
if [ -x .build/release/stacklab ] && [ -z "$(find Sources Package.swift -newer .build/release/stacklab -print -quit)" ]; then
    stacklab=.build/release/stacklab
else
    swift build --product stacklab >/dev/null
    stacklab="$(swift build --show-bin-path)/stacklab"
fi
"$stacklab" figures "$@" "${documents[@]}"
