import Foundation

/// What an `ExpressionDescription` computes: a key path, or a function over key paths, as an `NSExpression`
/// built with `expressionForKeyPath:` or `expressionForFunction:arguments:`.
///
/// For example:
/// ```swift
/// let total = FetchExpression.sum("pages")                      // NSExpression(forFunction: "sum:", …)
/// let same = try FetchExpression(format: "sum:(pages)")
/// let named = FetchExpression.function("average:", [.keyPath("rating")])
/// ```
/// A fetch computes the aggregate functions Core Data's SQLite store computes in a fetch — `count:`, `sum:`,
/// `min:`, `max:` and `average:` — over one key path of the fetched entity (through to-one relationships).
/// NSExpression's other functions (`median:`, `mode:`, `stddev:`, arithmetic…) are refused when the fetch is
/// planned, as Core Data's SQLite store refuses them.
public indirect enum FetchExpression: Sendable, Hashable, CustomStringConvertible {
    /// The value of a key path of the fetched object (`"author.name"`).
    case keyPath(String)
    /// A function by its NSExpression name (`"sum:"`), applied to its arguments.
    case function(String, [FetchExpression])

    /// `count:(keyPath)`: how many of the group's objects have a value (not nil) at the key path.
    public static func count(_ keyPath: String) -> FetchExpression { .function("count:", [.keyPath(keyPath)]) }
    /// `sum:(keyPath)`: the sum of the values, 0 when there are none (nils are skipped).
    public static func sum(_ keyPath: String) -> FetchExpression { .function("sum:", [.keyPath(keyPath)]) }
    /// `min:(keyPath)`: the smallest value (numbers, strings, dates…), nil when there are none.
    public static func min(_ keyPath: String) -> FetchExpression { .function("min:", [.keyPath(keyPath)]) }
    /// `max:(keyPath)`: the largest value, nil when there are none.
    public static func max(_ keyPath: String) -> FetchExpression { .function("max:", [.keyPath(keyPath)]) }
    /// `average:(keyPath)`: the mean of the values, nil when there are none.
    public static func average(_ keyPath: String) -> FetchExpression { .function("average:", [.keyPath(keyPath)]) }

    /// Parses NSExpression's format for a key path or a function call: `"pages"`, `"sum:(pages)"`,
    /// `"count:(author.name)"`.
    /// - Throws: `ObjectStackError` `.malformedPredicate` naming the position and what was expected.
    public init(format: String) throws {
        var parser = Parser(text: Array(format), format: format)
        let expression = try parser.expression()
        parser.skipSpaces()
        guard parser.position == parser.text.count else { throw parser.error("unexpected text after the expression") }
        self = expression
    }

    /// The expression in NSExpression's format: `sum:(pages)`.
    public var description: String {
        switch self {
        case .keyPath(let path): return path
        case .function(let name, let arguments):
            return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        }
    }

    /// The small grammar of `init(format:)`: key paths and `name:(arguments)`.
    private struct Parser {
        let text: [Character]
        let format: String
        var position = 0

        mutating func skipSpaces() {
            while position < text.count, text[position].isWhitespace { position += 1 }
        }

        mutating func expression() throws -> FetchExpression {
            skipSpaces()
            let start = position
            while position < text.count,
                text[position].isLetter || text[position].isNumber
                    || "_.@$:".contains(text[position])
            {
                position += 1
            }
            let word = String(text[start..<position])
            guard !word.isEmpty else { throw error("expected a key path or a function such as sum:(pages)") }
            skipSpaces()
            guard position < text.count, text[position] == "(" else {
                guard !word.hasSuffix(":") else { throw error("expected '(' after the function name '\(word)'") }
                return .keyPath(word)
            }
            position += 1
            var arguments: [FetchExpression] = []
            skipSpaces()
            if position < text.count, text[position] == ")" {
                position += 1
                return .function(word, arguments)
            }
            while true {
                arguments.append(try expression())
                skipSpaces()
                guard position < text.count else { throw error("expected ')' to close '\(word)('") }
                if text[position] == "," {
                    position += 1
                    continue
                }
                guard text[position] == ")" else { throw error("expected ',' or ')' in the arguments of '\(word)'") }
                position += 1
                return .function(word, arguments)
            }
        }

        func error(_ reason: String) -> ObjectStackError {
            let syntax = PredicateSyntaxError(format: format, position: position, reason: reason)
            return ObjectStackError(code: .malformedPredicate, message: syntax.description, cause: syntax)
        }
    }
}
