import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// One of two processes writing one store at once, for the two-writer crash test: it saves entries through a
/// context and batch-inserts them, in turns, and journals the primary keys it was handed.
///
/// Batch `n` of writer `w` is `entries(inBatch: n)` entries tagged `(w, n)`; every third batch is a
/// `BatchInsertRequest`, the others a context save. Before a save the journal gets `R n keys` (the permanent IDs the
/// store handed out); after a save or batch insert returns, `A n keys` (acknowledged, with the keys written).
/// `verify` then checks the store against both journals: every acknowledged batch is there in full with its
/// keys, no batch is there in part, and no key was handed out twice, across the two processes.
public struct TwoWriterLoop: Sendable {
    public let store: StoreKind
    public let url: URL
    public let journal: URL
    /// The writer's number (1 or 2).
    public let writer: Int
    public let seed: UInt64

    /// The loop of writer `writer` on the store at `url`, journaling in `journal`.
    public init(store: StoreKind, url: URL, journal: URL, writer: Int, seed: UInt64) {
        self.store = store
        self.url = url
        self.journal = journal
        self.writer = writer
        self.seed = seed
    }

    /// How many entries batch `n` holds (1–20), from the seed and writer alone.
    public func entries(inBatch n: Int64) -> Int {
        var state = (seed ^ UInt64(bitPattern: n) ^ (UInt64(writer) << 48)) &* 0x9E37_79B9_7F4A_7C15
        state = (state ^ (state >> 31)) &* 0xBF58_476D_1CE4_E5B9
        return Int((state ^ (state >> 29)) % 20) + 1
    }

    /// Whether batch `n` is written by a batch insert (else by a context save).
    public static func isBatchInsert(_ n: Int64) -> Bool { n % 3 == 0 }

    /// Writes batches until killed (or through batch `limit`), continuing after the last batch the store holds.
    public func run(limit: Int64 = .max) throws {
        let context = try Self.openContext(store, url)
        if !FileManager.default.fileExists(atPath: journal.path) {
            guard FileManager.default.createFile(atPath: journal.path, contents: nil) else {
                throw SaveLoopError("cannot create the journal \(journal.path)")
            }
        }
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        let payload = String(repeating: "y", count: 120)
        try context.performAndWait {
            var n = try lastBatch(in: context)
            // A batch that committed before the last kill but never reached the journal is acknowledged now, with
            // the keys it holds.
            if n > 0, try !Self.read(journal).acknowledged.keys.contains(n) {
                try handle.write(contentsOf: Data("A \(n) \(try keys(ofBatch: n, in: context))\n".utf8))
            }
            // The parent times its kills from here: the store is open and caught up, writes begin.
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            while n < limit {
                n += 1
                let count = entries(inBatch: n)
                if Self.isBatchInsert(n) {
                    let objects: [[String: Any]] = (0..<count).map { _ in
                        ["writer": Int64(writer), "batch": n, "payload": payload]
                    }
                    var request = BatchInsertRequest(entityName: "Entry", objects: objects)
                    request.resultType = .objectIDs
                    let ids = try context.execute(request).objectIDs ?? []
                    try handle.write(contentsOf: Data("A \(n) \(Self.list(ids))\n".utf8))
                } else {
                    var inserted: [ManagedObject] = []
                    for _ in 0..<count {
                        let entry = try context.insertNewObject(forEntityName: "Entry")
                        try entry.setValue(Int64(writer), forKey: "writer")
                        try entry.setValue(n, forKey: "batch")
                        try entry.setValue(payload, forKey: "payload")
                        inserted.append(entry)
                    }
                    try context.obtainPermanentIDs(for: inserted)
                    let keys = Self.list(inserted.map(\.objectID))
                    try handle.write(contentsOf: Data("R \(n) \(keys)\n".utf8))
                    try context.save()
                    try handle.write(contentsOf: Data("A \(n) \(keys)\n".utf8))
                    context.reset()
                }
            }
        }
        try handle.close()
    }

    // MARK: - Checking

    /// What a check of the store against the writers' journals found.
    public struct Verification: Sendable, Equatable {
        /// Batches acknowledged, over both writers.
        public let acknowledged: Int
        /// Entries in the store.
        public let entries: Int
        /// Keys the journals show were handed out (reserved or written).
        public let keysHandedOut: Int
        /// Batches in the store their writer had not acknowledged (killed between commit and journal).
        public let unacknowledged: Int
    }

