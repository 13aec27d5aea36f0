import CLMDB
import Foundation
import ObjectStack

/// Opening a store on an environment: reads and checks its metadata, opens (or creates) its sub-databases,
/// and seeds the key counters.
///
/// A new store is written in one write transaction; an existing one of another model is refused before
/// anything is written.
struct LMDBStoreOpening {
    let request: StoreOpenRequest
    let environment: LMDBEnvironment

    struct Opened {
        let metadata: StoreMetadata
        let schema: LMDBSchema
        let codec: LMDBRowCodec
    }

    private var url: URL { request.url }

    enum Key {
        static let identifier = "identifier"
        static let storeType = "storeType"
        static let hashes = "entityVersionHashes"
        static let entities = "entities"
        static let format = "format"
        static let userInfoPrefix = "userInfo/"
    }

    func open() throws -> Opened {
        let names = LMDBSchema.names(for: request.entities)
        let allEntities = request.model.entities.map(\.name).sorted()
        let (metadata, table, dbis) = try environment.databases.withLock { handles in
            // First read: most opens find a store of this model with every sub-database in place.
            let found = try environment.readKeepingHandles { txn -> (StoreMetadata, [String], [String: MDB_dbi])? in
                var opened: [String: MDB_dbi] = [:]
                guard
                    let meta = try handles[LMDBSchema.metaName] ?? openDatabase(txn, LMDBSchema.metaName, create: false)
                else {
                    try checkEmpty(txn)
                    return nil
                }
                opened[LMDBSchema.metaName] = meta
                guard let (metadata, table) = try loadMetadata(txn, meta) else {
                    throw StoreError(
                        code: .notAStore,
                        message: "\(url.path) is an LMDB environment but not an ObjectStack store (it has no metadata)",
                        url: url)
                }
                try checkModel(metadata)
                for name in names where handles[name] == nil {
                    guard let dbi = try openDatabase(txn, name, create: false) else { return nil }
                    opened[name] = dbi
                }
                guard Set(table).isSuperset(of: allEntities) else { return nil }
                return (metadata, table, opened)
            }
            if let found {
                handles.merge(found.2) { $1 }
                return (found.0, found.1, handles)
            }
            // A new store, or one that lacks sub-databases or entity codes: create them in one transaction.
            let created = try environment.write { txn -> (StoreMetadata, [String], [String: MDB_dbi]) in
                var opened: [String: MDB_dbi] = [:]
                for name in names where handles[name] == nil {
                    opened[name] = try openDatabase(txn, name, create: true)
                }
                let meta = opened[LMDBSchema.metaName] ?? handles[LMDBSchema.metaName]!
                if let (metadata, table) = try loadMetadata(txn, meta) {
                    try checkModel(metadata)
                    let extended = table + allEntities.filter { !table.contains($0) }
                    if extended != table { try put(txn, meta, Key.entities, extended.joined(separator: "\n")) }
                    return (metadata, extended, opened)
                }
                let identifier = request.options[StoreOpenRequest.storeIdentifierOption] ?? UUID().uuidString
                let metadata = StoreMetadata(
                    identifier: identifier, storeType: StoreType.lmdb.name,
                    entityVersionHashes: Dictionary(
                        uniqueKeysWithValues: request.entities.map { ($0.name, $0.versionHash) }))
                try put(txn, meta, Key.format, "\(LMDBRowCodec.formatVersion)")
                try put(txn, meta, Key.identifier, metadata.identifier)
                try put(txn, meta, Key.storeType, metadata.storeType)
                try put(txn, meta, Key.hashes, Self.hashesText(metadata.entityVersionHashes))
                try put(txn, meta, Key.entities, allEntities.joined(separator: "\n"))
                return (metadata, allEntities, opened)
            }
            handles.merge(created.2) { $1 }
            return (created.0, created.1, handles)
        }
        let schema = LMDBSchema(entities: request.entities, model: request.model, dbis: dbis)
        var codec = LMDBRowCodec(
            entityTable: table, model: request.model, storeIdentifier: metadata.identifier, url: url)
        let layouts = try environment.read { try LMDBRowLayouts.load($0, meta: schema.meta, codec: codec) }
        if !layouts.isEmpty {
            codec = LMDBRowCodec(
                entityTable: table, model: request.model, storeIdentifier: metadata.identifier, url: url,
                layouts: layouts)
            try codec.checkLayouts()
        }
        // The store is open: its files stay when it closes, as LMDB leaves them.
        LMDBEnvironmentRegistry.keep(environment)
        return Opened(metadata: metadata, schema: schema, codec: codec)
    }

    // MARK: - Metadata

