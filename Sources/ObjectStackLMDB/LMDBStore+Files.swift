import CLMDB
import Foundation
import ObjectStack

extension LMDBStore {
    // MARK: - Files

    /// How migration reads, moves and deletes LMDB store files: one data file (`MDB_NOSUBDIR`) and its `-lock`;
    /// an added attribute is migrated in place, without rewriting rows (`LMDBInPlaceMigration`).
    static let fileOperations = StoreFileOperations(
        fileExtension: "lmdb", companionSuffixes: ["-lock"],
        readMetadata: { try readMetadata(at: $0) }, makeSelfContained: { try makeSelfContained($0) },
        migrateInPlace: { try LMDBInPlaceMigration(migration: $0).run() })

    /// The metadata of the store file at `url`, read in a read-only transaction; nil for no file, an empty file,
    /// or an environment without store metadata.
    static func readMetadata(at url: URL) throws -> StoreMetadata? {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        guard let size, size > 0 else {
            // A directory has a size too; let the file check name it.
            if FileManager.default.fileExists(atPath: url.path) { try LMDBFileCheck.validate(path: url.path, url: url) }
            return nil
        }
        let environment = try LMDBEnvironmentRegistry.acquire(url: url, initialMapSize: defaultInitialMapSize)
        defer { LMDBEnvironmentRegistry.release(environment) }
        return try environment.databases.withLock { handles in
            try environment.readKeepingHandles { txn -> StoreMetadata? in
                var meta = handles[LMDBSchema.metaName] ?? 0
                if handles[LMDBSchema.metaName] == nil {
                    let rc = mdb_dbi_open(txn.txn, LMDBSchema.metaName, 0, &meta)
                    if rc == MDB_NOTFOUND { return nil }
                    try LMDBFailure.check(rc, "opening the store's metadata failed", url: url)
                    handles[LMDBSchema.metaName] = meta
                }
                return try LMDBStoreOpening.loadMetadata(txn, meta, url: url)?.0
            }
        }
    }

    /// An LMDB data file is always whole on disk (every commit is); it only must not be open in this process,
    /// or the registry would keep an environment mapped on a file that a rename replaced, nor in another
    /// process (stores of this library are kept out by `StoreFileLock`; any other LMDB user shows in the lock
    /// file).
    /// - Throws: `StoreError(.locked)` when a store in this process, or another process, has the file open.
    static func makeSelfContained(_ url: URL) throws {
        let users = LMDBEnvironmentRegistry.users(of: url)
        guard users == 0 else {
            throw StoreError(
                code: .locked,
                message: "the store cannot be moved while \(users) store(s) in this process have it open", url: url)
        }
        guard !lockFileIsHeldElsewhere(url) else {
            throw StoreError(
                code: .locked,
                message: "the store cannot be moved while another process has its LMDB environment open", url: url)
        }
    }

    /// Whether another process has the LMDB environment open: every process that opens one holds an `fcntl`
    /// lock on the first byte of its `-lock` file for as long as it is open (a read lock once it is not the
    /// first), read transaction or not.
    /// - Note: Closing the descriptor drops this process's own `fcntl` locks on the file, so call this only
    ///   when no environment of this process has the file open.
    static func lockFileIsHeldElsewhere(_ url: URL) -> Bool {
        var descriptor = open(url.path + "-lock", O_RDWR | O_CLOEXEC)
        if descriptor < 0 { descriptor = open(url.path + "-lock", O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { Foundation.close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0 else { return false }
        return probe.l_type != Int16(F_UNLCK)
    }
}

extension LMDBStore: StoreRowScanning {
    // MARK: - Row scanning

    public func rows(of entity: EntityDescription, after key: Int64, limit: Int) throws -> [(
        ManagedObjectID, RowSnapshot
    )] {
        try checkOpen()
        guard let layout = schema.layout(of: entity), limit > 0 else { return [] }
        let code = codec.code(of: entity)
        let storeIdentifier = identifier
        return try environment.read { txn in
            var rows: [(ManagedObjectID, RowSnapshot)] = []
            rows.reserveCapacity(limit)
            var start: [UInt8] = []
            start.appendPrimaryKey(key &+ 1)
            try txn.withCursor(layout.rows) { cursor in
                var entry = try start.withUnsafeBytes { try cursor.move(MDB_SET_RANGE, key: $0) }
                while let (rowKey, bytes) = entry, rows.count < limit {
                    let header = try codec.header(of: bytes)
                    if header.entityCode == code, rowKey.count == 8 {
                        let id = ManagedObjectID(
                            entity: entity, storeIdentifier: storeIdentifier,
                            primaryKey: rowKey.primaryKey(at: 0))
                        rows.append(
                            (
                                id,
                                RowSnapshot(values: try codec.decodeAll(bytes, header: header), version: header.version)
                            ))
                    }
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            return rows
        }
    }

    public func reserveKeys(through key: Int64, for entity: EntityDescription) throws {
        try checkOpen()
        try reserveKeysInFile(through: key, for: entity)
    }
}
