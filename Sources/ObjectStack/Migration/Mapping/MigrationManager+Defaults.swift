import Foundation

extension MigrationManager {
    // MARK: - What Core Data's NSEntityMigrationPolicy does

    /// The bound form of `mapping`: the one prepared for the migration, or `mapping` bound afresh when a policy
    /// passes one it changed.
    private func bound(_ mapping: EntityMapping) throws -> MigrationRun.BoundMapping {
        guard let run else { preconditionFailure("MigrationManager: no migration is running (use it from a policy)") }
        if let prepared = run.bound(named: mapping.name), prepared.mapping == mapping { return prepared }
        var model = run.mapping
        model.entityMappings = model.entityMappings.map { $0.name == mapping.name ? mapping : $0 }
        guard let rebound = try prepare(model).bound.first(where: { $0.mapping.name == mapping.name }) else {
            throw invalid(run.mapping, "no entity mapping is named \(mapping.name)")
        }
        return rebound
    }

    /// Inserts the destination instance for `source` and sets its attributes (`defaultCreateDestinationInstances`).
    func createDestinationInstanceByDefault(
        forSource source: ManagedObject, in mapping: EntityMapping, policy: any EntityMigrationPolicy
    ) throws {
        let bound = try bound(mapping)
        guard let run, let entity = bound.destination else { return }
        // Core Data migrates plain NSManagedObjects: the app's classes play no part.
        let destination = ManagedObject(entity: entity, insertInto: run.destinationContext)
        for (attribute, expression, written) in bound.attributes {
            let value = try evaluate(
                expression, written, property: attribute.name, source: source, destination: destination,
                mapping: bound, policy: policy
            ).firstValue
            guard let stored = PropertyExpression.storedValue(value, as: attribute.type) else {
                throw StoreError(
                    code: .migrationFailed,
                    message: "\(run.mapping.name): \(mapping.name).\(attribute.name): '\(written)' gives \(value) for "
                        + "\(source.entity.name) \(source.objectID.uriRepresentation().absoluteString), which the "
                        + "\(ExpressionResultType.typeName(attribute.type)) attribute cannot hold")
            }
            destination.setAttribute(attribute, stored)
        }
        associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
    }

    /// Sets the relationships of `destination` from their value expressions (`defaultCreateRelationships`).
    func createRelationshipsByDefault(
        forDestination destination: ManagedObject, in mapping: EntityMapping, policy: any EntityMigrationPolicy
    ) throws {
        let bound = try bound(mapping)
        guard let run else { return }
        let source = sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [destination]).first
        let destinationEntities = Set(destinationModel.entities.map(ObjectIdentifier.init))
        for (relationship, expression, written) in bound.relationships {
            let result = try evaluate(
                expression, written, property: relationship.name, source: source, destination: destination,
                mapping: bound, policy: policy)
            var objects: [ManagedObject] = []
            for value in result.allValues {
                guard case .objectID(let id) = value, destinationEntities.contains(ObjectIdentifier(id.entity)) else {
                    throw StoreError(
                        code: .migrationFailed,
                        message: "\(run.mapping.name): \(mapping.name).\(relationship.name): '\(written)' gives "
                            + "\(value), not a destination object; a relationship takes the objects "
                            + "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", …) "
                            + "gives")
                }
                objects.append(run.destinationContext.object(with: id))
            }
            do {
                if relationship.isToMany {
                    try destination.setValue(
                        relationship.isOrdered ? objects as Any : Set(objects), forKey: relationship.name)
                } else {
                    try destination.setValue(objects.first, forKey: relationship.name)
                }
            } catch let error as ObjectStackError {
                throw StoreError(
                    code: .migrationFailed,
                    message: "\(run.mapping.name): \(mapping.name).\(relationship.name): '\(written)': \(error.message)"
                )
            }
        }
    }

    /// A value expression's value for one instance, with `$source`, `$destination` and the calls of the mapping.
    private func evaluate(
        _ expression: BoundPropertyExpression, _ written: String, property: String, source: ManagedObject?,
        destination: ManagedObject, mapping: MigrationRun.BoundMapping, policy: any EntityMigrationPolicy
    ) throws -> OperandValue {
        guard let run else { preconditionFailure("MigrationManager: no migration is running") }
        var scope: [(name: String, row: ManagedObject)] = []
        if let source { scope.append(("source", source)) }
        scope.append(("destination", destination))
        let calls = MigrationCalls(manager: self, run: run, mapping: mapping, policy: policy)
        do {
            return try PredicateEvaluator(resolver: run.resolver).result(
                of: expression, on: source ?? destination, scope: scope, now: run.now, calls: calls)
        } catch let error as ObjectStackError {
            throw StoreError(
                code: .migrationFailed,
                message: "\(run.mapping.name): \(mapping.mapping.name).\(property): '\(written)' failed for "
                    + "\((source ?? destination).objectID.uriRepresentation().absoluteString): \(error.message)")
        }
    }
}
