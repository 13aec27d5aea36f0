import Foundation
import LabCore
import ObjectStack

/// A store the lab's workloads run on, declared once: the lab core's `StoreKind` (its name, whether it is a file),
/// the ObjectStack store type that opens it, the file a run's store is in, and the version of the engine it links.
///
/// `LabStores.all` lists them; the workloads, verbs, sidecars and listings take their stores from there.
///
/// For example, the SQLite store:
/// ```swift
/// static let sqlite = LabStore(
///     StoreKind("sqlite", isFile: true, about: "libsqlite3 in WAL mode"), type: .sqlite,
///     fileName: "pods.sqlite", engine: "SQLite", version: SQLiteEngine.version)
/// ```
public struct LabStore: Sendable {
    /// The store as scenarios, CSVs and the lab core know it (the `store` parameter's value).
    public let kind: StoreKind
    /// The ObjectStack store type that opens it.
    public let type: StoreType
    /// The name of a run's store file in the run's folder (`pods.sqlite`); nil for a store with no file, whose runs
    /// each get a fresh `memory://` backing.
    public let fileName: String?
    /// The name of the engine the store links (`SQLite`), for `stacklab versions`; nil when it links none.
    public let engineName: String?
    /// The version of the engine the store links, for `stacklab versions` and each result's sidecar; nil when it
    /// links none.
    public let engineVersion: String?

    /// Declares a store.
    public init(_ kind: StoreKind, type: StoreType, fileName: String?, engine: String? = nil, version: String? = nil) {
        precondition(kind.isFile == (fileName != nil), "a file store names its file, and only a file store does")
        self.kind = kind
        self.type = type
        self.fileName = fileName
        self.engineName = engine
        self.engineVersion = version
    }

    /// Where a run's store lives: its file in `directory`, or a fresh shared in-memory backing.
    public func location(in directory: URL) -> URL {
        guard let fileName else { return URL(string: "memory://stacklab-\(UUID().uuidString)")! }
        return directory.appendingPathComponent(fileName)
    }
}
