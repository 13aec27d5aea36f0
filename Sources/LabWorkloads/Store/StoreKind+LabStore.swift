import Foundation
import LabCore
import ObjectStack

/// The stores `LabStores` declares, by the lab core's name for a store, and what the workloads do with one.
extension StoreKind {
    /// libsqlite3 in WAL mode.
    public static let sqlite = LabStores.sqlite.kind
    /// liblmdb.
    public static let lmdb = LabStores.lmdb.kind
    /// ObjectStack's in-memory store.
    public static let memory = LabStores.memory.kind

    /// Every store, in order: a workload's stores unless it declares fewer.
    public static var all: [StoreKind] { LabStores.all.map(\.kind) }

    /// The stores with a file: the ones a launch, a seeded store, a migration or a crash test can use.
    public static var fileStores: [StoreKind] { all.filter(\.isFile) }

    /// The store called `name` (a `store` cell), if there is one.
    public static func named(_ name: String) -> StoreKind? { all.first { $0.name == name } }

    /// The ObjectStack store type (the lab core names stores without linking them).
    public var storeType: StoreType { LabStores.store(self).type }

    /// Where a run's store lives: a file in the run's folder, or a fresh shared in-memory backing.
    public func location(in directory: URL) -> URL { LabStores.store(self).location(in: directory) }
}
