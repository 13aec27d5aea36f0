import Foundation

extension FetchPredicate {
    /// The predicate with its `$VARIABLES` replaced by values, as NSPredicate's
    /// `withSubstitutionVariables(_:)` does (fetch request templates and fetched properties use them).
    ///
    /// For example:
    /// ```swift
    /// let template = try FetchPredicate(format: "name == $NAME AND age > $AGE")
    /// let predicate = try template.withSubstitutionVariables(["NAME": "Ada", "AGE": 30])
    /// ```
    /// A variable followed by a key path (`$FETCH_SOURCE.city`) takes its value from the substituted object.
    /// Variables a `SUBQUERY` binds are left alone inside it.
    /// - Throws: `ObjectStackError` `.invalidArgument` naming a variable that has no value or a value that
    ///   cannot be a predicate constant.
    public func withSubstitutionVariables(_ variables: [String: Any]) throws -> FetchPredicate {
        FetchPredicate(node: try Self.substitute(node, variables, bound: []))
    }

    private static func substitute(
        _ node: PredicateNode, _ variables: [String: Any], bound: Set<String>
    ) throws
        -> PredicateNode
    {
        switch node {
        case .constant: return node
        case .and(let nodes): return .and(try nodes.map { try substitute($0, variables, bound: bound) })
        case .or(let nodes): return .or(try nodes.map { try substitute($0, variables, bound: bound) })
        case .not(let inner): return .not(try substitute(inner, variables, bound: bound))
        case .comparison(var comparison):
            comparison.lhs = try substitute(comparison.lhs, variables, bound: bound)
            comparison.rhs = try substitute(comparison.rhs, variables, bound: bound)
            return .comparison(comparison)
        }
    }

    private static func substitute(
        _ expression: PredicateExpression, _ variables: [String: Any], bound: Set<String>
    )
        throws -> PredicateExpression
    {
        switch expression {
        case .constant, .keyPath: return expression
        case .list(let items): return .list(try items.map { try substitute($0, variables, bound: bound) })
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(
                op, try substitute(lhs, variables, bound: bound), try substitute(rhs, variables, bound: bound))
        case .negate(let operand): return .negate(try substitute(operand, variables, bound: bound))
        case .function(let name, let arguments):
            return .function(name, try arguments.map { try substitute($0, variables, bound: bound) })
        case .call(let receiver, let selector, let arguments):
            return .call(
                receiver: try substitute(receiver, variables, bound: bound), selector: selector,
                arguments: try arguments.map { try substitute($0, variables, bound: bound) })
        case .subquery(let collection, let variable, let predicate, let path):
            return .subquery(
                collection: try substitute(collection, variables, bound: bound), variable: variable,
                predicate: try substitute(predicate, variables, bound: bound.union([variable])), path: path)
        case .variable(let name, let path):
            if bound.contains(name) { return expression }
            guard let value = variables[name] else {
                throw ObjectStackError(code: .invalidArgument, message: "no value for predicate variable $\(name)")
            }
            return try constant(for: value, following: path, variable: name)
        }
    }

    /// The constant a variable stands for; with a key path, the value read through it from an object.
    private static func constant(
        for value: Any, following path: [String], variable: String
    ) throws
        -> PredicateExpression
    {
        var current: Any? = value
        for key in path {
            guard let object = current as? ManagedObject, object.entity.property(named: key) != nil else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "$\(variable).\(path.joined(separator: ".")) cannot be read: \(key) is not a property of the value"
                )
            }
            current = object.value(forKey: key)
        }
        do {
            return try PredicateArgument.expression(for: current as Any)
        } catch {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "the value of $\(variable) cannot be used in a predicate: \(error.reason)")
        }
    }
}
