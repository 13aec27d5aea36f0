#!/usr/bin/env python3
"""StackLab result CSVs as PNG and SVG charts.

Usage:
    pip install -r scripts/requirements.txt        # matplotlib, once
    python3 scripts/plot.py RESULT.csv... [--out DIR] [--kind KIND] [--format png,svg] [--env FILE.env.json]
                                          [--metric NAME]...

Each CSV becomes DIR/NAME.png and DIR/NAME.svg (NAME is the CSV's file name without `.csv`; DIR is --out,
by default the CSV's own folder). The kind of chart follows from the columns (--kind forces one):

    concurrency  a lab CSV with `store` and `strategy` (workloads import, read-write-mix, save-chain; e.g.
                 Scenarios/concurrency.yaml, quick.yaml): main-thread longest stall and throughput per strategy,
                 grouped by store, the median as the bar, each repetition as a dot, min-max as a whisker.
    merge-cost   Scenarios/merge-cost.yaml: time per merge against registered objects and against changes
                 saved, log axes, one line per strategy.
    startup      Scenarios/startup.yaml: time to first screen (and longest main-thread stall) against store
                 size, one line per mode, the watchdog deadline drawn as a line, killed launches marked.
    compare      `stacklab compare BASE.csv CUR.csv --out CMP.csv`: the relative change of the medians per cell
                 and metric, the threshold band shaded, bars coloured by verdict (--metric picks the metrics).

The footer names the machine and the commit from the `NAME.env.json` the lab writes beside each CSV (or
--env). A failed run (an error cell) is drawn as a gap marked "failed"; it never stops the chart.
Exit status: 0 when every chart was written, 2 when an input could not be charted (the reason is printed).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display on CI or over ssh
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# Every column the charts read, by role, with the names it may have: the first name present wins. Columns
# not yet settled (the startup scenario's) list their likely alternatives so a rename is one edit here.
COLUMNS: dict[str, tuple[str, ...]] = {
    # identifying columns of every lab CSV (results/README.md)
    "scenario": ("scenario",),
    "workload": ("workload",),
    "store": ("store",),
    "strategy": ("strategy",),
    "repetition": ("repetition",),
    "run_id": ("run_id",),
    "timestamp": ("timestamp",),
    "error": ("error",),
    # concurrency (import, read-write-mix and save-chain workloads)
    "stall": ("main_max_stall_ms",),
    "throughput": ("objects_per_s",),
    "wall": ("wall_ms",),
    # the import's phases (results/README.md, "The import phases"): they add up to wall_ms
    "service_wait": ("service_wait_ms",),
    "decode": ("decode_ms",),
    "queue_wait": ("queue_wait_ms",),
    "find_or_create": ("find_or_create_ms",),
    "save": ("save_ms",),
    "merge_wait": ("merge_wait_ms",),
    "fetch_total": ("fetch_total_ms",),
    "cpu": ("cpu_ms",),
    # merge-cost
    "registered": ("registered", "registered_objects"),
    "changes": ("changes", "change_count"),
    "merge_total": ("merge_total_ms",),
    "merges": ("merges",),
    # startup
    "store_size": ("objects", "store_objects", "pods", "store_size"),
    "mode": ("mode", "load_mode", "loading"),
    "migration": ("migration", "app_version"),
    "first_frame": ("time_to_first_frame_ms", "first_frame_ms"),
    "first_screen": ("time_to_first_screen_ms", "first_screen_ms"),
    "killed": ("killed_by_watchdog", "killed"),
    "deadline": ("deadline_ms", "watchdog_deadline_ms", "watchdog_ms"),
    # compare output (Sources/StackLab/Compare/ComparisonReport.swift)
    "metric": ("metric",),
    "change_pct": ("change_pct",),
    "verdict": ("verdict",),
    "better": ("better",),
    "threshold_pct": ("threshold_pct",),
    "baseline_median": ("baseline_median",),
    "current_median": ("current_median",),
    "note": ("note",),
}

KINDS = ("concurrency", "merge-cost", "startup", "compare")

# One colour per strategy, mode and verdict, the same on every chart.
STRATEGY_COLOURS = {
    "main-only": "#7f7f7f",
    "shared-coordinator": "#1f77b4",
    "separate-stacks": "#ff7f0e",
    "nested-contexts": "#2ca02c",
}
EXTRA_COLOURS = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
MODE_COLOURS = {"sync": "#d62728", "async": "#1f77b4"}
VERDICT_COLOURS = {
    "improved": "#2ca02c",
    "regressed": "#d62728",
    "unchanged": "#9e9e9e",
    "inconclusive": "#f2a93b",
    "changed": "#1f77b4",
}
FAILED_COLOUR = "#d62728"

# Compare charts show these metrics by default (those present); counts such as `objects` say nothing of speed.
HEADLINE_METRICS = (
    "main_max_stall_ms", "main_hitch_ms_per_s", "objects_per_s", "wall_ms", "fetch_p99_ms", "merge_total_ms",
    "time_to_first_screen_ms", "time_to_first_frame_ms", "peak_rss_mb",
)
COUNT_METRICS = {"objects", "fetches", "merges", "stored_objects", "deadline_ms", "killed_by_watchdog"}

# The importer's phases, in timeline order, with their colours; main-queue work is drawn beside them.
PHASES = (
    ("service_wait", "waiting for the web service", "#c7c7c7"),
    ("decode", "decoding", "#bcbd22"),
    ("queue_wait", "waiting for a queue", "#f2a93b"),
    ("find_or_create", "find-or-create", "#1f77b4"),
    ("save", "saving", "#d62728"),
    ("merge_wait", "waiting for the merges", "#9467bd"),
)
# The two designs whose crossing the concurrency chart marks (README, Concurrency).
CROSSING_PAIR = ("shared-coordinator", "separate-stacks")

# Axis labels: what the number is, its unit, and which way is better.
LABELS = {
    "stall": "longest main-thread stall (ms) — lower is better",
    "throughput": "throughput (objects/s) — higher is better",
    "import_throughput": "import throughput (objects/s) — higher is better",
    "merge_time": "main-thread time per merge (ms)",
    "registered": "objects registered in the main context",
    "changes": "changes per merged save",
    "store_size": "objects in the store",
    "first_frame": "time to first frame (ms)",
    "first_screen": "time to first screen (ms)",
    "startup_stall": "longest main-thread stall (ms)",
    "change": "change of the median vs baseline (%)",
}

plt.rcParams.update({
    "svg.fonttype": "none",  # keep text as text: smaller SVGs, searchable labels
    "svg.hashsalt": "stacklab",  # stable ids, so a re-plot of the same data gives the same file
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
})


class PlotError(Exception):
    """An input that cannot be charted; the message says which file and why."""


@dataclass
class ResultTable:
    """A result CSV: header and rows as text, with column lookup by role (see COLUMNS)."""

    path: Path
    header: list[str]
    rows: list[list[str]]

    @classmethod
    def read(cls, path: Path) -> "ResultTable":
        try:
            with path.open(newline="", encoding="utf-8") as handle:
                lines = [row for row in csv.reader(handle)]
        except OSError as error:
            raise PlotError(f"{path}: cannot read: {error.strerror or error}") from error
        except (UnicodeDecodeError, csv.Error) as error:
            raise PlotError(f"{path}: not a CSV file: {error}") from error
        if not lines or not any(cell.strip() for cell in lines[0]):
            raise PlotError(f"{path}: empty file, expected a header row")
        header, rows = lines[0], []
        for number, row in enumerate(lines[1:], start=2):
            if not row or row == [""]:
                continue
            if len(row) != len(header):
                raise PlotError(f"{path}, line {number}: {len(row)} fields where the header has {len(header)}")
            rows.append(row)
        if not rows:
            raise PlotError(f"{path}: no rows after the header")
        return cls(path, header, rows)

    @property
    def identifying_end(self) -> int:
        """Index of the first metric column: after `timestamp` in lab CSVs (metric names may repeat a matrix
        parameter's, e.g. `objects`), else after `metric` in compare output, else the whole row."""
        for name in ("timestamp", "metric"):
            if name in self.header:
                return self.header.index(name) + 1
        return 0

    def index(self, role: str, part: str = "any") -> int | None:
        """The column of `role`, or None. `part` is "id" (identifying columns only), "metric" or "any"
        (identifying first): with a duplicated name the part decides which one is meant."""
        end = self.identifying_end
        spans = {"id": [(0, end)], "metric": [(end, len(self.header))], "any": [(0, end), (end, len(self.header))]}
        for start, stop in spans[part]:
            for name in COLUMNS[role]:
                for position in range(start, stop):
                    if self.header[position] == name:
                        return position
        return None

    def has(self, role: str, part: str = "any") -> bool:
        return self.index(role, part) is not None

    def require(self, role: str, kind: str, part: str = "any") -> int:
        position = self.index(role, part)
        if position is None:
            names = " or ".join(f"`{name}`" for name in COLUMNS[role])
            raise PlotError(f"{self.path}: a {kind} chart needs a {names} column; the header has: "
                            + ", ".join(self.header))
        return position

    def text(self, row: list[str], role: str, part: str = "any") -> str:
        position = self.index(role, part)
        return "" if position is None else row[position].strip()

    def number(self, row: list[str], role: str, part: str = "any") -> float | None:
        """The cell as a number; None when empty or not a number (a failed run's cells are empty)."""
        text = self.text(row, role, part)
        if text.lower() in ("true", "false"):
            return 1.0 if text.lower() == "true" else 0.0
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) else None

    def failed(self, row: list[str]) -> bool:
        return bool(self.text(row, "error"))

    def distinct(self, role: str, part: str = "any") -> list[str]:
        """The values of a column in first-seen order."""
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.setdefault(self.text(row, role, part), None)
        return list(seen)

    def matrix_columns(self) -> list[str]:
        """The matrix parameters of a lab CSV: the columns between `strategy` and `repetition`."""
        if "strategy" in self.header and "repetition" in self.header:
            return self.header[self.header.index("strategy") + 1:self.header.index("repetition")]
        return []

    def column_values(self, row: list[str], name: str) -> str:
        """A matrix parameter's value (identifying part, since metric columns may share its name)."""
        return row[self.header.index(name)].strip()


