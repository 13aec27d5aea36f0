#!/usr/bin/env bash
# Usage: scripts/startup-gate.sh BASE_REF [REPETITIONS] [SCENARIO]
#   Gates a change on startup time: builds BASE_REF (in a temporary git worktree; the working tree's own
#   build when BASE_REF is HEAD and no file under Sources/ or Package.swift is changed) and the working tree
#   in release mode, runs the startup scenario (default Scenarios/startup-gate.yaml: 8 cells) with both, one
#   repetition at a time and alternating which side goes first, so machine noise falls on both alike, then
#   decides:
#   decides with `stacklab gate` (no Python):
#   - pooled: the k-th launch of a cell on each side ran side by side and gives one ratio current/base. Over
#     every cell, a metric — cpu_ms (the launch's CPU time to its first screen), time_to_first_frame_ms,
#     time_to_first_screen_ms — regressed when the median ratio is GATE_THRESHOLD (default 5%) or more slower
#     and a one-sided Wilcoxon signed-rank test gives p < GATE_ALPHA (default 0.01). A slower startup path
#     shows in every cell, and all cells together see a 10% slowdown that a few launches of one cell cannot; on
#     a busy machine only the CPU time is steady enough to see it (the wall times of adjacent 20-100 ms
#     launches differ by a factor of two);
#   - per cell (as `stacklab compare --paired` judges: slower, the 95% interval of the paired runs beyond 10%): a
#     launch the watchdog kills that it did not kill before.
#   Beside each pooled verdict the gate prints the pooled change's 95% interval and what it says (faster, slower,
#   same, unresolved), as `stacklab compare --paired` decides.
#   The per-cell comparison of the times is written too (comparison.csv, summary.md), for reading, not for the
#   verdict. Exits 0 no regression, 1 a regression, 2 bad input. Output lands in results/gate/ (base.csv and
#   current.csv with their .env.json sidecars, pooled.csv, gate.md: the verdict as Markdown, comparison.csv,
#   summary.md: the per-cell verdicts as Markdown, benchmark-smaller.json / benchmark-bigger.json:
#   github-action-benchmark's input). When GITHUB_STEP_SUMMARY is set (GitHub Actions), the verdict, gate.md
#   and summary.md are appended to it. REPETITIONS defaults to 10 (80 pairs, 1-4 min).
#   Environment: GATE_THRESHOLD (pooled, default 5%), GATE_ALPHA (default 0.01), GATE_INJECT_SLOWDOWN
#   (test hook: a share such as 0.10 that makes the current side's launches do that much more work, through
#   STACKLAB_TEST_STARTUP_SLOWDOWN, to check that the gate catches it). The base build is kept in
#   .build-gate/base-COMMIT and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:?usage: scripts/startup-gate.sh BASE_REF [REPETITIONS] [SCENARIO]}
repetitions=${2:-10}
scenario=${3:-Scenarios/startup-gate.yaml}
threshold=${GATE_THRESHOLD:-5%}
alpha=${GATE_ALPHA:-0.01}
inject=${GATE_INJECT_SLOWDOWN:-}
out=results/gate
base_commit=$(git rev-parse --verify "$base_ref^{commit}")
echo "gate: base $base_ref ($base_commit), current: the working tree of $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + changes')${inject:+, slowed down by $inject (test hook)}"
echo "gate: building (release)"
# A build that fails is bad input (exit 2), never a regression: set -e would pass on swift build's status, 1.
swift build -c release --product stacklab >/dev/null \
    || { echo "gate: the working tree does not build in release mode" >&2; exit 2; }
current_bin="$(swift build -c release --product stacklab --show-bin-path)/stacklab"
# Base is HEAD and no source file differs from it (README or results may): the same binary.
if [ "$base_commit" = "$(git rev-parse HEAD)" ] && [ -z "$(git status --porcelain -- Sources Package.swift)" ]; then
    base_bin=$current_bin
else
    base_tree=".build-gate/base-$base_commit"
    if [ ! -d "$base_tree" ]; then
        git worktree prune
        git worktree add --detach "$base_tree" "$base_commit" >/dev/null
    fi
    swift build -c release --product stacklab --package-path "$base_tree" --scratch-path "$base_tree/.build" >/dev/null \
        || { echo "gate: the base $base_ref does not build in release mode" >&2; exit 2; }
    base_bin="$base_tree/.build/release/stacklab"
fi

rm -rf "$out" && mkdir -p "$out/runs"
launch() { # SIDE REP
    if [ "$1" = base ]; then
        "$base_bin" run "$scenario" --repetitions 1 --out "$out/runs/$1-$2" >/dev/null || true
    else
        env ${inject:+STACKLAB_TEST_STARTUP_SLOWDOWN=$inject} \
            "$current_bin" run "$scenario" --repetitions 1 --out "$out/runs/$1-$2" >/dev/null || true
    fi
}
for ((rep = 1; rep <= repetitions; rep++)); do
    echo "gate: repetition $rep/$repetitions"
    # Which side goes first alternates, so neither always runs on the warmer page cache.
    if ((rep % 2)); then launch base $rep; launch current $rep; else launch current $rep; launch base $rep; fi
done
name=$(basename "$scenario" .yaml)
for side in base current; do
    first=1
    for ((rep = 1; rep <= repetitions; rep++)); do
        file="$out/runs/$side-$rep/$name.csv"
        [ -s "$file" ] || { echo "gate: $side repetition $rep wrote no CSV" >&2; exit 2; }
        if [ $first = 1 ]; then cat "$file"; first=0; else tail -n +2 "$file"; fi
    done > "$out/$side.csv"
    # The first run's sidecar: the metrics' declarations (which way is better) that gate and compare read.
    cp "$out/runs/$side-1/$name.env.json" "$out/$side.env.json"
done
rc=0
"$current_bin" compare --paired "$out/base.csv" "$out/current.csv" --threshold 10% \
    --metric time_to_first_frame_ms --metric time_to_first_screen_ms --out "$out/comparison.csv" >/dev/null || rc=$?
[ $rc -le 1 ] || exit 2
status=0
"$current_bin" gate "$out/base.csv" "$out/current.csv" --threshold "$threshold" --alpha "$alpha" \
    --out "$out/pooled.csv" --markdown "$out/gate.md" || status=$?
[ $status -le 1 ] || exit $status
verdict=$([ $status = 0 ] && echo 'no regression' || echo 'REGRESSION')
# For people (a pull request's summary) and for tracking tools: the per-cell view of the same two files.
"$current_bin" compare --paired "$out/base.csv" "$out/current.csv" --threshold 10% --metric time_to_first_frame_ms \
    --metric time_to_first_screen_ms --metric killed_by_watchdog --format markdown > "$out/summary.md" || true
for polarity in smaller bigger; do
    "$current_bin" compare "$out/base.csv" "$out/current.csv" --format benchmark-json --polarity $polarity \
        > "$out/benchmark-$polarity.json" || true
done
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    {
        echo "## Startup gate: $verdict"
        echo
        cat "$out/gate.md"
        echo
        echo "Per cell, for reading (not the verdict):"
        echo
        cat "$out/summary.md"
    } >> "$GITHUB_STEP_SUMMARY"
fi
echo "gate: $verdict"
exit $status
