import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// A loop of saves with a journal, for crash testing: a parent kills the process at random moments and
/// checks that every save the journal acknowledges is in the store in full, and no save is there in part.
///
/// Save `n` inserts `entries(inSave: n)` entries tagged with batch `n`, each related to the one `Ledger` row (its
/// `entries`, their `ledger`), every fifth save also deletes the entries of batch `n - 3`, and every save updates
/// the ledger (last save, entry count) — so a torn save shows as a batch of the wrong size, a ledger that disagrees
/// with the entries, or a relationship without its inverse. Journal line `n` is written only after `save()`
/// returns, and at start for the last save the store already holds.
public struct SaveLoop: Sendable {
    /// What the store holds, as `examine()` found it whole.
    public struct Contents: Sendable, Equatable {
        /// The last save the store holds (0 before the first).
        public let lastSave: Int64
        /// Entries in the store.
        public let entries: Int
    }

    /// What a check of the store against the journal found.
    public struct Verification: Sendable, Equatable {
        /// The last save the store holds.
        public let lastSave: Int64
        /// The last save the journal acknowledges.
        public let acknowledged: Int64
        /// Entries in the store.
        public let entries: Int
    }

    public let store: StoreKind
    public let url: URL
    public let journal: URL
    public let seed: UInt64
    /// The store options the loop opens the store with (`durability`).
    public let options: [String: String]

    /// A loop on the store at `url`, acknowledging saves in `journal`; `seed` decides the batch sizes; `durability`
    /// nil keeps the store's default.
    public init(store: StoreKind, url: URL, journal: URL, seed: UInt64, durability: Durability? = nil) {
        self.store = store
        self.url = url
        self.journal = journal
        self.seed = seed
        options = durability.map { [Durability.option: $0.rawValue] } ?? [:]
    }

    /// How many entries save `n` inserts (1–40), from the seed alone, so the checker knows without asking.
    public func entries(inSave n: Int64) -> Int {
        var state = (seed ^ UInt64(bitPattern: n)) &* 0x9E37_79B9_7F4A_7C15
        state = (state ^ (state >> 31)) &* 0xBF58_476D_1CE4_E5B9
        return Int((state ^ (state >> 29)) % 40) + 1
    }

    /// Whether save `n` deletes the entries of batch `n - 3`.
    public static func deletesEarlierBatch(_ n: Int64) -> Bool { n > 3 && n % 5 == 0 }

    /// Saves until killed (or through save `limit`), continuing after the last save the store holds.
    public func run(limit: Int64 = .max) throws {
        let context = try openContext()
        if !FileManager.default.fileExists(atPath: journal.path) {
            guard FileManager.default.createFile(atPath: journal.path, contents: nil) else {
                throw SaveLoopError("cannot create the journal \(journal.path)")
            }
        }
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        // The parent times its kill from here: the store is open, saves begin.
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        try context.performAndWait {
            let payload = String(repeating: "x", count: 200)
            var n = try (fetchLedger(in: context)?.value(forKey: "lastSave") as? NSNumber)?.int64Value ?? 0
            // A save that committed before the last kill but never reached the journal is in the store, so it is
            // acknowledged now: otherwise a second such kill would leave the store two saves ahead of the journal.
            if n > 0 { try handle.write(contentsOf: Data("\(n)\n".utf8)) }
            while n < limit {
                n += 1
                let ledger = try fetchLedger(in: context) ?? context.insertNewObject(forEntityName: "Ledger")
                var count = (ledger.value(forKey: "entryCount") as? NSNumber)?.int64Value ?? 0
                for _ in 0..<entries(inSave: n) {
                    let entry = try context.insertNewObject(forEntityName: "Entry")
                    try entry.setValue(n, forKey: "batch")
                    try entry.setValue(payload, forKey: "payload")
                    try entry.setValue(ledger, forKey: "ledger")
                    count += 1
                }
                if Self.deletesEarlierBatch(n) {
                    for entry in try context.fetch(Self.entries(where: "batch == %@", n - 3)) {
                        context.delete(entry)
                        count -= 1
                    }
                }
                try ledger.setValue(n, forKey: "lastSave")
                try ledger.setValue(count, forKey: "entryCount")
                try context.save()
                try handle.write(contentsOf: Data("\(n)\n".utf8))
                // Fresh objects each round: the loop's memory stays flat however long it runs.
                context.reset()
            }
        }
        try handle.close()
    }