@dataclass
class Environment:
    """The `NAME.env.json` sidecar the lab writes beside a CSV (Sources/StackLab/Output/EnvironmentRecord.swift)."""

    values: dict = field(default_factory=dict)
    source: Path | None = None

    @classmethod
    def beside(cls, csv_path: Path, explicit: Path | None) -> "Environment":
        path = explicit or csv_path.with_name(csv_path.name.removesuffix(".csv") + ".env.json")
        if not path.exists():
            if explicit:
                raise PlotError(f"{explicit}: no such environment file")
            return cls()
        try:
            values = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise PlotError(f"{path}: not an environment record: {error}") from error
        if not isinstance(values, dict):
            raise PlotError(f"{path}: not an environment record: expected a JSON object")
        return cls(values, path)

    def footer(self, csv_path: Path) -> str:
        """Which file, machine, commit and toolchain produced the chart, in one or two short lines."""
        if not self.values:
            return f"{csv_path.name} · machine and commit unknown (no {csv_path.stem}.env.json beside it)"
        get = self.values.get
        commit = str(get("git_commit", "unknown"))
        dirty = commit.endswith("+dirty")
        commit = commit.removesuffix("+dirty")[:10] + (" (uncommitted changes)" if dirty else "")
        machine = [str(get("host", "unknown host"))]
        if get("cores"):
            machine.append(f"{get('cores')} cores")
        if get("memory_bytes"):
            machine.append(f"{float(get('memory_bytes')) / 2**30:.0f} GiB")
        if get("os"):
            machine.append(str(get("os")))
        run = [f"{get('repetitions', '?')} repetition{'s' if get('repetitions') != 1 else ''}"]
        if get("warmup"):
            run.append(f"{get('warmup')} warm-up")
        if get("quick"):
            run.append("--quick (shrunk counts)")
        started = str(get("started", ""))[:16].replace("T", " ")
        tools = ", ".join(f"{name} {get(key)}" for name, key in
                          (("Swift", "swift"), ("SQLite", "sqlite"), ("LMDB", "lmdb")) if get(key))
        first = f"{csv_path.name} · commit {commit} · {started} UTC · " + ", ".join(run)
        second = "machine: " + ", ".join(machine) + (f" · {tools}" if tools else "")
        return first + "\n" + second

    @property
    def parameters(self) -> dict:
        parameters = self.values.get("parameters")
        return parameters if isinstance(parameters, dict) else {}


