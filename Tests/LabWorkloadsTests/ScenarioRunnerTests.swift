import Foundation
import LabWorkloads
import Testing

@Suite("Scenario runner: strategies, CSV, checks")
struct ScenarioRunnerTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)")
    }

    @MainActor
    func run(_ text: String, out: URL) async throws -> (Scenario, [RunResult]) {
        let scenario = try ScenarioFile.parse(text, file: URL(fileURLWithPath: "/tests/inline.yaml"))
        var options = ScenarioRunner.Options(outDirectory: out)
        options.engines = LabStores.engines
        let runner = ScenarioRunner(options: options, progress: ProgressReporter(isTerminal: false) { _ in })
        return (scenario, try await runner.run(runner.prepared(scenario)))
    }

    /// Every strategy on every store it runs on (the extension's other process needs a store file).
    static let cases = StoreKind.all.flatMap { store in
        StackStrategies.all.filter { store.isFile || !$0.writesInAnotherProcess }.map { (store, $0.declaration.name) }
    }

    /// The strategies that merge at their own pace (once a frame, on a remote change notification), so several saves
    /// may arrive in one merge.
    static let coalescing: Set = ["batch-history", "pinned-generation", "extension"]

    @Test(
        "each strategy imports a small catalogue on each store: every pod lands once and the main context sees it",
        arguments: cases)
    @MainActor
    func tinyImport(store: StoreKind, strategy: String) async throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let (_, results) = try await run(
            """
            name: tiny
            workload: import
            repetitions: 1
            parameters: {store: \(store.name), strategy: \(strategy), objects: 230, page_size: 100, batch_size: 40, ui_fetch_hz: 60}
            """, out: out)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.metrics[.storedObjects] == 230)
        #expect(result.metrics[.objects] == 230)
        #expect((result.metrics[.objectsPerSecond] ?? 0) > 0)
        #expect(result.metrics[.mainMaxStallMilliseconds] != nil)
        #expect((result.metrics[.fetches] ?? 0) >= 1, "the main context fetched the first screen")
        // Batches of 40 over pages of 100: 3 saves per full page, 1 for the last 30: 7 saves to merge (fewer merges
        // where the strategy coalesces them, but at least one).
        if strategy == "main-only" {
            #expect(result.metrics[.merges] == nil)
        } else if Self.coalescing.contains(strategy) {
            #expect((1...7).contains(Int(result.metrics[.merges] ?? 0)))
        } else {
            #expect(result.metrics[.merges] == 7)
        }
        #expect((result.metrics[.storeBytes] == nil) == (store == .memory))
    }

    static let phaseColumns: [Metric] = [
        .serviceWaitMilliseconds, .decodeMilliseconds, .queueWaitMilliseconds, .findOrCreateMilliseconds,
        .saveMilliseconds, .mergeWaitMilliseconds,
    ]

    @Test(
        "an import's phases add up to its wall time: the measured phase holds only the importer's work and waits",
        arguments: [
            (StoreKind.sqlite, "main-only"), (.sqlite, "shared-coordinator"), (.lmdb, "separate-stacks"),
            (.memory, "nested-contexts"),
        ])
    @MainActor
    func phasesAddUp(store: StoreKind, strategy: String) async throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let (_, results) = try await run(
            """
            name: phases
            workload: import
            repetitions: 1
            parameters: {store: \(store.name), strategy: \(strategy), objects: 2000, page_size: 500, batch_size: 250}
            """, out: out)
        let result = try #require(results.first)
        #expect(result.error == nil)
        let metrics = result.metrics
        let wall = try #require(metrics[.wallMilliseconds])
        let phases = try Self.phaseColumns.map { try #require(metrics[$0], "\($0.name)") }
        for (metric, value) in zip(Self.phaseColumns, phases) { #expect(value >= 0, "\(metric.name)") }
        // Work every import does, whatever the strategy: 4 pages fetched and decoded, 8 batches found and saved.
        for metric in [
            Metric.serviceWaitMilliseconds, .decodeMilliseconds, .findOrCreateMilliseconds, .saveMilliseconds,
        ] {
            #expect((metrics[metric] ?? 0) > 0, "\(metric.name)")
        }
        // The phases are consecutive stretches of one timeline: a wait outside them (such as the service's
        // shutdown, once a second inside this phase) would leave the sum short of the wall time.
        let sum = phases.reduce(0, +)
        #expect(abs(wall - sum) <= 0.05 * wall, "wall \(wall) ms, phases \(sum) ms")
        let cpu = try #require(metrics[.cpuMilliseconds])
        #expect(cpu > 0)
        #expect(metrics[.cpuShare].map { abs($0 - cpu / wall) < 0.01 } == true, "cpu_share is cpu_ms over wall_ms")
        #expect(metrics[.fetchTotalMilliseconds] != nil)
    }

    @Test("re-import through the web service updates and inserts nothing", arguments: [StoreKind.sqlite, .lmdb])
    @MainActor
    func reimport(store: StoreKind) async throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let (_, results) = try await run(
            """
            name: again
            workload: import
            repetitions: 1
            parameters: {store: \(store.name), strategy: separate-stacks, objects: 150, page_size: 50, batch_size: 50, reimport: true}
            """, out: out)
        #expect(results.first?.error == nil)
        #expect(results.first?.metrics[.storedObjects] == 150, "the revision updated the 150 pods, no duplicates")
    }

    @Test("the other workloads run and report their own metrics")
    @MainActor
    func otherWorkloads() async throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let (_, merge) = try await run(
            """
            name: merges
            workload: merge-cost
            repetitions: 1
            parameters: {store: sqlite, registered: 200, changes: 30, merges: 2}
            matrix: {strategy: [shared-coordinator, separate-stacks, nested-contexts]}
            """, out: out)
        for result in merge {
            #expect(result.error == nil)
            #expect(result.metrics[.merges] == 2)
            #expect(result.metrics[.objects] == 60)
            // seeded max(200, 2·10·2) = 200; 2 merges each insert 10 and delete 10
            #expect(result.metrics[.storedObjects] == 200)
        }
        let (_, chain) = try await run(
            """
            name: chain
            workload: save-chain
            repetitions: 1
            parameters: {store: lmdb, objects: 50, saves: 2}
            matrix: {strategy: [main-only, nested-contexts]}
            """, out: out)
        #expect(chain.map(\.error) == [nil, nil])
        #expect(chain.map { $0.metrics[.storedObjects] } == [100, 100])
        #expect(chain.map { $0.metrics[.merges] } == [nil, 2])
        let (_, mix) = try await run(
            """
            name: mix
            workload: read-write-mix
            repetitions: 1
            parameters: {store: memory, strategy: shared-coordinator, objects: 300, readers: 2, writers: 2, write_rate: 400, batch_size: 40, duration_s: 0.3}
            """, out: out)
        let written = try #require(mix.first?.metrics[.objects])
        #expect(mix.first?.error == nil)
        #expect(written >= 40)
        #expect((mix.first?.metrics[.fetches] ?? 0) >= 2)
        let inserted = (mix.first?.metrics[.storedObjects] ?? 0) - 300
        #expect(inserted > 0 && inserted <= written)
    }

    @Test(
        "the CSV: identifying columns, metric columns, empty cells where a metric does not apply, an error cell for a failed run while the others go on; the check finds missing rows and errors"
    )
    @MainActor
    func csvShape() async throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let good = out.appendingPathComponent("good.jsonl")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Catalogue.synthetic(count: 60, seed: 2).specs.map { spec in
            String(decoding: try JSONEncoder().encode(spec), as: UTF8.self)
        }.joined(separator: "\n").write(to: good, atomically: true, encoding: .utf8)
        let text = """
            name: shape
            workload: import
            repetitions: 2
            parameters: {store: memory, page_size: 25, batch_size: 25}
            matrix:
              strategy: [main-only, separate-stacks]
              catalog: [\(good.path), /nonexistent/catalogue.jsonl]
            """
        let (scenario, results) = try await run(text, out: out)
        #expect(results.count == 8, "2 strategies × 2 catalogues × 2 repetitions: failures do not stop the run")
        let csv = try String(contentsOf: out.appendingPathComponent("shape.csv"), encoding: .utf8)
        let rows = ResultCSV.parse(csv)
        #expect(rows.count == 9)
        let header = rows[0]
        #expect(
            Array(header.prefix(8)) == [
                "scenario", "workload", "store", "strategy", "catalog", "repetition", "run_id", "timestamp",
            ])
        #expect(header.last == "error")
        // The columns every run has, then the import's own (the session's and the phases), as it declares them.
        #expect(Array(header.dropFirst(8).dropLast()) == scenario.workload.columns(for: scenario).map(\.name))
        #expect(Array(header.dropFirst(8).prefix(3)) == ["wall_ms", "cpu_ms", "peak_rss_mb"])
        #expect(header.contains("service_wait_ms") && !header.contains("time_to_first_frame_ms"))
        let column = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
        for row in rows.dropFirst() {
            #expect(row.count == header.count)
            let failed = row[column["catalog"]!].hasPrefix("/nonexistent")
            #expect(row[column["error"]!].isEmpty == !failed)
            if failed {
                #expect(row[column["error"]!].contains("/nonexistent/catalogue.jsonl: cannot read the catalogue"))
                #expect(row[column["objects_per_s"]!].isEmpty)
            } else {
                #expect(row[column["stored_objects"]!] == "60")
                #expect(row[column["store_bytes"]!].isEmpty, "no file for the in-memory store")
                #expect(row[column["merges"]!].isEmpty == (row[column["strategy"]!] == "main-only"))
            }
        }
        #expect(
            rows.dropFirst().map { $0[column["run_id"]!] } == [
                "c1r1", "c2r1", "c3r1", "c4r1", "c1r2", "c2r2", "c3r2", "c4r2",
            ])
        let env = try Data(contentsOf: out.appendingPathComponent("shape.env.json"))
        let record = try #require(try JSONSerialization.jsonObject(with: env) as? [String: Any])
        for key in ["git_commit", "host", "cores", "swift", "engines", "os"] {
            #expect(record[key] != nil, "\(key)")
        }
        // The engines the stores link, as LabStores declares them: what `stacklab run` records.
        let engines = (record["engines"] as? [[String: String]])?.compactMap { $0["name"] }
        #expect(engines == ["SQLite", "LMDB"])

        let problems = ResultCheck.problems(in: out.appendingPathComponent("shape.csv"), scenario: scenario)
        #expect(problems.count == 4)
        #expect(problems.allSatisfy { $0.contains("failed: ") })
        let complete = try await run(
            text.replacingOccurrences(of: ", /nonexistent/catalogue.jsonl", with: ""), out: out)
        #expect(ResultCheck.problems(in: out.appendingPathComponent("shape.csv"), scenario: complete.0).isEmpty)
        var lines = try String(contentsOf: out.appendingPathComponent("shape.csv"), encoding: .utf8).split(
            separator: "\n")
        lines.removeLast()
        try (lines.joined(separator: "\n") + "\n").write(
            to: out.appendingPathComponent("shape.csv"), atomically: true, encoding: .utf8)
        #expect(
            ResultCheck.problems(in: out.appendingPathComponent("shape.csv"), scenario: complete.0)
                == [
                    "\(out.appendingPathComponent("shape.csv").path): no row for run c2r2 (store=memory strategy=separate-stacks catalog=\(good.path), repetition 2)"
                ])
    }

    @Test("the summary table has one row per cell with the medians, aligned")
    @MainActor
    func summary() async throws {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let (scenario, results) = try await run(
            """
            name: table
            workload: save-chain
            repetitions: 3
            parameters: {store: memory, objects: 20, saves: 1}
            matrix: {strategy: [shared-coordinator, nested-contexts]}
            """, out: out)
        let lines = SummaryTable.text(results, scenario: scenario).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[1].hasPrefix("store   strategy            runs  wall_ms"))
        #expect(lines[3].hasPrefix("memory  shared-coordinator     3"))
        #expect(lines[4].hasPrefix("memory  nested-contexts        3"))
        #expect(Set(lines.dropFirst().map(\.count)).count == 1)
    }
}

