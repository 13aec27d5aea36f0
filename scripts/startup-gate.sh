#!/usr/bin/env bash
# Usage: scripts/startup-gate.sh BASE_REF [REPETITIONS] [SCENARIO]
#   Gates a change on startup time: builds BASE_REF (in a temporary git worktree; the working tree's own
#   build when BASE_REF is HEAD and nothing is changed) and the working tree in release mode, runs the startup
#   scenario (default Scenarios/startup-gate.yaml) with both, each cell's launches back to back (one
#   `stacklab run --filter …` per launch, which side goes first alternating), so machine noise falls on both
#   alike, then decides:
#   - pooled (scripts/gate_pool.py): each cell's k-th base and k-th current launch ran side by side and give
#     one ratio; over all cells, a metric (time to first frame, time to first screen) regressed when the
#     median ratio is GATE_THRESHOLD (default 5%) or more slower and a one-sided Wilcoxon signed-rank test
#     gives p < GATE_ALPHA (default 0.01). A slower startup path shows in every cell, and all cells together
#     see a 10% slowdown that five launches of one cell cannot tell from noise;
#   - per cell (`stacklab compare`, Mann-Whitney U): a launch the watchdog kills that it did not kill before.
#   The per-cell comparison of the times is written too (comparison.csv), for reading, not for the verdict.
#   Exits 0 no regression, 1 a regression, 2 bad input. Output lands in results/gate/ (base.csv,
#   current.csv, pooled.csv, comparison.csv, watchdog.csv).
#   Environment: GATE_THRESHOLD (pooled, default 5%), GATE_ALPHA (default 0.01), GATE_INJECT_SLOWDOWN
#   (test hook: a share such as 0.10 that makes the current side's launches that much slower, through
#   STACKLAB_TEST_STARTUP_SLOWDOWN, to check that the gate catches it). The base build is kept in
#   .build-gate/base-COMMIT and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:?usage: scripts/startup-gate.sh BASE_REF [REPETITIONS] [SCENARIO]}
repetitions=${2:-6}
scenario=${3:-Scenarios/startup-gate.yaml}
threshold=${GATE_THRESHOLD:-5%}
alpha=${GATE_ALPHA:-0.01}
inject=${GATE_INJECT_SLOWDOWN:-}
out=results/gate
base_commit=$(git rev-parse --verify "$base_ref^{commit}")
echo "gate: base $base_ref ($base_commit), current: the working tree of $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + changes')${inject:+, slowed down by $inject (test hook)}"
echo "gate: building (release)"
swift build -c release --product stacklab >/dev/null
current_bin="$(swift build -c release --product stacklab --show-bin-path)/stacklab"
if [ "$base_commit" = "$(git rev-parse HEAD)" ] && git diff --quiet HEAD; then
    base_bin=$current_bin
else
    base_tree=".build-gate/base-$base_commit"
    if [ ! -d "$base_tree" ]; then
        git worktree prune
        git worktree add --detach "$base_tree" "$base_commit" >/dev/null
    fi
    swift build -c release --product stacklab --package-path "$base_tree" --scratch-path "$base_tree/.build" >/dev/null
    base_bin="$base_tree/.build/release/stacklab"
fi

rm -rf "$out" && mkdir -p "$out/runs"
mapfile -t cells < <(python3 scripts/gate_pool.py cells "$scenario")
[ ${#cells[@]} -gt 0 ] || { echo "gate: $scenario has no cells" >&2; exit 2; }
launch() { # SIDE REP CELL_INDEX
    local side=$1 rep=$2 index=$3
    # shellcheck disable=SC2086 # a cell is a list of --filter options
    if [ "$side" = base ]; then
        "$base_bin" run "$scenario" --repetitions 1 ${cells[$index]} --out "$out/runs/$side-$rep-$index" >/dev/null || true
    else
        env ${inject:+STACKLAB_TEST_STARTUP_SLOWDOWN=$inject} \
            "$current_bin" run "$scenario" --repetitions 1 ${cells[$index]} --out "$out/runs/$side-$rep-$index" >/dev/null || true
    fi
}
for ((rep = 1; rep <= repetitions; rep++)); do
    echo "gate: repetition $rep/$repetitions: ${#cells[@]} cells, base and current back to back"
    for ((index = 0; index < ${#cells[@]}; index++)); do
        # Which side goes first alternates, so neither always gets the warmer page cache.
        if (( (rep + index) % 2 )); then launch base $rep $index; launch current $rep $index
        else launch current $rep $index; launch base $rep $index; fi
    done
done
name=$(basename "$scenario" .yaml)
for side in base current; do
    first=1
    for ((rep = 1; rep <= repetitions; rep++)); do
        for ((index = 0; index < ${#cells[@]}; index++)); do
            file="$out/runs/$side-$rep-$index/$name.csv"
            [ -s "$file" ] || { echo "gate: $side repetition $rep, cell ${cells[$index]}: no CSV" >&2; exit 2; }
            if [ $first = 1 ]; then cat "$file"; first=0; else tail -n +2 "$file"; fi
        done
    done > "$out/$side.csv"
done
rc=0
"$current_bin" compare "$out/base.csv" "$out/current.csv" --threshold 10% \
    --metric time_to_first_frame_ms --metric time_to_first_screen_ms --out "$out/comparison.csv" >/dev/null || rc=$?
[ $rc -le 1 ] || exit 2
status=0
echo "gate: pooled over every cell"
python3 scripts/gate_pool.py verdict "$out/base.csv" "$out/current.csv" --threshold "$threshold" --alpha "$alpha" \
    --out "$out/pooled.csv" || status=$?
[ $status -le 1 ] || exit $status
echo "gate: launches the watchdog killed, per cell"
rc=0
"$current_bin" compare "$out/base.csv" "$out/current.csv" --metric killed_by_watchdog --out "$out/watchdog.csv" \
    > "$out/watchdog.txt" || rc=$?
[ $rc -le 1 ] || exit 2
tail -n 1 "$out/watchdog.txt"
watchdog=$(python3 -c 'import csv, sys; print(sum(r["verdict"] == "regressed" for r in csv.DictReader(open(sys.argv[1]))))' "$out/watchdog.csv")
[ "$watchdog" = 0 ] || status=1
echo "gate: $([ $status = 0 ] && echo 'no regression' || echo 'REGRESSION')"
exit $status