    /// Checks the store against both writers' journals; throws `SaveLoopError` naming the first damage.
    public static func verify(_ writers: [TwoWriterLoop]) throws -> Verification {
        guard let first = writers.first else {
            return Verification(acknowledged: 0, entries: 0, keysHandedOut: 0, unacknowledged: 0)
        }
        // Every key each journal shows handed out, with the batch it was handed out for.
        var owners: [Int64: (writer: Int, batch: Int64)] = [:]
        var journals: [Int: Journal] = [:]
        for loop in writers {
            let journal = try read(loop.journal)
            journals[loop.writer] = journal
            for (batch, keys) in journal.reserved.flatMap({ batch, lists in lists.map { (batch, $0) } })
                + journal.acknowledged.map({ ($0.key, $0.value) })
            {
                for key in keys {
                    if let owner = owners[key], owner != (loop.writer, batch) {
                        throw SaveLoopError(
                            "key \(key) was handed out twice: to writer \(owner.writer) for batch \(owner.batch) and to "
                                + "writer \(loop.writer) for batch \(batch)")
                    }
                    owners[key] = (loop.writer, batch)
                }
            }
        }
        let context = try openContext(first.store, first.url)
        return try context.performAndWait {
            var stored: [Int: [Int64: [Int64]]] = [:]
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
            for entry in all {
                let writer = (entry.value(forKey: "writer") as! NSNumber).intValue
                let batch = (entry.value(forKey: "batch") as! NSNumber).int64Value
                stored[writer, default: [:]][batch, default: []].append(entry.objectID.primaryKey ?? -1)
            }
            var acknowledged = 0
            var unacknowledged = 0
            for loop in writers {
                let journal = journals[loop.writer]!
                let batches = stored[loop.writer] ?? [:]
                let lastAcknowledged = journal.acknowledged.keys.max() ?? 0
                for (batch, keys) in journal.acknowledged {
                    guard let found = batches[batch] else {
                        throw SaveLoopError(
                            "writer \(loop.writer): batch \(batch) was acknowledged but is not in the store")
                    }
                    guard Set(found) == Set(keys) else {
                        throw SaveLoopError(
                            "writer \(loop.writer): batch \(batch) holds keys \(found.sorted()), acknowledged \(keys.sorted())"
                        )
                    }
                }
                acknowledged += journal.acknowledged.count
                for (batch, keys) in batches {
                    guard keys.count == loop.entries(inBatch: batch) else {
                        throw SaveLoopError(
                            "writer \(loop.writer): batch \(batch) has \(keys.count) entries, expected "
                                + "\(loop.entries(inBatch: batch)): a write landed in part")
                    }
                    guard batch <= lastAcknowledged + 1 else {
                        throw SaveLoopError(
                            "writer \(loop.writer): batch \(batch) is in the store, beyond the one in flight after "
                                + "\(lastAcknowledged)")
                    }
                    if journal.acknowledged[batch] == nil {
                        unacknowledged += 1
                        // A save's keys were journaled before it began; a batch insert learns them only after.
                        if let reserved = journal.reserved[batch], !reserved.contains(where: { Set($0) == Set(keys) }) {
                            throw SaveLoopError(
                                "writer \(loop.writer): batch \(batch) holds keys \(keys.sorted()), none of the sets "
                                    + "reserved for it")
                        }
                    }
                    for key in keys {
                        if let owner = owners[key], owner != (loop.writer, batch) {
                            throw SaveLoopError(
                                "key \(key) holds writer \(loop.writer)'s batch \(batch) but was handed out to writer "
                                    + "\(owner.writer) for batch \(owner.batch)")
                        }
                    }
                }
            }
            return Verification(
                acknowledged: acknowledged, entries: all.count, keysHandedOut: owners.count,
                unacknowledged: unacknowledged)
        }
    }

    /// A writer's journal: the key sets reserved for each batch (one per attempt), and the acknowledged batches
    /// with their keys. A line cut short by a kill is ignored.
    struct Journal {
        var reserved: [Int64: [[Int64]]] = [:]
        var acknowledged: [Int64: [Int64]] = [:]
    }

    static func read(_ url: URL) throws -> Journal {
        var journal = Journal()
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return journal }
        // Only whole lines: the last may have been cut by the kill.
        let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        for line in complete.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, let batch = Int64(parts[1]) else { continue }
            let keys = parts[2].split(separator: ",").compactMap { Int64($0) }
            switch parts[0] {
            case "R": journal.reserved[batch, default: []].append(keys)
            case "A": journal.acknowledged[batch] = keys
            default: continue
            }
        }
        return journal
    }

    // MARK: - The store

    private func lastBatch(in context: ManagedObjectContext) throws -> Int64 {
        var request = FetchRequest<[String: Any]>(entityName: "Entry")
        request.predicate = try FetchPredicate(format: "writer == %d", writer)
        request.sortDescriptors = [SortKey("batch", ascending: false)]
        request.propertiesToFetch = ["batch"]
        request.fetchLimit = 1
        return (try context.fetch(request).first?["batch"] as? NSNumber)?.int64Value ?? 0
    }

    private func keys(ofBatch n: Int64, in context: ManagedObjectContext) throws -> String {
        var request = FetchRequest<ManagedObjectID>(entityName: "Entry")
        request.predicate = try FetchPredicate(format: "writer == %d AND batch == %d", writer, n)
        return Self.list(try context.fetch(request))
    }

    private static func list(_ ids: [ManagedObjectID]) -> String {
        ids.compactMap(\.primaryKey).map(String.init).joined(separator: ",")
    }

    private static func openContext(_ store: StoreKind, _ url: URL) throws -> ManagedObjectContext {
        try LabStack.openContext(store: store, at: url, model: try model())
    }

    /// The loop's model: entries tagged with their writer and batch.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Entry",
                attributes: [
                    AttributeDescription(name: "writer", type: .integer64, isOptional: false),
                    AttributeDescription(name: "batch", type: .integer64, isOptional: false, isIndexed: true),
                    AttributeDescription(name: "payload", type: .string, isOptional: false),
                ],
                // A writer finds its last batch at start through this index, however large the store has grown.
                indexes: [IndexDescription(name: "byWriterBatch", attributeNames: ["writer", "batch"])])
        ])
    }
}