def detect_kind(table: ResultTable) -> str:
    """The chart kind from the columns and the workload column."""
    if table.has("verdict") and table.has("change_pct"):
        return "compare"
    workloads = set(table.distinct("workload")) if table.has("workload") else set()
    # The lab writes every metric column for every workload (empty where it does not apply), so the workload
    # decides when there is one; the columns only for files without it.
    if workloads:
        if workloads == {"startup"}:
            return "startup"
        if workloads == {"merge-cost"}:
            return "merge-cost"
    elif table.has("first_screen"):
        return "startup"
    elif table.has("registered") and table.has("changes") and table.has("merge_total"):
        return "merge-cost"
    if table.has("store") and table.has("strategy") and (table.has("stall") or table.has("throughput")):
        return "concurrency"
    raise PlotError(f"{table.path}: cannot tell the kind of chart from the columns ({', '.join(table.header[:8])}…); "
                    f"pass --kind {'|'.join(KINDS)}")


def colour_for(name: str, palette: dict[str, str], order: list[str]) -> str:
    if name in palette:
        return palette[name]
    extras = [value for value in order if value not in palette]
    return EXTRA_COLOURS[extras.index(name) % len(EXTRA_COLOURS)] if name in extras else EXTRA_COLOURS[0]


def short_number(value: float) -> str:
    """1234 → 1.23k, 0.0421 → 0.042: bar labels that fit."""
    magnitude = abs(value)
    if magnitude >= 1e6:
        return f"{value / 1e6:.3g}M"
    if magnitude >= 1e4:
        return f"{value / 1e3:.3g}k"
    if magnitude >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def label_log_axis(axis, which: str, values: list[float]) -> None:
    """Log-axis ticks as plain numbers (1k, 10k, 0.5): minor ticks labelled too when the data spans under two
    decades, so a narrow range still has numbers on it."""
    ticks = axis.xaxis if which == "x" else axis.yaxis
    ticks.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: short_number(value)))
    positive = [value for value in values if value > 0]
    narrow = bool(positive) and math.log10(max(positive) / min(positive)) < 2
    ticks.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: short_number(value)) if narrow
                              else matplotlib.ticker.NullFormatter())


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def finish(figure, footer: str, out: Path, stem: str, formats: list[str]) -> list[Path]:
    """Adds the provenance footer and writes one file per format."""
    figure.text(0.01, 0.005, footer, fontsize=7.5, color="0.35", va="bottom", ha="left", linespacing=1.4)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for extension in formats:
        path = out / f"{stem}.{extension}"
        metadata = {"Date": None} if extension == "svg" else {"Software": None}
        figure.savefig(path, dpi=110, metadata=metadata)
        written.append(path)
    plt.close(figure)
    return written


# Concurrency -----------------------------------------------------------------------------------------------


@dataclass
class CellRuns:
    """The runs of one matrix cell for one metric: values of the runs that finished, and how many failed."""

    values: list[float] = field(default_factory=list)
    failed: int = 0
    total: int = 0

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None


def plot_concurrency(table: ResultTable, env: Environment, footer: str, out: Path, stem: str,
                     formats: list[str]) -> list[Path]:
    """Grouped bars: one group per store (and any other matrix parameter), one bar per strategy."""
    for role in ("store", "strategy"):
        table.require(role, "concurrency", part="id")
    panels = [role for role in ("stall", "throughput") if table.has(role, part="metric")]
    if not panels:
        table.require("stall", "concurrency", part="metric")
    extra = [name for name in table.matrix_columns() if len({table.column_values(r, name) for r in table.rows}) > 1]
    strategies = table.distinct("strategy", "id")
    axis_name = numeric_axis(table, extra)
    if axis_name is not None and "stall" in panels:
        return plot_concurrency_axis(table, env, footer, out, stem, formats, axis_name)

    def group_key(row: list[str]) -> tuple[str, ...]:
        return (table.text(row, "store", "id"),) + tuple(f"{name}={table.column_values(row, name)}" for name in extra)

    groups: dict[tuple[str, ...], None] = {}
    for row in table.rows:
        groups.setdefault(group_key(row), None)
    group_keys = list(groups)

    runs: dict[tuple[str, tuple[str, ...], str], CellRuns] = {}
    for row in table.rows:
        for role in panels:
            cell = runs.setdefault((role, group_key(row), table.text(row, "strategy", "id")), CellRuns())
            cell.total += 1
            value = table.number(row, role, "metric")
            if table.failed(row):
                cell.failed += 1
            elif value is not None:
                cell.values.append(value)

    workloads = table.distinct("workload") if table.has("workload") else []
    throughput_label = LABELS["import_throughput"] if workloads == ["import"] else LABELS["throughput"]
    width = max(7.0, 1.1 + 0.42 * len(group_keys) * max(1, len(strategies))) * len(panels)
    figure, axes = plt.subplots(1, len(panels), figsize=(min(width, 16), 5.6), squeeze=False)
    bar_width = 0.8 / max(1, len(strategies))
    for axis, role in zip(axes[0], panels):
        tops = [max(cell.values) for (r, _, _), cell in runs.items() if r == role and cell.values]
        ceiling = max(tops) if tops else 1.0
        for s_index, strategy in enumerate(strategies):
            colour = colour_for(strategy, STRATEGY_COLOURS, strategies)
            for g_index, key in enumerate(group_keys):
                cell = runs.get((role, key, strategy))
                if cell is None:
                    continue  # the scenario did not run this combination
                x = g_index + (s_index - (len(strategies) - 1) / 2) * bar_width
                median = cell.median
                if median is not None:
                    axis.bar(x, median, bar_width * 0.92, color=colour, alpha=0.85, zorder=2)
                    low, high = min(cell.values), max(cell.values)
                    axis.errorbar(x, median, yerr=[[median - low], [high - median]], fmt="none",
                                  ecolor="0.15", capsize=3, linewidth=1, zorder=3)
                    axis.scatter([x] * len(cell.values), cell.values, s=9, color="0.1", zorder=4)
                    label = short_number(median)
                    if cell.failed:
                        label += f"\n{cell.failed}/{cell.total} failed"
                    axis.annotate(label, (x, high), xytext=(0, 3), textcoords="offset points", ha="center",
                                  va="bottom", fontsize=7, color=FAILED_COLOUR if cell.failed else "0.2")
                else:
                    # No value to draw: show the gap and say why.
                    reason = f"failed\n{cell.failed}/{cell.total}" if cell.failed else "n/a"
                    axis.bar(x, ceiling * 0.12, bar_width * 0.92, fill=False, hatch="///",
                             edgecolor=FAILED_COLOUR if cell.failed else "0.6", linewidth=0.8, zorder=2)
                    axis.annotate(reason, (x, ceiling * 0.12), xytext=(0, 3), textcoords="offset points",
                                  ha="center", va="bottom", fontsize=7,
                                  color=FAILED_COLOUR if cell.failed else "0.4")
        axis.set_xticks(range(len(group_keys)))
        axis.set_xticklabels(["\n".join(key) for key in group_keys])
        axis.set_xlabel("store" + (" and " + ", ".join(extra) if extra else ""))
        axis.set_ylabel(LABELS["stall"] if role == "stall" else throughput_label)
        axis.set_ylim(0, ceiling * 1.18)
        axis.grid(axis="x", visible=False)
        axis.set_title("Longest main-thread stall" if role == "stall" else "Throughput")

    handles = [Patch(color=colour_for(s, STRATEGY_COLOURS, strategies), alpha=0.85, label=s) for s in strategies]
    handles.append(Line2D([], [], color="0.1", marker="o", linestyle="-", markersize=3,
                          label="each repetition; whisker min–max"))
    figure.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False,
                  bbox_to_anchor=(0.5, 0.93), fontsize=9)
    figure.suptitle(title_for(table, env, "by stack design and store (bar: median)"), y=0.99)
    figure.tight_layout(rect=(0, 0.07, 1, 0.9))
    return finish(figure, footer, out, stem, formats)


