/// Reads a context's objects, with their unsaved changes, for the predicate evaluator.
struct ContextResolver: PredicateResolver {
    let context: ManagedObjectContext

    func row(for objectID: ManagedObjectID) -> ManagedObject? {
        let object = context.object(with: objectID)
        object.fireFault()
        return object.isInaccessible ? nil : object
    }

    func objectID(of row: ManagedObject) -> ManagedObjectID { row.objectID }

    func value(of attribute: AttributeDescription, in row: ManagedObject) -> StoreValue {
        row.attributeValue(attribute)
    }

    func destination(of relationship: RelationshipDescription, in row: ManagedObject) -> ManagedObjectID? {
        row.toOneID(relationship)
    }

    func destinations(of relationship: RelationshipDescription, in row: ManagedObject) -> [ManagedObjectID] {
        row.toManyIDs(relationship)
    }
}
