import Foundation
import LabCore
import ObjectStack
import ObjectStackSQLite

/// A store file a scenario names beside its model (`store_file:`): a store Core Data (or ObjectStack) wrote with
/// one of the model bundle's versions, which the startup and read-write-mix workloads run on a copy of, never on the
/// file itself.
///
/// For example:
/// ```swift
/// let store = try ScenarioStoreFile(url: appStore, selection: selection)
/// let copy = try store.copy(into: runFolder)   // then migrate and open the copy
/// ```
/// Checked when the scenario is read: the file is a Core Data store of one of the bundle's versions, no later than
/// the scenario's `version:`.
public struct ScenarioStoreFile: Sendable, CustomStringConvertible {
    /// The store file as the scenario names it (resolved against the scenario's folder).
    public let url: URL
    /// The version of the bundle that wrote it, and its index in the bundle's versions.
    public let versionName: String, versionIndex: Int
    /// The rows its entity tables hold.
    public let rows: Int

    public var description: String { "\(url.lastPathComponent) at \(versionName), \(rows) rows" }

    /// Reads the store file at `url` (on a copy, so nothing beside it changes) and matches it to `selection`'s
    /// bundle.
    /// - Throws: `LabError.invalidScenario` naming the file and the model when there is no file, it is not a Core
    ///   Data store, no version of the bundle wrote it, or it is at a version after the scenario's.
    public init(url: URL, selection: ModelFileSelection) throws {
        self.url = url
        let model = selection.url.lastPathComponent
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw LabError(.invalidScenario, "store_file \(url.path): no such file")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-store-file-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let match: (version: ModelVersion, rows: Int)
        do {
            let checked = folder.appendingPathComponent(url.lastPathComponent)
            try Self.copy(url, to: checked)
            let file = try CoreDataStoreFile(url: checked)
            let version = try file.matchVersion(in: selection.versions).version
            match = (version, try file.contents(model: version.model).totalRows)
        } catch {
            throw LabError(
                .invalidScenario,
                "store_file \(url.lastPathComponent) does not match model \(model): \(error); expected a store one "
                    + "of its versions (\(selection.versions.map(\.name).joined(separator: ", "))) wrote")
        }
        guard let index = selection.versions.firstIndex(where: { $0.name == match.version.name }) else {
            throw LabError(
                .invalidScenario, "store_file \(url.lastPathComponent): \(match.version.name) is not in \(model)")
        }
        guard index <= selection.versionIndex else {
            throw LabError(
                .invalidScenario,
                "store_file \(url.lastPathComponent) is at \(match.version.name), after the scenario's version "
                    + "\(selection.version.name) of \(model): a store is migrated forward, not back")
        }
        versionName = match.version.name
        versionIndex = index
        rows = max(match.rows, 0)
    }

    /// Copies the store file (with its `-wal`, `-shm` and external-data folder) into `folder`, writable, and returns
    /// the copy.
    /// - Throws: the file system's error.
    public func copy(into folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent(url.lastPathComponent)
        try copy(to: target)
        return target
    }

    /// Copies the store file to `target` (its `-wal` and `-shm` beside it, its external-data folder named for the
    /// target), writable, replacing what was there.
    /// - Throws: the file system's error.
    public func copy(to target: URL) throws {
        try Self.copy(url, to: target)
    }

    static func copy(_ url: URL, to target: URL) throws {
        let manager = FileManager.default
        func support(_ store: URL) -> URL {
            store.deletingLastPathComponent().appendingPathComponent(
                "." + store.deletingPathExtension().lastPathComponent + "_SUPPORT", isDirectory: true)
        }
        var copies: [(URL, URL)] = [(url, target), (support(url), support(target))]
        for suffix in ["-wal", "-shm"] {
            copies.append((URL(fileURLWithPath: url.path + suffix), URL(fileURLWithPath: target.path + suffix)))
        }
        for (source, destination) in copies {
            try? manager.removeItem(at: destination)
            guard manager.fileExists(atPath: source.path) else { continue }
            try manager.copyItem(at: source, to: destination)
            // Copies of read-only files are read-only; SQLite's reader needs to write its -shm.
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: destination.path)
            for path in (try? manager.subpathsOfDirectory(atPath: destination.path)) ?? [] {
                try? manager.setAttributes(
                    [.posixPermissions: 0o755], ofItemAtPath: destination.appendingPathComponent(path).path)
            }
        }
    }
}
