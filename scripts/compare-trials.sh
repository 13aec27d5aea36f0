#!/usr/bin/env bash
# Usage: scripts/compare-trials.sh aa [ROUNDS] [SCENARIO] [-- RUN-OPTIONS…]
#        scripts/compare-trials.sh slowdown [TRIALS] [ROUNDS] [SCENARIO] [-- RUN-OPTIONS…]
#        scripts/compare-trials.sh budget [SCENARIO]
#        scripts/compare-trials.sh gate [TRIALS] [REPETITIONS]
#        scripts/compare-trials.sh blocks AA_TRIAL [ROUNDS]
#   The benchmark runs that show `stacklab compare` concludes (issue 57). Measure on a quiet machine: each trial prints
#   the 1-minute load average before it, and warns when it is 1.5 or more.
#   Builds this working tree twice in release mode, .build and .build-base (two builds of the same code: an A/A pair
#   whose only differences are the builds'), and reuses both on later calls.
#   - aa: `compare --paired` of the two builds on SCENARIO (default Scenarios/concurrency.yaml), ROUNDS rounds
#     (default 20: the CPU time of one import varies 10-13% from run to run here; two 10-round trials on 2026-11-28
#     found 53% and 61% of the comparisons below the same within 10%, one of 20 rounds on 2026-11-29 96%), threshold
#     10%. Prints the share of per-cell comparisons called faster or slower (the test: at most 5%),
#     the share of wall-time, CPU-time and throughput comparisons that are the same within 10% (at least 70%), and
#     the median margin the stall and latency comparisons are the same within (same_within_pct: at most 25%).
#   - slowdown: TRIALS (default 10) trials with the import path slowed down by SHARE (default 0.10, the test hook
#     STACKLAB_TEST_IMPORT_SLOWDOWN on the current build) and TRIALS without, alternating, each a `compare --paired`
#     of ROUNDS rounds (default 2) pooled over every cell, threshold THRESHOLD (default 5%). Prints how many of each
#     named the pooled CPU time (and wall time) slower (the test: at least 9 of 10 slowed, at most 1 of 10 unchanged).
#     SIDES (default "slowed unchanged") runs one side only: `SIDES=slowed` with `blocks` for the unchanged side.
#   - blocks: an A/A trial's pairs (results/trials/aa-N, N = AA_TRIAL) cut into blocks of ROUNDS rounds (default 2),
#     each pooled over every cell at THRESHOLD as an unchanged slowdown trial is: without new runs, one unchanged
#     trial per block. Unlike separate trials, the blocks share their two processes, so a difference a process
#     carries from its start (its memory layout, say) falls on every block alike: they show the rounds' noise, not
#     the processes'. Prints how many blocks named the pooled CPU time (and wall time) slower.
#   - budget: a plain `stacklab run SCENARIO` (default Scenarios/concurrency.yaml, with its budget) timed, beside
#     twice the duration the committed baseline's sidecar records (the test: at most that).
#   - gate: TRIALS (default 10) runs of scripts/startup-gate.sh HEAD REPETITIONS (default 10) with its 10% test hook
#     (GATE_INJECT_SLOWDOWN=0.10) and TRIALS without, alternating (the test: every slowed run fails the gate, every
#     unchanged one passes); 1-4 min a run.
#   RUN-OPTIONS go to each build's `run` (`--filter store=memory`, `--quick`): a small sample checks the script.
#   Output lands in results/trials/ (KIND-N/ folders as `compare --paired --runs` writes them, and KIND.csv, one row
#   per trial). Full sets on a quiet 2-core machine, where a round of the concurrency scenario with both builds takes
#   about 4.3 min (720 runs in 43 min): aa, 20 rounds, about 1.5 h; slowdown, 20 trials × 2 rounds, about 2.9 h;
#   budget, at most 10 min; gate, 20 runs of about 1 min.
#   Environment: SHARE, THRESHOLD (slowdown; aa uses 10%). Exit status: 0 the runs finished (the verdicts are printed,
#   not judged), 2 bad input or a build or run that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,6p' "$0" | sed 's/^# *//' >&2; exit 2; }
kind=${1:-}; shift || true
positional=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do positional+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
run_options=("$@")
out=results/trials
mkdir -p "$out"

