import Foundation

/// How a derived attribute computes its value at save: a key path or aggregate (`books.@count`,
/// `author.name`), or one of the functions Xcode offers for derivations (`now()`, `canonical:(name)`,
/// `lowercase:(name)`, `uppercase:(name)`).
enum Derivation: Sendable {
    case expression(BoundExpression)
    /// The date of the save; as seconds since 2001 for a numeric attribute.
    case now(asNumber: Bool)
    /// The string without case and diacritics, as Core Data's `canonical:` (for `[cd]`-free searching).
    case canonical(BoundExpression)
    case lowercase(BoundExpression)
    case uppercase(BoundExpression)

    private static let functions = ["canonical:", "lowercase:", "uppercase:"]

    /// Parses and binds a derivation expression against its entity.
    /// - Throws: `PredicateSyntaxError` or `ObjectStackError` for an expression that does not parse or bind.
    static func bind(_ text: String, of attribute: AttributeDescription, entity: EntityDescription) throws -> Derivation
    {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.replacingOccurrences(of: " ", with: "") == "now()" {
            return .now(asNumber: attribute.type.isNumeric)
        }
        for function in functions where trimmed.hasPrefix(function) {
            var argument = trimmed.dropFirst(function.count).trimmingCharacters(in: .whitespaces)
            guard argument.hasPrefix("("), argument.hasSuffix(")") else {
                throw ObjectStackError(code: .invalidModel, message: "\(function) needs a parenthesised key path")
            }
            argument = String(argument.dropFirst().dropLast())
            let bound = try expression(argument, entity: entity)
            switch function {
            case "canonical:": return .canonical(bound)
            case "lowercase:": return .lowercase(bound)
            default: return .uppercase(bound)
            }
        }
        return .expression(try expression(trimmed, entity: entity))
    }

    private static func expression(_ text: String, entity: EntityDescription) throws -> BoundExpression {
        var parser = PredicateParser(format: text, arguments: [])
        return try PredicateBinder(entity: entity).bindExpression(try parser.parseExpression())
    }

    /// The derived value for an object.
    func value<Resolver: PredicateResolver>(
        using evaluator: PredicateEvaluator<Resolver>, on row: Resolver.Row
    )
        throws -> StoreValue
    {
        switch self {
        case .now(let asNumber):
            let now = Date()
            return asNumber ? .double(now.timeIntervalSinceReferenceDate) : .date(now)
        case .expression(let expression): return try evaluator.value(of: expression, on: row)
        case .canonical(let expression):
            return try Self.mapString(evaluator.value(of: expression, on: row)) {
                $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            }
        case .lowercase(let expression):
            return try Self.mapString(evaluator.value(of: expression, on: row)) { $0.lowercased() }
        case .uppercase(let expression):
            return try Self.mapString(evaluator.value(of: expression, on: row)) { $0.uppercased() }
        }
    }

    private static func mapString(_ value: StoreValue, _ transform: (String) -> String) -> StoreValue {
        guard case .string(let text) = value else { return value }
        return .string(transform(text))
    }
}
