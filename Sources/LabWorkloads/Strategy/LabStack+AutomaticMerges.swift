import Foundation
import LabCore
import ObjectStack
import Synchronization

extension LabStack {
    // MARK: - Timing automatic merges

    /// Times the merges the main context makes by itself (`automaticallyMergesChangesFromParent`) of `context`'s
    /// saves: the save's did-save notification queues a start mark on the main queue before the save queues the
    /// merge, and `endAutomaticMergeTiming(of:)`, called after the save returns, queues the end mark behind it.
    public func timeAutomaticMerges(of context: ManagedObjectContext) {
        let marks =
            attached(MergeMarks.self)
            ?? {
                let marks = MergeMarks()
                attach(marks)
                return marks
            }()
        let (main, clock, key) = (self.main, self.clock, ObjectIdentifier(context))
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil
        ) { _ in
            main.perform { marks.started(key, at: clock.nowMilliseconds()) }
        }
        keep(observer: token)
    }

    /// Queues the end mark of the automatic merge of `context`'s last save (see `timeAutomaticMerges(of:)`).
    public func endAutomaticMergeTiming(of context: ManagedObjectContext) {
        guard let marks = attached(MergeMarks.self) else { return }
        let (main, clock, merges, key) = (self.main, self.clock, self.merges, ObjectIdentifier(context))
        main.perform {
            guard let start = marks.take(key) else { return }
            merges.record(milliseconds: clock.milliseconds(since: start))
        }
    }
}

/// The start marks of automatic merges in flight, by saving context.
final class MergeMarks: Sendable {
    private let starts = Mutex<[ObjectIdentifier: Double]>([:])

    func started(_ context: ObjectIdentifier, at milliseconds: Double) {
        starts.withLock { $0[context] = milliseconds }
    }

    func take(_ context: ObjectIdentifier) -> Double? {
        starts.withLock { $0.removeValue(forKey: context) }
    }
}

extension LabStack {
    // MARK: - Query generations

    /// Pins the main context to the store's current generation (again, when already pinned).
    public func pinMainToCurrentGeneration() throws {
        let main = self.main
        try main.performAndWait { try main.setQueryGenerationFrom(.current) }
    }
}
