import Foundation
import ObjectStack

extension EntityMigrationPolicy {
    /// Core Data's default creation for `source`, and the instance it made: what each of the corpus's policies does
    /// first (`super`, then `destinationInstances(forEntityMappingName:sourceInstances:).first`, a fatal error without
    /// one there; a thrown `PolicyFailure` here).
    func defaultInstance(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws
        -> ManagedObject
    {
        try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
        guard
            let made = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]).first
        else { throw PolicyFailure("\(mapping.name) made nothing for \(source.objectID)") }
        return made
    }
}

extension ManagedObjectContext {
    /// The registered object of `entity` whose `key` holds `value`, else a new one holding it: the find-or-create two
    /// of the corpus's policies do among the objects the migration has made.
    func registeredOrInserted<Value: Equatable>(_ entity: String, where key: String, is value: Value) throws
        -> ManagedObject
    {
        if let found = registeredObjects.first(where: {
            $0.entity.name == entity && ($0.value(forKey: key) as? Value) == value
        }) {
            return found
        }
        let made = try insertNewObject(forEntityName: entity)
        try made.setValue(value, forKey: key)
        return made
    }
}
