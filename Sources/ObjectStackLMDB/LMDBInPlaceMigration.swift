import CLMDB
import Foundation
import ObjectStack

/// A lightweight migration made inside the store's file without rewriting a row, as SQLite's `ALTER TABLE …
/// ADD COLUMN` makes one: attributes added (none indexed or constrained), renamed or made optional, version
/// hash modifiers changed. The rows already written keep their bytes; the store records their layout
/// (`LMDBRowLayouts`), and the codec reads them through it, a new attribute as its default. Any other change
/// (entities, relationships, indexes, uniqueness constraints, attributes removed or retyped, optional made
/// required) is left to the copying migration.
///
/// One write transaction rewrites the metadata (version hashes, layouts, format): a process killed before its
/// commit leaves the old store as it was, and LMDB's commit is durable. It reports `copying` progress inside
/// the transaction and `replacing` just before the commit, as a copying migration does before its swap.
struct LMDBInPlaceMigration {
    let migration: InPlaceMigration

    /// Whether every change is one this migration makes (the layouts decide the rest; see `sources`).
    static func covers(_ difference: ModelDifference) -> Bool {
        difference.isLightweightMigratable
            && difference.changes.allSatisfy { change in
                switch change {
                case .attributeAdded, .attributeRenamed, .versionHashModifierChanged: return true
                case .attributeOptionalityChanged(_, _, let isOptional): return isOptional
                default: return false
                }
            }
    }

    /// Makes the change; false (and nothing written) when it is not one this migration covers.
    /// - Throws: `StoreError` when the file is not an LMDB store, or its metadata or layouts are damaged; the
    ///   store is left as it was.
    func run() throws -> Bool {
        let difference = migration.difference
        let configuration = migration.configurationName
        let oldEntities = difference.source.entities(forConfiguration: configuration)
        let newEntities = difference.destination.entities(forConfiguration: configuration)
        // The same sub-databases: no index, constraint or relationship store to build or drop.
        guard Self.covers(difference), LMDBSchema.names(for: oldEntities) == LMDBSchema.names(for: newEntities),
            Set(oldEntities.map(\.name)) == Set(newEntities.map(\.name))
        else { return false }
        let url = migration.url
        let environment = try LMDBEnvironmentRegistry.acquire(url: url, initialMapSize: LMDBStore.defaultInitialMapSize)
        defer { LMDBEnvironmentRegistry.release(environment) }
        return try environment.databases.withLock { handles in
            var opened: [String: MDB_dbi] = [:]
            let done = try environment.write { txn -> Bool in
                opened = [:]
                func database(_ name: String) throws -> MDB_dbi {
                    if let dbi = handles[name] ?? opened[name] { return dbi }
                    var dbi: MDB_dbi = 0
                    let rc = mdb_dbi_open(txn.txn, name, 0, &dbi)
                    if rc == MDB_NOTFOUND {
                        throw StoreError(
                            code: .notAStore,
                            message: "\(url.path) is not an ObjectStack LMDB store (it has no sub-database \(name))",
                            url: url)
                    }
                    try LMDBFailure.check(rc, "opening sub-database \(name) failed", url: url)
                    opened[name] = dbi
                    return dbi
                }
                let meta = try database(LMDBSchema.metaName)
                guard let (metadata, table) = try LMDBStoreOpening.loadMetadata(txn, meta, url: url) else {
                    throw StoreError(
                        code: .notAStore,
                        message: "\(url.path) is an LMDB environment but not an ObjectStack store (it has no metadata)",
                        url: url)
                }
                guard metadata.storeType == StoreType.lmdb.name,
                    metadata.matches(difference.source, configuration: configuration),
                    let sources = Self.sources(difference, entityTable: table)
                else { return false }
                let codec = LMDBRowCodec(
                    entityTable: table, model: difference.source,
                    storeIdentifier: metadata.identifier, url: url,
                    layouts: try LMDBRowLayouts.load(
                        txn, meta: meta,
                        codec: LMDBRowCodec(
                            entityTable: table,
                            model: difference.source, storeIdentifier: metadata.identifier, url: url)))
                try codec.checkLayouts()

                var rows = 0
                for root in Set(newEntities.map { LMDBSchema.rowsName($0.rootEntity) }) {
                    rows += try txn.entryCount(try database(root))
                }
                report(.copying, 0.1, rows, done: 0)
                let layouts = codec.layouts.adding(sources.byCode, currentFieldCounts: sources.fieldCounts)
                try layouts.save(txn, meta: meta, codec: codec)
                report(.copying, 0.5, rows, done: rows / 2)
                let hashes = Dictionary(uniqueKeysWithValues: newEntities.map { ($0.name, $0.versionHash) })
                try LMDBStoreOpening.put(txn, meta, LMDBStoreOpening.Key.hashes, LMDBStoreOpening.hashesText(hashes))
                try LMDBStoreOpening.put(
                    txn, meta, LMDBStoreOpening.Key.format,
                    layouts.isEmpty ? "\(LMDBRowCodec.formatVersion)" : LMDBRowLayouts.storeFormat)
                report(.copying, 0.9, rows, done: rows)
                report(.replacing, 0.95, rows, done: rows)
                return true
            }
            if done { handles.merge(opened) { $1 } }
            return done
        }
    }

    /// Where each new stored property of each concrete entity comes from, by entity code, for the entities
    /// whose layout changes, with their field counts before; nil when some entity's rows cannot be read
    /// through a layout (a stored property dropped or retyped, or the same field count in another order).
    static func sources(_ difference: ModelDifference, entityTable: [String])
        -> (byCode: [UInt16: [LMDBRowLayouts.Source]], fieldCounts: [UInt16: Int])?
    {
        var byCode: [UInt16: [LMDBRowLayouts.Source]] = [:]
        var fieldCounts: [UInt16: Int] = [:]
        for mapping in difference.entityMappings where !mapping.destination.isAbstract {
            let old = mapping.source
            guard old.name == mapping.destination.name else { return nil }
            var sources: [LMDBRowLayouts.Source] = []
            var used = Set<Int>()
            for property in mapping.destination.storedProperties {
                switch property {
                case .attribute(let attribute):
                    guard let name = mapping.sourcePropertyNames[attribute.name] else {
                        sources.append(.fill(attribute.defaultValue))
                        continue
                    }
                    guard let before = old.attributesByName[name], let index = before.storedIndex,
                        before.type == attribute.type
                    else { return nil }
                    sources.append(.field(index))
                    used.insert(index)
                case .toOne(let relationship):
                    guard let name = mapping.sourcePropertyNames[relationship.name],
                        let before = old.relationshipsByName[name], !before.isToMany, let index = before.storedIndex
                    else { return nil }
                    sources.append(.field(index))
                    used.insert(index)
                }
            }
            guard used.count == old.storedProperties.count else { return nil }
            if sources == (0..<old.storedProperties.count).map({ .field($0) }) { continue }
            // Field counts tell layouts apart, so the new one must have more fields than the old.
            guard sources.count > old.storedProperties.count else { return nil }
            guard let code = entityTable.firstIndex(of: old.name) else { continue }
            byCode[UInt16(code)] = sources
            fieldCounts[UInt16(code)] = old.storedProperties.count
        }
        return (byCode, fieldCounts)
    }

    /// Progress in the copying migration's terms: no row is copied, but every row is carried over.
    private func report(_ phase: MigrationProgress.Phase, _ fraction: Double, _ rows: Int, done: Int) {
        migration.progress?(
            MigrationProgress(phase: phase, fractionCompleted: fraction, completedRows: done, totalRows: rows))
    }
}
