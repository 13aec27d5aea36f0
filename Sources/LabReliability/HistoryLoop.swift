import Foundation
import LabWorkloads
import ObjectStack

/// A writer on a store with persistent history, for the history crash test: it saves and runs batch requests
/// (inserts, updates, deletes, through contexts and batch requests) until killed, each write authored `w<N>`; after
/// a kill, `verify` replays the history and checks it against the rows: no row change lacks its transaction and no
/// transaction lacks its rows.
public struct HistoryLoop: Sendable {
    /// What a verification found.
    public struct Verification: Sendable {
        /// Transactions in the history.
        public let transactions: Int
        /// Rows in the store.
        public let rows: Int
        /// The last write number found in the history (0 for none).
        public let lastWrite: Int64
    }

    public let store: StoreKind
    public let url: URL
    public let seed: UInt64

    /// A loop on the store at `url`.
    public init(store: StoreKind, url: URL, seed: UInt64) {
        self.store = store
        self.url = url
        self.seed = seed
    }

    /// The model: entries with the write that inserted them (`batch`), the last write that stamped them
    /// (`stamp`), and a payload the history keeps in tombstones.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Entry",
                attributes: [
                    AttributeDescription(name: "batch", type: .integer64, isOptional: false, isIndexed: true),
                    AttributeDescription(name: "stamp", type: .integer64, isOptional: false, defaultValue: 0),
                    AttributeDescription(
                        name: "payload", type: .string, isOptional: false, preservesValueInHistoryOnDeletion: true),
                ])
        ])
    }

    private func openContext() throws -> ManagedObjectContext {
        var description = StoreDescription(type: store.storeType, url: url)
        description.persistentHistoryTracking = true
        return try LabStack.openContext(
            store: store, at: url, model: try Self.model(), name: "history-loop", options: description.options)
    }

    /// The write number an author names (`w12` → 12).
    private static func write(of author: String?) -> Int64? {
        guard let author, author.hasPrefix("w") else { return nil }
        return Int64(author.dropFirst())
    }

    /// Every transaction, with its changes.
    private static func history(_ context: ManagedObjectContext) throws -> [PersistentHistoryTransaction] {
        try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
            .transactions
    }

    // MARK: - Writing

    /// Writes until killed (or `limit` writes): each write numbered after the last one in the history.
    public func run(limit: Int64 = .max) throws {
        let context = try openContext()
        var random = SplitMix64(seed: seed &+ 1)
        try context.performAndWait {
            // The last write's number: the transactions alone, without decoding their changes.
            let transactions = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            transactions.resultType = .transactionsOnly
            var write =
                try context.execute(transactions).transactions.compactMap { Self.write(of: $0.author) }.max() ?? 0
            // A restarted loop draws on from where its writes left off.
            for _ in 0..<(write * 2) { _ = random.next() }
            var announced = false
            var count: Int64 = 0
            while count < limit {
                write += 1
                count += 1
                context.transactionAuthor = "w\(write)"
                try perform(write, context, &random)
                context.reset()
                if !announced {
                    // Unbuffered: the campaign waits for this line before it picks the moment to kill.
                    FileHandle.standardOutput.write(Data("ready\n".utf8))
                    announced = true
                }
            }
        }
    }

    /// One write: a save of new entries, a batch insert, a batch or context update of an earlier write's entries,
    /// or a batch or context delete of an earlier write's entries (which may have none: then no transaction). As
    /// many writes delete as insert, so the store stays small however long the campaign runs.
    private func perform(_ write: Int64, _ context: ManagedObjectContext, _ random: inout SplitMix64) throws {
        let size = Int(random.next() % 20) + 1
        let earlier = max(1, write - Int64(random.next() % 6) - 1)
        var matching = FetchRequest<ManagedObject>(entityName: "Entry")
        matching.predicate = try FetchPredicate(format: "batch == %lld", earlier)
        switch write % 6 {
        case 0:
            for _ in 0..<size {
                let entry = try context.insertNewObject(forEntityName: "Entry")
                try entry.setValue(write, forKey: "batch")
                try entry.setValue("p\(write)", forKey: "payload")
            }
            try context.save()
        case 1:
            let objects: [[String: Any]] = (0..<size).map { _ in ["batch": write, "payload": "p\(write)"] }
            _ = try context.execute(BatchInsertRequest(entityName: "Entry", objects: objects))
        case 2:
            var update = BatchUpdateRequest(entityName: "Entry")
            update.predicate = matching.predicate
            update.propertiesToUpdate = ["stamp": write]
            _ = try context.execute(update)
        case 3:
            for entry in try context.fetch(matching) { try entry.setValue(write, forKey: "stamp") }
            try context.save()
        case 4:
            _ = try context.execute(BatchDeleteRequest(fetchRequest: matching))
        default:
            for entry in try context.fetch(matching) { context.delete(entry) }
            try context.save()
        }
    }

    // MARK: - Checking

    /// Replays the history against the rows.
    /// - Throws: `SaveLoopError` naming the first disagreement: a row no transaction inserted, a transaction whose
    ///   row is missing, a change of a row that was not there, a stamp or tombstone that does not match.
    public func verify() throws -> Verification {
        guard FileManager.default.fileExists(atPath: url.path) else {
            return Verification(transactions: 0, rows: 0, lastWrite: 0)
        }
        let context = try openContext()
        defer {
            if let coordinator = context.persistentStoreCoordinator {
                for store in coordinator.persistentStores { try? coordinator.remove(store) }
            }
        }
        return try context.performAndWait {
            let transactions = try Self.history(context)
            var inserted: [ManagedObjectID: Int64] = [:]
            var stamped: [ManagedObjectID: Int64] = [:]
            var lastWrite: Int64 = 0
            for transaction in transactions {
                guard let write = Self.write(of: transaction.author), write > lastWrite else {
                    throw SaveLoopError(
                        "transaction \(transaction.transactionNumber) has author \(transaction.author ?? "nil"), "
                            + "not a write after w\(lastWrite)")
                }
                lastWrite = write
                for change in transaction.changes ?? [] {
                    let id = change.changedObjectID
                    switch change.changeType {
                    case .insert:
                        guard inserted.updateValue(write, forKey: id) == nil else {
                            throw SaveLoopError("w\(write) inserts \(id), which an earlier transaction inserted")
                        }
                    case .update:
                        guard inserted[id] != nil else {
                            throw SaveLoopError("w\(write) updates \(id), which is not in the store at that point")
                        }
                        stamped[id] = write
                    case .delete:
                        guard let insertedBy = inserted.removeValue(forKey: id) else {
                            throw SaveLoopError("w\(write) deletes \(id), which is not in the store at that point")
                        }
                        stamped[id] = nil
                        guard change.tombstoneValues?["payload"] == .string("p\(insertedBy)") else {
                            throw SaveLoopError(
                                "w\(write) deletes \(id) with tombstone \(change.tombstoneValues ?? [:]), expected "
                                    + "payload p\(insertedBy)")
                        }
                    }
                }
            }
            let rows = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
            for row in rows {
                let id = row.objectID
                guard let insertedBy = inserted.removeValue(forKey: id) else {
                    throw SaveLoopError(
                        "row \(id) (batch \(row.value(forKey: "batch") ?? "?")) has no insert in the history")
                }
                let batch = (row.value(forKey: "batch") as? NSNumber)?.int64Value
                let stamp = (row.value(forKey: "stamp") as? NSNumber)?.int64Value
                guard batch == insertedBy else {
                    throw SaveLoopError("row \(id) holds batch \(batch ?? -1) but w\(insertedBy) inserted it")
                }
                guard stamp == (stamped[id] ?? 0) else {
                    throw SaveLoopError(
                        "row \(id) holds stamp \(stamp ?? -1) but its last update in the history is w\(stamped[id] ?? 0)"
                    )
                }
            }
            guard inserted.isEmpty else {
                throw SaveLoopError(
                    "\(inserted.count) row(s) the history inserted and never deleted are not in the store, "
                        + "first \(inserted.keys.sorted { $0.key < $1.key }.first!)")
            }
            return Verification(transactions: transactions.count, rows: rows.count, lastWrite: lastWrite)
        }
    }
}
