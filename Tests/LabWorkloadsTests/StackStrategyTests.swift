import Foundation
import ObjectStack
import Testing

@testable import LabWorkloads

/// Today's strategies (container, batch-history, pinned-generation, extension): each brings background writes into
/// the main context its own way, and the import's newest_first and write_rate do what they say.
@Suite("Today's concurrency strategies")
struct StackStrategyTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("designs-\(UUID().uuidString)")
    }

    static let inProcess = ["container", "batch-history", "pinned-generation"]
    static let cases = StoreKind.all.flatMap { store in inProcess.map { (store, $0) } }

    @MainActor
    func run(_ text: String) async throws -> [RunResult] {
        let out = Self.folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let scenario = try ScenarioFile.parse(text, file: URL(fileURLWithPath: "/tests/designs.yaml"))
        let runner = ScenarioRunner(
            options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    @Test(
        "a background save reaches the main context the strategy's way: its pods are registered there", arguments: cases
    )
    @MainActor
    func backgroundSaveReachesMain(store: StoreKind, strategy: String) async throws {
        let folder = Self.folder()
        let stack = try LabStack(
            strategy: #require(StackStrategies.named(strategy)), store: store, model: PodModel.make(), in: folder)
        defer { stack.close() }
        try stack.seed(count: 20, seed: 1)
        let main = stack.main
        #expect(main.performAndWait { main.registeredObjects.count } == 0, "the seeding is not merged")
        let background = try stack.newBackgroundContext()
        try await background.perform {
            for index in 0..<30 {
                Pod(context: background).apply(PodSpec(name: "Design\(index)", version: "1", authors: "test"))
            }
            try stack.save(background)
        }
        try await stack.catchUp()
        let names = main.performAndWait { Set(main.registeredObjects.compactMap { ($0 as? Pod)?.name }) }
        #expect(names == Set((0..<30).map { "Design\($0)" }), "the merge registered exactly the saved pods")
        #expect(try main.performAndWait { try main.count(for: FetchRequest<Pod>(entityName: "Pod")) } == 50)
        #expect(stack.merges.summary.count >= 1)
        let pinned = main.performAndWait { main.queryGenerationToken != nil }
        #expect(pinned == (strategy == "pinned-generation"))
    }

    @Test("a pinned main context does not see a save until the strategy moves it", arguments: StoreKind.all)
    @MainActor
    func pinnedSeesNothingBeforeItsFrame(store: StoreKind) async throws {
        let stack = try LabStack(
            strategy: PinnedGenerationStrategy(), store: store, model: PodModel.make(), in: Self.folder())
        defer { stack.close() }
        try stack.seed(count: 10, seed: 2)
        let main = stack.main
        let count = { try main.performAndWait { try main.count(for: FetchRequest<Pod>(entityName: "Pod")) } }
        #expect(try count() == 10, "the seeding moved the pinned context")
        // A save through another coordinator is not one the strategy hears: the pinned context keeps its generation.
        let outsider = ManagedObjectContext(concurrencyType: .privateQueue)
        outsider.persistentStoreCoordinator = try stack.openAnotherCoordinator()
        try outsider.performAndWait {
            Pod(context: outsider).apply(PodSpec(name: "Outside", version: "1", authors: "test"))
            try outsider.save()
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try count() == 10, "pinned: three frames later it still reads its generation")
        let background = try stack.newBackgroundContext()
        try await background.perform {
            Pod(context: background).apply(PodSpec(name: "Inside", version: "1", authors: "test"))
            try stack.save(background)
        }
        try await stack.catchUp()
        #expect(try count() == 12, "the frame's merge moved it to the current generation")
    }

    @Test("batch-history imports with batch inserts: nothing is registered in the importing context")
    @MainActor
    func batchHistoryImportsWithBatchInserts() async throws {
        let stack = try LabStack(
            strategy: BatchHistoryStrategy(), store: .sqlite, model: PodModel.make(), in: Self.folder())
        defer { stack.close() }
        let background = try stack.newBackgroundContext()
        let specs = (0..<120).map { PodSpec(name: "Batch\($0)", version: "1", authors: "test") }
        let counts = try await background.perform {
            try PodImporter.batchInsertSpecs(specs, batchSize: 50, into: background)
        }
        #expect(counts.inserted == 120)
        #expect(background.performAndWait { background.registeredObjects.isEmpty })
        try await stack.catchUp()
        let main = stack.main
        #expect(main.performAndWait { main.registeredObjects.count } == 120, "three transactions merged from history")
        // Again: the uniqueness constraint makes the batch insert an upsert, not a duplicate.
        _ = try await background.perform { try PodImporter.batchInsertSpecs(specs, batchSize: 50, into: background) }
        try await stack.catchUp()
        #expect(try main.performAndWait { try main.count(for: FetchRequest<Pod>(entityName: "Pod")) } == 120)
    }

    @Test("newest_first times every commit's way to the first screen", arguments: ["separate-stacks"] + inProcess)
    @MainActor
    func changeToScreen(strategy: String) async throws {
        let results = try await run(
            """
            name: screen
            workload: import
            repetitions: 1
            parameters: {store: sqlite, strategy: \(strategy), objects: 230, page_size: 100, batch_size: 40, newest_first: true}
            """)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.metrics[.storedObjects] == 230)
        #expect(result.metrics[.screenCommits] == 7, "7 saves, each shown")
        let p50 = try #require(result.metrics[.changeToScreenP50Milliseconds])
        let p99 = try #require(result.metrics[.changeToScreenP99Milliseconds])
        #expect(p50 > 0 && p50 <= p99)
        #expect(result.metrics[.extensionObjectsPerSecond] == nil)
    }

    @Test(
        "the extension imports from another process; the app merges its history and shows each commit",
        arguments: StoreKind.fileStores)
    @MainActor
    func extensionImports(store: StoreKind) async throws {
        let results = try await run(
            """
            name: extension
            workload: import
            repetitions: 1
            parameters: {store: \(store.name), strategy: extension, objects: 230, page_size: 100, batch_size: 40, newest_first: true}
            """)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.metrics[.objects] == 230)
        #expect(result.metrics[.storedObjects] == 230, "the app's pinned main context sees every pod")
        #expect(result.metrics[.screenCommits] == 7)
        #expect(result.metrics[.changeToScreenP99Milliseconds] != nil)
        #expect((result.metrics[.extensionObjectsPerSecond] ?? 0) > 0)
        #expect((1...7).contains(Int(result.metrics[.merges] ?? 0)), "merged from history")
    }

    @Test("the extension strategy is left out on the in-memory store, which no other process can open")
    @MainActor
    func extensionSkipsMemory() async throws {
        let results = try await run(
            """
            name: extension-stores
            workload: import
            repetitions: 1
            parameters: {objects: 50, page_size: 50, batch_size: 50}
            matrix: {store: [sqlite, memory], strategy: [extension, container]}
            """)
        let cells = results.map { "\($0.cell.parameters["store"]!)/\($0.cell.parameters["strategy"]!)" }
        #expect(cells == ["sqlite/extension", "sqlite/container", "memory/container"])
    }

    @Test("write_rate holds the import to a steady rate: 230 pods at 1,000 a second take at least 0.19 s")
    @MainActor
    func writeRatePaces() async throws {
        let results = try await run(
            """
            name: trickle
            workload: import
            repetitions: 1
            parameters: {store: memory, strategy: container, objects: 230, page_size: 100, batch_size: 40, write_rate: 1000}
            """)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.metrics[.storedObjects] == 230)
        // The last save of 30 is due 200 ms after the first: a floor set by the pace, not a timing race.
        #expect(try #require(result.metrics[.wallMilliseconds]) >= 190)
    }

    @Test("a commit is shown by the first fetch whose top pod sorts at or before its smallest name")
    func screenLogic() {
        let screen = ChangeToScreen()
        screen.committed(smallestName: "m", at: 1_000_000)
        screen.committed(smallestName: "k", at: 2_000_000)
        screen.shown(topName: "n", at: 3_000_000)
        #expect(screen.metrics[.screenCommits] == 0, "the screen's top is before either commit")
        screen.shown(topName: "m", at: 4_000_000)
        #expect(screen.metrics[.screenCommits] == 1)
        #expect(screen.metrics[.changeToScreenP50Milliseconds].map { abs($0 - 3) < 0.01 } == true)
        screen.shown(topName: "a", at: 6_000_000)
        #expect(screen.metrics[.screenCommits] == 2)
        #expect(screen.metrics[.changeToScreenP99Milliseconds].map { abs($0 - 4) < 0.01 } == true)
    }
}
