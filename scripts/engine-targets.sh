#!/usr/bin/env bash
# Usage: [STACKLAB_BENCH=BINARY] scripts/engine-targets.sh [RUNS] [OUT]      (default: 2 runs, a temporary folder)
#   Measures the engine comparison's target cells as its issue defines them and prints each cell's verdict: the
#   ObjectStack cells of Scenarios/engine-overhead.yaml on SQLite (durability normal) and LMDB (durability full),
#   history off, every operation and size, with their raw, swift-direct, swift-objects, raw-per-lookup and GRDB
#   twins, run RUNS times in release mode. A cell's figure is the mean over the runs of its ratio to raw (fetch-by-id:
#   to raw-per-lookup), with each run's ratio after it. Targets: every cell at most 2.0x; SQLite insert, update and
#   fetch-all of 100,000 at most 1.5x raw or 1.25x swift-direct, whichever is higher; bytes per fetched pod at
#   100,000 no more than GRDB's on SQLite and no more than SQLite's on LMDB; SQLite below GRDB in every cell. A mean
#   over a target, or a run more than 0.2 over it, is marked ✗. The machine must be otherwise idle: a run takes about
#   six minutes on 2 cores, and a busy machine moves the ratios by a third. Exit status: 0 every target met, 1 one
#   missed, 2 a run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
# STACKLAB_BENCH names a release binary already built (say with -Xswiftc -g, for perf), which is then not rebuilt.
bench=${STACKLAB_BENCH:-}
if [ -z "$bench" ]; then
    swift build -c release --product stacklab-bench >/dev/null
    bench="$(swift build -c release --product stacklab-bench --show-bin-path)/stacklab-bench"
fi
for run in $(seq 1 "$runs"); do
    for cell in sqlite:normal lmdb:full; do
        store=${cell%%:*}
        durability=${cell##*:}
        echo "engine-targets: run $run of $runs, $store" >&2
        # One operation at a time: a filter takes one value, and the ObjectStack-only cells (merge, child-save) have
        # no target.
        for operation in insert batch-insert update fetch-all fetch-by-id fetch-sorted count; do
            cells="$out/run$run-$store-$operation"
            "$bench" run Scenarios/engine-overhead.yaml --filter store="$store" --filter durability="$durability" \
                --filter history=off --filter operation="$operation" --out "$cells" >"$cells.log" 2>&1 \
                || { echo "engine-targets: the run failed; see $cells.log" >&2; exit 2; }
        done
    done
done
echo "engine-targets: CSVs in $out" >&2
python3 - "$out" "$runs" <<'EOF'
import csv, glob, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])
sizes = ["1000", "10000", "100000"]
operations = ["insert", "batch-insert", "update", "fetch-all", "fetch-by-id", "fetch-sorted", "count"]


def load(run):
    rows = []
    for path in glob.glob(f"{out}/run{run}-sqlite-*/engine-overhead.csv") + glob.glob(
            f"{out}/run{run}-lmdb-*/engine-overhead.csv"):
        with open(path) as file:
            rows += [row for row in csv.DictReader(file) if not row["error"]]
    return rows


data = [load(run) for run in range(1, runs + 1)]


def median(rows, store, operation, size, implementation, column):
    values = [float(row[column]) for row in rows
              if (row["store"], row["operation"], row["objects"], row["implementation"]) ==
              (store, operation, size, implementation) and row[column]]
    return statistics.median(values) if values else None


def per_run(store, operation, size, implementation, column):
    values = [median(rows, store, operation, size, implementation, column) for rows in data]
    return None if None in values else values


missed = False
for store in ["sqlite", "lmdb"]:
    print(f"## {store}: ratio of medians to raw (fetch-by-id: to raw-per-lookup), mean (each run)")
    for operation in operations:
        column = "ratio_vs_per_lookup" if operation == "fetch-by-id" else "ratio_vs_raw"
        cells = []
        for size in sizes:
            ratios = per_run(store, operation, size, "objectstack", column)
            if ratios is None:
                cells.append("-")
                continue
            target = 2.0
            if store == "sqlite" and size == "100000" and operation in ("insert", "update", "fetch-all"):
                direct = per_run(store, operation, size, "swift-direct", "ratio_vs_raw")
                target = max(1.5, 1.25 * statistics.mean(direct)) if direct else 1.5
            mean = statistics.mean(ratios)
            over = mean > target or any(ratio > target + 0.2 for ratio in ratios)
            grdb = per_run(store, operation, size, "grdb", column) if store == "sqlite" else None
            if grdb and any(ours >= theirs for ours, theirs in zip(ratios, grdb)):
                over = True
            missed |= over
            runs_text = ", ".join(f"{ratio:.2f}" for ratio in ratios)
            cells.append(f"{mean:.2f} ({runs_text}){' ✗' if over else ''}")
        print(f"{operation:13} | " + " / ".join(cells))
    for implementation in ["swift-direct", "swift-objects"]:
        cells = []
        for size in sizes:
            ratios = per_run(store, "fetch-all", size, implementation, "ratio_vs_raw")
            cells.append("-" if ratios is None else " ".join(f"{ratio:.2f}" for ratio in ratios))
        print(f"fetch-all {implementation} (the floors) | " + " / ".join(cells))
bytes_per_pod = {(store, implementation): per_run(store, "fetch-all", "100000", implementation, "bytes_per_object")
                 for store in ["sqlite", "lmdb"] for implementation in ["objectstack", "grdb", "raw"]}
print("## bytes per fetched pod at 100,000 (each run)")
for (store, implementation), values in bytes_per_pod.items():
    if values:
        print(f"{store} {implementation}: " + ", ".join(f"{value:.0f}" for value in values))
sqlite, grdb, lmdb = (bytes_per_pod[key] for key in [("sqlite", "objectstack"), ("sqlite", "grdb"), ("lmdb", "objectstack")])
if sqlite and grdb and any(ours > theirs for ours, theirs in zip(sqlite, grdb)):
    print("✗ SQLite holds more per pod than GRDB")
    missed = True
if sqlite and lmdb and any(ours > theirs for ours, theirs in zip(lmdb, sqlite)):
    print("✗ LMDB holds more per pod than SQLite")
    missed = True
sys.exit(1 if missed else 0)
EOF
