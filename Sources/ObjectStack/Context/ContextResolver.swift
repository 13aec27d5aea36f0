/// Reads a context's objects, with their unsaved changes, for the predicate evaluator.
struct ContextResolver: PredicateResolver {
    let context: ManagedObjectContext
    /// A migration's second context, and the entities (of its model) whose objects live there: a mapping model's
    /// value expression reads source objects and, through `$destination`, destination ones.
    private let other: (context: ManagedObjectContext, entities: Set<ObjectIdentifier>)?

    init(context: ManagedObjectContext) {
        self.context = context
        self.other = nil
    }

    /// A resolver over a migration's two contexts: objects of `model`'s entities in `other`, the rest in `context`.
    init(context: ManagedObjectContext, other: ManagedObjectContext, for model: ManagedObjectModel) {
        self.context = context
        self.other = (other, Set(model.entities.map(ObjectIdentifier.init)))
    }

    func row(for objectID: ManagedObjectID) -> ManagedObject? {
        var context = self.context
        if let other, other.entities.contains(ObjectIdentifier(objectID.entity)) { context = other.context }
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
