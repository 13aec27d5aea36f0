import Foundation

// Printing follows NSPredicate's `predicateFormat`, so that a predicate logged on Linux reads as it would on
// iOS: keywords in upper case, operators as `PredicateOperator` spells them, strings in double quotes,
// booleans as `1` and `0`, every compound operand of a compound in parentheses (`(a == 1 AND b == 2) OR
// c == 3`), and every arithmetic operand of an arithmetic expression in parentheses (`(a + b) + c`,
// `a + (b * c)`). Parsing the output gives an equal tree, except for what the format-string language cannot
// spell:
// - booleans print as `1` / `0` and parse back as integers (which compare equal to them everywhere);
// - unary minus on a number prints as `-3` and parses back as the negative number;
// - `.data`, `.uuid`, `.uri` and `.objectID` constants print as `StoreValue.description`, which is not syntax;
// - `.decimal` constants print as numbers and parse back as `.double` or `.integer`; NaN prints as `nan`;
// - an `.and` or `.or` with fewer than two operands prints as what it means (its operand, or
//   `TRUEPREDICATE` / `FALSEPREDICATE` when empty);
// - a key that cannot be written even with `#` (empty, `first name`, `a-b`) is printed as it is.

extension PredicateNode {
    /// The predicate as a canonical format string, which parses back to an equal tree (see above for exceptions).
    var predicateFormat: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.predicateFormat
        case .and(let operands): return Self.join(operands, with: "AND", empty: "TRUEPREDICATE")
        case .or(let operands): return Self.join(operands, with: "OR", empty: "FALSEPREDICATE")
        case .not(let operand): return "NOT " + operand.parenthesizedFormat
        }
    }

    /// The format of an operand of AND, OR or NOT: a compound goes in parentheses, so that its grouping stays.
    private var parenthesizedFormat: String {
        switch self {
        case .and, .or: return "(\(predicateFormat))"
        default: return predicateFormat
        }
    }

    /// Operands joined by AND or OR; a compound operand goes in parentheses even where precedence would not
    /// need them (an AND inside an OR), as NSCompoundPredicate prints it.
    private static func join(_ operands: [PredicateNode], with keyword: String, empty: String) -> String {
        guard operands.count > 1 else { return operands.first?.predicateFormat ?? empty }
        return operands.map(\.parenthesizedFormat).joined(separator: " \(keyword) ")
    }
}

extension PredicateComparison {
    /// The comparison as a format string: `ANY lhs ==[cd] rhs`.
    var predicateFormat: String {
        let prefix = quantifier == .direct ? "" : quantifier.rawValue + " "
        let flags: [(PredicateOptions, String)] = [
            (.caseInsensitive, "c"), (.diacriticInsensitive, "d"), (.normalized, "n"),
        ]
        let letters = flags.filter { options.contains($0.0) }.map(\.1).joined()
        let suffix = letters.isEmpty ? "" : "[\(letters)]"
        return "\(prefix)\(lhs.predicateFormat) \(op.rawValue)\(suffix) \(rhs.predicateFormat)"
    }
}

extension PredicateExpression {
    /// The expression as a format string, which parses back to an equal expression (see above for exceptions).
    var predicateFormat: String {
        switch self {
        case .constant(let value):
            return Self.format(value)
        case .list(let items):
            return "{" + items.map(\.predicateFormat).joined(separator: ", ") + "}"
        case .keyPath(let path):
            guard let first = path.first else { return "SELF" }
            // A path that starts with a subscript subscripts SELF.
            if PredicateSubscript(component: first) != nil { return "SELF" + Self.format(suffix: path) }
            return Self.format(key: first) + Self.format(suffix: path.dropFirst())
        case .variable(let name, let path):
            return "$" + name + Self.format(suffix: path)
        case .subquery(let collection, let variable, let predicate, let path):
            return "SUBQUERY(\(collection.predicateFormat), $\(variable), \(predicate.predicateFormat))"
                + Self.format(suffix: path)
        case .arithmetic(let op, let lhs, let rhs):
            return lhs.arithmeticOperandFormat + " \(op.rawValue) " + rhs.arithmeticOperandFormat
        case .negate(let operand):
            return "-" + operand.arithmeticOperandFormat
        case .function(let name, let arguments):
            return name + "(" + arguments.map(\.predicateFormat).joined(separator: ", ") + ")"
        case .call(let receiver, let selector, let arguments):
            return "FUNCTION("
                + ([receiver.predicateFormat, Self.quoted(selector)] + arguments.map(\.predicateFormat))
                .joined(separator: ", ") + ")"
        }
    }

    /// An operand of an arithmetic operator: another arithmetic expression goes in parentheses, as NSExpression
    /// prints it, so that the grouping stays.
    private var arithmeticOperandFormat: String {
        switch self {
        case .arithmetic, .negate: return "(\(predicateFormat))"
        default: return predicateFormat
        }
    }

    /// `.key.key…` and subscripts after a key, a variable or a subquery.
    private static func format(suffix path: some Sequence<String>) -> String {
        path.map { PredicateSubscript(component: $0) != nil ? $0 : "." + format(key: $0) }.joined()
    }

    /// A key, with `#` before a reserved word or a name such as `2nd` so that it is read as a key.
    private static func format(key: String) -> String {
        if PredicateLexer.isIdentifier(key), !PredicateKeyword.isReserved(key) { return key }
        let escapable = !key.isEmpty && key.unicodeScalars.allSatisfy(PredicateLexer.isIdentifierContinue)
        return escapable ? "#" + key : key
    }

    /// A constant as a literal: StoreValue's spelling, except where it would not read back.
    private static func format(_ value: StoreValue) -> String {
        switch value {
        case .string(let string): return quoted(string)
        // NSNumber's spelling of a boolean: `flag == 1`.
        case .boolean(let value): return value ? "1" : "0"
        // An overflowing literal reads back as infinity.
        case .double(let double) where double.isInfinite: return double < 0 ? "-1e999" : "1e999"
        default: return value.description
        }
    }

    /// A double-quoted string literal; control characters are escaped so the output stays on one line.
    private static func quoted(_ string: String) -> String {
        let named: [Unicode.Scalar: String] = [
            "\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0",
        ]
        var result = "\""
        for scalar in string.unicodeScalars {
            if let escape = named[scalar] {
                result += escape
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
