import Foundation
import ObjectStack
import ObjectStackSQLite

/// What `stacklab store describe` says of a store file Core Data (or ObjectStack) wrote: the version of the model
/// bundle that wrote it and why, the rows of each entity, references, links and what is broken.
///
/// It reads a copy of the store (with its `-wal` and `-shm`), made in a temporary folder and removed after, so
/// the file it is given is never changed, not even by SQLite's reader files.
public struct StoreFileReport: Sendable {
    /// The version that wrote the store (the bundle's), or "Z_MODELCACHE" when the model came from the store's cache.
    public let version: String
    /// Why that version: which versions equal the store and how they were compared.
    public let reason: String
    /// Who wrote the store: "Core Data 1344", "ObjectStack".
    public let writer: String
    /// The entity codes of `Z_PRIMARYKEY`, by the model's entity names.
    public let entityCodes: [String: Int64]
    /// Whether the store has Core Data's persistent history (ObjectStack opens it read-only).
    public let hasPersistentHistory: Bool
    /// What the store holds.
    public let contents: StoreFileContents

    /// Describes the store at `store`, with the versions of the model bundle at `model`; without a model, with the
    /// model the store's cache describes.
    /// - Parameters:
    ///   - store: the store file (its `-wal` and `-shm` are copied with it).
    ///   - model: the model bundle (`.xcdatamodeld`) or version (`.xcdatamodel`); nil to read the store's cache.
    ///   - preferring: the version to pick among versions that cannot be told apart.
    /// - Throws: `StoreError` for a file that is not a store, `ObjectStackError` `.modelMismatch` when no version of
    ///   the bundle matches it (naming what differs), `ModelFileError` for a bundle that does not load.
    public init(store: URL, model: URL?, preferring: String? = nil) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-describe-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = try Self.copy(store, to: folder)
        let file = try CoreDataStoreFile(url: copy)
        let modelToRead: ManagedObjectModel
        if let model {
            let versions = try ManagedObjectModel.versions(contentsOf: model)
            let match = try file.matchVersion(in: versions, preferring: preferring)
            version = match.version.name
            reason = match.reason
            modelToRead = match.version.model
        } else if let cached = file.cachedModel {
            version = "Z_MODELCACHE"
            reason = "no model bundle given: the model the store's cache (Z_MODELCACHE) describes"
            modelToRead = cached
        } else {
            throw StoreError(
                code: .incompatibleModel,
                message: "the store has no model cache (Z_MODELCACHE): give the model bundle that wrote it (--model)",
                url: store)
        }
        writer = file.metadata.userInfo["writer"] ?? "Core Data"
        hasPersistentHistory = file.hasPersistentHistory
        contents = try file.contents(model: modelToRead)
        entityCodes = contents.entityCodes
    }

    /// Copies a store file and the `-wal`, `-shm` and external-data folder beside it.
    static func copy(_ store: URL, to folder: URL) throws -> URL {
        let manager = FileManager.default
        guard manager.fileExists(atPath: store.path) else {
            throw StoreError(code: .ioFailure, message: "no store file at \(store.path)", url: store)
        }
        let target = folder.appendingPathComponent(store.lastPathComponent)
        try manager.copyItem(at: store, to: target)
        for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: store.path + suffix) {
            try manager.copyItem(atPath: store.path + suffix, toPath: target.path + suffix)
        }
        let support = "." + store.deletingPathExtension().lastPathComponent + "_SUPPORT"
        let supportFolder = store.deletingLastPathComponent().appendingPathComponent(support)
        if manager.fileExists(atPath: supportFolder.path) {
            try manager.copyItem(at: supportFolder, to: folder.appendingPathComponent(support))
        }
        // Copies of read-only files are read-only; SQLite's reader needs to write its -shm.
        for path in try manager.subpathsOfDirectory(atPath: folder.path) {
            try? manager.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: folder.appendingPathComponent(path).path)
        }
        return target
    }

    /// The report as JSON: `{"version", "reason", "writer", "entities": {ENTITY: {"rows", "code"}},
    /// "toOneReferences", "manyToManyLinks", "danglingReferences", "missingExternalFiles", "persistentHistory"}`.
    public func json() throws -> String {
        var entities: [String: Any] = [:]
        for (name, rows) in contents.rowsByEntity {
            var entry: [String: Any] = ["rows": rows]
            if let code = entityCodes[name] { entry["code"] = code }
            entities[name] = entry
        }
        let object: [String: Any] = [
            "version": version, "reason": reason, "writer": writer, "entities": entities,
            "totalRows": contents.totalRows, "toOneReferences": contents.toOneReferences,
            "manyToManyLinks": contents.manyToManyLinks, "danglingReferences": contents.danglingReferences,
            "missingExternalFiles": contents.missingExternalFiles, "persistentHistory": hasPersistentHistory,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The report as text, one fact per line.
    public var text: String {
        var lines = [
            "version: \(version)", "why: \(reason)", "written by: \(writer)",
            "persistent history: " + (hasPersistentHistory ? "yes (ObjectStack opens the store read-only)" : "no"),
            "entities (rows whose Z_ENT is the entity):",
        ]
        let width = contents.rowsByEntity.keys.map(\.count).max() ?? 0
        for (name, rows) in contents.rowsByEntity.sorted(by: { $0.key < $1.key }) {
            let code = entityCodes[name].map { "  Z_ENT \($0)" } ?? ""
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(rows)" + code)
        }
        lines += [
            "rows: \(contents.totalRows)",
            "to-one references: \(contents.toOneReferences)",
            "many-to-many links: \(contents.manyToManyLinks)",
            "dangling references: \(contents.danglingReferences)",
            "missing external-data files: \(contents.missingExternalFiles)",
        ]
        return lines.joined(separator: "\n")
    }
}
