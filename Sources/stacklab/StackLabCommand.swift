import ArgumentParser
import Foundation
import ObjectStackLMDB
import ObjectStackSQLite
import StackLab

/// `stacklab`: runs scenarios on the ObjectStack API and compares Core Data stack designs.
@main
struct StackLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stacklab",
        abstract: "Measure and compare Core Data stack designs on ObjectStack (SQLite, LMDB, in-memory).",
        discussion: "Exit status: 0 ok, 1 a regression or failed check, 2 bad input.",
        subcommands: [
            Run.self, List.self, Check.self, Compare.self, Serve.self, SeedStore.self, Model.self, Versions.self,
            ConcurrencyProbe.self, MergeCost.self, EngineSQLite.self, EngineLMDB.self, StrategyLatency.self,
        ])
}

/// Verbs whose implementation arrives with a later issue say so plainly and exit 2.
func notYetAvailable(_ verb: String) throws -> Never {
    FileHandle.standardError.write(Data("stacklab \(verb) is not available yet in this build (see the issue tracker).\n".utf8))
    throw ExitCode(2)
}

extension StackLabCommand {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scenario files: expand each matrix, run every cell, print a summary, write CSV.",
            discussion: "Exit status: 0 every run finished, 1 some run failed (its row has an error cell), 2 bad input.")
        @Argument(help: "Scenario files (YAML).") var files: [String]
        @OptionGroup var selection: ScenarioSelection
        @Option(help: "Where to write the CSVs and their .env.json sidecars.") var out = "results"

        func validate() throws { try selection.validate() }

        // On the main actor and async: the main-queue context's blocks run only while the main actor awaits.
        @MainActor
        func run() async throws {
            let scenarios = try selection.load(files)
            let runner = ScenarioRunner(options: selection.options(out: out))
            var failed = 0
            for scenario in scenarios.map(runner.prepared) {
                let results = try await runner.run(scenario)
                failed += results.filter { $0.error != nil }.count
                print(SummaryTable.text(results, scenario: scenario))
                print("wrote \(runner.csvURL(for: scenario).path)\n")
            }
            if failed > 0 {
                FileHandle.standardError.write(Data("stacklab run: \(failed) run(s) failed; see the error column\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List scenarios and their matrix sizes.")
        @Argument(help: "Folders of scenario files, or scenario files.") var paths: [String] = ["Scenarios"]
        @Flag(help: "Show the sizes --quick runs.") var quick = false

        func run() throws {
            var files: [String] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw failure("\(path): no such file or folder")
                }
                if isDirectory.boolValue {
                    let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".yaml") }.sorted()
                    files += names.map { (path as NSString).appendingPathComponent($0) }
                } else {
                    files.append(path)
                }
            }
            var rows = [["scenario", "workload", "cells", "repetitions", "runs", "file"]]
            var abouts: [String] = []
            for file in files {
                let loaded = try loadScenario(file)
                let scenario = quick ? loaded.quick() : loaded
                let matrix = scenario.matrix.map { "\($0.values.count) \($0.name)" }.joined(separator: " × ")
                rows.append([scenario.name, scenario.workload.rawValue, "\(scenario.cellCount)", "\(scenario.repetitions)",
                    "\(scenario.cellCount * (scenario.repetitions + scenario.warmup))", file])
                abouts.append("\(scenario.name): \(matrix.isEmpty ? "1 cell" : matrix). \(scenario.about)")
            }
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print(zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  "))
            }
            print("")
            abouts.forEach { print($0) }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that each scenario's CSV has a row for every cell and repetition and no error cell.",
            discussion: "Give the same options as the run. Exit status: 0 complete, 1 a missing row or an error cell, 2 bad input.")
        @Argument(help: "Scenario files (YAML).") var files: [String]
        @OptionGroup var selection: ScenarioSelection
        @Option(help: "Where the run wrote its CSVs.") var out = "results"

        func validate() throws { try selection.validate() }

        @MainActor
        func run() async throws {
            let runner = ScenarioRunner(options: selection.options(out: out))
            var problems: [String] = []
            for scenario in try selection.load(files).map(runner.prepared) {
                let found = ResultCheck.problems(in: runner.csvURL(for: scenario), scenario: scenario, filters: selection.filters)
                problems += found
                if found.isEmpty {
                    let rows = scenario.cells(filters: selection.filters).count * scenario.repetitions
                    print("ok \(runner.csvURL(for: scenario).path): \(rows) rows, no error")
                }
            }
            guard problems.isEmpty else {
                problems.forEach { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
                throw ExitCode(1)
            }
        }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare a result CSV against a baseline; exit 1 on a regression.")
        @Argument(help: "The baseline CSV.") var baseline: String
        @Argument(help: "The current CSV.") var current: String
        func run() throws { try notYetAvailable("compare") }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the paged JSON catalogue of pod specs on loopback: GET /specs?page=N.")
        @Option(help: "The loopback address to listen on.") var host = "127.0.0.1"
        @Option(help: "The port (0: any free port).") var port: UInt16 = 8080
        @Option(help: "Pods in the synthetic catalogue.") var objects = 10_000
        @Option(help: "Seed of the synthetic catalogue.") var seed: UInt64 = 1
        @Option(help: "Pods per page.") var pageSize = 500
        @Option(help: "A catalogue file (JSON Lines or TSV with a header row) instead of the synthetic one.")
        var catalog: String?

        func validate() throws {
            guard objects >= 0, pageSize > 0 else { throw ValidationError("--objects must not be negative; --page-size positive") }
            guard host.hasPrefix("127.") || host == "localhost" else {
                throw ValidationError("--host must be a loopback address (127.x.x.x)")
            }
        }

        func run() async throws {
            let catalogue = try catalog.map { try Catalogue.load(URL(fileURLWithPath: $0)) }
                ?? .synthetic(count: objects, seed: seed)
            let service = try await PodService.start(catalogue: catalogue, pageSize: pageSize, host: host, port: port)
            print("serving \(catalogue.specs.count) pod specs in \(service.pageCount) pages at \(service.baseURL.absoluteString)/specs?page=1")
            try await service.wait()
        }
    }

    struct SeedStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seed-store", abstract: "Build a store of N objects for startup and migration runs.")
        func run() throws { try notYetAvailable("seed-store") }
    }

    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Describe an Xcode model file (.xcdatamodel or .xcdatamodeld).")
        @Argument(help: "The model file.") var path: String
        func run() throws { try notYetAvailable("model") }
    }

    /// Hidden: used by the tests to show the concurrency check trapping in a child process.
    struct ConcurrencyProbe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "concurrency-probe", abstract: "Touch a context off its queue (for tests).", shouldDisplay: false)
        func run() throws { print(try ConcurrencyViolationProbe.run()) }
    }

    /// Hidden until the lab's engine-overhead scenario replaces it: the stack against raw SQLite.
    struct EngineSQLite: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "engine-sqlite",
            abstract: "Time a context save and fetch of N pods on SQLite against the raw C API, side by side.",
            shouldDisplay: false)
        @Option(help: "Pods saved and fetched.") var objects = 100_000
        @Option(help: "Repetitions (stack and raw interleaved).") var repetitions = 3
        func validate() throws {
            guard objects > 0, repetitions > 0 else { throw ValidationError("--objects and --repetitions must be positive") }
        }
        func run() throws {
            let samples = try SQLiteEngineBenchmark(objects: objects, repetitions: repetitions).run()
            print(SQLiteEngineBenchmark.table(samples, objects: objects))
        }
    }

    /// Hidden until the lab's merge-cost workload replaces it: merge cost against registered objects.
    struct MergeCost: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge-cost", abstract: "Time mergeChanges of C changes into contexts holding R objects.",
            shouldDisplay: false)
        @Option(help: "Changes per merge.") var changes = 1_000
        @Option(parsing: .upToNextOption, help: "Registered objects in the receiving context.") var registered: [Int] = [1_000, 100_000]
        @Option(help: "Repetitions per cell.") var repetitions = 5
        func run() throws {
            let results = try MergeCostBenchmark(changes: changes, registeredCounts: registered, repetitions: repetitions).run()
            print(MergeCostBenchmark.table(results))
        }
    }

    /// Hidden: the LMDB store against plain LMDB calls on the same rows (save, fetch, point lookups).
    struct EngineLMDB: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "engine-lmdb", abstract: "Time the LMDB store against plain mdb_put, cursor scan and mdb_get.",
            shouldDisplay: false)
        @Option(help: "Pods saved and read.") var count = 100_000
        @Option(help: "Repetitions (interleaved).") var repetitions = 3
        @Option(help: "Folder for the store files (a fresh temporary folder by default).") var folder: String?
        @Flag(help: "Drop the pod model's uniqueness constraint and index (measure the rows alone).") var unindexed = false
        func validate() throws {
            guard count > 0, repetitions > 0 else { throw ValidationError("count and repetitions must be positive") }
        }
        func run() throws {
            let benchmark = LMDBEngineBenchmark(
                count: count, repetitions: repetitions, folder: folder.map { URL(fileURLWithPath: $0) }, indexed: !unindexed)
            print(LMDBEngineBenchmark.table(try benchmark.run()))
        }
    }

    /// Hidden: main-context fetch latency while a background context saves, shared coordinator vs separate stacks.
    struct StrategyLatency: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "strategy-latency",
            abstract: "Time main-context fetches during background saves: shared coordinator vs separate stacks.",
            shouldDisplay: false)
        @Option(help: ArgumentHelp("The store.", valueName: "sqlite|lmdb|memory")) var store = "sqlite"
        @Option(help: "Pods in the store before the background saves start.") var objects = 50_000
        @Option(help: "Background saves per run.") var batches = 20
        @Option(help: "Pods per background save.") var batchSize = 2_000
        @Option(help: "Runs of each strategy (interleaved).") var repetitions = 3

        func validate() throws {
            guard StrategyLatencyBenchmark.Store(rawValue: store) != nil else {
                throw ValidationError("--store must be sqlite, lmdb or memory")
            }
            guard objects >= 0, batches > 0, batchSize > 0, repetitions > 0 else {
                throw ValidationError("--objects must not be negative; --batches, --batch-size, --repetitions positive")
            }
        }

        // On the main actor and async: the main-queue context's blocks run only while the main queue drains.
        @MainActor
        func run() async throws {
            let kind = StrategyLatencyBenchmark.Store(rawValue: store)!
            let benchmark = StrategyLatencyBenchmark(
                store: kind, objects: objects, batches: batches, batchSize: batchSize, repetitions: repetitions)
            print(StrategyLatencyBenchmark.table(try await benchmark.run(), store: kind))
        }
    }

    struct Versions: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the versions of the engines this build links.")
        func run() {
            print("SQLite \(SQLiteEngine.version)")
            print("LMDB \(LMDBEngine.version)")
        }
    }
}
