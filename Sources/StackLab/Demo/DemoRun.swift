import Foundation
import ObjectStack

/// A small, real run of the stack: a background context imports pods in batches while the main-queue
/// context fetches the first screen, on the in-memory store. The lab's scenarios (a later issue) grow
/// from this; until then it is the README's main job.
public struct DemoRun: Sendable {
    /// What one repetition measured.
    public struct Result: Sendable {
        public var repetition: Int
        public var objects: Int
        public var batchSize: Int
        public var importMilliseconds: Double
        public var objectsPerSecond: Double
        public var firstScreenMilliseconds: Double
        public var firstScreenRows: Int
        public var storedCount: Int
    }

    /// How many pods to import.
    public var objects: Int
    /// How many pods each background save holds.
    public var batchSize: Int
    /// How many times to run.
    public var repetitions: Int

    /// Creates a demo run.
    public init(objects: Int, batchSize: Int, repetitions: Int) {
        self.objects = objects
        self.batchSize = batchSize
        self.repetitions = repetitions
    }

    /// Runs every repetition; must be awaited from the main actor's task so the main queue drains.
    public func run() async throws -> [Result] {
        var results: [Result] = []
        for repetition in 1...repetitions {
            results.append(try await runOnce(repetition: repetition))
        }
        return results
    }

    private func runOnce(repetition: Int) async throws -> Result {
        let model = try PodModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://demo-\(UUID().uuidString)")!)
        let viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = coordinator
        let background = ManagedObjectContext(concurrencyType: .privateQueue)
        background.persistentStoreCoordinator = coordinator
        let clock = ContinuousClock()
        let (objects, batchSize) = (self.objects, self.batchSize)
        // A stride coprime with the count makes names a permutation: unique, but not in insertion order.
        let stride = objects % 7_919 == 0 ? 1 : 7_919
        let importStart = clock.now
        try await background.perform {
            var inserted = 0
            while inserted < objects {
                for index in inserted..<min(inserted + batchSize, objects) {
                    let pod = Pod(context: background)
                    pod.name = String(format: "Pod%07d", (index &* stride) % objects)
                    pod.version = "1.\(index % 10).0"
                    pod.authors = "Author \(index % 97)"
                    pod.homepage = "https://example.org/pods/\(index)"
                    pod.license = index % 3 == 0 ? "MIT" : "Apache-2.0"
                    pod.summary = "A pod for the demo, number \(index)."
                    pod.downloads = Int64(index % 1_000)
                    pod.updated = Double(index)
                }
                try background.save()
                background.reset()
                inserted += batchSize
            }
        }
        let importTime = importStart.duration(to: clock.now)
        let screenStart = clock.now
        let (rows, count) = try await viewContext.perform {
            precondition(viewContext.isOnQueue, "the view context's blocks run on the main queue")
            var request = FetchRequest<Pod>(entityName: "Pod")
            request.predicate = try FetchPredicate(format: "license == %@ AND downloads >= %d", "MIT", 100)
            request.sortDescriptors = [SortKey("name")]
            request.fetchLimit = 50
            let screen = try viewContext.fetch(request)
            _ = screen.map(\.name)
            return (screen.count, try viewContext.count(for: FetchRequest<Pod>(entityName: "Pod")))
        }
        let screenTime = screenStart.duration(to: clock.now)
        let importMilliseconds = importTime.milliseconds
        return Result(
            repetition: repetition, objects: objects, batchSize: batchSize, importMilliseconds: importMilliseconds,
            objectsPerSecond: importMilliseconds > 0 ? Double(objects) / (importMilliseconds / 1_000) : 0,
            firstScreenMilliseconds: screenTime.milliseconds, firstScreenRows: rows, storedCount: count)
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1_000 + Double(parts.attoseconds) / 1e15
    }
}
