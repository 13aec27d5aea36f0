import CSQLite
import Foundation
import ObjectStack

/// Opens a store file safely: checks it read-only first, so a file that is not a store of this model is
/// reported and left untouched, then opens the connection the store keeps.
struct SQLiteStoreOpener {
    let request: StoreOpenRequest
    let schema: SQLiteSchema

    private var url: URL { request.url }
    private static let magic = Array("SQLite format 3\u{0}".utf8)

    func open() throws -> (connection: SQLiteConnection, metadata: StoreMetadata) {
        guard url.isFileURL else {
            throw StoreError(
                code: .notAStore, message: "an SQLite store needs a file URL, not \(url.absoluteString)", url: url)
        }
        let synchronous = try synchronousOption()
        // What this open may create (the file of a new store, a reader's -wal and -shm): removed again if the
        // open is refused, so a refusal leaves the folder as it was.
        let files = [url.path] + ["-wal", "-shm", "-journal"].map { url.path + $0 }
        let absent = files.filter { !FileManager.default.fileExists(atPath: $0) }
        // Held while the store is open, and taken before the file is read, so a migration in another process
        // neither swaps the file under this connection nor misses that it is open.
        var lock: StoreFileLock?
        do {
            lock = try StoreFileLock.shared(url)
            let opened = try openLocked(synchronous: synchronous)
            if lock == nil { lock = try StoreFileLock.shared(url) }
            opened.connection.fileLock = lock
            return opened
        } catch {
            lock?.release()
            Self.removeCreated(absent, of: url)
            throw error
        }
    }

    /// Removes the files of `paths` that now exist beside the store at `url`, unless a store of this or
    /// another process has the store open (the files are then theirs).
    static func removeCreated(_ paths: [String], of url: URL) {
        let created = paths.filter { FileManager.default.fileExists(atPath: $0) }
        guard !created.isEmpty else { return }
        StoreFileLock.withSoleUse(of: url) { for path in created { try? FileManager.default.removeItem(atPath: path) } }
    }