def numeric_axis(table: ResultTable, extra: list[str]) -> str | None:
    """The one varying matrix parameter, when it is a number with three values or more (such as batch_size):
    the concurrency chart then draws each metric against it."""
    if len(extra) != 1:
        return None
    try:
        values = {float(table.column_values(row, extra[0])) for row in table.rows}
    except ValueError:
        return None
    return extra[0] if len(values) >= 3 else None


def axis_cells(table: ResultTable, axis_name: str, role: str) -> dict[tuple[str, str, float], CellRuns]:
    """(store, strategy, axis value) → the runs' values of `role`."""
    cells: dict[tuple[str, str, float], CellRuns] = {}
    for row in table.rows:
        key = (table.text(row, "store", "id"), table.text(row, "strategy", "id"),
               float(table.column_values(row, axis_name)))
        cell = cells.setdefault(key, CellRuns())
        cell.total += 1
        value = table.number(row, role, "metric") if table.has(role, "metric") else None
        if table.failed(row):
            cell.failed += 1
        elif value is not None:
            cell.values.append(value)
    return cells


def verdict(first: CellRuns | None, second: CellRuns | None) -> str | None:
    """"first" or "second" when that design's runs all did better (lower) than every run of the other — the
    min–max ranges do not overlap, so the machine's noise cannot explain it — "level" otherwise; None when a
    cell has no value."""
    if first is None or second is None or not first.values or not second.values:
        return None
    if max(first.values) < min(second.values):
        return "first"
    if max(second.values) < min(first.values):
        return "second"
    return "level"


def crossing(cells: dict[tuple[str, str, float], CellRuns], store: str, xs: list[float],
             pair: tuple[str, str] = CROSSING_PAIR) -> tuple[str, float | None]:
    """Where the second design of `pair` starts to beat the first clearly (see `verdict`) on `store`, with the
    first never clearly ahead at a larger axis value: ("from", x), ("everywhere", smallest x) when it already
    does at the smallest, ("nowhere", None), or ("n/a", None) when a cell has no value."""
    verdicts = [verdict(cells.get((store, pair[0], x)), cells.get((store, pair[1], x))) for x in xs]
    if None in verdicts:
        return "n/a", None
    last_first = max((index for index, v in enumerate(verdicts) if v == "first"), default=-1)
    after = [index for index, v in enumerate(verdicts) if v == "second" and index > last_first]
    if not after:
        return "nowhere", None
    return ("everywhere" if after[0] == 0 else "from"), xs[after[0]]


def crossing_text(kind: str, x: float | None, axis_name: str) -> str:
    first, second = (name.split("-")[0] for name in CROSSING_PAIR)
    if kind == "from":
        return f"{second} clearly < {first} from {axis_name} {short_number(x)}"
    if kind == "everywhere":
        return f"{second} clearly < {first} already at the smallest {axis_name}"
    if kind == "nowhere":
        return f"no crossing: {second} never clearly < {first} from some size on"
    return "crossing: a cell has no value"


def winners_text(cells: dict[tuple[str, str, float], CellRuns], store: str, xs: list[float],
                 pair: tuple[str, str] = CROSSING_PAIR) -> str:
    """Which design of `pair` is clearly lower at each axis value (see `verdict`), such as
    "clearly lower: separate at 1000, 3000 · level at 100, 10k"."""
    groups: dict[str, list[str]] = {pair[0]: [], pair[1]: [], "level": []}
    for x in xs:
        result = verdict(cells.get((store, pair[0], x)), cells.get((store, pair[1], x)))
        if result is not None:
            groups[{"first": pair[0], "second": pair[1]}.get(result, "level")].append(short_number(x))
    parts = [f"{name.split('-')[0]} at {', '.join(values)}" for name, values in groups.items() if values]
    return "clearly lower: " + " · ".join(parts) if parts else "no runs to compare"


