import LabCore
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// The stores the lab runs on, in the order scenarios, listings and charts give them. A new store is a line here
/// (and its library in the package's dependencies): every workload that runs on all stores, every `--store` option,
/// `stacklab versions` and each sidecar's engine versions take it from `all`.
public enum LabStores {
    /// libsqlite3 in WAL mode (ObjectStackSQLite).
    public static let sqlite = LabStore(
        StoreKind("sqlite", isFile: true, about: "libsqlite3 in WAL mode: readers do not wait for the writer"),
        type: .sqlite, fileName: "pods.sqlite", engine: "SQLite", version: SQLiteEngine.version)
    /// liblmdb (ObjectStackLMDB).
    public static let lmdb = LabStore(
        StoreKind("lmdb", isFile: true, about: "liblmdb: MVCC readers, one writer, a memory-mapped file"),
        type: .lmdb, fileName: "pods.lmdb", engine: "LMDB", version: LMDBEngine.version)
    /// ObjectStack's in-memory store.
    public static let memory = LabStore(
        StoreKind("memory", isFile: false, about: "ObjectStack's in-memory store: persistent hash tries"),
        type: .inMemory, fileName: nil)

    /// Every store, in order.
    public static let all: [LabStore] = [sqlite, lmdb, memory]

    /// The declaration of `kind`.
    /// - Precondition: `kind` is one of `all` (a `StoreKind` the workloads' module did not declare is a bug).
    public static func store(_ kind: StoreKind) -> LabStore {
        guard let store = all.first(where: { $0.kind == kind }) else {
            preconditionFailure("store \(kind) is not declared in LabStores.all")
        }
        return store
    }

    /// The engines this build links, in the stores' order: for `stacklab versions` and each result's environment
    /// sidecar.
    public static var engines: [EngineVersion] {
        all.compactMap { store in
            guard let name = store.engineName, let version = store.engineVersion else { return nil }
            return EngineVersion(name, version)
        }
    }
}
