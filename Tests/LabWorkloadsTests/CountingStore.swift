import Foundation
import ObjectStack
import Synchronization

/// A real store with a counter on its fetch requests, so a test can see how many fetches reach the store.
final class CountingStore: PersistentStore {
    let inner: any PersistentStore
    let counter: FetchCounter

    init(_ inner: any PersistentStore, counter: FetchCounter) {
        self.inner = inner
        self.counter = counter
    }

    /// A store type opening `base` stores that count their fetch requests into `counter`.
    static func type(over base: StoreType, counter: FetchCounter) -> StoreType {
        StoreType(name: base.name) { request in
            let store = try CountingStore.open(base, request)
            return CountingStore(store, counter: counter)
        }
    }

    private static func open(_ type: StoreType, _ request: StoreOpenRequest) throws -> any PersistentStore {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: request.model)
        return try coordinator.addPersistentStore(
            type: type, configuration: request.configurationName, at: request.url, options: request.options)
    }

    var identifier: String { inner.identifier }
    var metadata: StoreMetadata { inner.metadata }
    var type: StoreType { inner.type }
    var url: URL { inner.url }
    var configurationName: String? { inner.configurationName }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        counter.value.add(1, ordering: .relaxed)
        return try inner.execute(request)
    }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] { try inner.snapshots(for: objectIDs) }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try inner.relatedObjectIDs(of: objectIDs, through: relationship)
    }

    func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        try inner.newObjectIDs(for: entity, count: count)
    }

    func execute(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] { try inner.execute(request) }

    func close() { inner.close() }
}

/// The fetch count shared by the counting stores of one test.
final class FetchCounter: Sendable {
    let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .relaxed) }
}
