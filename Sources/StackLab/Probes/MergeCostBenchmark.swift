import Foundation
import ObjectStack

/// Measures `mergeChanges(fromContextDidSave:)`: a background save of C changes (a third each inserts,
/// updates and deletes) merged into a context holding R registered objects, for each R. The merge's cost
/// should follow C, not R.
public struct MergeCostBenchmark: Sendable {
    /// One measured merge.
    public struct Sample: Sendable {
        public var registered: Int
        public var changes: Int
        public var repetition: Int
        public var mergeMilliseconds: Double
    }

    public var changes: Int
    public var registeredCounts: [Int]
    public var repetitions: Int

    /// Creates the benchmark.
    public init(changes: Int, registeredCounts: [Int], repetitions: Int) {
        self.changes = changes
        self.registeredCounts = registeredCounts
        self.repetitions = repetitions
    }

    /// Runs every cell; cells are interleaved per repetition so machine noise hits them alike.
    public func run() throws -> [Sample] {
        var samples: [Sample] = []
        for repetition in 1...repetitions {
            for registered in registeredCounts {
                samples.append(try measure(registered: registered, repetition: repetition))
            }
        }
        return samples
    }

    private func measure(registered: Int, repetition: Int) throws -> Sample {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make())
        try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://merge-\(UUID().uuidString)")!)
        let receiver = ManagedObjectContext(concurrencyType: .privateQueue)
        receiver.persistentStoreCoordinator = coordinator
        let sender = ManagedObjectContext(concurrencyType: .privateQueue)
        sender.persistentStoreCoordinator = coordinator
        let third = max(changes / 3, 1)
        let ids: [ManagedObjectID] = try receiver.performAndWait {
            let pods = (0..<registered).map { index -> Pod in
                let pod = Pod(context: receiver)
                pod.name = "pod\(index)"
                pod.version = "1.0"
                pod.authors = "someone"
                return pod
            }
            try receiver.save()
            _ = pods.map(\.name)  // registered and materialised
            return pods.map(\.objectID)
        }
        let box = NotificationBox()
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: sender, queue: nil) { box.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        try sender.performAndWait {
            for index in 0..<third {
                let pod = Pod(context: sender)
                pod.name = "new\(index)"
                pod.version = "2.0"
                pod.authors = "someone else"
            }
            for id in ids.prefix(third) { (sender.object(with: id) as! Pod).downloads = 7 }
            for id in ids.suffix(third) { sender.delete(sender.object(with: id)) }
            try sender.save()
        }
        guard let saved = box.notification else { throw CocoaError(.featureUnsupported) }
        let clock = ContinuousClock()
        let elapsed = receiver.performAndWait {
            clock.measure { receiver.mergeChanges(fromContextDidSave: saved) }
        }
        return Sample(registered: registered, changes: third * 3, repetition: repetition, mergeMilliseconds: elapsed.milliseconds)
    }

    /// Medians per registered count, as a table.
    public static func table(_ samples: [Sample]) -> String {
        let groups = Dictionary(grouping: samples, by: \.registered).sorted { $0.key < $1.key }
        var lines = ["registered  changes  merge_ms_median  merge_ms_min  merge_ms_max  repetitions"]
        for (registered, cell) in groups {
            let times = cell.map(\.mergeMilliseconds).sorted()
            let median = times.median ?? 0
            lines.append(String(format: "%10d  %7d  %15.3f  %12.3f  %12.3f  %11d",
                registered, cell[0].changes, median, times.first!, times.last!, times.count))
        }
        return lines.joined(separator: "\n")
    }
}

/// Holds the last notification an observer received.
final class NotificationBox: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Notification?

    func store(_ notification: Notification) { lock.withLock { value = notification } }
    var notification: Notification? { lock.withLock { value } }
}
