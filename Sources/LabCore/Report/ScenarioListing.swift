import Foundation

/// What `stacklab list` prints: one row per scenario file (name, workload, cells, repetitions, runs, file; under a
/// budget the repetitions and runs from the fewest to the most, `4–6`, and the budget), then each scenario's matrix
/// and what it answers.
public enum ScenarioListing {
    /// The scenario files `paths` name: each folder's `.yaml` files by name, and each file given.
    /// - Throws: `LabError.invalidScenario` for a path that does not exist.
    public static func files(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw LabError(.invalidScenario, "\(path): no such file or folder")
            }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path)
                    .filter { $0.hasSuffix(".yaml") }.sorted()
                files += names.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// The listing of `scenarios` (each with the file it came from), shrunk as `--quick` runs them if `quick`.
    public static func text(_ scenarios: [(scenario: Scenario, file: String)], quick: Bool) -> String {
        var rows = [["scenario", "workload", "cells", "repetitions", "runs", "budget", "file"]]
        var abouts: [String] = []
        for (loaded, file) in scenarios {
            let scenario = quick ? loaded.quick() : loaded
            let matrix =
                (scenario.matrix.map { "\($0.values.count) \($0.name)" }
                + (scenario.cases.isEmpty ? [] : ["\(scenario.cases.count) cases"])).joined(separator: " × ")
            let runs = { (repetitions: Int) in scenario.cellCount * (repetitions + scenario.warmup) }
            let most = scenario.mostRepetitions
            let spread = { (low: Int, high: Int) in low == high ? "\(low)" : "\(low)–\(high)" }
            rows.append([
                scenario.name, scenario.workload.name, "\(scenario.cellCount)", spread(scenario.repetitions, most),
                spread(runs(scenario.repetitions), runs(most)), scenario.budget.map(Scenario.budgetText) ?? "–", file,
            ])
            abouts.append("\(scenario.name): \(matrix.isEmpty ? "1 cell" : matrix). \(scenario.about)")
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        // Every column padded to its width but the last, so no line ends in spaces.
        var lines = rows.map { row in
            zip(row.dropLast(), widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(
                separator: "  ")
                + "  " + (row.last ?? "")
        }
        lines.append("")
        lines += abouts
        return lines.joined(separator: "\n") + "\n"
    }

    /// What `stacklab list --metrics` prints: per workload, its concurrency strategies and every metric column it
    /// declares
    /// (those every run has first) with unit, which way is better, group and meaning; headline metrics marked `*`.
    public static func declarations(_ workloads: [any Workload]) -> String {
        var text = ""
        for workload in workloads {
            let strategies = workload.strategies.map(\.name)
            text +=
                "\(workload.name): "
                + (strategies.isEmpty ? "no concurrency strategy" : "strategies \(strategies.joined(separator: ", "))")
            text += "\n"
            let headline = Set(workload.headlineMetrics.map(\.name))
            let rows = (Metric.common.filter { !workload.metrics.contains($0) } + workload.metrics).map { metric in
                [
                    (headline.contains(metric.name) ? "* " : "  ") + metric.name, metric.unit.rawValue,
                    metric.polarity.rawValue, metric.group, metric.about,
                ]
            }
            let table = TextTable.render(
                header: ["  metric", "unit", "better", "group", "about"], rows: rows, leftAligned: [0, 1, 2, 3, 4])
            // The last column is padded like the others; a line ends where its text does.
            text += table.split(separator: "\n").map { line in
                String(line.reversed().drop { $0 == " " }.reversed())
            }.joined(separator: "\n")
            text += "\n\n"
        }
        return text
    }
}
