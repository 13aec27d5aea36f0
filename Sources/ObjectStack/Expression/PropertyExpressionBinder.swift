import Foundation

/// Checks a property expression against an entity: what holds no function goes to `PredicateBinder` (the same key
/// paths, collection operators and arithmetic as a predicate's operands); each function is looked up by name and
/// given the number and kinds of arguments it takes. Every error names the function or operand at fault.
struct PropertyExpressionBinder {
    let entity: EntityDescription
    /// For a mapping model's value expression: its variables and what its `FUNCTION(…)` calls may reach; nil for a
    /// batch update's or a derived attribute's, which refuse both.
    let mapping: MappingExpressionScope?

    init(entity: EntityDescription) {
        self.entity = entity
        self.mapping = nil
    }

    /// A binder for a mapping model's value expressions: key paths start from `scope`'s variables (`$source`),
    /// `FUNCTION(…)` calls what `scope` allows, and `entity` names the mapping's entity in errors.
    init(entity: EntityDescription, mapping scope: MappingExpressionScope) {
        self.entity = entity
        self.mapping = scope
    }

    private var operandBinder: PredicateBinder {
        guard let mapping else { return PredicateBinder(entity: entity) }
        return PredicateBinder(
            entity: entity, variables: mapping.entityVariables,
            selfUnavailable: "a mapping's value expression reads objects through its variables, as in $source.name")
    }

    /// Binds an expression.
    func bind(_ node: PredicateExpression) throws -> BoundPropertyExpression {
        if let mapping { try mapping.checkVariables(in: node) }
        let node = mapping?.replacingConstants(in: node) ?? node
        guard Self.containsFunction(node) else {
            return .operand(try operandBinder.bindExpression(node))
        }
        switch node {
        case .function(let name, let arguments):
            return try bindFunction(name, arguments, in: node)
        case .call(let receiver, let selector, let arguments):
            return try bindCall(receiver, selector, arguments, in: node)
        case .arithmetic(let op, let lhs, let rhs):
            let operands = (try bind(lhs), try bind(rhs))
            for (source, operand) in [(lhs, operands.0), (rhs, operands.1)] {
                try expect(operand, source, in: node, toBe: "a number", isCollectionAllowed: false) {
                    if case .number = $0 { return true }
                    return false
                }
            }
            return .arithmetic(op, operands.0, operands.1)
        case .negate(let operand):
            return try bind(.arithmetic(.subtract, .constant(.integer(0)), operand))
        default:
            // A list, or a SUBQUERY's predicate, holding a function: only an aggregate function takes a list.
            throw ObjectStackError.typeMismatch(
                "'\(node.predicateFormat)' calls a function where only constants and key paths may be (entity "
                    + "\(entity.name)); a list of computed values is an aggregate's argument, as in max:({a, b})")
        }
    }

    /// Binds a function call: a known name, its number of arguments, their kinds.
    private func bindFunction(_ name: String, _ written: [PredicateExpression], in node: PredicateExpression)
        throws -> BoundPropertyExpression
    {
        guard let function = ExpressionFunction(name: name) else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "unknown function '\(name)' in '\(node.predicateFormat)' (entity \(entity.name)); the "
                    + "functions are \(ExpressionFunction.allNames)")
        }
        if function.kind == .mode {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "mode: in '\(node.predicateFormat)' yields an array of the most frequent values, not a "
                    + "value a property can hold (entity \(entity.name))")
        }
        // An aggregate of one list reduces the list's items, as NSExpression's `max:({a, b})`.
        var sources = written
        if function.isAggregate, written.count == 1, case .list(let items) = written[0] { sources = items }
        guard function.arity.contains(sources.count) else {
            let expected =
                function.arity.upperBound == .max
                ? "at least one argument"
                : "\(function.arity.lowerBound) argument\(function.arity.lowerBound == 1 ? "" : "s")"
            throw ObjectStackError(
                code: .invalidArgument,
                message: "\(function.name) takes \(expected), not \(sources.count), in '\(node.predicateFormat)' "
                    + "(entity \(entity.name))")
        }
        let arguments = try sources.map(bind)
        for (source, argument) in zip(sources, arguments) {
            try check(argument, source, of: function, in: node)
        }
        return .function(function, arguments)
    }

    /// Checks one argument's kind against what the function takes.
    private func check(
        _ argument: BoundPropertyExpression, _ source: PredicateExpression, of function: ExpressionFunction,
        in node: PredicateExpression
    ) throws {
        let isCollectionAllowed = function.isAggregate
        switch function.kind {
        case .lowercase, .uppercase, .canonical:
            try expect(argument, source, in: node, toBe: "a string", isCollectionAllowed: false) { $0 == .string }
        case .noindex, .min, .max, .count:
            try expect(argument, source, in: node, toBe: "a value", isCollectionAllowed: isCollectionAllowed) { _ in
                true
            }
        default:
            try expect(argument, source, in: node, toBe: "a number", isCollectionAllowed: isCollectionAllowed) {
                if case .number = $0 { return true }
                return false
            }
        }
    }

    /// Throws unless the operand's type (each value's, for a collection) passes `accepts`; nil always passes.
    private func expect(
        _ operand: BoundPropertyExpression, _ source: PredicateExpression, in node: PredicateExpression,
        toBe wanted: String, isCollectionAllowed: Bool, _ accepts: (ExpressionResultType) -> Bool
    ) throws {
        let isCollection: Bool
        if case .operand(let inner) = operand, inner.isCollection { isCollection = true } else { isCollection = false }
        if isCollection, !isCollectionAllowed {
            throw ObjectStackError.typeMismatch(
                "'\(source.predicateFormat)' in '\(node.predicateFormat)' is a collection, where \(wanted) is needed "
                    + "(entity \(entity.name)); reduce it with @count, sum: or another aggregate")
        }
        let type = isCollection ? ExpressionResultType.element(of: operand) : ExpressionResultType.of(operand)
        guard type == .any || accepts(type) else {
            throw ObjectStackError.typeMismatch(
                "'\(source.predicateFormat)' in '\(node.predicateFormat)' is \(Self.article(type.name)) \(type.name), "
                    + "where \(wanted) is needed (entity \(entity.name))")
        }
    }

    private static func article(_ word: String) -> String {
        "AEIOUaeiou".contains(word.prefix(1)) ? "an" : "a"
    }

    /// Whether a function is called anywhere in the expression.
    static func containsFunction(_ node: PredicateExpression) -> Bool {
        switch node {
        case .function, .call: return true
        case .constant, .keyPath, .variable, .subquery: return false
        case .list(let items): return items.contains(where: containsFunction)
        case .arithmetic(_, let lhs, let rhs): return containsFunction(lhs) || containsFunction(rhs)
        case .negate(let operand): return containsFunction(operand)
        }
    }
}
