#!/usr/bin/env bash
# Usage: scripts/baseline.sh [SCENARIO...]      (default: concurrency)
#   Re-runs committed baselines with the checked-out commit: builds stacklab in release mode, runs each
#   Scenarios/SCENARIO.yaml in full, copies the CSV and its sidecar (which records the commit and declares the
#   metrics) to results/baselines/SCENARIO.csv and .env.json, and redraws results/charts/SCENARIO.svg with
#   `stacklab report --charts`. Commit your change first: the sidecar says "+dirty" when tracked files have
#   uncommitted changes (the run writes to a temporary folder, so the old baseline does not count). Last it
#   regenerates every figure the README and the lab's articles quote from the committed CSVs (scripts/figures.sh),
#   so one command re-runs a baseline and rewrites the prose's numbers: then re-read the sentences around them (a
#   re-run may turn a verdict) and commit the CSVs, sidecars, charts and documents together. The baselines the
#   documents quote: quick concurrency merge-cost startup strategies. The concurrency baseline takes minutes on a
#   2-core machine, depending on its load. Needs only Swift. A scenario of the engine comparison (workload
#   engine-overhead) runs with stacklab-bench, the executable that links GRDB.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=("${@:-concurrency}")
if ! git diff --quiet HEAD; then
    echo "baseline: the working tree has uncommitted changes: the sidecar will say +dirty" >&2
fi
bin_path="$(swift build -c release --product stacklab --show-bin-path)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
product_for() {
    # The engine comparison's workload (engine-overhead.yaml, import-memory.yaml) runs only in stacklab-bench.
    if grep -Eq '^workload:[[:space:]]*engine-overhead' "Scenarios/$1.yaml"; then echo stacklab-bench; else echo stacklab; fi
}
for name in "${scenarios[@]}"; do
    product=$(product_for "$name")
    swift build -c release --product "$product" >/dev/null
    echo "baseline: $name at $(git rev-parse --short HEAD)"
    "$bin_path/$product" run "Scenarios/$name.yaml" --out "$out"
done
# Copied in only after every run: a scenario run after an earlier one's CSV was copied in saw a changed working
# tree, and its sidecar (and chart) said "+dirty" for a clean commit.
for name in "${scenarios[@]}"; do
    cp "$out/$name.csv" "$out/$name.env.json" results/baselines/
    "$bin_path/$(product_for "$name")" report "results/baselines/$name.csv" --charts results/charts
done
# The figures the documents quote, from the CSVs just copied in (the release build is current, so no build).
bash scripts/figures.sh
