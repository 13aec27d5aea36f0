import Foundation

/// Answers a value expression's calls of `$manager`'s functions and of `$entityPolicy`'s, for one entity mapping
/// of a running migration.
struct MigrationCalls: ExpressionCallHandler {
    let manager: MigrationManager
    let run: MigrationRun
    let mapping: MigrationRun.BoundMapping
    let policy: any EntityMigrationPolicy

    func call(_ method: ExpressionMethod, arguments: [OperandValue]) throws -> OperandValue {
        switch method.receiver {
        case .value:
            return .single(method.apply(to: arguments.map(\.firstValue)))
        case .entityPolicy:
            guard let function = policy.expressionFunctions[method.selector] else {
                throw ObjectStackError(
                    code: .invalidArgument, message: "the policy no longer declares the function '\(method.selector)'")
            }
            return .single(try function(arguments.map(\.firstValue)))
        case .manager:
            guard case .single(.string(let name))? = arguments.first else { return .collection([]) }
            let ids = (arguments.dropFirst().first?.allValues ?? []).compactMap { value -> ManagedObjectID? in
                if case .objectID(let id) = value { return id }
                return nil
            }
            let objects = ids.compactMap { run.resolver.row(for: $0) }
            let results: [ManagedObject]
            switch method.selector {
            case ExpressionMethod.MigrationFunction.destinationInstancesForEntityMapping:
                results = manager.destinationInstances(forEntityMappingName: name, sourceInstances: objects)
            case ExpressionMethod.MigrationFunction.sourceInstancesForEntityMapping:
                results = manager.sourceInstances(forEntityMappingName: name, destinationInstances: objects)
            case ExpressionMethod.MigrationFunction.destinationInstancesForSourceRelationship:
                results = destinationInstances(forSourceRelationship: name, sourceInstances: objects)
            default:
                throw ObjectStackError(
                    code: .invalidArgument, message: "the migration manager has no function '\(method.selector)'")
            }
            return .collection(results.map { .objectID($0.objectID) })
        }
    }

    /// The destination instances made from `sources` by every mapping of the relationship's destination entity
    /// and its sub-entities: the related objects of a hierarchy several mappings migrate, each by its own.
    private func destinationInstances(forSourceRelationship name: String, sourceInstances sources: [ManagedObject])
        -> [ManagedObject]
    {
        guard let relationship = mapping.source?.relationshipsByName[name],
            let target = relationship.destinationEntity
        else { return [] }
        let mappings = run.bound.filter { $0.source?.isKind(of: target) ?? false }.map(\.mapping.name)
        var seen = Set<ObjectIdentifier>()
        var results: [ManagedObject] = []
        for source in sources {
            for mappingName in mappings {
                for destination in manager.destinationInstances(
                    forEntityMappingName: mappingName, sourceInstances: [source])
                where seen.insert(ObjectIdentifier(destination)).inserted {
                    results.append(destination)
                }
            }
        }
        return results
    }
}
