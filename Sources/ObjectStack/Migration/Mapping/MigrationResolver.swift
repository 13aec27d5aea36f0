import Foundation

/// Reads the objects a migration's value expressions reach: a source object's key paths in the source context, a
/// destination object's (`$destination`) in the destination context.
struct MigrationResolver: PredicateResolver {
    let source: ContextResolver
    let destination: ContextResolver
    private let destinationEntities: Set<ObjectIdentifier>

    init(source: ManagedObjectContext, destination: ManagedObjectContext, destinationModel: ManagedObjectModel) {
        self.source = ContextResolver(context: source)
        self.destination = ContextResolver(context: destination)
        self.destinationEntities = Set(destinationModel.entities.map(ObjectIdentifier.init))
    }

    private func resolver(for id: ManagedObjectID) -> ContextResolver {
        destinationEntities.contains(ObjectIdentifier(id.entity)) ? destination : source
    }

    func row(for objectID: ManagedObjectID) -> ManagedObject? { resolver(for: objectID).row(for: objectID) }

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
