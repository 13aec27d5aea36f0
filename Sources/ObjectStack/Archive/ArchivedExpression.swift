import Foundation

/// Turns archived `NSExpression`s and `NSPredicate`s (objects of a `KeyedArchive`) back into their format
/// strings, which `FetchPredicate(format:)` and the expression parser read.
///
/// For example, the archive of `NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "pages")])`
/// reads as `count:(pages)`, and a derived attribute's, as `pages.@count` (`derivationFormat`).
///
/// Core Data archives expressions in a model's derived attributes, fetched properties and fetch request templates
/// (in a store's model cache) and in a mapping model's value expressions. The classes and keys read here are the
/// ones real archives hold (`NSKeyPathExpression`, `NSFunctionExpression`, `NSComparisonPredicate`…); an
/// expression of another kind (a block, a subquery) is an error naming its class.
enum ArchivedExpression {
    /// NSExpression's functions written as arithmetic operators in the format language.
    private static let operators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
    ]
    /// The collection functions a key path can spell as an operator (`pages.@count`), as derivations are written.
    private static let collectionOperators: [String: String] = [
        "count:": "@count", "sum:": "@sum", "min:": "@min", "max:": "@max", "average:": "@avg",
    ]

    /// The format string of an archived expression.
    /// - Throws: `KeyedArchive.Error` naming the class or selector that has no format here.
    static func format(_ object: KeyedArchive.Object) throws -> String {
        try format(object, derivation: false)
    }

    /// The format of a derived attribute's expression: a collection function over one key path becomes the key
    /// path's operator (`count:(pages)` → `pages.@count`), as Xcode writes derivations.
    static func derivationFormat(_ object: KeyedArchive.Object) throws -> String {
        try format(object, derivation: true)
    }

    private static func format(_ object: KeyedArchive.Object, derivation: Bool) throws -> String {
        let className = object.className ?? "?"
        switch className {
        case "NSSelfExpression":
            return "SELF"
        case "NSVariableExpression":
            guard let name = object.string("NSVariable") else { throw KeyedArchive.Error("a variable without a name") }
            return "$" + name
        case "NSKeyPathSpecifierExpression":
            guard let path = object.string("NSKeyPath") else { throw KeyedArchive.Error("a key path without a path") }
            return path
        case "NSKeyPathExpression":
            return try keyPath(object)
        case "NSConstantValueExpression":
            return try constant(object, key: "NSConstantValue")
        case "NSFunctionExpression":
            return try function(object, derivation: derivation)
        case "NSAggregateExpression":
            let items = try elements(object, key: "NSCollection")
            return "{" + items.joined(separator: ", ") + "}"
        case "NSAnyKeyExpression":
            return "ANYKEY"
        default:
            throw KeyedArchive.Error("an expression of class \(className), which has no format here")
        }
    }

    /// `operand.path`: a key path read from SELF, from a variable, or from another expression.
    private static func keyPath(_ object: KeyedArchive.Object) throws -> String {
        guard let arguments = object.object("NSArguments")?.elements, let first = arguments.first,
            let specifier = object.archive.object(first)
        else {
            throw KeyedArchive.Error("a key-path expression without its key path")
        }
        let path = try format(specifier)
        guard let operand = object.object("NSOperand") else { return path }
        let base = try format(operand)
        return base == "SELF" ? path : base + "." + path
    }

    private static func function(_ object: KeyedArchive.Object, derivation: Bool) throws -> String {
        guard let selector = object.string("NSSelectorName") else {
            throw KeyedArchive.Error("a function expression without a selector")
        }
        let arguments = try elements(object, key: "NSArguments")
        if let symbol = operators[selector], arguments.count == 2 {
            return "(" + arguments[0] + " " + symbol + " " + arguments[1] + ")"
        }
        if derivation, let suffix = collectionOperators[selector], arguments.count == 1,
            arguments[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
        {
            return arguments[0] + "." + suffix
        }
        let operand = object.object("NSOperand")
        let operandClass = operand?.string("NSConstantValueClassName")
        // NSExpression's built-in functions are archived with the class that implements them as their operand.
        if operandClass == "_NSPredicateUtilities" || operand == nil {
            if selector == "now" { return "now()" }
            return selector + "(" + arguments.joined(separator: ", ") + ")"
        }
        // A method called on an object: FUNCTION(operand, 'selector', arguments…).
        let target = try format(operand!)
        return "FUNCTION(" + ([target, "'" + selector + "'"] + arguments).joined(separator: ", ") + ")"
    }

    private static func elements(_ object: KeyedArchive.Object, key: String) throws -> [String] {
        guard let values = object.object(key)?.elements else { return [] }
        return try values.map { value in
            guard let element = object.archive.object(value) else {
                return try literal(object.archive.resolved(value), archive: object.archive)
            }
            return try format(element)
        }
    }

    /// A constant expression's value in the format language.
    private static func constant(_ object: KeyedArchive.Object, key: String) throws -> String {
        guard let value = object[key] else { return "nil" }
        // A string or number the archive keeps once and refers to is a plain value, not an object.
        let plain = object.archive.resolved(value)
        if case .reference = plain, let inner = object.archive.object(value) {
            return try objectLiteral(inner)
        }
        return try literal(plain, archive: object.archive)
    }

    private static func objectLiteral(_ object: KeyedArchive.Object) throws -> String {
        if let text = object.stringValue { return quoted(text) }
        switch object.className {
        case "NSNull"?: return "nil"
        case "NSDate"?:
            if case .real(let seconds)? = object.plain("NS.time") { return "CAST(\(seconds), \"NSDate\")" }
            if case .integer(let seconds)? = object.plain("NS.time") { return "CAST(\(seconds), \"NSDate\")" }
        case "NSArray"?, "NSMutableArray"?, "NSSet"?, "NSMutableSet"?, "NSOrderedSet"?:
            let items = try (object.elements ?? []).map { value -> String in
                if let element = object.archive.object(value) { return try objectLiteral(element) }
                return try literal(object.archive.resolved(value), archive: object.archive)
            }
            return "{" + items.joined(separator: ", ") + "}"
        default: break
        }
        throw KeyedArchive.Error("a constant of class \(object.className ?? "?"), which has no format here")
    }

    private static func literal(_ value: KeyedArchive.Value, archive: KeyedArchive) throws -> String {
        switch value {
        case .null: return "nil"
        case .string(let text): return quoted(text)
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .boolean(let flag): return flag ? "YES" : "NO"
        case .date(let date): return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .reference:
            guard let object = archive.object(value) else { return "nil" }
            return try objectLiteral(object)
        case .data, .array, .dictionary:
            throw KeyedArchive.Error("a constant of this kind has no format here")
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    // MARK: - Predicates

    /// The format string of an archived predicate (`NSComparisonPredicate`, `NSCompoundPredicate`, `TRUEPREDICATE`).
    /// - Throws: `KeyedArchive.Error` naming the class or operator that has no format here.
    static func predicateFormat(_ object: KeyedArchive.Object) throws -> String {
        switch object.className ?? "?" {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = try (object.object("NSSubpredicates")?.elements ?? []).map { value -> String in
                guard let part = object.archive.object(value) else {
                    throw KeyedArchive.Error("a compound predicate with a missing part")
                }
                return "(" + (try predicateFormat(part)) + ")"
            }
            switch object.integer("NSCompoundPredicateType") {
            case 0?: return "NOT " + (parts.first ?? "TRUEPREDICATE")
            case 1?: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2?: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default: throw KeyedArchive.Error("a compound predicate of unknown type")
            }
        case "NSComparisonPredicate":
            return try comparison(object)
        case let other:
            throw KeyedArchive.Error("a predicate of class \(other), which has no format here")
        }
    }

    private static func comparison(_ object: KeyedArchive.Object) throws -> String {
        guard let left = object.object("NSLeftExpression"), let right = object.object("NSRightExpression"),
            let op = object.object("NSPredicateOperator")
        else {
            throw KeyedArchive.Error("a comparison without its expressions or operator")
        }
        let symbols: [Int64: String] = [
            0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH",
            9: "ENDSWITH", 10: "IN", 99: "CONTAINS", 100: "BETWEEN",
        ]
        let type = op.integer("NSOperatorType") ?? -1
        guard var symbol = symbols[type] else {
            throw KeyedArchive.Error("a comparison with operator type \(type), which has no format here")
        }
        if type == 4, op.boolean("NSNegate") == true { symbol = "!=" }
        // NSOptions: 1 case-insensitive, 2 diacritic-insensitive, 8 normalized.
        let options = op.integer("NSOptions") ?? op.integer("NSFlags") ?? 0
        var flags = ""
        if options & 1 != 0 { flags += "c" }
        if options & 2 != 0 { flags += "d" }
        if options & 8 != 0 { flags += "n" }
        if !flags.isEmpty, type >= 4 { symbol += "[" + flags + "]" }
        let modifier: String
        switch op.integer("NSModifier") ?? 0 {
        case 1: modifier = "ALL "
        case 2: modifier = "ANY "
        default: modifier = ""
        }
        return modifier + (try format(left)) + " " + symbol + " " + (try format(right))
    }
}
