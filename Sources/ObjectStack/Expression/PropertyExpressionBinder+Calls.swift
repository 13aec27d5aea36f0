import Foundation

extension PropertyExpressionBinder {
    // MARK: - FUNCTION calls

    /// Binds `FUNCTION(receiver, 'selector', arguments…)` of a mapping model's value expression: a function of
    /// `$manager`, of `$entityPolicy`, or a Foundation method of a value (`ExpressionMethod.valueMethods`).
    func bindCall(
        _ receiver: PredicateExpression, _ selector: String, _ arguments: [PredicateExpression],
        in node: PredicateExpression
    ) throws -> BoundPropertyExpression {
        let text = node.predicateFormat
        guard let mapping else {
            throw ObjectStackError.typeMismatch(
                "FUNCTION(…, '\(selector)') in '\(text)' is for a mapping model's value expressions, not batch "
                    + "updates or derived attributes (entity \(entity.name))")
        }
        switch receiver {
        case .variable(MappingExpressionScope.manager, []):
            guard let arity = ExpressionMethod.managerFunctions[selector] else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "the migration manager has no function '\(selector)' a value expression may call "
                        + "(in '\(text)'); its functions are "
                        + ExpressionMethod.managerFunctions.keys.sorted().joined(separator: ", "))
            }
            try expectArguments(arguments.count, arity, selector, text)
            guard case .constant(.string(let name)) = arguments[0] else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "'\(selector)' takes the name as a string first, not '\(arguments[0].predicateFormat)' "
                        + "(in '\(text)')")
            }
            if selector == ExpressionMethod.MigrationFunction.destinationInstancesForSourceRelationship {
                guard mapping.sourceRelationshipNames.contains(name) else {
                    throw ObjectStackError(
                        code: .unknownKeyPath,
                        message: "'\(selector)' names the source relationship '\(name)', which the source entity "
                            + "does not have (in '\(text)'); it has "
                            + (mapping.sourceRelationshipNames.sorted().joined(separator: ", ").nonEmpty ?? "none"))
                }
            } else if !mapping.entityMappingNames.contains(name) {
                throw ObjectStackError(
                    code: .unknownKey,
                    message: "'\(selector)' names the entity mapping '\(name)', which the mapping model does not "
                        + "have (in '\(text)'); it has "
                        + mapping.entityMappingNames.sorted().joined(separator: ", "))
            }
            let instances = try bind(arguments[1])
            let type = ExpressionResultType.element(of: instances)
            guard type == .object || type == .any else {
                throw ObjectStackError.typeMismatch(
                    "'\(selector)' takes objects, but '\(arguments[1].predicateFormat)' is \(type.name) "
                        + "(in '\(text)')")
            }
            return .function(
                ExpressionFunction(method: ExpressionMethod(receiver: .manager, selector: selector)),
                [.operand(.constant(.string(name))), instances])
        case .variable(MappingExpressionScope.entityPolicy, []):
            guard mapping.policyFunctions.contains(selector) else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "the entity mapping's policy \(mapping.policyName) declares no function '\(selector)' "
                        + "(in '\(text)'); it declares "
                        + (mapping.policyFunctions.sorted().joined(separator: ", ").nonEmpty ?? "none"))
            }
            let bound = try arguments.map { try bindSingle($0, text) }
            return .function(
                ExpressionFunction(method: ExpressionMethod(receiver: .entityPolicy, selector: selector)), bound)
        default:
            guard let method = ExpressionMethod.valueMethods[selector] else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "'\(selector)' in '\(text)' is not among the Foundation methods a value expression may "
                        + "call here: " + ExpressionMethod.valueMethods.keys.sorted().joined(separator: ", "))
            }
            try expectArguments(arguments.count, method.arity, selector, text)
            let bound = try ([receiver] + arguments).map { try bindSingle($0, text) }
            return .function(ExpressionFunction(method: ExpressionMethod(receiver: .value, selector: selector)), bound)
        }
    }

    private func expectArguments(_ count: Int, _ arity: Int, _ selector: String, _ text: String) throws {
        guard count != arity else { return }
        throw ObjectStackError(
            code: .invalidArgument,
            message: "'\(selector)' takes \(arity) argument\(arity == 1 ? "" : "s"), not \(count), in '\(text)'")
    }

    /// Binds an argument that must be one value, not a to-many key path's collection.
    private func bindSingle(_ node: PredicateExpression, _ text: String) throws -> BoundPropertyExpression {
        let bound = try bind(node)
        if case .operand(let operand) = bound, operand.isCollection {
            throw ObjectStackError.typeMismatch(
                "'\(node.predicateFormat)' in '\(text)' is a collection, where one value is needed; reduce it with "
                    + "@count, sum: or another aggregate")
        }
        return bound
    }
}

extension String {
    /// The string, or nil when it is empty.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
