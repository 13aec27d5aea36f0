#!/usr/bin/env python3
"""Pooled verdict of scripts/startup-gate.sh: did the startup path as a whole get slower?

Usage: gate_pool.py verdict BASE_CSV CURRENT_CSV [--metric M]... [--threshold 5%] [--alpha 0.01] [--out FILE]

A change to the startup path slows every cell a little; per cell, a few noisy launches a side cannot tell
10% from noise, but all cells together can. The gate runs base and current one repetition at a time,
alternating, so the k-th launch of a cell on each side ran side by side; each such pair gives one log
ratio log(current / base). Per metric, over every pair of every cell:
  - the estimate is the median log ratio, as a percentage (exp(median) - 1);
  - a one-sided Wilcoxon signed-rank test (scipy) asks whether the ratios lean towards slower.
A metric regressed when the estimate is at least the threshold and p < alpha. Exit status: 0 no
regression, 1 a regression, 2 bad input. Writes one CSV row per metric (--out) and prints a table.
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

from scipy.stats import wilcoxon

CELL_COLUMNS = ["store", "objects", "app_version", "migration", "mode"]


def read(path):
    try:
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        print(f"gate_pool: cannot read {path}: {error}", file=sys.stderr)
        sys.exit(2)
    if not rows:
        print(f"gate_pool: {path} has no rows", file=sys.stderr)
        sys.exit(2)
    return rows


def by_cell(rows, metric):
    """The metric's values per cell, in the order of the file (repetition order)."""
    cells = defaultdict(list)
    for row in rows:
        if row.get("error"):
            continue
        key = tuple(row.get(column, "") for column in CELL_COLUMNS)
        text = row.get(metric, "")
        if text == "":
            continue
        cells[key].append(float(text))
    return cells


def pooled(base_rows, current_rows, metric):
    base, current = by_cell(base_rows, metric), by_cell(current_rows, metric)
    ratios = []
    for key, before in base.items():
        after = current.get(key, [])
        ratios += [math.log(c / b) for b, c in zip(before, after) if b > 0 and c > 0]
    if not ratios:
        return None
    ratios.sort()
    middle = len(ratios) // 2
    median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
    p_value = wilcoxon(ratios, alternative="greater").pvalue if any(r != 0 for r in ratios) else 1.0
    return len(ratios), math.exp(median) - 1, p_value


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "verdict":
        del sys.argv[1]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("current")
    parser.add_argument("--metric", action="append", default=[])
    parser.add_argument("--threshold", default="5%")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--out")
    args = parser.parse_args()
    try:
        threshold = float(args.threshold.rstrip("%")) / 100
    except ValueError:
        print(f"gate_pool: threshold '{args.threshold}' is not a percentage such as 5%", file=sys.stderr)
        sys.exit(2)
    metrics = args.metric or ["cpu_ms", "time_to_first_frame_ms", "time_to_first_screen_ms"]
    base_rows, current_rows = read(args.base), read(args.current)
    results, regressed = [], False
    for metric in metrics:
        if metric not in base_rows[0] or metric not in current_rows[0]:
            print(f"gate_pool: no column {metric}", file=sys.stderr)
            sys.exit(2)
        found = pooled(base_rows, current_rows, metric)
        if found is None:
            print(f"gate_pool: no pairs of {metric} to compare", file=sys.stderr)
            sys.exit(2)
        pairs, change, p_value = found
        verdict = "regressed" if change >= threshold and p_value < args.alpha else "unchanged"
        regressed |= verdict == "regressed"
        results.append([metric, pairs, f"{change * 100:+.1f}", f"{p_value:.4f}", verdict, f"{threshold * 100:g}",
                        f"{args.alpha:g}"])
    header = ["metric", "pairs", "pooled_change_pct", "p_value", "verdict", "threshold_pct", "alpha"]
    widths = [max(len(str(row[i])) for row in [header] + results) for i in range(len(header))]
    for row in [header] + results:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
    if args.out:
        with open(args.out, "w", newline="") as handle:
            csv.writer(handle).writerows([header] + results)
    sys.exit(1 if regressed else 0)


if __name__ == "__main__":
    main()
