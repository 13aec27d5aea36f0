#!/usr/bin/env python3
"""Tests for scripts/plot.py: every kind of chart from the committed CSVs (baselines and fixtures), failed and
killed runs drawn rather than fatal, bad input reported with the file and line.

Usage: python3 scripts/test_plot.py   (needs scripts/requirements.txt installed; about 20 s)
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "scripts" / "fixtures"
BASELINES = ROOT / "results" / "baselines"


def svg_texts(path: Path) -> str:
    """The SVG's visible text (plot.py keeps text as <text> elements), entities decoded, one string."""
    content = path.read_text(encoding="utf-8")
    texts = re.findall(r"<text[^>]*>(.*?)</text>", content, flags=re.S)
    return "\n".join(re.sub(r"<[^>]+>", "", text).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
                     for text in texts)


class PlotTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="plot-test-")
        self.out = Path(self.directory.name)

    def tearDown(self) -> None:
        self.directory.cleanup()

    def run_plot(self, *arguments: str) -> tuple[int, str, str]:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = plot.main(list(arguments))
        return status, stdout.getvalue(), stderr.getvalue()

    def plot_and_check(self, csv_path: Path, expected_kind: str, *labels: str) -> str:
        """Plots `csv_path`, checks both files exist, are non-empty and of their format, and that the SVG shows
        every label; returns the SVG's text."""
        self.assertEqual(plot.detect_kind(plot.ResultTable.read(csv_path)), expected_kind)
        status, stdout, stderr = self.run_plot(str(csv_path), "--out", str(self.out))
        self.assertEqual(status, 0, stderr)
        stem = csv_path.name.removesuffix(".csv")
        png, svg = self.out / f"{stem}.png", self.out / f"{stem}.svg"
        self.assertEqual(stdout.split(), [str(png), str(svg)])
        self.assertGreater(png.stat().st_size, 10_000)
        self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        self.assertIn("<svg", svg.read_text(encoding="utf-8")[:2000])
        text = svg_texts(svg)
        for label in labels:
            self.assertIn(label, text)
        return text


class BaselineCharts(PlotTestCase):
    """The README's charts come from these files, so they must keep plotting."""

    def test_every_baseline_plots_with_its_machine_and_commit(self) -> None:
        baselines = sorted(BASELINES.glob("*.csv"))
        self.assertTrue(baselines, f"no CSV in {BASELINES}")
        for csv_path in baselines:
            with self.subTest(csv=csv_path.name):
                table = plot.ResultTable.read(csv_path)
                env = json.loads(csv_path.with_name(csv_path.stem + ".env.json").read_text())
                text = self.plot_and_check(csv_path, plot.detect_kind(table), env["host"],
                                           env["git_commit"].removesuffix("+dirty")[:10])
                self.assertNotIn("failed", text)


class ConcurrencyCharts(PlotTestCase):
    def test_bars_name_every_strategy_and_store_with_units(self) -> None:
        csv_path = FIXTURES / "concurrency-errors.csv"
        table = plot.ResultTable.read(csv_path)
        text = self.plot_and_check(csv_path, "concurrency", "longest main-thread stall (ms) — lower is better",
                                   "import throughput (objects/s) — higher is better")
        for name in table.distinct("strategy") + table.distinct("store"):
            self.assertIn(name, text)

    def test_failed_runs_are_shown_as_gaps_not_dropped(self) -> None:
        csv_path = FIXTURES / "concurrency-errors.csv"
        table = plot.ResultTable.read(csv_path)
        failed = [row for row in table.rows if table.failed(row)]
        self.assertGreaterEqual(len(failed), 3, "the fixture should hold a wholly and a partly failed cell")
        text = self.plot_and_check(csv_path, "concurrency", "failed", "2/2", "1/2 failed")
        self.assertIn(f"{len(failed)} failed runs of {len(table.rows)} runs", text)

    def test_environment_missing_says_so(self) -> None:
        csv_path = self.out / "bare.csv"
        csv_path.write_text((FIXTURES / "concurrency-errors.csv").read_text())
        text = self.plot_and_check(csv_path, "concurrency", "machine and commit unknown (no bare.env.json beside it)")
        self.assertTrue((self.out / "bare.png").exists())


