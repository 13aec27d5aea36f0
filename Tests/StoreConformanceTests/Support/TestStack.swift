import Foundation
import ObjectStack

/// A coordinator with one store of a kind, and contexts on it, for one test.
struct TestStack {
    let kind: StoreKind
    let model: ManagedObjectModel
    let location: URL
    let coordinator: PersistentStoreCoordinator
    let store: any PersistentStore

    init(_ kind: StoreKind, model: ManagedObjectModel? = nil, location: URL? = nil) throws {
        self.kind = kind
        self.model = try model ?? LibraryModel.make()
        self.location = location ?? kind.newLocation()
        coordinator = PersistentStoreCoordinator(managedObjectModel: self.model)
        store = try coordinator.addPersistentStore(type: kind.type, at: self.location)
    }

    /// A second, separate stack on the same store (its own coordinator and store instance).
    func separateStack() throws -> TestStack {
        try TestStack(kind, model: model, location: location)
    }

    /// A private-queue context on this stack's coordinator.
    func newContext(_ type: ManagedObjectContext.ConcurrencyType = .privateQueue) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: type)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

extension ManagedObjectContext {
    /// Fetches every object of an entity in primary-key order.
    func all<T: ManagedObject>(_ type: T.Type, _ entityName: String, where format: String? = nil, _ args: Any...) throws -> [T] {
        var request = FetchRequest<T>(entityName: entityName)
        if let format { request.predicate = try FetchPredicate(format: format, argumentArray: args) }
        return try fetch(request)
    }

    /// The number of objects of an entity in the store and the context.
    func count(_ entityName: String, where format: String? = nil) throws -> Int {
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        if let format { request.predicate = try FetchPredicate(format: format) }
        return try count(for: request)
    }
}

extension ManagedObjectContext {
    /// The object with an ID, with its values read (not a fault).
    func materialized<T: ManagedObject>(_ id: ManagedObjectID, as type: T.Type) -> T {
        let object = object(with: id) as! T
        object.fireFaultForTesting()
        return object
    }
}

extension ManagedObject {
    /// Reads one value so the fault fires.
    func fireFaultForTesting() {
        if let first = entity.attributes.first { _ = value(forKey: first.name) }
    }
}