    private func openLocked(synchronous: String) throws -> (connection: SQLiteConnection, metadata: StoreMetadata) {
        let existing = try inspectFile()
        if let existing { try checkModel(existing) }
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(url: url, readOnly: false)
        } catch let error as StoreError where existing == nil && error.code == .ioFailure {
            // The folder passed the permission check but the file cannot be created there (a read-only
            // file system, or a folder only the kernel writes, such as /proc/sys).
            throw StoreError(
                code: .readOnly, message: "cannot create the store file: the location is read-only",
                url: url, nativeCode: error.nativeCode, detail: error.message)
        }
        do {
            sqlite3_busy_timeout(connection.handle, SQLiteStore.busyTimeoutMilliseconds)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = \(synchronous)")
            let stored = try connection.inTransaction {
                if try readMetadata(connection) == nil { try create(connection) }
                return try readMetadata(connection)!
            }
            try checkModel(stored)
            let metadata = StoreMetadata(
                identifier: stored.identifier, storeType: StoreType.sqlite.name,
                entityVersionHashes: stored.hashes, userInfo: ["schemaVersion": stored.schemaVersion])
            return (connection, metadata)
        } catch {
            connection.close()
            throw error
        }
    }

    private func synchronousOption() throws -> String {
        let value = request.options["synchronous"]?.uppercased() ?? "NORMAL"
        guard ["NORMAL", "FULL"].contains(value) else {
            throw StoreError(
                code: .invalidOption,
                message: "option synchronous must be NORMAL or FULL, not \(request.options["synchronous"] ?? "")",
                url: url)
        }
        return value
    }

    // MARK: - Inspecting

    struct StoredMetadata {
        var identifier: String
        var hashes: [String: String]
        var schemaVersion: String
    }

    /// Checks the location and, for an existing non-empty file, reads its metadata read-only.
    /// - Returns: the metadata of an existing store; nil for a new or empty file.
    private func inspectFile() throws -> StoredMetadata? {
        let path = url.path
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        let directory = url.deletingLastPathComponent().path
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            var parentIsDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory, isDirectory: &parentIsDirectory), parentIsDirectory.boolValue
            else {
                throw StoreError(code: .ioFailure, message: "the folder \(directory) does not exist", url: url)
            }
            guard access(directory, W_OK) == 0, !isReadOnlyVolume(directory) else {
                throw StoreError(
                    code: .readOnly, message: "cannot create a store: the folder \(directory) is read-only", url: url)
            }
            return nil
        }
        if isDirectory.boolValue {
            throw StoreError(
                code: .notAStore, message: "the location is a directory, not an SQLite store file", url: url)
        }
        guard access(path, R_OK) == 0 else {
            throw StoreError(code: .ioFailure, message: "the store file cannot be read (permission denied)", url: url)
        }
        let size = (try? manager.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        if size > 0 { try checkHeader(path: path, size: size, walHoldsPages: walSize(path) > 0) }
        // WAL mode writes beside the file (-wal, -shm), so the folder must be writable too.
        guard access(path, W_OK) == 0, access(directory, W_OK) == 0, !isReadOnlyVolume(directory) else {
            throw StoreError(code: .readOnly, message: "the store file or its folder is read-only", url: url)
        }
        if size == 0 {
            // A store is never empty: switching to WAL writes the first page before any table exists.
            throw StoreError(
                code: .notAStore,
                message: "the file is empty (0 bytes), not an SQLite store; remove it to create a new store here",
                url: url)
        }
        // A reader of a WAL file creates -wal and -shm beside it; `open` removes them if the open is refused.
        return try readStoredMetadata()
    }

    /// Reads an existing store's metadata through a read-only connection, checking its tables.
    private func readStoredMetadata() throws -> StoredMetadata? {
        let reader: SQLiteConnection
        do {
            reader = try SQLiteConnection(url: url, readOnly: true)
        } catch var error as StoreError {
            error = StoreError(
                code: error.code, message: "cannot read the store: \(error.message)", url: url,
                nativeCode: error.nativeCode, detail: error.detail)
            throw error
        }
        defer { reader.close() }
        // Another process may be writing, or recovering the WAL after a crash (SQLITE_BUSY_RECOVERY): wait, as the
        // store's own connection does, rather than fail the open.
        sqlite3_busy_timeout(reader.handle, SQLiteStore.busyTimeoutMilliseconds)
        do {
            let tables = try reader.strings("SELECT name FROM sqlite_master WHERE type = 'table'")
            guard tables.contains("Z_METADATA") else {
                if tables.isEmpty { return nil }
                throw StoreError(
                    code: .notAStore,
                    message: "an SQLite database, but not an ObjectStack store (no Z_METADATA table; tables: "
                        + tables.prefix(5).joined(separator: ", ") + ")", url: url)
            }
            guard let stored = try readMetadata(reader) else {
                throw StoreError(code: .corrupt, message: "the store's metadata has no identifier", url: url)
            }
            // Tables are checked against the model that wrote them; a store of another model is for the caller.
            let storedModel = StoreMetadata(
                identifier: stored.identifier, storeType: StoreType.sqlite.name,
                entityVersionHashes: stored.hashes)
            let written = storedModel.entitiesDiffering(from: request.model, configuration: request.configurationName)
                .isEmpty
            let differences = written ? try schema.differences(in: reader) : []
            guard differences.isEmpty else {
                throw StoreError(
                    code: .corrupt,
                    message: "the store's tables do not match the model that wrote it (edited outside ObjectStack?): "
                        + differences.joined(separator: "; "), url: url)
            }
            return stored
        } catch let error as StoreError where error.code == .corrupt || error.code == .notAStore {
            if error.nativeCode == nil { throw error }
            throw StoreError(
                code: error.code, message: "the file is damaged or not an SQLite database: \(error.message)",
                url: url, nativeCode: error.nativeCode, detail: error.detail)
        }
    }

    /// Checks the 100-byte SQLite header and that the file is as long as the header says.
    /// The size of the file's write-ahead log, 0 when there is none.
    private func walSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
    }

    /// - Parameter walHoldsPages: a non-empty WAL may hold pages the file does not have yet (a checkpoint
    ///   writes page 1 first; a crash or a full disk can stop it there), so the length is not checked then.
    private func checkHeader(path: String, size: Int, walHoldsPages: Bool) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(code: .ioFailure, message: "the store file cannot be opened for reading", url: url)
        }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        guard header.count >= Self.magic.count, Array(header.prefix(Self.magic.count)) == Self.magic else {
            throw StoreError(
                code: .notAStore, message: "not an SQLite file (its first bytes are not the SQLite header)", url: url)
        }
        guard header.count == 100 else {
            throw StoreError(
                code: .corrupt, message: "the SQLite file is truncated: \(size) bytes, shorter than its header",
                url: url)
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pageCount = Int(header[28]) << 24 | Int(header[29]) << 16 | Int(header[30]) << 8 | Int(header[31])
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
            throw StoreError(
                code: .corrupt, message: "the SQLite header is damaged (page size \(rawPageSize))", url: url)
        }
        if !walHoldsPages && (size % pageSize != 0 || (pageCount > 0 && size < pageCount * pageSize)) {
            throw StoreError(
                code: .corrupt,
                message:
                    "the SQLite file is truncated: \(size) bytes, but its header says \(pageCount) pages of \(pageSize) bytes",
                url: url)
        }
    }

    private func isReadOnlyVolume(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    // MARK: - Metadata

    private func readMetadata(_ db: SQLiteConnection) throws -> StoredMetadata? {
        try Self.readMetadata(db)
    }

    /// The metadata table's contents; nil when the file has no store metadata yet.
    static func readMetadata(_ db: SQLiteConnection) throws -> StoredMetadata? {
        let exists = try db.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'")
        guard !exists.isEmpty else { return nil }
        var values: [String: String] = [:]
        for row in try db.rows("SELECT key, value FROM Z_METADATA") { values[row[0]] = row[1] }
        guard let identifier = values["uuid"] else { return nil }
        var hashes: [String: String] = [:]
        for (key, value) in values where key.hasPrefix("hash:") { hashes[String(key.dropFirst(5))] = value }
        return StoredMetadata(identifier: identifier, hashes: hashes, schemaVersion: values["schemaVersion"] ?? "")
    }

    private func checkModel(_ stored: StoredMetadata) throws {
        let existing = StoreMetadata(
            identifier: stored.identifier, storeType: StoreType.sqlite.name,
            entityVersionHashes: stored.hashes)
        let differing = existing.entitiesDiffering(from: request.model, configuration: request.configurationName)
        guard differing.isEmpty else {
            throw StoreError(
                code: .incompatibleModel,
                message:
                    "the store was written with another model; entities that differ: \(differing.joined(separator: ", "))",
                url: url)
        }
        guard stored.schemaVersion == SQLiteStore.schemaVersion else {
            throw StoreError(
                code: .incompatibleModel,
                message:
                    "the store's schema version is \(stored.schemaVersion), this build reads \(SQLiteStore.schemaVersion)",
                url: url)
        }
    }

    private func create(_ db: SQLiteConnection) throws {
        for statement in schema.creationSQL { try db.execute(statement) }
        let identifier = request.options[StoreOpenRequest.storeIdentifierOption] ?? UUID().uuidString
        var rows: [(String, String)] = [("uuid", identifier), ("schemaVersion", SQLiteStore.schemaVersion)]
        for entity in request.entities { rows.append(("hash:" + entity.name, entity.versionHash)) }
        for (key, value) in rows {
            let statement = try db.statement("INSERT OR IGNORE INTO Z_METADATA (key, value) VALUES (?, ?)")
            statement.bind([.text(key), .text(value)])
            try statement.run()
        }
    }
}

extension SQLiteConnection {
    /// The first column of every row, as text.
    func strings(_ sql: String) throws -> [String] {
        try rows(sql).map { $0[0] }
    }

    /// Every row, each column as text.
    func rows(_ sql: String) throws -> [[String]] {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        let columns = sqlite3_column_count(statement.handle)
        var rows: [[String]] = []
        while try statement.step() {
            rows.append((0..<columns).map { statement.text($0) })
        }
        return rows
    }

    /// Runs `body` in a write transaction taken at once; rolls back when it throws.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try statement("BEGIN IMMEDIATE").run()
        do {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            try? statement("ROLLBACK").run()
            throw error
        }
    }
}