load() { cut -d' ' -f1 /proc/loadavg; }
# How many folders match a pattern (0 when none does).
count() { local matches; shopt -s nullglob; matches=($1); shopt -u nullglob; echo ${#matches[@]}; }
note_load() {
    local now; now=$(load)
    echo "trials: 1-minute load average $now$(awk -v l="$now" 'BEGIN { if (l >= 1.5) print " (1.5 or more: not a quiet machine; these are not measurements)" }')"
}

# The working tree's release build in .build (and, with --twice, a second in .build-base); exit 2 when one fails.
build_release() {
    local scratch
    : >"$out/build.log"
    for scratch in .build ${1:+.build-base}; do
        swift build -c release --product stacklab --scratch-path "$scratch" >>"$out/build.log" 2>&1 \
            || { echo "trials: the release build failed; see $out/build.log" >&2; exit 2; }
    done
}

build() {
    echo "trials: building the working tree in release mode, twice (.build and .build-base)"
    build_release --twice
    current=.build/release/stacklab
    base=.build-base/release/stacklab
}

# The named columns of METRIC's row in a comparison CSV, comma-separated (the columns read come before `note`, the
# only one that may hold a comma).
fields() { # FILE METRIC COLUMN…
    local file=$1 metric=$2; shift 2
    awk -F, -v metric="$metric" -v names="$*" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["metric"] == metric { n = split(names, want, " "); line = ""
            for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") $col[want[i]]
            print line }' "$file"
}

aa() {
    local rounds=${positional[0]:-20} scenario=${positional[1]:-Scenarios/concurrency.yaml}
    build
    local n; n=$(( $(count "$out/aa-*/") + 1 ))
    local runs="$out/aa-$n" started; started=$(date -u +%FT%TZ)
    note_load
    echo "trials: A/A $n: $rounds rounds of $scenario ${run_options[*]:-}"
    local status=0
    "$current" compare --paired "$base" "$current" "$scenario" --rounds "$rounds" --threshold 10% --runs "$runs" \
        ${run_options[@]+"${run_options[@]}"} >"$runs.txt" || status=$?
    [ $status -le 1 ] || { echo "trials: compare --paired failed (exit $status)" >&2; exit 2; }
    local csv="$runs/comparison.csv"
    [ -s "$out/aa.csv" ] || echo "trial,started_utc,scenario,rounds,comparisons,faster_or_slower,faster_or_slower_pct,directional,directional_faster_or_slower,directional_pct,steady,steady_same,steady_same_pct,stall_latency_median_margin_pct,load_after,run_options" >"$out/aa.csv"
    awk -F, -v started="$started" -v rounds="$rounds" -v scenario="$scenario" -v n="$n" -v tail=",$(load),${run_options[*]:-}" \
        -v logfile="$out/aa.csv" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        {
            metric = $col["metric"]; verdict = $col["verdict"]; margin = $col["same_within_pct"]
            all++
            if (verdict == "faster" || verdict == "slower") called++
            if ($col["better"] != "neutral") { judged++; if (verdict == "faster" || verdict == "slower") judgedCalled++ }
            if (metric == "wall_ms" || metric == "cpu_ms" || metric == "objects_per_s") {
                steady++; if (verdict == "same") same++
            }
            if (metric ~ /stall|hitch|fetch_p|fetch_max|merge_max/ && margin != "") margins[++m] = margin + 0
        }
        END {
            # The median margin, by sorting the margins (insertion sort: a few hundred at most).
            for (i = 2; i <= m; i++) { v = margins[i]; j = i - 1; while (j > 0 && margins[j] > v) { margins[j + 1] = margins[j]; j-- } margins[j + 1] = v }
            median = m == 0 ? "" : (m % 2 ? margins[(m + 1) / 2] : (margins[m / 2] + margins[m / 2 + 1]) / 2)
            printf "trials: %d of %d comparisons faster or slower (%.1f%%); of the %d with a direction, %d (%.1f%%)\n", called, all, 100 * called / all, judged, judgedCalled, judged ? 100 * judgedCalled / judged : 0
            printf "trials: %d of %d wall, CPU and throughput comparisons the same within 10%% (%.1f%%)\n", same, steady, steady ? 100 * same / steady : 0
            printf "trials: stall and latency comparisons the same within a median margin of %s%% (%d with an interval)\n", median, m
            printf "%d,%s,%s,%d,%d,%d,%.1f,%d,%d,%.1f,%d,%d,%.1f,%s%s\n", n, started, scenario, rounds, all, called, 100 * called / all, judged, judgedCalled, judged ? 100 * judgedCalled / judged : 0, steady, same, steady ? 100 * same / steady : 0, median, tail >> logfile
        }' "$csv"
    echo "trials: per-cell verdicts in $csv, the log in $out/aa.csv"
}

slowdown() {
    local trials=${positional[0]:-10} rounds=${positional[1]:-2} scenario=${positional[2]:-Scenarios/concurrency.yaml}
    local share=${SHARE:-0.10} threshold=${THRESHOLD:-5%}
    build
    [ -s "$out/slowdown.csv" ] || echo "trial,current_side,started_utc,load_before,scenario,rounds,cpu_pairs,cpu_ratio,cpu_low,cpu_high,cpu_verdict,wall_ratio,wall_low,wall_high,wall_verdict,exit,run_options" >"$out/slowdown.csv"
    local first; first=$(( $(count "$out/slowdown-*-${SIDES%% *}/") + 1 ))
    for ((trial = first; trial < first + trials; trial++)); do
        for side in ${SIDES:-slowed unchanged}; do
            local runs="$out/slowdown-$trial-$side" started before status=0 hook=()
            started=$(date -u +%FT%TZ); before=$(load)
            [ "$side" = slowed ] && hook=(--current-env "STACKLAB_TEST_IMPORT_SLOWDOWN=$share")
            note_load
            echo "trials: slowdown trial $trial, $side: $rounds rounds of $scenario ${run_options[*]:-}"
            "$current" compare --paired "$base" "$current" "$scenario" --rounds "$rounds" --threshold "$threshold" \
                --pool cpu_ms --pool wall_ms --runs "$runs" ${hook[@]+"${hook[@]}"} \
                ${run_options[@]+"${run_options[@]}"} >"$runs.txt" || status=$?
            [ $status -le 1 ] || { echo "trials: compare --paired failed (exit $status)" >&2; exit 2; }
            local cpu wall
            cpu=$(fields "$runs/pooled.csv" cpu_ms baseline_n ratio ratio_low ratio_high verdict)
            wall=$(fields "$runs/pooled.csv" wall_ms ratio ratio_low ratio_high verdict)
            local label; label=$([ "$side" = slowed ] && echo "slowed down $share (test hook)" || echo unchanged)
            echo "$trial,$label,$started,$before,$scenario,$rounds,$cpu,$wall,$status,${run_options[*]:-}" >>"$out/slowdown.csv"
            echo "trials: pooled cpu_ms pairs,ratio,low,high,verdict: $cpu; wall_ms: $wall"
        done
    done
    awk -F, 'NR > 1 { n[$2]++; if ($11 == "slower") cpu[$2]++; if ($15 == "slower") wall[$2]++ }
        END { for (side in n) printf "trials: %s: pooled CPU time slower in %d of %d, wall time in %d of %d\n", side, cpu[side], n[side], wall[side], n[side] }' \
        "$out/slowdown.csv"
}

blocks() {
    local trial=${positional[0]:-} size=${positional[1]:-2} threshold=${THRESHOLD:-5%}
    local folder="$out/aa-$trial"
    [ -n "$trial" ] && [ -s "$folder/base.csv" ] && [ -s "$folder/current.csv" ] \
        || { echo "trials: no paired CSVs in $folder" >&2; exit 2; }
    build_release
    local blocks="$out/blocks-$trial" rounds
    rm -rf "$blocks"; mkdir -p "$blocks"
    rounds=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { r = $col["repetition"] + 0; if (r > most) most = r } END { print most + 0 }' "$folder/base.csv")
    [ -s "$out/blocks.csv" ] || echo "aa_trial,block,rounds,cpu_pairs,cpu_ratio,cpu_low,cpu_high,cpu_verdict,wall_ratio,wall_low,wall_high,wall_verdict,exit" >"$out/blocks.csv"
    # The blocks are recomputed whole, so an earlier reading of this trial's blocks leaves the log (else the count
    # below would add them up twice).
    awk -F, -v trial="$trial" 'NR == 1 || $1 != trial' "$out/blocks.csv" >"$out/blocks.csv.new" && mv "$out/blocks.csv.new" "$out/blocks.csv"
    for ((block = 1; (block - 1) * size < rounds; block++)); do
        local low=$(( (block - 1) * size + 1 )) high=$(( block * size )) status=0
        [ $high -le "$rounds" ] || break
        for side in base current; do
            awk -F, -v low=$low -v high=$high 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print; next }
                { r = $col["repetition"] + 0; if (r >= low && r <= high) print }' "$folder/$side.csv" >"$blocks/$side-$block.csv"
            cp "$folder/$side.env.json" "$blocks/$side-$block.env.json"
        done
        .build/release/stacklab compare --paired "$blocks/base-$block.csv" "$blocks/current-$block.csv" \
            --threshold "$threshold" --pool cpu_ms --pool wall_ms --out "$blocks/comparison-$block.csv" \
            --pooled-out "$blocks/pooled-$block.csv" >"$blocks/block-$block.txt" 2>&1 || status=$?
        [ $status -le 1 ] || { echo "trials: compare --paired failed (exit $status); see $blocks/block-$block.txt" >&2; exit 2; }
        local cpu wall
        cpu=$(fields "$blocks/pooled-$block.csv" cpu_ms baseline_n ratio ratio_low ratio_high verdict)
        wall=$(fields "$blocks/pooled-$block.csv" wall_ms ratio ratio_low ratio_high verdict)
        echo "$trial,$block,$low-$high,$cpu,$wall,$status" >>"$out/blocks.csv"
        echo "trials: A/A $trial, block $block (rounds $low-$high): pooled cpu_ms pairs,ratio,low,high,verdict: $cpu; wall_ms: $wall"
    done
    awk -F, -v trial="$trial" '$1 == trial { n++; if ($8 == "slower") cpu++; if ($12 == "slower") wall++ }
        END { printf "trials: A/A %s in blocks: pooled CPU time slower in %d of %d, wall time in %d of %d\n", trial, cpu, n, wall, n }' \
        "$out/blocks.csv"
}

budget() {
    local scenario=${positional[0]:-Scenarios/concurrency.yaml} name
    name=$(basename "$scenario" .yaml)
    echo "trials: building the working tree in release mode"
    build_release
    note_load
    local start end
    start=$(date +%s)
    .build/release/stacklab run "$scenario" --out "$out/budget" ${run_options[@]+"${run_options[@]}"} >"$out/budget.txt" || true
    end=$(date +%s)
    local sidecar="results/baselines/$name.env.json" before=""
    if [ -f "$sidecar" ]; then
        local s f
        s=$(sed -n 's/.*"started" : "\(.*\)".*/\1/p' "$sidecar"); f=$(sed -n 's/.*"finished" : "\(.*\)".*/\1/p' "$sidecar")
        before=$(( $(date -d "$f" +%s) - $(date -d "$s" +%s) ))
    fi
    local rounds; rounds=$(sed -n 's/.*"rounds" : \([0-9]*\).*/\1/p' "$out/budget/$name.env.json")
    echo "trials: $scenario took $((end - start)) s (the most rounds a cell got: ${rounds:-?}); the committed baseline took ${before:-?} s, twice that is ${before:+$((2 * before))} s"
    [ -s "$out/budget.csv" ] || echo "started_epoch,scenario,seconds,rounds,baseline_seconds,load_after,run_options" >"$out/budget.csv"
    echo "$start,$scenario,$((end - start)),${rounds:-},${before:-},$(load),${run_options[*]:-}" >>"$out/budget.csv"
}

gate() {
    local trials=${positional[0]:-10} repetitions=${positional[1]:-10}
    [ -s "$out/gate.csv" ] || echo "trial,current_side,started_utc,load_before,gate_exit,cpu_change_pct,cpu_low_pct,cpu_high_pct,cpu_p,cpu_interval_verdict" >"$out/gate.csv"
    for ((trial = 1; trial <= trials; trial++)); do
        for side in slowed unchanged; do
            local started before status=0
            started=$(date -u +%FT%TZ); before=$(load)
            note_load
            echo "trials: gate trial $trial, $side"
            if [ "$side" = slowed ]; then
                GATE_INJECT_SLOWDOWN=0.10 bash scripts/startup-gate.sh HEAD "$repetitions" >"$out/gate-$trial-$side.txt" 2>&1 || status=$?
            else
                bash scripts/startup-gate.sh HEAD "$repetitions" >"$out/gate-$trial-$side.txt" 2>&1 || status=$?
            fi
            [ $status -le 1 ] || { echo "trials: the gate failed (exit $status)" >&2; exit 2; }
            local cpu
            cpu=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                $col["metric"] == "cpu_ms" { print $col["pooled_change_pct"] "," $col["change_low_pct"] "," $col["change_high_pct"] "," $col["p_value"] "," $col["interval_verdict"] }' results/gate/pooled.csv)
            echo "$trial,$([ "$side" = slowed ] && echo 'slowed down 10% (test hook)' || echo unchanged),$started,$before,$status,$cpu" >>"$out/gate.csv"
            echo "trials: gate exit $status; pooled cpu_ms change,low,high,p,interval: $cpu"
        done
    done
    awk -F, 'NR > 1 { n[$2]++; if ($5 == 1) failed[$2]++ }
        END { for (side in n) printf "trials: %s: the gate failed %d of %d\n", side, failed[side], n[side] }' "$out/gate.csv"
}

case "$kind" in
aa) aa ;;
gate) gate ;;
slowdown) slowdown ;;
budget) budget ;;
blocks) blocks ;;
*) usage ;;
esac