def plot_concurrency_axis(table: ResultTable, env: Environment, footer: str, out: Path, stem: str,
                          formats: list[str], axis_name: str) -> list[Path]:
    """One column per store: the longest stall and the throughput against the axis (log), one line per
    strategy with the crossing of shared coordinator and separate stacks marked, and where each cell's wall
    time went (the importer's phases stacked, the main queue's merges and fetches as a marker)."""
    stores = table.distinct("store", "id")
    strategies = table.distinct("strategy", "id")
    xs = sorted({float(table.column_values(row, axis_name)) for row in table.rows})
    stall = axis_cells(table, axis_name, "stall")
    throughput = axis_cells(table, axis_name, "throughput")
    phases = {role: axis_cells(table, axis_name, role) for role, _, _ in PHASES}
    main_queue = {role: axis_cells(table, axis_name, role) for role in ("merge_total", "fetch_total")}
    has_phases = all(table.has(role, "metric") for role, _, _ in PHASES)
    rows = 3 if has_phases else 2
    figure, axes = plt.subplots(rows, len(stores), figsize=(min(5.4 * len(stores), 17), 4.1 * rows + 1.2),
                                squeeze=False)
    workloads = table.distinct("workload") if table.has("workload") else []
    throughput_label = LABELS["import_throughput"] if workloads == ["import"] else LABELS["throughput"]

    def lines(axis, cells, store: str, log_y: bool) -> None:
        for strategy in strategies:
            points = [(x, cells[(store, strategy, x)]) for x in xs if (store, strategy, x) in cells]
            drawn = [(x, cell) for x, cell in points if cell.median is not None]
            colour = colour_for(strategy, STRATEGY_COLOURS, strategies)
            if drawn:
                axis.plot([x for x, _ in drawn], [cell.median for _, cell in drawn], marker="o", markersize=4,
                          color=colour, linewidth=1.6, label=strategy, zorder=3)
                axis.fill_between([x for x, _ in drawn], [min(cell.values) for _, cell in drawn],
                                  [max(cell.values) for _, cell in drawn], color=colour, alpha=0.13, zorder=2)
            for x, cell in points:
                if cell.failed:
                    axis.annotate(f"failed {cell.failed}/{cell.total}", (x, cell.median or 1), fontsize=7,
                                  color=FAILED_COLOUR, ha="center", va="bottom")
        axis.set_xscale("log")
        axis.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        axis.set_xticks(xs)
        axis.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: short_number(value)))
        if log_y:
            axis.set_yscale("log")
            label_log_axis(axis, "y", [v for cell in cells.values() for v in cell.values])
        axis.set_xlabel(axis_name + " (log)")

    for column, store in enumerate(stores):
        axis = axes[0][column]
        lines(axis, stall, store, log_y=True)
        kind, x = crossing(stall, store, xs)
        if x is not None and kind == "from":
            axis.axvline(x, color="0.3", linestyle=":", linewidth=1, zorder=1)
        axis.set_title(f"{store}: longest main-thread stall\n{crossing_text(kind, x, axis_name)}\n"
                       f"{winners_text(stall, store, xs)}", fontsize=9)
        if column == 0:
            axis.set_ylabel(LABELS["stall"].replace(" (ms)", " (ms, log)"))
        axis = axes[1][column]
        lines(axis, throughput, store, log_y=False)
        axis.set_ylim(bottom=0)
        axis.set_title(f"{store}: throughput")
        if column == 0:
            axis.set_ylabel(throughput_label)
        if not has_phases:
            continue
        axis = axes[2][column]
        width = 0.8 / max(1, len(strategies))
        ticks, labels = [], []
        for g_index, x in enumerate(xs):
            for s_index, strategy in enumerate(strategies):
                position = g_index + (s_index - (len(strategies) - 1) / 2) * width
                bottom = 0.0
                for role, _, colour in PHASES:
                    cell = phases[role].get((store, strategy, x))
                    value = cell.median if cell and cell.median is not None else 0.0
                    axis.bar(position, value, width * 0.9, bottom=bottom, color=colour, zorder=2)
                    bottom += value
                busy = sum((main_queue[role].get((store, strategy, x)) or CellRuns()).median or 0.0
                           for role in main_queue)
                axis.scatter([position], [busy], marker="D", s=14, color="black", zorder=4)
                ticks.append(position)
                labels.append(strategy.split("-")[0])
        axis.set_xticks(ticks)
        axis.set_xticklabels(labels, rotation=90, fontsize=7)
        for g_index, x in enumerate(xs):
            axis.annotate(f"{axis_name} {short_number(x)}", (g_index, 0), xytext=(0, -52), textcoords="offset points",
                          ha="center", va="top", fontsize=8, annotation_clip=False)
        axis.grid(axis="x", visible=False)
        axis.set_title(f"{store}: where the wall time went (medians)")
        if column == 0:
            axis.set_ylabel("importer's phases, stacked (ms) = wall time")
    handles = [Line2D([], [], color=colour_for(s, STRATEGY_COLOURS, strategies), marker="o", markersize=4, label=s)
               for s in strategies]
    figure.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False,
                  bbox_to_anchor=(0.5, 0.975), fontsize=9)
    if has_phases:
        handles = [Patch(color=colour, label=label) for _, label, colour in PHASES]
        handles.append(Line2D([], [], color="black", marker="D", linestyle="none", markersize=4,
                              label="main queue: merges + UI fetches (overlaps the phases)"))
        figure.legend(handles=handles, loc="lower center", ncol=4, frameon=False, bbox_to_anchor=(0.5, 0.03),
                      fontsize=8)
    figure.suptitle(title_for(table, env, f"by stack design, store and {axis_name} (line: median, band: min–max)"),
                    y=0.995)
    figure.tight_layout(rect=(0, 0.075 if has_phases else 0.04, 1, 0.955))
    return finish(figure, footer, out, stem, formats)


def title_for(table: ResultTable, env: Environment, what: str) -> str:
    scenario = env.values.get("scenario") or (table.distinct("scenario")[0] if table.has("scenario") else table.path.stem)
    workload = env.values.get("workload") or (table.distinct("workload")[0] if table.has("workload") else "")
    detail = []
    parameters = env.parameters
    if workload == "import" and parameters.get("objects"):
        detail.append(f"import of {int(float(parameters['objects'])):,} pods")
    elif workload and workload != scenario:
        detail.append(f"{workload} workload")
    if env.values.get("quick"):
        detail.append("quick run")
    return f"{scenario}: {what}" + (f" — {', '.join(detail)}" if detail else "")


# Merge cost ------------------------------------------------------------------------------------------------