    /// Checks the store against the journal and the seed; throws `SaveLoopError` naming the first damage.
    public func verify() throws -> Verification {
        let acknowledged =
            (try? String(contentsOf: journal, encoding: .utf8))?
            .split(separator: "\n").compactMap { Int64($0) }.max() ?? 0
        let contents = try examine()
        guard contents.lastSave >= acknowledged else {
            throw SaveLoopError(
                "save \(acknowledged) was acknowledged but the store ends at save \(contents.lastSave)")
        }
        guard contents.lastSave <= acknowledged + 1 else {
            throw SaveLoopError(
                "the store holds save \(contents.lastSave), beyond the one in flight after \(acknowledged)")
        }
        return Verification(lastSave: contents.lastSave, acknowledged: acknowledged, entries: contents.entries)
    }

    /// Checks that the store holds whole saves, whatever the journal says: each batch of the size the seed gives
    /// (none for a deleted batch), none past the ledger's last save, the ledger's count right, and each entry's
    /// relationship to the ledger with its inverse.
    /// - Throws: `SaveLoopError` naming the first damage (a torn save), or the store's error when it cannot be
    ///   opened or read.
    public func examine() throws -> Contents {
        try examine(in: try openContext())
    }

    /// `examine()` through a context on the store that `openContext()` opened.
    public func examine(in context: ManagedObjectContext) throws -> Contents {
        try context.performAndWait {
            let ledger = try fetchLedger(in: context)
            let lastSave = (ledger?.value(forKey: "lastSave") as? NSNumber)?.int64Value ?? 0
            let ledgerCount = (ledger?.value(forKey: "entryCount") as? NSNumber)?.int64Value ?? 0
            var batches: [Int64: Int] = [:]
            let all = try context.fetch(Self.entries(where: nil))
            for entry in all { batches[(entry.value(forKey: "batch") as! NSNumber).int64Value, default: 0] += 1 }
            for n in 1...max(lastSave, 1) where lastSave > 0 {
                let deleted = n + 3 <= lastSave && Self.deletesEarlierBatch(n + 3)
                let expected = deleted ? 0 : entries(inSave: n)
                guard batches[n, default: 0] == expected else {
                    throw SaveLoopError(
                        "batch \(n) has \(batches[n, default: 0]) entries, expected \(expected) (store at save \(lastSave))"
                    )
                }
            }
            if let stray = batches.keys.first(where: { $0 > lastSave || $0 < 1 }) {
                throw SaveLoopError("entries of batch \(stray) exist but the ledger ends at save \(lastSave)")
            }
            guard Int64(all.count) == ledgerCount else {
                throw SaveLoopError("the ledger counts \(ledgerCount) entries, the store holds \(all.count)")
            }
            let related = (ledger?.value(forKey: "entries") as? Set<ManagedObject>)?.count ?? 0
            guard related == all.count else {
                throw SaveLoopError(
                    "the ledger's entries relationship holds \(related) entries, the store \(all.count)")
            }
            if let orphan = all.first(where: {
                ($0.value(forKey: "ledger") as? ManagedObject)?.objectID != ledger?.objectID
            }) {
                throw SaveLoopError(
                    "an entry of batch \((orphan.value(forKey: "batch") as! NSNumber).int64Value) is not related to the "
                        + "ledger: the inverse of the ledger's entries is missing")
            }
            return Contents(lastSave: lastSave, entries: all.count)
        }
    }

    /// A private-queue context on the loop's store, opened with the loop's options.
    /// - Throws: the store's error when it does not open.
    public func openContext() throws -> ManagedObjectContext {
        try LabStack.openContext(store: store, at: url, model: try Self.model(), options: options)
    }

    private func fetchLedger(in context: ManagedObjectContext) throws -> ManagedObject? {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Ledger")).first
    }

    private static func entries(where format: String?, _ arguments: Any...) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Entry")
        if let format { request.predicate = try FetchPredicate(format: format, argumentArray: arguments) }
        return request
    }

    /// The loop's model: entries tagged with their save, and one ledger row they are related to.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Entry",
                attributes: [
                    AttributeDescription(name: "batch", type: .integer64, isOptional: false, isIndexed: true),
                    AttributeDescription(name: "payload", type: .string, isOptional: false),
                ],
                relationships: [RelationshipDescription(name: "ledger", destination: "Ledger", inverse: "entries")]),
            EntityDescription(
                name: "Ledger",
                attributes: [
                    AttributeDescription(name: "lastSave", type: .integer64, isOptional: false),
                    AttributeDescription(name: "entryCount", type: .integer64, isOptional: false),
                ],
                relationships: [
                    RelationshipDescription(name: "entries", destination: "Entry", inverse: "ledger", isToMany: true)
                ]),
        ])
    }
}

/// Damage the save-loop check found: what is wrong, in words.
public struct SaveLoopError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
