import Foundation
import TestSupport
import Testing

/// The command line's output, checked against files in `Golden/`: `list`, `run --quick` with its timings
/// masked, and `compare`. Run with `STACKLAB_UPDATE_GOLDEN=1` to rewrite them after an intended change, and
/// read the diff.
@Suite("Golden output of stacklab list, run and compare")
struct GoldenOutputTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    /// The comparison fixtures LabCoreTests' compare tests read.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LabCoreTests/Fixtures")

    /// Compares `output` with the golden file `name`, or writes it when asked to.
    func check(_ output: String, against name: String) throws {
        let url = Self.folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["STACKLAB_UPDATE_GOLDEN"] == "1" {
            try Data(output.utf8).write(to: url)
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        #expect(output == golden, "stacklab's output differs from Golden/\(name)")
    }

    /// The output with what varies from run to run masked: each progress line's time becomes `#`, each summary
    /// row keeps its names, its count of runs and of errors and shows `…` for its metrics (a metric may be empty
    /// in one run and not the next), each ratio of the table against the reference cells `#` (its verdict kept), the
    /// output folder becomes `OUT`, and runs of spaces one space.
    static func masked(_ output: String, out: String) -> String {
        var lines: [String] = []
        var inTable = false
        var against = false
        for line in output.replacingOccurrences(of: out, with: "OUT").split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            var tokens = line.split(separator: " ").map(String.init)
            if line.hasPrefix("against ") {
                against = true
            } else if against, !line.hasPrefix("---"), tokens.count > 2 {
                tokens = tokens.map { Double($0) != nil || $0.hasPrefix("[") || $0.hasPrefix("~") ? "#" : $0 }
            } else if line.isEmpty || line.hasPrefix("wrote") {
                against = false
            }
            if tokens.contains("runs"), tokens.last == "errors" {
                inTable = true
            } else if line.hasPrefix("---") {
                tokens = ["---"]
            } else if inTable, let runs = tokens.firstIndex(where: { Int($0) != nil }), tokens.count > runs + 1 {
                tokens = Array(tokens[...runs]) + ["…", tokens[tokens.count - 1]]
            } else {
                inTable = false
            }
            if let ms = tokens.lastIndex(of: "ms"), ms > 0, Double(tokens[ms - 1]) != nil { tokens[ms - 1] = "#" }
            lines.append(tokens.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    @Test("stacklab list, plain and --quick")
    func list() throws {
        let plain = try StackLabBinary.run(["list", Self.folder.path])
        #expect(plain.status == 0)
        let quick = try StackLabBinary.run(["list", "--quick", Self.folder.path])
        #expect(quick.status == 0)
        let text = (plain.output + "\n--- --quick\n" + quick.output).replacingOccurrences(
            of: Self.folder.path, with: "GOLDEN")
        try check(text, against: "list.txt")
    }

    @Test("stacklab run --quick: progress, summary and the CSV's header, timings masked")
    func runQuick() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try StackLabBinary.run([
            "run", Self.folder.appendingPathComponent("golden.yaml").path, "--quick", "--out", out.path,
        ])
        #expect(run.status == 0)
        let csv = try String(contentsOf: out.appendingPathComponent("golden.csv"), encoding: .utf8)
        let header = csv.split(separator: "\n").first.map(String.init) ?? ""
        try check(Self.masked(run.output, out: out.path) + "\ncsv header: " + header + "\n", against: "run-quick.txt")
    }

    @Test("stacklab run Scenarios/quick.yaml --quick: three strategies on three stores, in 120 columns; --wide more")
    func quickFitsIn120Columns() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("quick-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let scenarios = Self.folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scenarios")
        let run = try StackLabBinary.run([
            "run", scenarios.appendingPathComponent("quick.yaml").path, "--quick", "--out", out.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.replacingOccurrences(of: out.path, with: "OUT").split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("store   strategy") }, "the summary table is there")
        // The cells, in the summary's order: what the README's first command shows.
        try check(Self.masked(run.output, out: out.path), against: "run-quick-scenario.txt")
        for line in lines {
            #expect(line.count <= 120, "\(line.count) columns: \(line)")
        }
        // The headline metrics fit without leaving any out; --wide shows the rest, however wide.
        #expect(!run.output.contains("left out to fit"))
        let wide = try StackLabBinary.run([
            "run", Self.folder.appendingPathComponent("golden.yaml").path, "--quick", "--wide", "--out", out.path,
        ])
        #expect(wide.status == 0)
        let header = try #require(wide.output.split(separator: "\n").first { $0.hasPrefix("store") })
        #expect(header.contains("fetch_total_ms") && header.contains("stored_objects") && header.count > 120)
    }

    @Test("stacklab compare on the recorded fixtures: the table, the tally and the exit status")
    func compare() throws {
        let folder = Self.fixtures.appendingPathComponent("compare")
        let result = try StackLabBinary.run([
            "compare", folder.appendingPathComponent("baseline.csv").path,
            folder.appendingPathComponent("current.csv").path,
        ])
        #expect(result.status == 1, "the fixtures hold a regression")
        try check(result.output, against: "compare.txt")
    }

    @Test("stacklab compare --format markdown: slower first, only the varying columns, the same only counted")
    func compareMarkdown() throws {
        let folder = Self.fixtures.appendingPathComponent("compare")
        let result = try StackLabBinary.run([
            "compare", folder.appendingPathComponent("baseline.csv").path,
            folder.appendingPathComponent("current.csv").path, "--format", "markdown",
        ])
        #expect(result.status == 1, "the fixtures hold a regression")
        let tableRows = result.output.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(tableRows.dropFirst(2).first?.contains("**slower**") == true, "the slower cell heads the table")
        // What every row shares is said once; a row names its cell by the columns that vary, one column each.
        #expect(result.output.contains("Scenario `startup`, workload `startup`, in every row: `objects=10000`."))
        #expect(
            tableRows.first
                == "| verdict | store | strategy | mode | metric | baseline median | current median | ratio | 95% CI |")
        #expect(!result.output.contains("scenario="), "\(result.output)")
        #expect(!result.output.contains("workload="))
        try check(result.output, against: "compare.md")
    }

    @Test(
        "stacklab compare --format benchmark-json: one direction per call, counts left out",
        arguments: ["smaller", "bigger"])
    func compareBenchmarkJSON(polarity: String) throws {
        let folder = Self.fixtures.appendingPathComponent("compare")
        let result = try StackLabBinary.run([
            "compare", folder.appendingPathComponent("baseline.csv").path,
            folder.appendingPathComponent("current.csv").path, "--format", "benchmark-json", "--polarity", polarity,
        ])
        #expect(result.status == 1, "the exit status is the verdict's, whatever the format")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        #expect(!entries.isEmpty)
        for entry in entries {
            #expect(Set(entry.keys) == ["name", "unit", "value", "range", "extra"])
            #expect(entry["value"] is Double)
        }
        let metrics = Set(entries.compactMap { ($0["name"] as? String)?.split(separator: " ").last.map(String.init) })
        let expected: Set =
            polarity == "smaller" ? ["time_to_first_screen_ms", "killed_by_watchdog"] : ["objects_per_s"]
        #expect(metrics == expected)
        try check(result.output, against: "compare-\(polarity).json")
    }
}
