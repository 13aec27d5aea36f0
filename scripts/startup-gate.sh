#!/usr/bin/env bash
# Usage: scripts/startup-gate.sh BASE_REF [REPETITIONS] [SCENARIO]
#   Gates a change on startup time: builds BASE_REF (in a temporary git worktree) and the working tree in
#   release mode, runs the startup scenario (default Scenarios/startup-gate.yaml) with both, one repetition
#   at a time and alternating, so machine noise falls on both alike, then runs `stacklab compare` on the
#   time-to-first-frame, time-to-first-screen and watchdog columns. Exits as compare does: 0 no regression,
#   1 a regression, 2 bad input. Output lands in results/gate/ (base.csv, current.csv, comparison.csv).
#   Environment: GATE_THRESHOLD (default 10%). The base build is kept in .build-gate/base-COMMIT and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:?usage: scripts/startup-gate.sh BASE_REF [REPETITIONS] [SCENARIO]}
repetitions=${2:-5}
scenario=${3:-Scenarios/startup-gate.yaml}
threshold=${GATE_THRESHOLD:-10%}
out=results/gate
base_commit=$(git rev-parse --verify "$base_ref^{commit}")
base_tree=".build-gate/base-$base_commit"
echo "gate: base $base_ref ($base_commit), current: the working tree of $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + changes')"
if [ ! -d "$base_tree" ]; then
    git worktree prune
    git worktree add --detach "$base_tree" "$base_commit" >/dev/null
fi
echo "gate: building base and current (release)"
swift build -c release --product stacklab --package-path "$base_tree" --scratch-path "$base_tree/.build" >/dev/null
swift build -c release --product stacklab >/dev/null
base_bin="$base_tree/.build/release/stacklab"
current_bin="$(swift build -c release --product stacklab --show-bin-path)/stacklab"

rm -rf "$out" && mkdir -p "$out/runs"
for ((rep = 1; rep <= repetitions; rep++)); do
    for side in base current; do
        bin=$base_bin; [ "$side" = current ] && bin=$current_bin
        echo "gate: repetition $rep/$repetitions, $side"
        "$bin" run "$scenario" --repetitions 1 --out "$out/runs/$side-$rep" >/dev/null || true
    done
done
name=$(basename "$scenario" .yaml)
for side in base current; do
    first=1
    for ((rep = 1; rep <= repetitions; rep++)); do
        file="$out/runs/$side-$rep/$name.csv"
        [ -s "$file" ] || { echo "gate: $side repetition $rep wrote no CSV" >&2; exit 2; }
        if [ $first = 1 ]; then cat "$file"; first=0; else tail -n +2 "$file"; fi
    done > "$out/$side.csv"
done
"$current_bin" compare "$out/base.csv" "$out/current.csv" --threshold "$threshold" \
    --metric time_to_first_frame_ms --metric time_to_first_screen_ms --metric killed_by_watchdog \
    --out "$out/comparison.csv"
