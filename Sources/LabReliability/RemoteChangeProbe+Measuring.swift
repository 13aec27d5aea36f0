import Foundation
import LabWorkloads
import ObjectStack

extension RemoteChangeProbe {
    // MARK: - The listener

    /// What a measurement found.
    public struct Outcome: Sendable {
        /// Each commit's latency in milliseconds, in commit order (0 when the notification came before the writer's
        /// save had returned).
        public var latencies: [Double]
        /// The transactions no notification reached.
        public var missed: [Int64]
        /// How many notifications arrived.
        public var notifications: Int

        /// The latency at a percentile (0…100), by nearest rank.
        public func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return .nan }
            let sorted = latencies.sorted()
            let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }

        /// A one-line summary: count, p50, p99 and max in milliseconds, and what was missed.
        public var summary: String {
            String(
                format: "%d commits, %d notifications; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d missed",
                latencies.count + missed.count, notifications, percentile(50), percentile(99),
                latencies.max() ?? .nan, missed.count)
        }
    }

    /// Runs a writer process (`executable child history-writer`) for `count` writes `interval` seconds apart
    /// against a new store at `url`, listening here for remote change notifications.
    /// - Throws: when the store cannot be opened or the writer fails (its standard error is in the message).
    public static func measure(executable: URL, store: StoreKind, at url: URL, count: Int, interval: Double) throws
        -> Outcome
    {
        let coordinator = try openCoordinator(store: store, at: url, remoteChange: true)
        let arrivals = LockedValue<[(token: PersistentHistoryToken?, time: Double)]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.persistentStoreRemoteChange, object: coordinator, queue: nil
        ) { note in
            let time = Date().timeIntervalSince1970
            let token = note.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.historyToken.rawValue]
            arrivals.withLock { $0.append((token as? PersistentHistoryToken, time)) }
        }
        defer {
            NotificationCenter.default.removeObserver(observer)
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        let child = Process()
        child.executableURL = executable
        child.arguments = [
            "child", "history-writer", "--store", store.name, "--path", url.path, "--count", String(count),
            "--interval-ms", String(Int(interval * 1000)),
        ]
        let output = Pipe()
        let errors = Pipe()
        child.standardOutput = output
        child.standardError = errors
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw SaveLoopError("the history writer failed (status \(child.terminationStatus)): \(message)")
        }
        let commits = text.split(separator: "\n").compactMap { Commit(line: $0) }
        // Three frames for the last notification to arrive.
        Thread.sleep(forTimeInterval: 0.05)
        // Each token's transaction number, from one read of the history.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let numbers = try context.performAndWait { () throws -> [PersistentHistoryToken: Int64] in
            let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            request.resultType = .transactionsOnly
            let transactions = try context.execute(request).transactions
            return Dictionary(uniqueKeysWithValues: transactions.map { ($0.token, $0.transactionNumber) })
        }
        let seen = arrivals.withLock { $0 }.compactMap { arrival in
            arrival.token.flatMap { numbers[$0] }.map { (number: $0, time: arrival.time) }
        }
        var outcome = Outcome(latencies: [], missed: [], notifications: seen.count)
        for commit in commits {
            guard let first = seen.first(where: { $0.number >= commit.sequence }) else {
                outcome.missed.append(commit.sequence)
                continue
            }
            outcome.latencies.append(max(0, (first.time - commit.time) * 1000))
        }
        return outcome
    }
}
