import Foundation

extension MigrationManager {
    // MARK: - Checking a mapping model before anything is written

    /// Every entity mapping of `mapping` checked against the two models, its value expressions bound, and its
    /// policy made: what a migration needs before it opens the new store.
    ///
    /// For example, to refuse a mapping model before an app's launch migrates with it:
    /// ```swift
    /// try MigrationManager(sourceModel: v2, destinationModel: v3, policies: policies).check(mapping)
    /// ```
    /// - Throws: `ObjectStackError`: `.invalidMappingModel` naming the mapping model, the entity mapping, the
    ///   property and the expression (an entity or property the models do not have, an expression that does not
    ///   bind or whose value cannot fit its property); `.migrationPolicyMissing` naming the class and the mapping.
    public func check(_ mapping: MappingModel) throws {
        _ = try prepare(mapping)
    }

    /// The entity mappings bound, and a policy per mapping.
    func prepare(_ mapping: MappingModel) throws -> (
        bound: [MigrationRun.BoundMapping], policies: [String: any EntityMigrationPolicy]
    ) {
        var names = Set<String>()
        var policies: [String: any EntityMigrationPolicy] = [:]
        for entityMapping in mapping.entityMappings {
            guard names.insert(entityMapping.name).inserted else {
                throw invalid(mapping, "two entity mappings are named \(entityMapping.name)")
            }
            policies[entityMapping.name] = try self.policies.policy(for: entityMapping)
        }
        let bound = try mapping.entityMappings.map { entityMapping in
            try bind(entityMapping, of: mapping, names: names, policy: policies[entityMapping.name]!)
        }
        return (bound, policies)
    }

    private func bind(
        _ entityMapping: EntityMapping, of mapping: MappingModel, names: Set<String>,
        policy: any EntityMigrationPolicy
    ) throws -> MigrationRun.BoundMapping {
        let label = entityMapping.name
        var source: EntityDescription?
        if let name = entityMapping.sourceEntityName {
            guard let entity = sourceModel.entitiesByName[name] else {
                throw invalid(
                    mapping, "the entity mapping \(label) maps from \(name), which the source model does not have")
            }
            source = entity
        }
        var destination: EntityDescription?
        if let name = entityMapping.destinationEntityName {
            guard let entity = destinationModel.entitiesByName[name] else {
                throw invalid(
                    mapping, "the entity mapping \(label) maps to \(name), which the destination model does not have")
            }
            destination = entity
        }
        if let filter = entityMapping.filterPredicate, let source {
            do {
                _ = try PredicateBinder(entity: source).bind(filter.node)
            } catch {
                throw invalid(
                    mapping, "the filter predicate '\(filter)' of \(label) does not fit \(source.name): \(error)")
            }
        }
        var variables: [String: EntityDescription] = [:]
        if let source { variables["source"] = source }
        if let destination { variables["destination"] = destination }
        var constants: [String: StoreValue] = ["name": .string(label)]
        constants["sourceEntityName"] = entityMapping.sourceEntityName.map(StoreValue.string) ?? .null
        constants["destinationEntityName"] = entityMapping.destinationEntityName.map(StoreValue.string) ?? .null
        for (key, value) in entityMapping.userInfo { constants["userInfo." + key] = .string(value) }
        let scope = MappingExpressionScope(
            entityVariables: variables, entityMappingValues: constants, entityMappingNames: names,
            sourceRelationshipNames: Set(source?.relationshipsByName.keys.map { $0 } ?? []),
            policyFunctions: Set(policy.expressionFunctions.keys),
            policyName: entityMapping.entityMigrationPolicyClassName ?? "NSEntityMigrationPolicy")
        let anchor = source ?? destination ?? destinationModel.entities[0]
        func bound(_ property: PropertyMapping, _ expression: PropertyExpression) throws -> BoundPropertyExpression {
            do {
                return try expression.bound(to: anchor, mapping: scope)
            } catch let error as ObjectStackError {
                throw ObjectStackError(
                    code: .invalidMappingModel,
                    message: "\(mapping.name): \(label).\(property.name): the value expression '\(expression)' "
                        + "cannot be evaluated: \(error.message)", cause: error)
            }
        }
        // Attribute and relationship mappings name a property of the destination entity in the same way.
        func destinationProperty<Property>(
            _ properties: [String: Property], _ kind: String, _ property: PropertyMapping,
            _ destination: EntityDescription
        ) throws -> Property {
            guard let found = properties[property.name] else {
                throw invalid(
                    mapping,
                    "\(label).\(property.name): \(destination.name) has no \(kind) \(property.name) in the "
                        + "destination model")
            }
            return found
        }
        var attributes: [(AttributeDescription, BoundPropertyExpression, String)] = []
        for property in entityMapping.attributeMappings {
            guard let destination else { continue }
            let attribute = try destinationProperty(destination.attributesByName, "attribute", property, destination)
            // An attribute mapping without an expression reads the same-named source attribute, as Xcode
            // compiles one; with no such attribute it leaves the attribute unset.
            guard
                let expression = property.valueExpression
                    ?? source.flatMap({ $0.attributesByName[property.name] }).map({ _ in
                        PropertyExpression(node: .variable("source", [property.name]))
                    })
            else { continue }
            guard attribute.derivationExpression == nil else {
                throw invalid(
                    mapping,
                    "\(label).\(property.name): the attribute is derived, and a migration cannot set it "
                        + "('\(expression)')")
            }
            let boundExpression = try bound(property, expression)
            let type = ExpressionResultType.of(boundExpression)
            if case .operand(let operand) = boundExpression, operand.isCollection {
                throw invalid(
                    mapping,
                    "\(label).\(property.name): the value expression '\(expression)' is a collection, which "
                        + "the attribute cannot hold; reduce it with @count or an aggregate")
            }
            guard type.fits(attribute.type) else {
                throw invalid(
                    mapping,
                    "\(label).\(property.name): the value expression '\(expression)' gives \(type.name), "
                        + "which the \(ExpressionResultType.typeName(attribute.type)) attribute cannot hold")
            }
            attributes.append((attribute, boundExpression, expression.description))
        }
        var relationships: [(RelationshipDescription, BoundPropertyExpression, String)] = []
        for property in entityMapping.relationshipMappings {
            guard let destination else { continue }
            let relationship = try destinationProperty(
                destination.relationshipsByName, "relationship", property, destination)
            guard let expression = property.valueExpression else { continue }
            let boundExpression = try bound(property, expression)
            let type = ExpressionResultType.element(of: boundExpression)
            guard type == .object || type == .any else {
                throw invalid(
                    mapping,
                    "\(label).\(property.name): the value expression '\(expression)' gives \(type.name), "
                        + "not the objects a relationship holds")
            }
            relationships.append((relationship, boundExpression, expression.description))
        }
        return MigrationRun.BoundMapping(
            mapping: entityMapping, source: source, destination: destination, attributes: attributes,
            relationships: relationships)
    }

    func invalid(_ mapping: MappingModel, _ message: String) -> ObjectStackError {
        ObjectStackError(code: .invalidMappingModel, message: "\(mapping.name): \(message)")
    }
}
