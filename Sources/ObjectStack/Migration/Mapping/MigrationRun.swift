import Foundation

/// The state of one migration with a mapping model: its contexts, the entity mappings bound to the models, each
/// mapping's policy, which destination instances each mapping made from which source instances, and its progress.
final class MigrationRun {
    /// One entity mapping, checked against the models: its entities and its value expressions bound.
    struct BoundMapping {
        let mapping: EntityMapping
        let source: EntityDescription?
        let destination: EntityDescription?
        let attributes: [(attribute: AttributeDescription, expression: BoundPropertyExpression, written: String)]
        let relationships:
            [(relationship: RelationshipDescription, expression: BoundPropertyExpression, written: String)]
    }

    /// Which destination instances one entity mapping made from which source instances.
    struct Associations {
        private(set) var pairs: [(source: ManagedObject, destination: ManagedObject)] = []
        private(set) var destinationsBySource: [ManagedObjectID: [ManagedObject]] = [:]
        private(set) var sourceByDestination: [ObjectIdentifier: ManagedObject] = [:]

        mutating func add(_ source: ManagedObject, _ destination: ManagedObject) {
            guard sourceByDestination[ObjectIdentifier(destination)] == nil else { return }
            pairs.append((source, destination))
            destinationsBySource[source.objectID, default: []].append(destination)
            sourceByDestination[ObjectIdentifier(destination)] = source
        }
    }

    let mapping: MappingModel
    let sourceContext: ManagedObjectContext
    let destinationContext: ManagedObjectContext
    /// The entity mappings in order, bound.
    let bound: [BoundMapping]
    /// Each entity mapping's policy, by mapping name.
    let policies: [String: any EntityMigrationPolicy]
    /// The date `now()` gives in every value expression of the migration.
    let now = Date()
    let resolver: ContextResolver
    var associations: [String: Associations] = [:]
    var currentMapping: EntityMapping?
    var fractionCompleted = 0.0

    init(
        mapping: MappingModel, sourceContext: ManagedObjectContext, destinationContext: ManagedObjectContext,
        bound: [BoundMapping], policies: [String: any EntityMigrationPolicy], destinationModel: ManagedObjectModel
    ) {
        self.mapping = mapping
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
        self.bound = bound
        self.policies = policies
        self.resolver = ContextResolver(context: sourceContext, other: destinationContext, for: destinationModel)
    }

    /// The bound form of the entity mapping named `name`.
    func bound(named name: String) -> BoundMapping? {
        bound.first { $0.mapping.name == name }
    }
}
