import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore: StoreGenerationPinning {
    // MARK: - Query generations

    /// A read transaction on a connection of its own, begun now and kept open: in WAL mode it reads the database
    /// as of its first read for as long as it lasts (Debian's libsqlite3 has no `sqlite3_snapshot`, so a
    /// generation is a held transaction, not a snapshot handle that could be reopened).
    public func pinGeneration() throws -> any StoreGenerationReader {
        let connection = try withConnection { _ in try SQLiteConnection(url: url, readOnly: true) }
        do {
            sqlite3_busy_timeout(connection.handle, Self.busyTimeoutMilliseconds)
            try connection.execute("BEGIN")
            // The first read starts the transaction's view of the database.
            _ = try connection.scalarText("SELECT count(*) FROM sqlite_master")
        } catch {
            connection.close()
            throw error
        }
        return SQLiteGenerationReader(store: self, connection: connection)
    }
}

/// Reads one generation of an SQLite store: the store's own reads, run on the generation's connection inside its
/// open read transaction.
/// - Note: Thread-safe: every read takes the store's lock and runs the store's reads on this connection from that
///   thread only (`SQLiteBatchScope`), as a batch request's reads do.
final class SQLiteGenerationReader: StoreGenerationReader, @unchecked Sendable {
    // @unchecked: `connection` is used only under the store's lock (inside `withConnection`), or in deinit when no
    // read can run.
    private let store: SQLiteStore
    private let connection: SQLiteConnection

    init(store: SQLiteStore, connection: SQLiteConnection) {
        self.store = store
        self.connection = connection
    }

    deinit {
        try? connection.execute("COMMIT")
        connection.close()
    }

    private func read<T>(_ body: () throws -> T) throws -> T {
        try store.withConnection { _ in try store.batchScope.run(on: connection, body) }
    }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try read { try store.execute(request) } }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        try read { try store.snapshots(for: objectIDs) }
    }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try read { try store.relatedObjectIDs(of: objectIDs, through: relationship) }
    }
}
