import Foundation
import LabWorkloads
import ObjectStack

/// Remote change notifications between two processes: a writer process saves (and batch-inserts) into a store with
/// persistent history, printing when each commit returned; this process listens on its own coordinator and notes
/// when each notification arrived. The latency of a commit is the time from its return in the writer to the first
/// notification here whose history token reaches its transaction.
public enum RemoteChangeProbe {
    /// The model: notes with a writer's sequence number.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(name: "n", type: .integer64, isOptional: false),
                    AttributeDescription(name: "title", type: .string, preservesValueInHistoryOnDeletion: true),
                ])
        ])
    }

    /// A coordinator on the store at `url` with history tracking on (and remote change notifications, if asked).
    public static func openCoordinator(store: StoreKind, at url: URL, remoteChange: Bool) throws
        -> PersistentStoreCoordinator
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        var description = StoreDescription(type: store.storeType, url: url)
        description.persistentHistoryTracking = true
        description.remoteChangeNotificationPost = remoteChange
        try coordinator.addPersistentStore(type: store.storeType, at: url, options: description.options)
        return coordinator
    }

    // MARK: - The writer

    /// One commit as the writer reports it: `committed SEQUENCE UNIX-SECONDS`.
    public struct Commit: Sendable, Equatable {
        /// The history transaction's number.
        public let sequence: Int64
        /// When the save returned in the writer (seconds since 1970, the clock both processes share).
        public let time: Double

        /// Parses a writer's line; nil for any other line.
        public init?(line: Substring) {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "committed", let sequence = Int64(parts[1]), let time = Double(parts[2])
            else { return nil }
            self.sequence = sequence
            self.time = time
        }
    }

    /// Writes `count` times, `interval` apart: a context save of one note, every third write a batch insert of
    /// three; prints `ready` first and a `committed` line after each write, then `done`.
    public static func write(store: StoreKind, at url: URL, count: Int, interval: Double) throws {
        let coordinator = try openCoordinator(store: store, at: url, remoteChange: false)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "remote-writer"
        var lastToken = coordinator.currentPersistentHistoryToken()
        // Unbuffered, so the listener reads each line as it is written.
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        for n in 0..<count {
            try context.performAndWait {
                if n % 3 == 2 {
                    let objects: [[String: Any]] = (0..<3).map { ["n": Int64(n * 10 + $0), "title": "batch"] }
                    _ = try context.execute(BatchInsertRequest(entityName: "Note", objects: objects))
                } else {
                    let note = try context.insertNewObject(forEntityName: "Note")
                    try note.setValue(Int64(n), forKey: "n")
                    try note.setValue("saved", forKey: "title")
                    try context.save()
                }
            }
            let time = Date().timeIntervalSince1970
            // The transactions since the last write: one fetch of what is new, not of the whole history.
            let (number, token) = try context.performAndWait { () throws -> (Int64, PersistentHistoryToken?) in
                let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
                request.resultType = .transactionsOnly
                let last = try context.execute(request).transactions.last
                return (last?.transactionNumber ?? -1, last?.token)
            }
            lastToken = token ?? lastToken
            FileHandle.standardOutput.write(Data("committed \(number) \(time)\n".utf8))
            Thread.sleep(forTimeInterval: interval)
        }
        FileHandle.standardOutput.write(Data("done\n".utf8))
    }
}
