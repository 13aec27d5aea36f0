import Foundation
import Testing

@testable import LabCore

/// A workload whose matrix mixes every kind of value a cell filter must name: integers, numbers, words, flags.
private struct GridWorkload: Workload {
    let name = "grid"
    let stores: [StoreKind] = []
    let metrics: [Metric] = []
    let headlineMetrics: [Metric] = []
    let measuresProcessUsage = false

    var parameters: [ParameterSpec] {
        [
            ParameterSpec("size", .integer(minimum: 1), default: .integer(1), help: "a size"),
            ParameterSpec("share", .number(above: 0), default: .number(0.5), help: "a share"),
            ParameterSpec("mode", .choice(["plain", "two-words"]), default: .text("plain"), help: "a mode"),
            ParameterSpec("flag", .boolean, default: .boolean(false), help: "a flag"),
        ]
    }

    @MainActor
    func run(_ run: WorkloadRun) async throws -> [Metric: Double] { [:] }
}

@Suite("compare --paired's runner: the scenario each build runs, and the sides' CSVs")
struct PairedBuildRunnerTests {
    @Test("the copy drops the keys that set rounds and comparisons and makes a relative model path absolute")
    func scenarioForRounds() {
        let text = """
            # header
            name: x
            model: models/App.xcdatamodeld
            repetitions: 3
            budget: 10m
            max_repetitions: 8
            reference: strategy=shared-coordinator
            matrix:
              strategy: [a, b]
            """
        let copy = PairedBuildRunner.scenarioForRounds(text, directory: URL(fileURLWithPath: "/repo/Scenarios"))
        #expect(!copy.contains("budget") && !copy.contains("max_repetitions") && !copy.contains("reference"))
        #expect(copy.contains("model: \"/repo/Scenarios/models/App.xcdatamodeld\""))
        #expect(copy.contains("repetitions: 3") && copy.contains("# header") && copy.contains("  strategy: [a, b]"))
        let builtin = PairedBuildRunner.scenarioForRounds("model: builtin:pods\n", directory: URL(fileURLWithPath: "/"))
        #expect(builtin == "model: builtin:pods\n")
    }

    @Test("each side's rounds join into one CSV, the repetition and run id renumbered by round, the rounds recorded")
    func join() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paired-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = "scenario,workload,store,strategy,repetition,run_id,timestamp,wall_ms,error\n"
        var rounds: [URL] = []
        for round in 1...3 {
            let url = folder.appendingPathComponent("round-\(round).csv")
            let rows = "s,w,a,one,1,c1r1,t,\(100 + round),\ns,w,a,two,1,c2r1,t,\(200 + round),\n"
            try Data((header + rows).utf8).write(to: url)
            var record = EnvironmentRecord.reconstructed(
                for: try ResultTable(contentsOf: url), workload: "w", command: ["run"])
            record.metrics = [.wallMilliseconds]
            try record.write(to: EnvironmentRecord.sidecar(of: url))
            rounds.append(url)
        }
        let side = folder.appendingPathComponent("base.csv")
        try PairedBuildRunner.join(rounds, into: side)
        let table = try ResultTable(contentsOf: side)
        #expect(
            table.rows.compactMap { table.value("run_id", in: $0) } == ["c1r1", "c2r1", "c1r2", "c2r2", "c1r3", "c2r3"])
        #expect(table.rows.compactMap { table.value("repetition", in: $0) } == ["1", "1", "2", "2", "3", "3"])
        #expect(table.environment?.repetitions == 3 && table.environment?.rounds == 3)
        #expect(table.declarations["wall_ms"] != nil, "the first round's declarations")
    }

    @Test("each cell's filters select that cell and no other, whatever its values' kinds")
    func cellFiltersSelectOneCell() throws {
        let scenario = try ScenarioFile.parse(
            """
            name: grid
            workload: grid
            matrix:
              size: [1, 10, 100]
              share: [0.25, 1.5]
              mode: [plain, two-words]
              flag: [false, true]
            """, file: URL(fileURLWithPath: "/tests/grid.yaml"), workloads: WorkloadRegistry([GridWorkload()]))
        let cells = scenario.cells()
        let filters = PairedBuildRunner.cellFilters(cells)
        #expect(filters.count == 24)
        for (cell, arguments) in zip(cells, filters) {
            // `--filter k=v` pairs, as `run` reads them into name → accepted values.
            var selected: [String: Set<String>] = [:]
            for index in stride(from: 0, to: arguments.count, by: 2) {
                #expect(arguments[index] == "--filter")
                let parts = arguments[index + 1].split(separator: "=", maxSplits: 1).map(String.init)
                selected[parts[0], default: []].insert(parts[1])
            }
            #expect(Set(selected.keys) == ["size", "share", "mode", "flag"])
            #expect(scenario.cells(filters: selected).map(\.index) == [cell.index], "\(arguments)")
        }
    }

    @Test("cell by cell, each side's files join by round: rows numbered by round, columns and metrics of every file")
    func joinCellByCell() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paired-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var runs: [(round: Int, url: URL)] = []
        for round in 1...3 {
            for cell in 1...2 {
                // The second cell's runs have a column the first's lack: its row keeps it, the first's leave it empty.
                let extra = cell == 2 ? ",cpu_ms" : ""
                let header = "scenario,workload,strategy,repetition,run_id,timestamp,wall_ms\(extra),error\n"
                let row = "s,w,s\(cell),1,c\(cell)r1,t,\(100 * cell + round)\(cell == 2 ? ",7" : ""),\n"
                let url = folder.appendingPathComponent("round-\(round)-cell\(cell).csv")
                try Data((header + row).utf8).write(to: url)
                var record = EnvironmentRecord.reconstructed(
                    for: try ResultTable(contentsOf: url), workload: "w", command: ["run"])
                record.metrics = cell == 2 ? [.wallMilliseconds, .cpuMilliseconds] : [.wallMilliseconds]
                record.matrixCells = 1
                try record.write(to: EnvironmentRecord.sidecar(of: url))
                runs.append((round, url))
            }
        }
        let side = folder.appendingPathComponent("current.csv")
        try PairedBuildRunner.join(runs, into: side)
        let table = try ResultTable(contentsOf: side)
        #expect(table.columns.contains("cpu_ms") && table.columns.last == "error")
        #expect(table.rows.count == 6)
        #expect(
            table.rows.compactMap { table.value("run_id", in: $0) } == ["c1r1", "c2r1", "c1r2", "c2r2", "c1r3", "c2r3"])
        #expect(table.rows.compactMap { table.value("wall_ms", in: $0) } == ["101", "201", "102", "202", "103", "203"])
        #expect(table.rows.map { table.value("cpu_ms", in: $0) ?? "" } == ["", "7", "", "7", "", "7"])
        #expect(table.environment?.repetitions == 3 && table.environment?.rounds == 3)
        #expect(table.environment?.matrixCells == 2)
        #expect(table.declarations["cpu_ms"] != nil, "a metric only the second cell's runs have is declared")
    }
}