@Suite("Scenario runner: the probes as scenario cells")
struct ProbeScenarioTests {
    @MainActor
    func run(_ text: String) async throws -> [RunResult] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("probes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let scenario = try ScenarioFile.parse(text, file: URL(fileURLWithPath: "/tests/probe.yaml"))
        let runner = ScenarioRunner(
            options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    @Test(
        "merge cost with and without a fetched results controller: the same merges, every change lands",
        arguments: [StoreKind.memory, .sqlite])
    @MainActor
    func mergeWithAndWithoutController(store: StoreKind) async throws {
        let results = try await run(
            """
            name: merge-frc
            workload: merge-cost
            repetitions: 1
            parameters: {store: \(store.name), strategy: shared-coordinator, registered: 300, changes: 30, merges: 2}
            matrix:
              observer: [frc, none]
            """)
        #expect(results.map { $0.cell.parameters["observer"]?.description } == ["frc", "none"])
        for result in results {
            #expect(result.error == nil)
            #expect(result.metrics[.merges] == 2, "each background save merged once")
            #expect((result.metrics[.mergeTotalMilliseconds] ?? -1) >= 0)
            // 300 seeded, then two saves of 10 inserts, 10 updates and 10 deletes each.
            #expect(result.metrics[.storedObjects] == 300)
        }
    }

    @Test("a read-write mix whose deadline passes before its tasks start still saves, merges and fetches once")
    @MainActor
    func mixPastItsDeadline() async throws {
        // A microsecond: the writer's and reader's tasks start after the deadline, as on a loaded machine.
        let results = try await run(
            """
            name: late-start
            workload: read-write-mix
            repetitions: 1
            parameters: {store: sqlite, objects: 100, readers: 1, reads_per_s: 100, writers: 1, write_rate: 100, batch_size: 10, duration_s: 0.000001}
            matrix:
              strategy: [shared-coordinator]
            """)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.metrics[.objects] == 10, "one save of five new pods and five updated ones")
        #expect(result.metrics[.storedObjects] == 105)
        #expect((result.metrics[.merges] ?? 0) >= 1)
        #expect((result.metrics[.fetches] ?? 0) >= 1)
    }

    @Test("strategy latency as read-write-mix cells: both strategies fetch while the writer saves, every pod lands")
    @MainActor
    func strategyLatency() async throws {
        let results = try await run(
            """
            name: strategy-latency
            workload: read-write-mix
            repetitions: 1
            parameters: {store: sqlite, objects: 200, readers: 1, reads_per_s: 200, writers: 1, write_rate: 400, batch_size: 50, duration_s: 1.5}
            matrix:
              strategy: [shared-coordinator, separate-stacks]
            """)
        #expect(
            results.map { $0.cell.parameters["strategy"]?.description } == ["shared-coordinator", "separate-stacks"])
        for result in results {
            #expect(result.error == nil)
            #expect((result.metrics[.fetches] ?? 0) >= 1, "the main context fetched during the writes")
            #expect((result.metrics[.objects] ?? 0) > 0, "the writer saved")
            #expect((result.metrics[.storedObjects] ?? 0) >= 200)
            #expect((result.metrics[.merges] ?? 0) >= 1, "the writer's saves were merged into the main context")
        }
    }
}
