import CSQLite
import Foundation
import ObjectStack

/// Opens a store file safely: reads it read-only first, so a file that is not a store of this model is reported
/// and left untouched, then opens the connection the store keeps.
///
/// A file in Core Data's layout is a store whether ObjectStack or Core Data wrote it. One Core Data wrote is
/// checked against the model it describes (its model cache), or, without a cache, against the tables and columns
/// the model needs; it keeps its entity codes, names, metadata and cache. One with Core Data's persistent-history
/// tables opens read-only: ObjectStack's writes would be missing from Apple's history.
struct SQLiteStoreOpener {
    let request: StoreOpenRequest

    private var url: URL { request.url }
    private static let magic = Array("SQLite format 3\u{0}".utf8)

    /// What the open found and made.
    struct Opened {
        let connection: SQLiteConnection
        let metadata: StoreMetadata
        let schema: SQLiteSchema
        /// Why the store refuses writes, nil when it takes them.
        let readOnlyReason: String?
        /// The derived attributes whose columns the file's triggers maintain (`Z_DA_…`), by entity and name.
        let triggerDerived: Set<String>
    }

    func open() throws -> Opened {
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

    private func openLocked(synchronous: String) throws -> Opened {
        let existing = try inspectFile()
        var readOnlyReason: String?
        if let existing, existing.hasCoreDataHistory {
            readOnlyReason =
                "the store has Core Data's persistent history (ATRANSACTION, ACHANGE): ObjectStack's writes would be "
                + "missing from it, so the store is open read-only"
        }
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(url: url, readOnly: readOnlyReason != nil)
        } catch let error as StoreError where existing == nil && error.code == .ioFailure {
            // The folder passed the permission check but the file cannot be created there (a read-only
            // file system, or a folder only the kernel writes, such as /proc/sys).
            throw StoreError(
                code: .readOnly, message: "cannot create the store file: the location is read-only",
                url: url, nativeCode: error.nativeCode, detail: error.message)
        }
        do {
            sqlite3_busy_timeout(connection.handle, SQLiteStore.busyTimeoutMilliseconds)
            if readOnlyReason == nil {
                if existing == nil {
                    // Before any table: Core Data's stores use incremental auto-vacuum (`_NSAutoVacuumLevel` 2).
                    try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
                }
                try connection.execute("PRAGMA journal_mode = WAL")
                try connection.execute("PRAGMA synchronous = \(synchronous)")
            }
            let file: SQLiteStoreFile
            if readOnlyReason != nil, let existing {
                file = existing
            } else {
                file = try connection.inTransaction {
                    let found = try SQLiteStoreFile(connection, url: url)
                    guard found.layout == .empty else { return found }
                    try create(connection)
                    return try SQLiteStoreFile(connection, url: url)
                }
            }
            try check(file)
            let schema = SQLiteSchema(entities: request.entities, file: file)
            try verify(schema, against: file)
            return Opened(
                connection: connection, metadata: try file.metadata(), schema: schema,
                readOnlyReason: readOnlyReason, triggerDerived: Self.triggerDerived(file, schema: schema))
        } catch {
            connection.close()
            throw error
        }
    }

    /// The derived attributes the file's triggers compute (`Z_DA_<TABLE>_<Entity>_<attribute>_…`): a save must not
    /// write their columns as well.
    static func triggerDerived(_ file: SQLiteStoreFile, schema: SQLiteSchema) -> Set<String> {
        var derived: Set<String> = []
        for table in schema.tables.values {
            for entity in table.root.selfAndDescendants {
                for attribute in entity.declaredAttributes where attribute.derivationExpression != nil {
                    let marker = "_\(entity.name)_\(attribute.name)_"
                    if file.triggers.contains(where: { $0.hasPrefix("Z_DA_") && $0.contains(marker) }) {
                        derived.insert("\(entity.name).\(attribute.name)")
                    }
                }
            }
        }
        return derived
    }

    /// The connection's `PRAGMA synchronous`: from the `durability` option (`full`, `normal`, `off`) or the older
    /// `synchronous` one (`NORMAL`, `FULL`); NORMAL when neither is given. Both given must agree.
    private func synchronousOption() throws -> String {
        let durability = try Durability.requested(in: request.options, url: url)
        guard let text = request.options["synchronous"] else { return durability.map(Self.synchronous) ?? "NORMAL" }
        let value = text.uppercased()
        guard ["NORMAL", "FULL"].contains(value) else {
            throw StoreError(
                code: .invalidOption, message: "option synchronous must be NORMAL or FULL, not \(text)", url: url)
        }
        if let durability, Self.synchronous(durability) != value {
            throw StoreError(
                code: .invalidOption,
                message: "options synchronous \(text) and durability \(durability) disagree; give one of them",
                url: url)
        }
        return value
    }

    /// SQLite's `synchronous` setting for a durability.
    static func synchronous(_ durability: Durability) -> String {
        switch durability {
        case .full: "FULL"
        case .normal: "NORMAL"
        case .off: "OFF"
        }
    }

    // MARK: - Inspecting

    /// Checks the location and, for an existing non-empty file, reads it read-only and checks it is a store of the
    /// model.
    /// - Returns: the file's facts; nil for a new file.
    private func inspectFile() throws -> SQLiteStoreFile? {
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
        return try readStoreFile()
    }

