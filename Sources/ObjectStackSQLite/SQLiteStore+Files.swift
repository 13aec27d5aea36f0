import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore {
    // MARK: - Files

    /// How migration reads, moves and deletes SQLite store files: the main file plus `-wal` and `-shm`.
    static let fileOperations = StoreFileOperations(
        fileExtension: "sqlite", companionSuffixes: ["-wal", "-shm", "-journal"],
        readMetadata: { try readMetadata(at: $0) }, makeSelfContained: { try makeSelfContained($0) },
        migrateInPlace: { try SQLiteInPlaceMigration(migration: $0).run() })

    /// The metadata of the store file at `url`, read through a read-only connection; nil for no file or an
    /// empty one.
    static func readMetadata(at url: URL) throws -> StoreMetadata? {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        guard !isDirectory.boolValue else {
            throw StoreError(
                code: .notAStore, message: "the location is a directory, not an SQLite store file", url: url)
        }
        let size = (try? manager.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0 else { return nil }
        // A reader of a WAL-mode file creates -wal and -shm; they go again when nobody else has the store open,
        // so asking a store for its metadata leaves its folder as it was.
        let companions = ["-wal", "-shm"].map { url.path + $0 }.filter { !manager.fileExists(atPath: $0) }
        let lock = try StoreFileLock.shared(url)
        let connection = try SQLiteConnection(url: url, readOnly: true)
        connection.fileLock = lock
        defer {
            connection.close()
            SQLiteStoreOpener.removeCreated(companions, of: url)
        }
        do {
            let file = try SQLiteStoreFile(connection, url: url)
            switch file.layout {
            case .empty: return nil
            case .coreData: return try file.metadata()
            case .objectStackLegacy:
                throw StoreError(
                    code: .incompatibleModel,
                    message: "the store is in ObjectStack's first file layout (schema 1), which this version no "
                        + "longer reads; convert it with `stacklab store upgrade`", url: url)
            case .foreign:
                throw StoreError(
                    code: .notAStore, message: "an SQLite database, but not a Core Data or ObjectStack store",
                    url: url)
            }
        } catch let error as StoreError where error.url == nil {
            throw StoreError(
                code: error.code, message: error.message, url: url, nativeCode: error.nativeCode,
                detail: error.detail)
        }
    }

    /// Checkpoints the store's WAL into the main file and leaves WAL mode, so the file alone is the store and
    /// can be renamed (the next open turns WAL mode back on).
    /// - Throws: `StoreError(.locked)` when another connection still has the file open.
    static func makeSelfContained(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let connection = try SQLiteConnection(url: url, readOnly: false)
        defer { connection.close() }
        sqlite3_busy_timeout(connection.handle, 1_000)
        let mode = try connection.scalarText("PRAGMA journal_mode = DELETE")
        guard mode?.lowercased() == "delete" else {
            throw StoreError(
                code: .locked,
                message:
                    "the store cannot be moved while another connection has it open (journal mode stays \(mode ?? "?"))",
                url: url)
        }
    }
}

extension SQLiteStore: StoreRowScanning {
    // MARK: - Row scanning

    public func rows(of entity: EntityDescription, after key: Int64, limit: Int) throws -> [(
        ManagedObjectID, RowSnapshot
    )] {
        let table = schema.table(for: entity)
        guard let code = table.codes[entity.name] else { return [] }
        let sql =
            "SELECT " + rowColumns(table, alias: "t0") + " FROM \(SQLiteSchema.quote(table.name)) t0"
            + " WHERE t0.Z_PK > ? AND t0.Z_ENT = ? ORDER BY t0.Z_PK LIMIT ?"
        return try withConnection { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind([.integer(key), .integer(code), .integer(Int64(limit))])
            return try readRows(statement, root: table.root.name)
        }
    }

    public func reserveKeys(through key: Int64, for entity: EntityDescription) throws {
        try withConnection { db in
            let statement = try db.statement("UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_ENT = ?")
            defer { statement.reset() }
            statement.bind([.integer(key), .integer(schema.table(for: entity).rootCode)])
            try statement.run()
        }
    }
}
