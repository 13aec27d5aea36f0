import ArgumentParser
import Foundation
import ObjectStack
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
            ConcurrencyProbe.self, SaveLoopCommand.self, CrashTest.self, Fuzz.self, MergeCost.self,
            StrategyLatency.self, MigrateProbe.self, HoldStore.self, StoreOpenBench.self, Launch.self, FRCMerge.self,
            Explain.self,
        ])

    /// Runs the verb; a usage error exits 2 (bad input), as the discussion promises, not ArgumentParser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            exit(withError: ExitCode(2))
        }
    }
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
            abstract: "Compare a result CSV against a baseline; exit 1 on a regression.",
            discussion: """
                Per matrix cell and metric: unchanged if the medians differ by less than the threshold; \
                otherwise improved or regressed if a two-sided Mann-Whitney U test on the repetitions gives \
                p < alpha, inconclusive if not. Lower is better except for counts per second (objects_per_s). \
                Exit status: 0 no regression, 1 a regression, 2 bad input.
                """)
        @Argument(help: "The baseline CSV.") var baseline: String
        @Argument(help: "The current CSV.") var current: String
        @Option(name: .customLong("metric"), help: "A metric column to compare (repeatable; default: every shared metric).")
        var metrics: [String] = []
        @Option(help: "The smallest relative change of the medians that counts, e.g. 10%.") var threshold = "10%"
        @Option(help: "The significance level of the test.") var alpha = 0.05
        @Option(help: "Also write the comparison as CSV to this file.") var out: String?

        func run() throws {
            let rows: [ResultComparison.Row]
            let comparison: ResultComparison
            do {
                guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
                comparison = try ResultComparison(
                    baseline: ResultTable(contentsOf: URL(fileURLWithPath: baseline)),
                    current: ResultTable(contentsOf: URL(fileURLWithPath: current)),
                    metrics: metrics.flatMap { $0.split(separator: ",").map(String.init) },
                    threshold: ResultComparison.parseThreshold(threshold), alpha: alpha)
                rows = try comparison.rows()
            } catch let error as CompareError {
                FileHandle.standardError.write(Data("stacklab compare: \(error)\n".utf8))
                throw ExitCode(2)
            }
            print(ComparisonReport.table(rows, threshold: comparison.threshold, alpha: comparison.alpha))
            if let out {
                let csv = ComparisonReport.csv(rows, cellColumns: comparison.cellColumns, threshold: comparison.threshold)
                try Data(csv.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
            }
            if rows.contains(where: { $0.verdict == .regressed }) { throw ExitCode(1) }
        }
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
            commandName: "seed-store", abstract: "Build a store of N pods for startup and migration runs.",
            discussion: "The same seed gives the same pods. Pod model versions: 1 base; 2 adds `stars`; 3 renames "
                + "`summary` to `tagline` (renaming identifier).")

        @Option(help: ArgumentHelp("The store.", valueName: "sqlite|lmdb")) var store = "sqlite"
        @Option(help: "Pods to write (10000 to 1000000 are the sizes the startup lab uses).") var objects = 10_000
        @Option(help: "The pod model version (1 to 3).") var modelVersion = 1
        @Option(help: "The store file to create.") var out: String
        @Option(help: "The random seed.") var seed: UInt64 = 42
        @Option(help: "Pods per write transaction.") var batchSize = 10_000
        @Flag(help: "Replace an existing store at --out.") var force = false

        func validate() throws {
            guard PodStoreSeeder.Store(rawValue: store) != nil else { throw ValidationError("--store must be sqlite or lmdb") }
            guard objects >= 0, batchSize > 0 else { throw ValidationError("--objects must be 0 or more, --batch-size positive") }
            guard PodModel.versions.contains(modelVersion) else {
                throw ValidationError("--model-version must be 1, 2 or 3, not \(modelVersion)")
            }
        }

        func run() throws {
            let seeder = PodStoreSeeder(
                store: PodStoreSeeder.Store(rawValue: store)!, objects: objects, modelVersion: modelVersion,
                url: URL(fileURLWithPath: out), seed: seed, batchSize: batchSize, replacesExisting: force)
            do {
                print(try seeder.run().summary)
            } catch {
                FileHandle.standardError.write(Data("stacklab seed-store: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
    }

    /// Hidden: migrates a pod store, optionally killing itself partway (the tests' crash check).
    struct MigrateProbe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate-probe", abstract: "Migrate a pod store to a later model version (for tests).",
            shouldDisplay: false)

        @Option(help: ArgumentHelp("The store.", valueName: "sqlite|lmdb")) var store = "sqlite"
        @Option(help: "The store file.") var path: String
        @Option(help: "The pod model version to migrate to.") var toVersion = 2
        @Option(help: "Rows per write transaction.") var batchSize = 10_000
        @Option(help: "SIGKILL this process once this share of the copy is done.") var killAtFraction: Double?
        @Option(help: ArgumentHelp("SIGKILL this process on reaching a phase.", valueName: "copying|replacing"))
        var killInPhase: String?

        func validate() throws {
            guard PodStoreSeeder.Store(rawValue: store) != nil else { throw ValidationError("--store must be sqlite or lmdb") }
            guard (2...3).contains(toVersion) else { throw ValidationError("--to-version must be 2 or 3") }
            if let killInPhase, MigrationProgress.Phase(rawValue: killInPhase) == nil {
                throw ValidationError("--kill-in-phase must be preparing, copying, replacing or finished")
            }
        }

        func run() throws {
            var killPoint: MigrationProbe.KillPoint?
            if let killAtFraction { killPoint = .fraction(killAtFraction) }
            if let killInPhase, let phase = MigrationProgress.Phase(rawValue: killInPhase) { killPoint = .phase(phase) }
            let probe = MigrationProbe(store: PodStoreSeeder.Store(rawValue: store)!, url: URL(fileURLWithPath: path),
                toVersion: toVersion, batchSize: batchSize, killPoint: killPoint)
            do {
                let result = try probe.run()
                print(result.migrated
                    ? "migrated \(result.rows) rows to pod model version \(toVersion) in "
                        + String(format: "%.2f s (%.0f rows/s)", result.seconds, result.rowsPerSecond)
                    : "no migration needed")
            } catch {
                FileHandle.standardError.write(Data("stacklab migrate-probe: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    /// Hidden: opens a pod store and keeps it open, with no transaction running, until standard input closes
    /// (the tests' other process during a migration).
    struct HoldStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hold-store", abstract: "Keep a pod store open until standard input closes (for tests).",
            shouldDisplay: false)

        @Option(help: ArgumentHelp("The store.", valueName: "sqlite|lmdb")) var store = "sqlite"
        @Option(help: "The store file.") var path: String
        @Option(help: "The pod model version the store holds.") var modelVersion = 1

        func validate() throws {
            guard PodStoreSeeder.Store(rawValue: store) != nil else { throw ValidationError("--store must be sqlite or lmdb") }
        }

        func run() throws {
            do {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make(version: modelVersion))
                let opened = try coordinator.addPersistentStore(
                    type: PodStoreSeeder.Store(rawValue: store)!.type, at: URL(fileURLWithPath: path))
                FileHandle.standardOutput.write(Data("open\n".utf8))
                _ = FileHandle.standardInput.readDataToEndOfFile()
                try coordinator.remove(opened)
                print("closed")
            } catch {
                FileHandle.standardError.write(Data("stacklab hold-store: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    /// Hidden until the startup lab measures it: store-ready time by size and migration throughput.
    struct StoreOpenBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store-open-bench",
            abstract: "Time addPersistentStore on seeded stores of several sizes, and migration throughput.",
            shouldDisplay: false)

        @Option(help: "Store sizes, comma-separated.") var objects = "10000,100000,1000000"
        @Option(help: "Rows for the migration runs (0: skip them).") var migrationObjects = 1_000_000
        @Option(help: "Opens per size.") var repetitions = 5
        @Option(help: ArgumentHelp("Stores, comma-separated.", valueName: "sqlite,lmdb")) var stores = "sqlite,lmdb"
        @Option(help: "Where the stores are built (removed afterwards).") var directory: String?

        func validate() throws {
            guard objects.split(separator: ",").allSatisfy({ Int($0).map { $0 >= 0 } ?? false }) else {
                throw ValidationError("--objects must be counts separated by commas")
            }
            guard stores.split(separator: ",").allSatisfy({ PodStoreSeeder.Store(rawValue: String($0)) != nil }) else {
                throw ValidationError("--stores must name sqlite and/or lmdb")
            }
            guard repetitions > 0, migrationObjects >= 0 else { throw ValidationError("--repetitions must be positive") }
        }

        func run() throws {
            let folder = directory.map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-open-\(UUID().uuidString)")
            defer { if directory == nil { try? FileManager.default.removeItem(at: folder) } }
            let bench = StoreOpenBenchmark(
                sizes: objects.split(separator: ",").compactMap { Int($0) }, migrationObjects: migrationObjects,
                repetitions: repetitions, stores: stores.split(separator: ",").compactMap { PodStoreSeeder.Store(rawValue: String($0)) },
                directory: folder)
            let (opens, migrations) = try bench.run { FileHandle.standardError.write(Data("… \($0)\n".utf8)) }
            print(StoreOpenBenchmark.table(opens: opens, migrations: migrations))
        }
    }

    /// Hidden: used by the tests to show the concurrency check trapping in a child process.
    struct ConcurrencyProbe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "concurrency-probe", abstract: "Touch a context off its queue (for tests).", shouldDisplay: false)
        func run() throws { print(try ConcurrencyViolationProbe.run()) }
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

    /// Hidden until the lab's merge-cost workload measures it: a fetched results controller's share of a merge.
    struct FRCMerge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "frc-merge",
            abstract: "Time a merge of C changes into a main-queue context whose fetched results controller holds R objects.",
            shouldDisplay: false)
        @Option(help: ArgumentHelp("The store.", valueName: "memory|sqlite")) var store = "memory"
        @Option(help: "Changes per merge (a third each inserts, updates, deletes).") var changes = 1_000
        @Option(parsing: .upToNextOption, help: "Objects the controller holds.") var fetched: [Int] = [1_000, 100_000]
        @Option(help: "Repetitions per cell (with and without a controller, interleaved).") var repetitions = 7

        func validate() throws {
            guard FetchedResultsMergeBenchmark.Store(rawValue: store) != nil else {
                throw ValidationError("--store must be memory or sqlite")
            }
            guard changes >= 3, repetitions > 0, !fetched.isEmpty, fetched.allSatisfy({ $0 >= changes }) else {
                throw ValidationError("--changes must be at least 3, --repetitions positive, each --fetched at least --changes")
            }
        }

        // On the main actor and async: the receiving context is a main-queue context.
        @MainActor
        func run() async throws {
            let kind = FetchedResultsMergeBenchmark.Store(rawValue: store)!
            let benchmark = FetchedResultsMergeBenchmark(store: kind, changes: changes, fetchedCounts: fetched, repetitions: repetitions)
            print(FetchedResultsMergeBenchmark.table(try benchmark.run(), store: kind))
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

    struct SaveLoopCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save-loop", abstract: "Save in a loop with a journal until killed (crash tests).",
            shouldDisplay: false)
        @Option(help: "sqlite or lmdb.") var store: SaveLoop.Store
        @Option(help: "The store file.") var path: String
        @Option(help: "The journal of acknowledged saves.") var journal: String
        @Option(help: "Decides the batch sizes.") var seed: UInt64 = 1
        @Option(help: "Stop after this save (default: never).") var limit: Int64 = .max

        func run() throws {
            try SaveLoop(
                store: store, url: URL(fileURLWithPath: path), journal: URL(fileURLWithPath: journal), seed: seed
            ).run(limit: limit)
        }
    }

    struct CrashTest: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "crash-test",
            abstract: "SIGKILL save loops at random moments and check that no acknowledged save is lost or torn.")
        @Option(help: "sqlite or lmdb (repeatable; default both).") var store: [SaveLoop.Store] = SaveLoop.Store.allCases
        @Option(help: "Kills per store.") var kills = 50
        @Option(help: "Seed of the batch sizes.") var seed: UInt64 = 1
        @Option(help: "Longest run of a child before its kill, in ms.") var maxRunMs = 400

        func run() throws {
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            for store in store {
                let campaign = KillCampaign(
                    executable: executable, store: store, kills: kills, seed: seed, maximumRunMilliseconds: maxRunMs)
                let outcome = try campaign.run { kill, state in
                    if kill % 10 == 0 { print("\(store.rawValue): \(kill) kills, store at save \(state.lastSave)") }
                }
                print("\(store.rawValue): survived \(outcome.kills) kills; \(outcome.savesAcknowledged) saves acknowledged, "
                    + "\(outcome.killsBetweenCommitAndJournal) kills between commit and journal, \(outcome.entries) entries, nothing lost or torn")
            }
        }
    }

    struct Fuzz: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuzz a reader of untrusted input (predicate, model-file, scenario) with seeded mutations of a corpus.",
            discussion: "Exit status: 0 nothing found, 1 an input failed with an unexpected error, 3 a hang; a crash leaves its input in --last-input.")
        @Argument(help: "The target: \(FuzzTarget.all.map(\.name).joined(separator: ", ")).") var target: String
        @Option(help: "A folder of seed inputs.") var corpus: String?
        @Option(help: "How long to fuzz, in seconds.") var seconds = 60.0
        @Option(help: "Seed of the mutations.") var seed: UInt64 = 1
        @Option(help: "Where each input is written before it runs.") var lastInput = "fuzz-last-input"

        func run() throws {
            guard let fuzzTarget = FuzzTarget.named(target) else {
                throw ValidationError("no fuzz target '\(target)'; targets: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
            }
            let seeds = try corpus.map { try Fuzzer.corpus(at: URL(fileURLWithPath: $0)) } ?? []
            let fuzzer = Fuzzer(target: fuzzTarget, seed: seed, lastInputFile: URL(fileURLWithPath: lastInput))
            let report = try fuzzer.run(corpus: seeds, seconds: seconds)
            print("fuzz \(target): \(report.executions) inputs in \(String(format: "%.0f", report.seconds)) s "
                + "(\(seeds.count) from the corpus, seed \(seed)): \(report.accepted) accepted, \(report.rejected) rejected with an error, "
                + "\(report.unexpected.count) unexpected errors; no crash, no hang")
            for (input, message) in report.unexpected.prefix(5) {
                print("  unexpected: \(message) for input \(String(decoding: input, as: UTF8.self).debugDescription)")
            }
            if !report.unexpected.isEmpty { throw ExitCode(1) }
        }
    }

    struct Launch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One app launch on a store, for the startup workload (a child process it watches).",
            shouldDisplay: false)
        @Option(help: "sqlite or lmdb.") var store: PodStoreSeeder.Store
        @Option(help: "The store file.") var path: String
        @Option(help: "sync or async.") var mode: LaunchChild.Mode
        @Option(help: "The app's pod model version.") var modelVersion = 1
        @Option(help: "How an older store reaches it: lightweight or custom (a staged migration back-filling every pod).")
        var migration: StartupMigration = .lightweight

        @MainActor
        func run() async throws {
            let report = await LaunchChild(
                store: store, url: URL(fileURLWithPath: path), mode: mode, modelVersion: modelVersion, migration: migration
            ).run()
            if report.error != nil { throw ExitCode(1) }
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

extension PodStoreSeeder.Store: ExpressibleByArgument {}

extension LaunchChild.Mode: ExpressibleByArgument {}

extension StartupMigration: ExpressibleByArgument {}