def plot_merge_cost(table: ResultTable, env: Environment, footer: str, out: Path, stem: str,
                    formats: list[str]) -> list[Path]:
    """Time per merge against registered objects (left) and against changes (right), log-log, per strategy."""
    for role in ("strategy", "registered", "changes"):
        table.require(role, "merge-cost", part="id")
    table.require("merge_total", "merge-cost", part="metric")
    strategies = table.distinct("strategy", "id")

    def as_number(text: str) -> float | None:
        try:
            return float(text)
        except ValueError:
            return None

    cells: dict[tuple[str, float, float], CellRuns] = {}
    for row in table.rows:
        registered = as_number(table.text(row, "registered", "id"))
        changes = as_number(table.text(row, "changes", "id"))
        if registered is None or changes is None:
            raise PlotError(f"{table.path}, run {table.text(row, 'run_id')}: `registered` and `changes` must be numbers")
        cell = cells.setdefault((table.text(row, "strategy", "id"), registered, changes), CellRuns())
        cell.total += 1
        total = table.number(row, "merge_total", "metric")
        merges = table.number(row, "merges", "metric")
        if table.failed(row) or total is None:
            cell.failed += 1 if table.failed(row) else 0
            continue
        cell.values.append(total / merges if merges else total)
    registered_values = sorted({key[1] for key in cells})
    change_values = sorted({key[2] for key in cells})
    positive = [value for cell in cells.values() for value in cell.values if value > 0]

    figure, axes = plt.subplots(1, 2, figsize=(13, 5.6), sharey=True)
    styles = ["-", "--", ":", "-."]
    markers = ["o", "s", "^", "D", "v"]
    panels = (
        (axes[0], 1, 2, change_values, "registered", "changes"),
        (axes[1], 2, 1, registered_values, "changes", "registered"),
    )
    any_failed = False
    for axis, x_index, series_index, series_values, x_role, series_role in panels:
        for strategy in strategies:
            colour = colour_for(strategy, STRATEGY_COLOURS, strategies)
            for s_number, series in enumerate(series_values):
                points = sorted((key[x_index], cell) for key, cell in cells.items()
                                if key[0] == strategy and key[series_index] == series)
                drawn = [(x, cell) for x, cell in points if cell.median is not None and cell.median > 0]
                if drawn:
                    xs = [x for x, _ in drawn]
                    medians = [cell.median for _, cell in drawn]
                    low = [m - min(cell.values) for m, (_, cell) in zip(medians, drawn)]
                    high = [max(cell.values) - m for m, (_, cell) in zip(medians, drawn)]
                    axis.errorbar(xs, medians, yerr=[low, high], color=colour,
                                  linestyle=styles[s_number % len(styles)],
                                  marker=markers[s_number % len(markers)], markersize=5, capsize=3, linewidth=1.5)
                for x, cell in points:
                    if cell.failed or cell.median is None:
                        any_failed = True
                        axis.plot([x], [0.03], marker="x", color=FAILED_COLOUR, markersize=9, mew=2,
                                  transform=axis.get_xaxis_transform(), clip_on=False)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(LABELS[x_role] + " (log)")
        axis.set_xticks(sorted({key[x_index] for key in cells}))
        axis.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: short_number(v)))
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        label_log_axis(axis, "y", positive)
        line_keys = [Line2D([], [], color="0.3", linestyle=styles[i % len(styles)], marker=markers[i % len(markers)],
                            label=f"{series_role} = {short_number(value)}") for i, value in enumerate(series_values)]
        axis.legend(handles=line_keys, loc="upper left", fontsize=8, frameon=False)
        axis.set_title(f"against {LABELS[x_role]}")
    axes[0].set_ylabel(LABELS["merge_time"] + " (log) — lower is better")
    if not positive:
        for axis in axes:
            axis.text(0.5, 0.5, "no run finished", transform=axis.transAxes, ha="center", color=FAILED_COLOUR)
    handles = [Line2D([], [], color=colour_for(s, STRATEGY_COLOURS, strategies), linewidth=3, label=s)
               for s in strategies]
    handles.append(Line2D([], [], color="0.2", marker="o", linestyle="none", label="median; whisker min–max"))
    if any_failed:
        handles.append(Line2D([], [], color=FAILED_COLOUR, marker="x", linestyle="none", mew=2, label="failed run"))
    figure.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False, bbox_to_anchor=(0.5, 0.93),
                  fontsize=9)
    merges = env.parameters.get("merges")
    what = "cost of bringing a background save into the main context"
    if merges:
        what += f" ({merges} merges per run)"
    figure.suptitle(title_for(table, env, what), y=0.99)
    figure.tight_layout(rect=(0, 0.07, 1, 0.9))
    return finish(figure, footer, out, stem, formats)


# Startup ---------------------------------------------------------------------------------------------------


def is_true(text: str) -> bool:
    return text.strip().lower() in ("true", "yes", "1")


