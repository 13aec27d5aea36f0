import Foundation
import ObjectStack

/// A coordinator with one store of a kind, and contexts on it, for one test.
public struct TestStack {
    public let kind: StoreType
    public let model: ManagedObjectModel
    public let location: URL
    public let coordinator: PersistentStoreCoordinator
    public let store: any PersistentStore

    /// A stack of `kind` on `model`, at `location` or a fresh one. (A suite gives its own model a shorter
    /// initialiser, as the conformance suite does for its library model.)
    public init(_ kind: StoreType, model: ManagedObjectModel, location: URL? = nil) throws {
        self.kind = kind
        self.model = model
        self.location = location ?? kind.newLocation()
        coordinator = PersistentStoreCoordinator(managedObjectModel: self.model)
        store = try coordinator.addPersistentStore(type: kind, at: self.location)
    }

    /// A second, separate stack on the same store (its own coordinator and store instance).
    public func separateStack() throws -> TestStack {
        try TestStack(kind, model: model, location: location)
    }

    /// A private-queue context on this stack's coordinator.
    public func newContext(_ type: ManagedObjectContext.ConcurrencyType = .privateQueue) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: type)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

extension ManagedObjectContext {
    /// Fetches every object of an entity in primary-key order.
    public func all<T: ManagedObject>(_ type: T.Type, _ entityName: String, where format: String? = nil, _ args: Any...)
        throws -> [T]
    {
        var request = FetchRequest<T>(entityName: entityName)
        if let format { request.predicate = try FetchPredicate(format: format, argumentArray: args) }
        return try fetch(request)
    }

    /// The number of objects of an entity in the store and the context.
    public func count(_ entityName: String, where format: String? = nil) throws -> Int {
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        if let format { request.predicate = try FetchPredicate(format: format) }
        return try count(for: request)
    }
}

extension ManagedObjectContext {
    /// The object with an ID, with its values read (not a fault).
    public func materialized<T: ManagedObject>(_ id: ManagedObjectID, as type: T.Type) -> T {
        let object = object(with: id) as! T
        object.fireFaultForTesting()
        return object
    }
}

extension ManagedObject {
    /// Reads one value so the fault fires.
    public func fireFaultForTesting() {
        if let first = entity.attributes.first { _ = value(forKey: first.name) }
    }
}
