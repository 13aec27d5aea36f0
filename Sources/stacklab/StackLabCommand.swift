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
            Demo.self, Run.self, List.self, Compare.self, Serve.self, SeedStore.self, Model.self, Versions.self,
            ConcurrencyProbe.self, MergeCost.self, EngineSQLite.self, EngineLMDB.self, StrategyLatency.self, FRCMerge.self,
        ])
}

/// Verbs whose implementation arrives with a later issue say so plainly and exit 2.
func notYetAvailable(_ verb: String) throws -> Never {
    FileHandle.standardError.write(Data("stacklab \(verb) is not available yet in this build (see the issue tracker).\n".utf8))
    throw ExitCode(2)
}

extension StackLabCommand {
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import pods in a background context while the main-queue context fetches (in-memory store).")

        @Option(help: "Pods to import.") var objects = 20_000
        @Option(help: "Pods per background save.") var batchSize = 1_000
        @Option(help: "Repetitions.") var repetitions = 3
        @Option(help: "Where to write the CSV.") var out = "results/demo.csv"

        func validate() throws {
            guard objects > 0, batchSize > 0, repetitions > 0 else {
                throw ValidationError("--objects, --batch-size and --repetitions must be positive")
            }
        }

        @MainActor
        func run() async throws {
            let results = try await DemoRun(objects: objects, batchSize: batchSize, repetitions: repetitions).run()
            print(DemoReport.table(results))
            let url = URL(fileURLWithPath: out)
            try DemoReport.write(results, to: url)
            print("\nwrote \(url.path)")
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run scenario files: expand each matrix, run every cell, write CSV.")
        @Argument(help: "Scenario files (YAML).") var files: [String] = []
        func run() throws { try notYetAvailable("run") }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the scenarios in a folder and their matrix sizes.")
        @Argument(help: "A folder of scenario files.") var directory = "Scenarios"
        func run() throws { try notYetAvailable("list") }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare a result CSV against a baseline; exit 1 on a regression.")
        @Argument(help: "The baseline CSV.") var baseline: String
        @Argument(help: "The current CSV.") var current: String
        func run() throws { try notYetAvailable("compare") }
    }

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the paged JSON catalogue of pod specs on loopback.")
        func run() throws { try notYetAvailable("serve") }
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