def plot_startup(table: ResultTable, env: Environment, footer: str, out: Path, stem: str,
                 formats: list[str]) -> list[Path]:
    """Time to first frame (what the watchdog judges; when the CSV has it), time to first screen and longest
    main-thread stall against store size, one line per mode, one column of panels per store (and migration,
    strategy when they vary)."""
    table.require("store_size", "startup", part="id")
    table.require("first_screen", "startup", part="metric")
    mode_index = table.index("mode", "id")
    modes = table.distinct("mode", "id") if mode_index is not None else ["launch"]
    panel_roles = [role for role in ("store", "migration", "strategy")
                   if table.has(role, "id") and len(table.distinct(role, "id")) > 1]
    if not panel_roles and table.has("store", "id"):
        panel_roles = ["store"]
    panel_keys = list(dict.fromkeys(tuple(table.text(row, role, "id") for role in panel_roles) for row in table.rows))
    rows_of_metrics = ((["first_frame"] if table.has("first_frame", "metric") else []) + ["first_screen"]
                       + (["stall"] if table.has("stall", "metric") else []))
    deadlines = sorted({value for row in table.rows if (value := table.number(row, "deadline", "metric"))})
    sizes = [value for row in table.rows if (value := table.number(row, "store_size", "id")) is not None]

    figure, axes = plt.subplots(len(rows_of_metrics), len(panel_keys),
                                figsize=(max(6.5, 4.2 * len(panel_keys)), 3.6 * len(rows_of_metrics) + 1.6),
                                squeeze=False, sharex=True, sharey="row")
    killed_total = failed_total = 0
    for column, key in enumerate(panel_keys):
        panel_rows = [row for row in table.rows
                      if tuple(table.text(row, role, "id") for role in panel_roles) == key]
        for line, role in enumerate(rows_of_metrics):
            axis = axes[line][column]
            for mode in modes:
                colour = colour_for(mode, MODE_COLOURS, modes)
                cells: dict[float, CellRuns] = {}
                killed: list[float] = []
                failed: list[float] = []
                for row in panel_rows:
                    if mode_index is not None and table.text(row, "mode", "id") != mode:
                        continue
                    size = table.number(row, "store_size", "id")
                    if size is None:
                        raise PlotError(f"{table.path}, run {table.text(row, 'run_id')}: the store size "
                                        f"`{table.text(row, 'store_size', 'id')}` is not a number")
                    cell = cells.setdefault(size, CellRuns())
                    cell.total += 1
                    value = table.number(row, role, "metric")
                    if is_true(table.text(row, "killed", "metric")):
                        killed.append(size)
                    elif table.failed(row) or value is None:
                        failed.append(size)
                    else:
                        cell.values.append(value)
                points = sorted((size, cell) for size, cell in cells.items() if cell.values)
                if points:
                    xs = [size for size, _ in points]
                    medians = [cell.median for _, cell in points]
                    axis.errorbar(xs, medians,
                                  yerr=[[m - min(c.values) for m, (_, c) in zip(medians, points)],
                                        [max(c.values) - m for m, (_, c) in zip(medians, points)]],
                                  color=colour, marker="o", markersize=5, capsize=3, linewidth=1.6, label=mode)
                if killed:
                    # Plotted at the deadline: the launch got that far and no further.
                    height = deadlines[-1] if deadlines else None
                    if height is not None:
                        axis.scatter(killed, [height] * len(killed), marker="X", s=90, color=colour,
                                     edgecolor="black", linewidth=0.8, zorder=5)
                    else:
                        axis.scatter(killed, [0.97] * len(killed), marker="X", s=90, color=colour, edgecolor="black",
                                     transform=axis.get_xaxis_transform(), zorder=5)
                if failed:
                    axis.scatter(failed, [0.03] * len(failed), marker="x", s=60, color=FAILED_COLOUR, linewidth=2,
                                 transform=axis.get_xaxis_transform(), clip_on=False, zorder=5)
                if line == 0:
                    killed_total += len(killed)
                    failed_total += len(failed)
            if role in ("first_frame", "first_screen"):
                for deadline in deadlines:
                    axis.axhline(deadline, color="black", linestyle="--", linewidth=1)
                    axis.annotate(f"watchdog deadline {short_number(deadline)} ms", (0.01, deadline),
                                  xycoords=("axes fraction", "data"), xytext=(0, 3), textcoords="offset points",
                                  fontsize=8)
            axis.set_xscale("log")
            axis.set_yscale("log")
            label_log_axis(axis, "x", sizes)
            label_log_axis(axis, "y", [value for row in table.rows
                                       if (value := table.number(row, role, "metric")) is not None] + deadlines)
            if line == 0:
                axis.set_title(" · ".join(f"{value}" if role_name == "store"
                                          else f"{table.header[table.index(role_name, 'id')]} {value}"
                                          for role_name, value in zip(panel_roles, key)) or "launch")
            if column == 0:
                # Small: three rows of panels leave each label about three inches.
                axis.set_ylabel(LABELS["startup_stall" if role == "stall" else role] + " (log) — lower is better",
                                fontsize=8)
            if line == len(rows_of_metrics) - 1:
                axis.set_xlabel(LABELS["store_size"] + " (log)")
    handles = [Line2D([], [], color=colour_for(m, MODE_COLOURS, modes), marker="o", label=f"{m} store loading")
               for m in modes]
    if deadlines:
        handles.append(Line2D([], [], color="black", linestyle="--", label="watchdog deadline"))
    if killed_total:
        handles.append(Line2D([], [], marker="X", color="0.5", markeredgecolor="black", linestyle="none",
                              markersize=9, label=f"killed by watchdog ({killed_total})"))
    if failed_total:
        handles.append(Line2D([], [], marker="x", color=FAILED_COLOUR, mew=2, linestyle="none",
                              label=f"failed run ({failed_total})"))
    figure.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False,
                  bbox_to_anchor=(0.5, 0.955), fontsize=9)
    figure.suptitle(title_for(table, env, "launch time against store size (median; whisker min–max)"), y=0.995)
    figure.tight_layout(rect=(0, 0.06, 1, 0.92))
    return finish(figure, footer, out, stem, formats)


# Compare ---------------------------------------------------------------------------------------------------


def higher_is_better(metric: str, better: str | None = None) -> bool:
    """Whether a larger value of `metric` is better. `stacklab compare --out` writes each metric's direction in
    its `better` column (from Metric.polarity); for a comparison CSV without it, a count per second
    (objects_per_s) is better higher and a time per second (main_hitch_ms_per_s) lower, as compare guesses
    for columns it does not know."""
    if better:
        return better == "higher"
    if not metric.endswith("_per_s"):
        return False
    return not metric.removesuffix("_per_s").endswith(("_s", "_ms", "_us", "_ns"))



