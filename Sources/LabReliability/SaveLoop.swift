import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// A loop of saves with a journal, for crash testing: a parent kills the process at random moments and
/// checks that every save the journal acknowledges is in the store in full, and no save is there in part.
///
/// Save `n` inserts `entries(inSave: n)` entries tagged with batch `n`, every fifth save also deletes the
/// entries of batch `n - 3`, and every save updates the one `Ledger` row (last save, entry count) — so a torn
/// save shows as a batch of the wrong size or a ledger that disagrees with the entries. Journal line `n` is
/// written only after `save()` returns, and at start for the last save the store already holds.
public struct SaveLoop: Sendable {
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

    /// A loop on the store at `url`, acknowledging saves in `journal`; `seed` decides the batch sizes.
    public init(store: StoreKind, url: URL, journal: URL, seed: UInt64) {
        self.store = store
        self.url = url
        self.journal = journal
        self.seed = seed
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
        let context = try openContext()
        return try context.performAndWait {
            let ledger = try fetchLedger(in: context)
            let lastSave = (ledger?.value(forKey: "lastSave") as? NSNumber)?.int64Value ?? 0
            let ledgerCount = (ledger?.value(forKey: "entryCount") as? NSNumber)?.int64Value ?? 0
            guard lastSave >= acknowledged else {
                throw SaveLoopError("save \(acknowledged) was acknowledged but the store ends at save \(lastSave)")
            }
            guard lastSave <= acknowledged + 1 else {
                throw SaveLoopError("the store holds save \(lastSave), beyond the one in flight after \(acknowledged)")
            }
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
            return Verification(lastSave: lastSave, acknowledged: acknowledged, entries: all.count)
        }
    }

    private func openContext() throws -> ManagedObjectContext {
        try LabStack.openContext(store: store, at: url, model: try Self.model())
    }

    private func fetchLedger(in context: ManagedObjectContext) throws -> ManagedObject? {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Ledger")).first
    }

    private static func entries(where format: String?, _ arguments: Any...) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Entry")
        if let format { request.predicate = try FetchPredicate(format: format, argumentArray: arguments) }
        return request
    }

    /// The loop's model: entries tagged with their save, and one ledger row.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Entry",
                attributes: [
                    AttributeDescription(name: "batch", type: .integer64, isOptional: false, isIndexed: true),
                    AttributeDescription(name: "payload", type: .string, isOptional: false),
                ]),
            EntityDescription(
                name: "Ledger",
                attributes: [
                    AttributeDescription(name: "lastSave", type: .integer64, isOptional: false),
                    AttributeDescription(name: "entryCount", type: .integer64, isOptional: false),
                ]),
        ])
    }
}

/// Damage the save-loop check found: what is wrong, in words.
public struct SaveLoopError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