    private func checkModel(_ metadata: StoreMetadata) throws {
        guard metadata.storeType == StoreType.lmdb.name else {
            throw StoreError(
                code: .notAStore,
                message: "\(url.path) is a store of type \(metadata.storeType), not LMDB", url: url)
        }
        let differing = metadata.entitiesDiffering(from: request.model, configuration: request.configurationName)
        guard differing.isEmpty else {
            throw StoreError(
                code: .incompatibleModel,
                message:
                    "the store was written with another model; entities that differ: \(differing.joined(separator: ", "))",
                url: url)
        }
    }

    private func loadMetadata(_ txn: LMDBTransaction, _ meta: MDB_dbi) throws -> (StoreMetadata, [String])? {
        try Self.loadMetadata(txn, meta, url: url)
    }

    /// The metadata and the persisted entity table, or nil when the environment has no store metadata.
    static func loadMetadata(_ txn: LMDBTransaction, _ meta: MDB_dbi, url: URL) throws -> (StoreMetadata, [String])? {
        func text(_ name: String) throws -> String? {
            try Array(name.utf8).withUnsafeBytes { key in
                try txn.get(meta, key).map { String(decoding: $0, as: UTF8.self) }
            }
        }
        guard let identifier = try text(Key.identifier) else { return nil }
        guard let storeType = try text(Key.storeType), let hashText = try text(Key.hashes),
            let entityText = try text(Key.entities)
        else {
            throw StoreError(code: .corrupt, message: "\(url.path) has incomplete store metadata", url: url)
        }
        if let format = try text(Key.format), format != "\(LMDBRowCodec.formatVersion)",
            format != LMDBRowLayouts.storeFormat
        {
            throw StoreError(
                code: .notAStore,
                message:
                    "\(url.path) uses row format \(format); this build reads formats \(LMDBRowCodec.formatVersion) and "
                    + "\(LMDBRowLayouts.storeFormat)",
                url: url)
        }
        var hashes: [String: String] = [:]
        for line in hashText.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2 else {
                throw StoreError(code: .corrupt, message: "\(url.path) has damaged entity version hashes", url: url)
            }
            hashes[String(parts[0])] = String(parts[1])
        }
        var userInfo: [String: String] = [:]
        let prefix = Array(Key.userInfoPrefix.utf8)
        try txn.withCursor(meta) { cursor in
            try prefix.withUnsafeBytes { prefix in
                try cursor.forEach(prefix: prefix) { key, value in
                    let name = String(decoding: key, as: UTF8.self).dropFirst(Key.userInfoPrefix.count)
                    userInfo[String(name)] = String(decoding: value, as: UTF8.self)
                    return true
                }
            }
        }
        let metadata = StoreMetadata(
            identifier: identifier, storeType: storeType, entityVersionHashes: hashes,
            userInfo: userInfo)
        return (metadata, entityText.split(separator: "\n").map(String.init))
    }

    private func put(_ txn: LMDBTransaction, _ dbi: MDB_dbi, _ key: String, _ value: String) throws {
        try Self.put(txn, dbi, key, value)
    }

    /// Entity version hashes as the metadata records them: one `name<TAB>hash` line per entity, by name.
    static func hashesText(_ hashes: [String: String]) -> String {
        hashes.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)" }.joined(separator: "\n")
    }

    static func put(_ txn: LMDBTransaction, _ dbi: MDB_dbi, _ key: String, _ value: String) throws {
        try Array(key.utf8).withUnsafeBytes { k in
            try Array(value.utf8).withUnsafeBytes { v in _ = try txn.put(dbi, k, v) }
        }
    }

    // MARK: - Sub-databases

    private func openDatabase(_ txn: LMDBTransaction, _ name: String, create: Bool) throws -> MDB_dbi? {
        var dbi: MDB_dbi = 0
        let rc = mdb_dbi_open(txn.txn, name, create ? UInt32(bitPattern: MDB_CREATE) : 0, &dbi)
        if rc == MDB_NOTFOUND, !create { return nil }
        if rc == MDB_MAP_FULL { throw LMDBMapFull() }
        try LMDBFailure.check(rc, "opening sub-database \(name) failed", url: url)
        return dbi
    }

    /// A file without ObjectStack metadata must be an empty environment to become a store.
    private func checkEmpty(_ txn: LMDBTransaction) throws {
        var main: MDB_dbi = 0
        try LMDBFailure.check(mdb_dbi_open(txn.txn, nil, 0, &main), "reading the LMDB environment failed", url: url)
        var stat = MDB_stat()
        try LMDBFailure.check(mdb_stat(txn.txn, main, &stat), "reading the LMDB environment failed", url: url)
        if stat.ms_entries > 0 {
            throw StoreError(
                code: .notAStore,
                message: "\(url.path) is an LMDB environment but not an ObjectStack store (it holds other data)",
                url: url)
        }
    }
}
