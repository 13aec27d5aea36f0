#!/usr/bin/env bash
# Usage: scripts/baseline.sh [SCENARIO...]      (default: concurrency)
#   Re-runs committed baselines with the working tree: builds stacklab in release mode, runs each
#   Scenarios/SCENARIO.yaml in full into results/baselines/SCENARIO.csv (+ SCENARIO.env.json, which records the
#   commit, "+dirty" when the tree has uncommitted changes), and redraws results/charts/SCENARIO.png and .svg
#   with scripts/plot.py. Commit first so the sidecar names a commit; then commit the CSV, sidecar and charts,
#   and update the README paragraph that quotes them. The concurrency baseline takes about 7 minutes on a
#   2-core machine. Needs matplotlib (pip install -r scripts/requirements.txt) for the charts.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=("${@:-concurrency}")
if ! git diff --quiet HEAD; then
    echo "baseline: the working tree has uncommitted changes: the sidecar will say +dirty" >&2
fi
swift build -c release --product stacklab >/dev/null
bin="$(swift build -c release --product stacklab --show-bin-path)/stacklab"
for name in "${scenarios[@]}"; do
    echo "baseline: $name at $(git rev-parse --short HEAD)"
    "$bin" run "Scenarios/$name.yaml" --out results/baselines
    python3 scripts/plot.py "results/baselines/$name.csv" --out results/charts
done