class ConcurrencyAxisCharts(PlotTestCase):
    """A concurrency CSV with a numeric matrix axis (batch_size) is drawn against it, with the phases."""

    def axis_csv(self) -> Path:
        # The old baseline's rows, with each run given a batch size and phases that add up to its wall time.
        source = FIXTURES / "concurrency-errors.csv"
        with source.open(newline="") as handle:
            rows = list(csv.reader(handle))
        header = rows[0]
        phases = ["service_wait_ms", "decode_ms", "queue_wait_ms", "find_or_create_ms", "save_ms", "merge_wait_ms"]
        at = header.index("repetition")
        out_rows = [header[:at] + ["batch_size"] + header[at:-1] + phases + ["fetch_total_ms", "error"]]
        for size in (100, 1000, 10000):
            for row in rows[1:]:
                wall = row[header.index("wall_ms")]
                shares = [""] * 6 if not wall else [f"{float(wall) * part:.1f}" for part in (.1, .1, 0, .4, .4, 0)]
                out_rows.append(row[:at] + [str(size)] + row[at:-1] + shares + ["1.0", row[-1]])
        path = self.out / "concurrency-axis.csv"
        with path.open("w", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerows(out_rows)
        return path

    def test_lines_against_the_axis_with_the_crossing_and_the_phases(self) -> None:
        text = self.plot_and_check(self.axis_csv(), "concurrency", "batch_size (log)", "10k",
                                   "sqlite: where the wall time went (medians)", "waiting for the web service",
                                   "find-or-create", "saving", "main queue: merges + UI fetches (overlaps the phases)",
                                   "failed 2/2")
        self.assertIn("sqlite: longest main-thread stall", text)

    def test_crossing_is_where_the_second_design_starts_winning_for_good(self) -> None:
        xs = [100.0, 1000.0, 10000.0]

        def cells(shared: list[float], separate: list[float]) -> dict:
            table = {}
            for x, a, b in zip(xs, shared, separate):
                table[("lmdb", "shared-coordinator", x)] = plot.CellRuns(values=[a])
                table[("lmdb", "separate-stacks", x)] = plot.CellRuns(values=[b])
            return table

        self.assertEqual(plot.crossing(cells([10, 50, 200], [20, 30, 40]), "lmdb", xs), ("from", 1000.0))
        self.assertEqual(plot.crossing(cells([50, 10, 200], [20, 30, 40]), "lmdb", xs), ("from", 10000.0))
        self.assertEqual(plot.crossing(cells([50, 60, 200], [20, 30, 40]), "lmdb", xs), ("everywhere", 100.0))
        self.assertEqual(plot.crossing(cells([50, 60, 20], [20, 30, 40]), "lmdb", xs), ("nowhere", None))
        self.assertEqual(plot.crossing(cells([50, 60, 20], [20, 30, 40]), "sqlite", xs), ("n/a", None))
        self.assertEqual(plot.winners_text(cells([50, 60, 20], [20, 30, 40]), "lmdb", xs),
                         "clearly lower: shared at 10k · separate at 100, 1000")
        # Repetitions whose ranges overlap are level: noise, not a win.
        noisy = cells([50, 60, 200], [20, 30, 40])
        noisy[("lmdb", "separate-stacks", 100.0)] = plot.CellRuns(values=[20, 70])
        noisy[("lmdb", "shared-coordinator", 10000.0)] = plot.CellRuns(values=[200, 35])
        self.assertEqual(plot.crossing(noisy, "lmdb", xs), ("from", 1000.0))
        self.assertEqual(plot.winners_text(noisy, "lmdb", xs), "clearly lower: separate at 1000 · level at 100, 10k")


class KindDetection(PlotTestCase):
    def test_every_metric_column_present_the_workload_decides(self) -> None:
        # The lab writes every metric column for every workload, empty where it does not apply: an import CSV
        # carries the startup and merge columns too and must still plot as concurrency.
        source = ROOT / "results" / "baselines" / "concurrency.csv"
        with source.open(newline="") as handle:
            rows = list(csv.reader(handle))
        extra = ["time_to_first_screen_ms", "killed_by_watchdog", "deadline_ms", "registered", "changes"]
        widened = self.out / "import-all-columns.csv"
        with widened.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(rows[0] + extra)
            writer.writerows(row + [""] * len(extra) for row in rows[1:])
        self.assertEqual(plot.detect_kind(plot.ResultTable.read(widened)), "concurrency")


class MergeCostCharts(PlotTestCase):
    def test_log_axes_against_registered_objects_and_changes(self) -> None:
        csv_path = FIXTURES / "merge-cost-errors.csv"
        text = self.plot_and_check(csv_path, "merge-cost", "objects registered in the main context (log)",
                                   "changes per merged save (log)", "main-thread time per merge (ms) (log)",
                                   "failed run")
        svg = (self.out / "merge-cost-errors.svg").read_text()
        self.assertEqual(svg.count('id="axes_'), 2, "one panel per x variable")
        self.assertIn("shared-coordinator", text)


class StartupCharts(PlotTestCase):
    def test_deadline_killed_and_failed_launches_are_marked(self) -> None:
        csv_path = FIXTURES / "startup.csv"
        table = plot.ResultTable.read(csv_path)
        killed = sum(plot.is_true(table.text(row, "killed")) for row in table.rows)
        failed = sum(table.failed(row) and not plot.is_true(table.text(row, "killed")) for row in table.rows)
        self.assertGreater(killed, 0)
        self.assertGreater(failed, 0)
        self.plot_and_check(csv_path, "startup", "time to first frame (ms) (log) — lower is better",
                            "time to first screen (ms) (log) — lower is better",
                            "objects in the store (log)", "watchdog deadline 2000 ms",
                            f"killed by watchdog ({killed})", f"failed run ({failed})",
                            "sync store loading", "async store loading")

    def test_store_size_is_the_matrix_parameter_even_when_a_metric_shares_its_name(self) -> None:
        # save-chain and startup CSVs may hold `objects` twice: the matrix parameter and the metric.
        source = (FIXTURES / "startup.csv").read_text().splitlines()
        header = source[0].split(",")
        position = header.index("error")
        csv_path = self.out / "startup-dup.csv"
        with csv_path.open("w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header[:position] + ["objects"] + header[position:])
            for cells in csv.reader(source[1:]):
                writer.writerow(cells[:position] + ["7"] + cells[position:])
        table = plot.ResultTable.read(csv_path)
        sizes = {table.number(row, "store_size", "id") for row in table.rows}
        self.assertEqual(sizes, {1000.0, 10000.0, 100000.0})
        self.assertEqual({table.number(row, "store_size", "metric") for row in table.rows}, {7.0})
        self.plot_and_check(csv_path, "startup", "100k")


class CompareCharts(PlotTestCase):
    def test_change_per_cell_with_threshold_band_and_verdicts(self) -> None:
        csv_path = FIXTURES / "compare.csv"
        table = plot.ResultTable.read(csv_path)
        verdicts = set(table.distinct("verdict"))
        threshold = table.number(table.rows[0], "threshold_pct")
        text = self.plot_and_check(csv_path, "compare", "change of the median vs baseline (%)",
                                   f"threshold band ±{threshold:g}%", "main_max_stall_ms (lower is better)",
                                   "objects_per_s (higher is better)", *verdicts)
        self.assertIn("machine and commit unknown", text)

    def test_change_from_a_zero_baseline_is_drawn_to_the_edge(self) -> None:
        # `stacklab compare` writes +inf when the baseline median is 0 (e.g. a hitch appearing).
        with (FIXTURES / "compare.csv").open(newline="") as handle:
            rows = list(csv.reader(handle))
        header = rows[0]
        target = next(row for row in rows[1:] if row[header.index("metric")] == "main_hitch_ms_per_s")
        target[header.index("baseline_median")] = "0.00"
        target[header.index("change_pct")] = "+inf"
        csv_path = self.out / "compare-inf.csv"
        with csv_path.open("w", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
        self.plot_and_check(csv_path, "compare", "from 0", "main_hitch_ms_per_s (lower is better)")

    def test_metric_option_picks_panels_and_rejects_unknown_ones(self) -> None:
        csv_path = FIXTURES / "compare.csv"
        status, _, stderr = self.run_plot(str(csv_path), "--out", str(self.out), "--metric", "wall_ms")
        self.assertEqual(status, 0, stderr)
        text = svg_texts(self.out / "compare.svg")
        self.assertIn("wall_ms (lower is better)", text)
        self.assertNotIn("objects_per_s (higher is better)", text)
        status, _, stderr = self.run_plot(str(csv_path), "--out", str(self.out), "--metric", "no_such_ms")
        self.assertEqual(status, 2)
        self.assertIn("no metric no_such_ms", stderr)


class BadInput(PlotTestCase):
    def write(self, name: str, text: str) -> Path:
        path = self.out / name
        path.write_text(text)
        return path

    def test_ragged_row_names_file_and_line(self) -> None:
        path = self.write("ragged.csv", "scenario,workload,store,strategy\nquick,import,sqlite\n")
        status, _, stderr = self.run_plot(str(path), "--out", str(self.out))
        self.assertEqual(status, 2)
        self.assertIn("ragged.csv, line 2: 3 fields where the header has 4", stderr)

    def test_unknown_columns_ask_for_kind_and_missing_columns_are_named(self) -> None:
        path = self.write("other.csv", "a,b\n1,2\n")
        status, _, stderr = self.run_plot(str(path), "--out", str(self.out))
        self.assertEqual(status, 2)
        self.assertIn("pass --kind", stderr)
        status, _, stderr = self.run_plot(str(path), "--out", str(self.out), "--kind", "startup")
        self.assertEqual(status, 2)
        self.assertIn("a startup chart needs a `objects` or `store_objects`", stderr)

    def test_missing_file_and_header_only_file(self) -> None:
        status, _, stderr = self.run_plot(str(self.out / "absent.csv"), "--out", str(self.out))
        self.assertEqual(status, 2)
        self.assertIn("absent.csv: cannot read", stderr)
        path = self.write("empty.csv", "scenario,workload,store,strategy,main_max_stall_ms\n")
        status, _, stderr = self.run_plot(str(path), "--out", str(self.out))
        self.assertEqual(status, 2)
        self.assertIn("empty.csv: no rows after the header", stderr)

    def test_one_bad_file_does_not_stop_the_others(self) -> None:
        bad = self.write("bad.csv", "a,b\n1,2\n")
        status, stdout, _ = self.run_plot(str(bad), str(FIXTURES / "startup.csv"), "--out", str(self.out),
                                          "--format", "png")
        self.assertEqual(status, 2)
        self.assertEqual(stdout.split(), [str(self.out / "startup.png")])
        self.assertFalse((self.out / "startup.svg").exists())


if __name__ == "__main__":
    unittest.main(verbosity=1)
