import Foundation
import ObjectStack
import ObjectStackSQLite

/// Measures what a fetched results controller adds to a merge on the main queue: a background save of C
/// changes (a third each inserts, updates and deletes; half the updates rename, so they move) merged into a
/// main-queue context whose controller holds R pods in sections by license, for each R — against the same
/// merge into the same context without a controller. The controller's share should follow C, not R.
///
/// Cells (R, with and without a controller) are interleaved per repetition so machine noise hits them alike;
/// each measurement starts from a fresh store.
public struct FetchedResultsMergeBenchmark: Sendable {
    /// The store the runs use.
    public enum Store: String, Sendable, CaseIterable {
        case memory
        case sqlite
    }

    /// One measured merge.
    public struct Sample: Sendable {
        public var fetched: Int
        public var changes: Int
        public var withController: Bool
        public var repetition: Int
        /// `mergeChanges(fromContextDidSave:)` on the main queue, the controller's work and delegate calls included.
        public var mergeMilliseconds: Double
        /// Object changes the controller reported (0 without one).
        public var reportedChanges: Int
    }

    public var store: Store
    public var changes: Int
    public var fetchedCounts: [Int]
    public var repetitions: Int

    static let licenses = ["Apache-2.0", "BSD", "GPL", "MIT", "MPL"]

    /// Creates the benchmark.
    public init(store: Store, changes: Int, fetchedCounts: [Int], repetitions: Int) {
        self.store = store
        self.changes = changes
        self.fetchedCounts = fetchedCounts
        self.repetitions = repetitions
    }

    /// Runs every cell. On the main actor: the receiving context is a main-queue context.
    @MainActor
    public func run() throws -> [Sample] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-frc-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var samples: [Sample] = []
        for repetition in 1...repetitions {
            for fetched in fetchedCounts {
                for withController in [true, false] {
                    samples.append(try measure(fetched: fetched, withController: withController, repetition: repetition, folder: folder))
                }
            }
        }
        return samples
    }

    @MainActor
    private func measure(fetched: Int, withController: Bool, repetition: Int, folder: URL) throws -> Sample {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make())
        switch store {
        case .memory:
            try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://frc-merge-\(UUID().uuidString)")!)
        case .sqlite:
            try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("\(UUID().uuidString).sqlite"))
        }
        let seeder = ManagedObjectContext(concurrencyType: .privateQueue)
        seeder.persistentStoreCoordinator = coordinator
        try seeder.performAndWait {
            for index in 0..<fetched {
                let pod = Pod(context: seeder)
                // Names ten apart, so new pods fall between existing ones.
                pod.name = String(format: "pod-%07d", index * 10)
                pod.version = "1.0"
                pod.authors = "someone"
                pod.license = Self.licenses[index % Self.licenses.count]
            }
            try seeder.save()
        }

        let receiver = ManagedObjectContext(concurrencyType: .mainQueue)
        receiver.persistentStoreCoordinator = coordinator
        var request = FetchRequest<Pod>(entityName: "Pod")
        request.sortDescriptors = [SortKey("license"), SortKey("name")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: receiver, sectionNameKeyPath: "license")
        let delegate = ChangeCounter()
        let ids: [ManagedObjectID]
        if withController {
            controller.delegate = delegate
            try controller.performFetch()
            ids = (controller.fetchedObjects ?? []).map(\.objectID)
        } else {
            // The same objects registered and read, with no controller watching.
            request.returnsObjectsAsFaults = false
            ids = try receiver.fetch(request).map(\.objectID)
        }

        let sender = ManagedObjectContext(concurrencyType: .privateQueue)
        sender.persistentStoreCoordinator = coordinator
        let saves = NotificationBox()
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: sender, queue: nil) { saves.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        let third = max(changes / 3, 1)
        var random = SystemRandomNumberGenerator()
        let picked = Array(ids.shuffled(using: &random).prefix(2 * third))
        let (updated, deleted) = (picked.prefix(third), picked.dropFirst(third))
        try sender.performAndWait {
            for index in 0..<third {
                let pod = Pod(context: sender)
                pod.name = String(format: "pod-%07d", Int.random(in: 0..<max(fetched, 1)) * 10 + 5) + "-\(index)"
                pod.version = "2.0"
                pod.authors = "someone else"
                pod.license = Self.licenses[index % Self.licenses.count]
            }
            for (index, id) in updated.enumerated() {
                guard let pod = sender.object(with: id) as? Pod else { continue }
                if index % 2 == 0 {
                    pod.name = String(format: "pod-%07d", Int.random(in: 0..<max(fetched, 1)) * 10 + 7) + "-\(index)"
                } else {
                    pod.downloads += 1
                }
            }
            for id in deleted { sender.delete(sender.object(with: id)) }
            try sender.save()
        }
        guard let note = saves.notification else {
            throw ObjectStackError(code: .invalidArgument, message: "the background save posted no didSave notification")
        }
        let clock = ContinuousClock()
        let elapsed = receiver.performAndWait { clock.measure { receiver.mergeChanges(fromContextDidSave: note) } }
        if withController {
            // A check, not a measurement: the controller must hold what the store holds.
            let expected = fetched + third - deleted.count
            guard controller.fetchedObjects?.count == expected else {
                throw ObjectStackError(code: .invalidArgument,
                    message: "the controller holds \(controller.fetchedObjects?.count ?? 0) pods after the merge, not \(expected)")
            }
        }
        return Sample(fetched: fetched, changes: third * 3, withController: withController, repetition: repetition,
            mergeMilliseconds: elapsed.milliseconds, reportedChanges: delegate.objectChanges)
    }

    /// Medians (and min, max) per fetched count, with and without a controller, and the controller's share.
    public static func table(_ samples: [Sample], store: Store) -> String {
        func stats(_ cell: [Sample]) -> (median: Double, min: Double, max: Double) {
            let times = cell.map(\.mergeMilliseconds).sorted()
            guard let first = times.first, let last = times.last else { return (0, 0, 0) }
            return (times.median ?? 0, first, last)
        }
        var lines = [
            "store: \(store.rawValue); merge of one background save into a main-queue context, ms",
            "   fetched  changes  reported   with_frc median (min-max)   without_frc median (min-max)   frc_share_ms  reps",
        ]
        let groups = Dictionary(grouping: samples, by: \.fetched).sorted { $0.key < $1.key }
        for (fetched, cell) in groups {
            let with = cell.filter(\.withController)
            let without = cell.filter { !$0.withController }
            let (w, o) = (stats(with), stats(without))
            let reported = with.map(\.reportedChanges).sorted()
            lines.append(String(format: "%10d  %7d  %8d   %8.3f (%7.3f-%7.3f)     %8.3f (%7.3f-%7.3f)        %8.3f  %4d",
                fetched, cell.first?.changes ?? 0, reported.isEmpty ? 0 : reported[reported.count / 2],
                w.median, w.min, w.max, o.median, o.min, o.max, w.median - o.median, with.count))
        }
        return lines.joined(separator: "\n")
    }
}

/// Counts a controller's reported changes, as a table view's delegate would visit each.
final class ChangeCounter: FetchedResultsControllerDelegate {
    var objectChanges = 0
    var sectionChanges = 0

    func controller(
        _ controller: any FetchedResultsControlling, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        objectChanges += 1
    }

    func controller(
        _ controller: any FetchedResultsControlling, didChange section: FetchedResultsSection, atSectionIndex sectionIndex: Int,
        for type: FetchedResultsChangeType
    ) {
        sectionChanges += 1
    }
}