    /// Reads an existing file's facts through a read-only connection and checks them against the model; nil for a
    /// file with no table yet (a new store whose creation was interrupted).
    private func readStoreFile() throws -> SQLiteStoreFile? {
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
            let file = try SQLiteStoreFile(reader, url: url)
            if file.layout == .empty { return nil }
            try check(file)
            try verify(SQLiteSchema(entities: request.entities, file: file), against: file)
            return file
        } catch let error as StoreError where error.code == .corrupt || error.code == .notAStore {
            if error.nativeCode == nil { throw error }
            throw StoreError(
                code: error.code, message: "the file is damaged or not an SQLite database: \(error.message)",
                url: url, nativeCode: error.nativeCode, detail: error.detail)
        }
    }

    /// Checks that the file is a store of the request's model.
    /// - Throws: `StoreError` `.notAStore` for another application's database, `.incompatibleModel` for a store of
    ///   another model (naming what differs) or of ObjectStack's earlier layout (saying what to do).
    func check(_ file: SQLiteStoreFile) throws {
        switch file.layout {
        case .empty, .coreData: break
        case .objectStackLegacy:
            throw StoreError(
                code: .incompatibleModel,
                message: "the store is in ObjectStack's first file layout (schema 1), which this version no longer "
                    + "reads: it now writes Core Data's layout. Convert it in place with `stacklab store upgrade "
                    + "\(url.path) --model MODEL` (the model that wrote it), or create it again", url: url)
        case .foreign:
            let tables = file.columns.keys.sorted()
            throw StoreError(
                code: .notAStore,
                message: "an SQLite database, but not a Core Data or ObjectStack store (no Z_METADATA and "
                    + "Z_PRIMARYKEY tables; tables: \(tables.prefix(5).joined(separator: ", ")))", url: url)
        }
        guard file.layout == .coreData else { return }
        let plist = try file.plist()
        if plist.objectStackHashes != nil {
            let differing = try file.metadata().entitiesDiffering(
                from: request.model, configuration: request.configurationName)
            guard differing.isEmpty else {
                throw StoreError(
                    code: .incompatibleModel,
                    message: "the store was written with another model; entities that differ: "
                        + differing.joined(separator: ", "), url: url)
            }
            return
        }
        // Core Data wrote it: the model its cache describes must equal this one in Core Data's hash inputs.
        guard let cached = try file.cachedModel() else { return }
        let stored = ModelVersionMatch.lines(of: cached)
        let expected = ModelVersionMatch.lines(
            ofEntities: request.model.entities(forConfiguration: request.configurationName))
        guard stored == expected else {
            throw StoreError(
                code: .incompatibleModel,
                message: "Core Data wrote the store with another model: "
                    + ModelVersionMatch.firstDifference(store: stored, version: expected), url: url)
        }
    }

    /// Checks the file's tables and columns against the schema: every table and column the model needs (and, in a
    /// store ObjectStack wrote, no other).
    /// - Throws: `StoreError` `.corrupt` for a store ObjectStack wrote whose tables were edited, `.incompatibleModel`
    ///   for a store Core Data wrote that lacks what the model needs.
    func verify(_ schema: SQLiteSchema, against file: SQLiteStoreFile) throws {
        guard file.layout == .coreData else { return }
        let written = try file.plist().objectStackHashes != nil
        let differences = schema.differences(in: file, strict: written)
        guard !differences.isEmpty else { return }
        if written {
            throw StoreError(
                code: .corrupt,
                message: "the store's tables do not match the model that wrote it (edited outside ObjectStack?): "
                    + differences.joined(separator: "; "), url: url)
        }
        throw StoreError(
            code: .incompatibleModel,
            message: "the store's tables are not the model's: " + differences.prefix(5).joined(separator: "; "),
            url: url)
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

    // MARK: - Creating

    /// Core Data's hashes of the model, when the store is created with them (`SQLiteStore.coreDataVersionHashesOption`).
    /// - Throws: `StoreError` `.invalidOption` for a value that is not one, or hashes of other entities.
    func coreDataHashesOption() throws -> CoreDataVersionHashes? {
        guard let text = request.options[SQLiteStore.coreDataVersionHashesOption] else { return nil }
        guard let hashes = CoreDataVersionHashes(optionValue: text) else {
            throw StoreError(code: .invalidOption, message: "option coreDataVersionHashes does not read", url: url)
        }
        let names = Set(request.entities.map(\.name))
        guard Set(hashes.hashes.keys) == names else {
            throw StoreError(
                code: .invalidOption,
                message: "Core Data's hashes given are for entities "
                    + hashes.hashes.keys.sorted().joined(separator: ", ") + ", the model's are "
                    + names.sorted().joined(separator: ", "), url: url)
        }
        return hashes
    }

    /// Creates a new store's tables, its `Z_PRIMARYKEY` rows and its metadata row.
    private func create(_ db: SQLiteConnection) throws {
        let schema = SQLiteSchema(entities: request.entities)
        for statement in schema.creationSQL { try db.execute(statement) }
        let identifier = request.options[StoreOpenRequest.storeIdentifierOption] ?? UUID().uuidString
        let statement = try db.statement("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
        defer { statement.reset() }
        statement.bindText(identifier, at: 1)
        statement.bindBlob(
            StoreMetadataPlist.data(
                for: request.entities, versionIdentifiers: [], coreDataHashes: try coreDataHashesOption()), at: 2)
        try statement.run()
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