def plot_compare(table: ResultTable, env: Environment, footer: str, out: Path, stem: str, formats: list[str],
                 chosen_metrics: list[str]) -> list[Path]:
    """Horizontal bars of the relative change per cell, one panel per metric, the threshold band shaded."""
    metric_index = table.require("metric", "compare")
    table.require("change_pct", "compare")
    table.require("verdict", "compare")
    cell_columns = table.header[:metric_index]
    varying = [index for index in range(metric_index) if len({row[index] for row in table.rows}) > 1]
    present = list(dict.fromkeys(table.text(row, "metric") for row in table.rows))
    if chosen_metrics:
        unknown = [metric for metric in chosen_metrics if metric not in present]
        if unknown:
            raise PlotError(f"{table.path}: no metric {', '.join(unknown)}; it has: {', '.join(present)}")
        metrics = chosen_metrics
    else:
        metrics = [metric for metric in HEADLINE_METRICS if metric in present] or \
                  [metric for metric in present if metric not in COUNT_METRICS] or present
    cells = list(dict.fromkeys(tuple(row[:metric_index]) for row in table.rows))
    labels = [" · ".join(cell[index] for index in varying) or " · ".join(cell) for cell in cells]
    thresholds = {value for row in table.rows if (value := table.number(row, "threshold_pct")) is not None}
    threshold = max(thresholds) if thresholds else None

    columns = min(3, len(metrics))
    lines = math.ceil(len(metrics) / columns)
    height = max(2.6, 0.32 * len(cells) + 1.2)
    figure, axes = plt.subplots(lines, columns, figsize=(4.8 * columns + 1.8, height * lines + 1.6), squeeze=False,
                                sharey=True)
    for axis in axes.flat[len(metrics):]:
        axis.set_visible(False)
    seen_verdicts: dict[str, None] = {}
    for axis, metric in zip(axes.flat, metrics):
        rows = {tuple(row[:metric_index]): row for row in table.rows if table.text(row, "metric") == metric}
        changes = [abs(value) for row in rows.values() if (value := table.number(row, "change_pct")) is not None]
        limit = max([*changes, (threshold or 5) * 2]) * 1.25
        if threshold:
            axis.axvspan(-threshold, threshold, color="0.88", zorder=0)
        axis.axvline(0, color="0.3", linewidth=0.8)
        for y, cell in enumerate(cells):
            row = rows.get(cell)
            if row is None:
                axis.text(0, y, " not compared", va="center", fontsize=7, color="0.45")
                continue
            verdict = table.text(row, "verdict") or "inconclusive"
            seen_verdicts.setdefault(verdict, None)
            colour = VERDICT_COLOURS.get(verdict, "0.5")
            text = table.text(row, "change_pct")
            value = table.number(row, "change_pct")
            if value is None and text.lstrip("+-").lower() in ("inf", "infinity"):
                # The baseline median was 0: draw to the edge and say so.
                value = limit * 0.95 * (-1 if text.startswith("-") else 1)
                axis.text(value, y, " from 0" if value > 0 else "from 0 ", va="center", fontsize=7,
                          ha="left" if value > 0 else "right")
            if value is None:
                note = table.text(row, "note")
                axis.text(0, y, f" {note or 'no values'}", va="center", fontsize=7, color="0.45")
                continue
            axis.barh(y, value, color=colour, height=0.7, zorder=2)
            axis.text(value, y, f" {value:+.1f}% " if abs(value) < limit * 0.7 else f"{value:+.1f}% ",
                      va="center", fontsize=7, color="0.15",
                      ha=("left" if value >= 0 else "right") if abs(value) < limit * 0.7 else
                      ("right" if value >= 0 else "left"))
        axis.set_xlim(-limit, limit)
        axis.set_yticks(range(len(cells)))
        axis.set_yticklabels(labels, fontsize=8)
        axis.invert_yaxis()
        axis.grid(axis="y", visible=False)
        stated = next((table.text(row, "better") for row in rows.values()), "")
        if stated == "neutral":
            axis.set_title(f"{metric} (a count: neither better nor worse)", fontsize=10)
        else:
            better = "higher" if higher_is_better(metric, stated or None) else "lower"
            axis.set_title(f"{metric} ({better} is better)", fontsize=10)
        axis.set_xlabel(LABELS["change"])
    handles = [Patch(color=VERDICT_COLOURS.get(v, "0.5"), label=v) for v in VERDICT_COLOURS if v in seen_verdicts]
    if threshold:
        handles.append(Patch(color="0.88", label=f"threshold band ±{threshold:g}%"))
    figure.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False, fontsize=9,
                  bbox_to_anchor=(0.5, 1 - 0.55 / figure.get_figheight()))
    scenario = table.distinct("scenario")[0] if table.has("scenario") else table.path.stem
    figure.suptitle(f"{scenario}: current run against the baseline, per cell (median of the repetitions)",
                    y=1 - 0.1 / figure.get_figheight())
    figure.tight_layout(rect=(0, 0.9 / figure.get_figheight(), 1, 1 - 0.9 / figure.get_figheight()))
    return finish(figure, footer, out, stem, formats)


# Command line ----------------------------------------------------------------------------------------------


def plot_file(path: Path, kind: str | None, out: Path | None, formats: list[str], env_path: Path | None,
              metrics: list[str]) -> list[Path]:
    """Charts one CSV; returns the files written."""
    table = ResultTable.read(path)
    env = Environment.beside(path, env_path)
    kind = kind or detect_kind(table)
    footer = env.footer(path)
    killed = sum(1 for row in table.rows if is_true(table.text(row, "killed", "metric")))
    failed = sum(1 for row in table.rows if table.failed(row) and not is_true(table.text(row, "killed", "metric")))
    tally = [plural(count, word) for count, word in ((killed, "killed launch"), (failed, "failed run")) if count]
    if tally:
        footer = footer.replace(" · ", f" · {' and '.join(tally)} of {len(table.rows)} runs · ", 1)
    stem = path.name.removesuffix(".csv")
    directory = out or path.parent
    if kind == "concurrency":
        return plot_concurrency(table, env, footer, directory, stem, formats)
    if kind == "merge-cost":
        return plot_merge_cost(table, env, footer, directory, stem, formats)
    if kind == "startup":
        return plot_startup(table, env, footer, directory, stem, formats)
    return plot_compare(table, env, footer, directory, stem, formats, metrics)


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="plot.py", description="StackLab result CSVs as PNG and SVG charts (see the top of this file).")
    parser.add_argument("csv", nargs="+", type=Path, help="result CSVs (stacklab run) or comparison CSVs "
                                                          "(stacklab compare --out)")
    parser.add_argument("--out", type=Path, help="folder for the charts (default: each CSV's folder)")
    parser.add_argument("--kind", choices=KINDS, help="the chart to draw (default: from the columns)")
    parser.add_argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default: png,svg)")
    parser.add_argument("--env", type=Path, help="the environment sidecar (default: NAME.env.json beside the CSV)")
    parser.add_argument("--metric", action="append", default=[],
                        help="compare charts: a metric to show (repeatable; default: the headline metrics)")
    options = parser.parse_args(arguments)
    formats = [part.strip().lower() for part in options.format.split(",") if part.strip()]
    unsupported = [part for part in formats if part not in ("png", "svg", "pdf")]
    if unsupported or not formats:
        parser.error(f"--format: unsupported {', '.join(unsupported) or 'empty list'} (png, svg, pdf)")
    status = 0
    for path in options.csv:
        try:
            written = plot_file(path, options.kind, options.out, formats, options.env,
                                [m for part in options.metric for m in part.split(",") if m])
        except PlotError as error:
            print(f"plot.py: {error}", file=sys.stderr)
            status = 2
            continue
        print(" ".join(os.fspath(file) for file in written))
    return status


if __name__ == "__main__":
    sys.exit(main())
