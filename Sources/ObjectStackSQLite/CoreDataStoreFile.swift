import CSQLite
import Foundation
import ObjectStack

/// A store file in Core Data's SQLite layout, read without being changed: who wrote it, the model its cache
/// describes, which version of a model bundle wrote it, and what it holds.
///
/// For example:
/// ```swift
/// let file = try CoreDataStoreFile(url: copyOfTheAppStore)
/// let versions = try ManagedObjectModel.versions(contentsOf: bundleURL)
/// let match = try file.matchVersion(in: versions)
/// let contents = try file.contents(model: match.version.model)
/// print(match.reason, contents.rowsByEntity)
/// ```
/// The file is opened read-only. SQLite still creates `-wal` and `-shm` files beside a WAL-mode file to read it;
/// those it creates are removed again. To be sure nothing beside the store changes, inspect a copy (`stacklab store
/// describe` does).
/// - Note: Immutable once read; safe to share between threads.
public struct CoreDataStoreFile: Sendable {
    /// The store file.
    public let url: URL
    /// The store's metadata as ObjectStack reports it (for a store Core Data wrote, hashes of the model its cache
    /// describes).
    public let metadata: StoreMetadata
    /// The model the store's cache (`Z_MODELCACHE`) describes; nil when the store has none.
    public let cachedModel: ManagedObjectModel?
    /// The framework version that wrote the store (`NSPersistenceFrameworkVersion`); nil for ObjectStack's.
    public let frameworkVersion: Int?
    /// Whether ObjectStack wrote the store's version hashes (its own, not Core Data's).
    public let isWrittenByObjectStack: Bool
    /// Whether the store carries ObjectStack's hashes of its model (a store ObjectStack created or migrated, with or
    /// without Core Data's hashes beside them).
    public let hasObjectStackHashes: Bool
    /// `NSStoreModelVersionHashes` as stored, by entity name: Core Data's hashes, unless ObjectStack wrote them.
    public let coreDataVersionHashes: [String: Data]
    /// Whether the store has Core Data's persistent-history tables (it then opens read-only).
    public let hasPersistentHistory: Bool
    /// The entity codes (`Z_ENT`) of `Z_PRIMARYKEY`, by entity name (history's own entities left out).
    public let entityCodes: [String: Int64]
    let file: SQLiteStoreFile

    /// Reads the store file at `url`.
    /// - Throws: `StoreError`: `.notAStore` for a file that is not a Core Data or ObjectStack store, `.corrupt` for
    ///   one whose metadata or model cache does not read, `.incompatibleModel` for ObjectStack's first layout.
    public init(url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(code: .ioFailure, message: "no store file at \(url.path)", url: url)
        }
        let companions = ["-wal", "-shm"].map { url.path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        let connection = try SQLiteConnection(url: url, readOnly: true)
        defer {
            connection.close()
            SQLiteStoreOpener.removeCreated(companions, of: url)
        }
        sqlite3_busy_timeout(connection.handle, SQLiteStore.busyTimeoutMilliseconds)
        let file = try SQLiteStoreFile(connection, url: url)
        switch file.layout {
        case .coreData: break
        case .empty:
            throw StoreError(code: .notAStore, message: "the file has no tables: not a store", url: url)
        case .objectStackLegacy:
            throw StoreError(
                code: .incompatibleModel, message: "the store is in ObjectStack's first file layout (schema 1)",
                url: url)
        case .foreign:
            throw StoreError(
                code: .notAStore,
                message: "an SQLite database, but not a Core Data or ObjectStack store (no Z_METADATA and "
                    + "Z_PRIMARYKEY tables)", url: url)
        }
        self.url = url
        self.file = file
        let plist = try file.plist()
        metadata = try file.metadata()
        cachedModel = try file.cachedModel()
        frameworkVersion = plist.isWrittenByObjectStack ? nil : plist.frameworkVersion
        isWrittenByObjectStack = plist.isWrittenByObjectStack
        hasObjectStackHashes = plist.objectStackHashes != nil
        coreDataVersionHashes = plist.storedHashes
        hasPersistentHistory = file.hasCoreDataHistory
        entityCodes = file.entityRows.values.filter { $0.code < SQLiteStoreFile.firstHistoryEntityCode }.reduce(
            into: [:]) { $0[$1.name] = $1.code }
    }

    /// The version of a model bundle that wrote the store, and why.
    ///
    /// With a model cache, the version whose entities equal the cached model's in Core Data's version-hash inputs;
    /// without one, the version whose tables and columns the file has, entity for entity. A store ObjectStack
    /// wrote is matched on its own hashes.
    /// - Parameters:
    ///   - versions: the bundle's versions, in version order.
    ///   - preferring: the version to pick among several that cannot be told apart (a `version:` option).
    /// - Throws: `ObjectStackError` `.modelMismatch` when no version matches, naming for the closest one the first
    ///   entity, table or column that differs.
    public func matchVersion(in versions: [ModelVersion], preferring: String? = nil) throws -> ModelVersionMatch {
        if let cachedModel {
            return try ModelVersionMatch(
                storeModel: cachedModel, source: "the store's model cache (Z_MODELCACHE)", versions: versions,
                preferring: preferring)
        }
        var equal: [ModelVersion] = []
        var closest: (name: String, difference: String, count: Int)?
        for version in versions {
            let differences = layoutDifferences(for: version.model)
            if differences.isEmpty {
                equal.append(version)
            } else if closest == nil || differences.count < closest!.count {
                closest = (version.name, differences[0], differences.count)
            }
        }
        let source = hasObjectStackHashes ? "the store's version hashes" : "the store's tables and columns"
        return try ModelVersionMatch(
            equalVersions: equal, source: source, compared: versions.count, preferring: preferring,
            closest: closest.map { "\($0.name): \($0.difference)" })
    }

    /// How the file differs from what a model needs, one phrase each (empty when it is a store of the model): the
    /// entities of `Z_PRIMARYKEY`, then tables and columns (for a store ObjectStack wrote, its hashes).
    func layoutDifferences(for model: ManagedObjectModel) -> [String] {
        if hasObjectStackHashes {
            return metadata.entitiesDiffering(from: model, configuration: nil).map { "entity \($0) differs" }
        }
        // An entity renamed by a migration keeps its old name in Z_PRIMARYKEY: its renaming identifier's.
        let modelNames = Set(
            model.entities.map { entityCodes[$0.name] == nil ? $0.renamingIdentifier ?? $0.name : $0.name })
        let fileNames = Set(entityCodes.keys)
        var differences = fileNames.subtracting(modelNames).sorted().map { "the store has entity \($0)" }
        differences += modelNames.subtracting(fileNames).sorted().map { "the store has no entity \($0)" }
        guard differences.isEmpty else { return differences }
        return SQLiteSchema(entities: model.entities, file: file).differences(in: file, strict: false)
    }
}
