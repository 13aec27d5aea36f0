import Foundation

/// What a mapping model's value expression may reach when it is bound: the objects its variables stand for and
/// the functions its `FUNCTION(…)` calls may name.
///
/// Core Data evaluates a value expression with the migration's variables (`NSMigrationSourceObjectKey` and its
/// siblings): `$source` (the source object), `$destination` (the destination object, while relationships are
/// made), `$manager` (the migration manager), `$entityMapping` and `$entityPolicy`. Here `$source` and `$destination`
/// are entity variables whose key paths bind to the models' properties, `$entityMapping.key` is a constant of the
/// mapping, and `$manager` and `$entityPolicy` are receivers of calls; anything else is refused with its name.
struct MappingExpressionScope {
    /// `source` (and `destination` while relationships are made), each with its entity.
    let entityVariables: [String: EntityDescription]
    /// What `$entityMapping.name`, `.sourceEntityName`, `.destinationEntityName` and `.userInfo.KEY` stand for.
    let entityMappingValues: [String: StoreValue]
    /// The names of the mapping model's entity mappings, which `$manager`'s functions may name.
    let entityMappingNames: Set<String>
    /// The source entity's relationships, which `destinationInstancesForSourceRelationshipNamed:…` may name.
    let sourceRelationshipNames: Set<String>
    /// The functions the entity mapping's policy answers (`FUNCTION($entityPolicy, 'selector', …)`).
    let policyFunctions: Set<String>
    /// The policy's class name, for errors.
    let policyName: String

    static let manager = "manager"
    static let entityPolicy = "entityPolicy"
    static let entityMapping = "entityMapping"

    /// Throws for a variable the expression may not use where it uses it, naming it and what may be used.
    func checkVariables(in node: PredicateExpression) throws {
        try check(node, bound: [])
    }

    private func check(_ node: PredicateExpression, bound: Set<String>) throws {
        switch node {
        case .constant, .keyPath: return
        case .list(let items): try items.forEach { try check($0, bound: bound) }
        case .arithmetic(_, let lhs, let rhs):
            try check(lhs, bound: bound)
            try check(rhs, bound: bound)
        case .negate(let operand): try check(operand, bound: bound)
        case .function(_, let arguments): try arguments.forEach { try check($0, bound: bound) }
        case .call(let receiver, _, let arguments):
            if case .variable(let name, let path) = receiver, path.isEmpty,
                name == Self.manager || name == Self.entityPolicy
            {
            } else {
                try check(receiver, bound: bound)
            }
            try arguments.forEach { try check($0, bound: bound) }
        case .subquery(let collection, let variable, let predicate, _):
            try check(collection, bound: bound)
            try check(predicate, bound: bound.union([variable]))
        case .variable(let name, let path):
            if bound.contains(name) || entityVariables[name] != nil { return }
            if name == Self.entityMapping {
                let key = path.joined(separator: ".")
                guard entityMappingValues[key] != nil else {
                    throw ObjectStackError(
                        code: .unknownKeyPath,
                        message: "$entityMapping has no key '\(key)'; a value expression reads its name, "
                            + "sourceEntityName, destinationEntityName or userInfo.KEY")
                }
                return
            }
            if name == Self.manager || name == Self.entityPolicy {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "$\(name) is not a value; call its functions with FUNCTION($\(name), 'selector', …)")
            }
            let known = (entityVariables.keys.sorted() + [Self.manager, Self.entityMapping, Self.entityPolicy])
                .map { "$" + $0 }.joined(separator: ", ")
            throw ObjectStackError(
                code: .unknownKeyPath,
                message: "unknown variable $\(name); here a value expression may use \(known)")
        }
    }

    private func check(_ predicate: PredicateNode, bound: Set<String>) throws {
        switch predicate {
        case .constant: return
        case .comparison(let comparison):
            try check(comparison.lhs, bound: bound)
            try check(comparison.rhs, bound: bound)
        case .and(let parts), .or(let parts): try parts.forEach { try check($0, bound: bound) }
        case .not(let inner): try check(inner, bound: bound)
        }
    }

    /// The expression with each `$entityMapping.key` replaced by its value.
    func replacingConstants(in node: PredicateExpression) -> PredicateExpression {
        switch node {
        case .variable(let name, let path) where name == Self.entityMapping:
            return .constant(entityMappingValues[path.joined(separator: ".")] ?? .null)
        case .constant, .keyPath, .variable, .subquery: return node
        case .list(let items): return .list(items.map(replacingConstants))
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(op, replacingConstants(in: lhs), replacingConstants(in: rhs))
        case .negate(let operand): return .negate(replacingConstants(in: operand))
        case .function(let name, let arguments): return .function(name, arguments.map(replacingConstants))
        case .call(let receiver, let selector, let arguments):
            return .call(
                receiver: replacingConstants(in: receiver), selector: selector,
                arguments: arguments.map(replacingConstants))
        }
    }
}
