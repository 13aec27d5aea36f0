import Foundation

/// Parses an NSPredicate-style format string into a `PredicateNode`, substituting format arguments as it goes.
///
/// Follows Apple's "Predicate Format String Syntax" for comparisons, compounds, quantifiers, aggregates,
/// variables, `SUBQUERY`, `CAST(…, "NSDate")`, arithmetic (`+ - * / **`, unary minus, NSPredicate's
/// precedence), subscripts on to-many key paths (`[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`) and NSExpression's function
/// calls (`now()`, `lowercase:(name)`: parsed here, bound only by `PropertyExpression`). `FUNCTION(…)` is read in
/// an expression only (a mapping model's value expressions call methods); in a predicate it is rejected, as are
/// assignments, with an error naming the feature. Surplus format arguments are ignored, as
/// NSPredicate ignores them. Every error is a `PredicateSyntaxError` at a character offset.
///
/// For example:
/// ```swift
/// var parser = PredicateParser(format: "ANY books.pages > %d", arguments: [300])
/// let node = try parser.parsePredicate()
/// ```
struct PredicateParser {
    /// Nesting deeper than this is rejected, so that hostile input cannot exhaust the stack.
    static let maximumDepth = 100

    private let arguments: [Any]
    private var lexer: PredicateLexer
    private var token = PredicateToken(kind: .end, text: "", position: 0, range: 0..<0)
    /// Where the last consumed token ended (a scalar offset), to quote the source of an expression in errors.
    private var previousEnd = 0
    private var argumentIndex = 0
    private var depth = 0
    /// Whether `FUNCTION(receiver, 'selector', …)` is read: in an expression (a mapping model's value expression
    /// calls methods), not in a predicate, where Core Data's SQL stores refuse it too.
    private var allowsCalls = false

    /// Creates a parser for `format`, whose placeholders (`%@`, `%K`, `%d`, `%f`…) take `arguments` in order.
    init(format: String, arguments: [Any]) {
        self.arguments = arguments
        self.lexer = PredicateLexer(format)
    }

    /// Parses the whole format string as a predicate.
    mutating func parsePredicate() throws(PredicateSyntaxError) -> PredicateNode {
        try start(ifEmpty: "empty predicate")
        let node = try parseCompound(.or)
        try finish(expected: "AND, OR or the end of the predicate")
        return node
    }

    /// Parses `format` with `arguments` by `parse` (a whole predicate or a whole expression), a malformed string
    /// thrown as `ObjectStackError` `.malformedPredicate` with the position and reason (the `cause` is the
    /// `PredicateSyntaxError`): what `FetchPredicate(format:)` and `PropertyExpression(format:)` both do.
    static func parse<Result>(
        _ format: String, _ arguments: [Any],
        _ parse: (inout PredicateParser) throws(PredicateSyntaxError) -> Result
    ) throws -> Result {
        var parser = PredicateParser(format: format, arguments: arguments)
        do {
            return try parse(&parser)
        } catch {
            throw ObjectStackError(code: .malformedPredicate, message: error.description, cause: error)
        }
    }

    /// Parses the whole format string as one expression, such as `books.@count` for a derived attribute.
    mutating func parseExpression() throws(PredicateSyntaxError) -> PredicateExpression {
        try start(ifEmpty: "empty expression")
        allowsCalls = true
        defer { allowsCalls = false }
        let expression = try parseSum()
        try finish(expected: "the end of the expression")
        return expression
    }

    // MARK: - Predicates

    /// Starts (or restarts) at the first token, so that parsing twice gives the same result.
    private mutating func start(ifEmpty reason: String) throws(PredicateSyntaxError) {
        lexer = PredicateLexer(lexer.format)
        (previousEnd, argumentIndex, depth) = (0, 0, 0)
        try advance()
        if token.kind == .end { throw error(reason, at: 0) }
    }

    /// Checks that the string was used up; arguments left over are ignored, as NSPredicate ignores them.
    private mutating func finish(expected: String) throws(PredicateSyntaxError) {
        if token.kind == .punctuation(")") { throw error("unbalanced parenthesis", at: token.position) }
        guard token.kind == .end else { throw unexpected(expected) }
    }

    /// How many format arguments the last parse left unused (NSPredicate ignores them too).
    var unusedArgumentCount: Int { max(0, arguments.count - argumentIndex) }

    /// `a OR b OR …` for `.or`, `a AND b AND …` for `.and`; a chain becomes one flat node.
    private mutating func parseCompound(_ keyword: PredicateKeyword) throws(PredicateSyntaxError) -> PredicateNode {
        var operands: [PredicateNode] = []
        repeat {
            operands.append(try keyword == .or ? parseCompound(.and) : parseNot())
        } while try skip(.keyword(keyword))
        guard operands.count > 1 else { return operands[0] }
        return keyword == .or ? .or(operands) : .and(operands)
    }

    /// `NOT p`, `(p)`, `TRUEPREDICATE`, `FALSEPREDICATE` or a comparison.
    private mutating func parseNot() throws(PredicateSyntaxError) -> PredicateNode {
        try enter()
        defer { depth -= 1 }
        if try skip(.keyword(.not)) { return .not(try parseNot()) }
        switch token.kind {
        case .punctuation("(") where !opensOperand():
            let open = token.position
            try advance()
            let node = try parseCompound(.or)
            try close(open, expected: "AND, OR or ')'")
            return node
        case .keyword(.truePredicate), .keyword(.falsePredicate):
            let value = token.kind == .keyword(.truePredicate)
            try advance()
            return .constant(value)
        default:
            return .comparison(try parseComparison())
        }
    }

    /// `[ANY|SOME|ALL|NONE] lhs op[options] rhs`.
    private mutating func parseComparison() throws(PredicateSyntaxError) -> PredicateComparison {
        let quantifiers: [PredicateKeyword: PredicateQuantifier] = [.any: .any, .some: .any, .all: .all, .none: .none]
        var quantifier = PredicateQuantifier.direct
        if case .keyword(let word) = token.kind, let match = quantifiers[word] {
            quantifier = match
            try advance()
        }
        let start = token.range.lowerBound
        let lhs = try parseSum()
        guard case .comparison(let op) = token.kind else {
            throw unexpected("an operator after '\(lexer.text(from: start, to: previousEnd))'")
        }
        try advance()
        let options = try parseOptions()
        return PredicateComparison(lhs, op, try parseSum(), quantifier: quantifier, options: options)
    }

    /// Whether the `(` at the current token opens an operand, such as `(price + 1) * 2 > 10`, rather than a
    /// group of predicates: what follows its matching `)` is an arithmetic or comparison operator. Looks ahead
    /// on a copy of the lexer; gives up (a group) on a lexing error or past the nesting limit.
    private func opensOperand() -> Bool {
        var scanner = lexer
        var open = 1
        do {
            while open > 0 {
                let next = try scanner.next()
                switch next.kind {
                case .punctuation("("): open += 1
                case .punctuation(")"): open -= 1
                case .end: return false
                default: break
                }
                if open > Self.maximumDepth { return false }
            }
            switch try scanner.next().kind {
            case .arithmetic, .comparison: return true
            default: return false
            }
        } catch {
            return false
        }
    }

    /// `[c]`, `[d]`, `[n]` or any combination after an operator.
    private mutating func parseOptions() throws(PredicateSyntaxError) -> PredicateOptions {
        guard try skip(.punctuation("[")) else { return [] }
        let flags: [String: PredicateOptions] = ["c": .caseInsensitive, "d": .diacriticInsensitive, "n": .normalized]
        var options: PredicateOptions = []
        switch token.kind {
        case .identifier, .keyword:
            for (offset, letter) in token.text.enumerated() {
                guard let flag = flags[letter.lowercased()] else {
                    throw error("unknown option '\(letter)'", at: token.position + offset)
                }
                options.insert(flag)
            }
            try advance()
        default:
            throw unexpected("comparison options such as [cd]")
        }
        guard try skip(.punctuation("]")) else { throw unexpected("']' after the options") }
        return options
    }

    // MARK: - Expressions

    /// `a + b - c…`: one side of a comparison, sums of products of powers (left-associative).
    private mutating func parseSum() throws(PredicateSyntaxError) -> PredicateExpression {
        try parseChain(precedence: 1)
    }

    /// A left-associative chain of the operators of one precedence (`+ -`, `* /` or `**`), whose operands are
    /// chains of the next tighter one (unary expressions for `**`: `-2 ** 2` is 4, as `-2` is a number). Each
    /// operator nests the tree one level deeper, so each counts against `maximumDepth`: whoever walks the tree
    /// recursively stays on the stack.
    private mutating func parseChain(precedence: Int) throws(PredicateSyntaxError) -> PredicateExpression {
        var levels = 0
        defer { depth -= levels }
        var expression = precedence == 3 ? try parseUnary() : try parseChain(precedence: precedence + 1)
        while case .arithmetic(let op) = token.kind, op.precedence == precedence {
            try enter()
            levels += 1
            try advance()
            expression = .arithmetic(
                op, expression, precedence == 3 ? try parseUnary() : try parseChain(precedence: precedence + 1))
        }
        return expression
    }

    /// `-operand`; minus on a number literal gives the negative number, as `-3` without a space does.
    private mutating func parseUnary() throws(PredicateSyntaxError) -> PredicateExpression {
        guard token.kind == .arithmetic(.subtract) else { return try parseOperand() }
        try enter()
        defer { depth -= 1 }
        try advance()
        let operand = try parseUnary()
        switch operand {
        case .constant(.integer(let value)) where value != .min: return .constant(.integer(-value))
        case .constant(.double(let value)): return .constant(.double(-value))
        default: return .negate(operand)
        }
    }

    /// A single operand: a literal, key path, variable, argument, list, subquery, CAST or `(expression)`.
    private mutating func parseOperand() throws(PredicateSyntaxError) -> PredicateExpression {
        try enter()
        defer { depth -= 1 }
        let current = token
        if let value = literal(current.kind) {
            try advance()
            return .constant(value)
        }
        switch current.kind {
        case .keyword(.`self`):
            try advance()
            return .keyPath(try parsePath())
        case .identifier(let name):
            try advance()
            if token.kind == .punctuation("(") { return try parseFunction(name) }
            return .keyPath([name] + (try parsePath()))
        case .functionName(let name):
            try advance()
            guard token.kind == .punctuation("(") else { throw unexpected("'(' after the function name '\(name)'") }
            return try parseFunction(name)
        case .collectionOperator(let name):
            try advance()
            return .keyPath([name] + (try parsePath()))
        case .variable(let name):
            try advance()
            return .variable(name, try parsePath())
        case .argument(let kind):
            let expression = try argument(kind, placeholder: current)
            try advance()
            guard case .keyPath(let path) = expression else { return expression }
            return .keyPath(path + (try parsePath()))
        case .punctuation("("):
            try advance()
            let expression = try parseSum()
            try close(current.position, expected: "an arithmetic operator or ')'")
            return expression
        case .punctuation("{"):
            return try parseList()
        case .keyword(.subquery):
            return try parseSubquery()
        case .keyword(.cast):
            return try parseCast()
        case .keyword(.function) where allowsCalls:
            return try parseCall()
        default:
            throw unexpected("an expression")
        }
    }

    /// The constant a literal token stands for, if it is one.
    private func literal(_ kind: PredicateToken.Kind) -> StoreValue? {
        switch kind {
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .double(value)
        case .keyword(.true), .keyword(.yes): return .boolean(true)
        case .keyword(.false), .keyword(.no): return .boolean(false)
        case .keyword(.nil), .keyword(.null): return .null
        default: return nil
        }
    }

    /// The `.key.key…` and subscripts (`[FIRST]`…) that may follow a key path, a variable or a subquery.
    private mutating func parsePath() throws(PredicateSyntaxError) -> [String] {
        var path: [String] = []
        while true {
            if token.kind == .punctuation("[") {
                path.append(try parseSubscript())
                continue
            }
            guard try skip(.punctuation(".")) else { break }
            let key: String?
            switch token.kind {
            case .identifier(let name), .collectionOperator(let name): key = name
            // Reserved words are plain keys after a dot: `item.size` is unambiguous.
            case .keyword, .comparison: key = PredicateLexer.isIdentifier(token.text) ? token.text : nil
            default: key = nil
            }
            guard let key else { throw unexpected("a key after '.'") }
            path.append(key)
            try advance()
        }
        return path
    }

    /// `[FIRST]`, `[LAST]`, `[SIZE]`, `[n]` or `[%d]`, as the key-path component that stands for it.
    private mutating func parseSubscript() throws(PredicateSyntaxError) -> String {
        let open = token.position
        try advance()
        let start = token
        let subscriptValue: PredicateSubscript
        switch start.kind {
        case .keyword(.first): subscriptValue = .first
        case .keyword(.last): subscriptValue = .last
        case .keyword(.size): subscriptValue = .size
        case .integer(let index) where index >= 0: subscriptValue = .index(Int(index))
        case .argument(let kind) where kind != .keyPath:
            guard case .constant(.integer(let index)) = try argument(kind, placeholder: start), index >= 0 else {
                throw error("a subscript argument must be a non-negative integer", at: start.position)
            }
            subscriptValue = .index(Int(index))
        default:
            throw unexpected("FIRST, LAST, SIZE or a non-negative index in the subscript")
        }
        try advance()
        if token.kind == .end { throw error("unbalanced bracket", at: open) }
        guard try skip(.punctuation("]")) else { throw unexpected("']' after the subscript") }
        return subscriptValue.component
    }

    /// Takes the next format argument for a placeholder token and converts it.
    private mutating func argument(
        _ kind: PredicateArgumentKind, placeholder: PredicateToken
    ) throws(PredicateSyntaxError) -> PredicateExpression {
        guard argumentIndex < arguments.count else {
            throw error("missing argument for \(placeholder.text)", at: placeholder.position)
        }
        argumentIndex += 1
        do throws(UnsupportedPredicateArgument) {
            return try PredicateArgument.expression(
                for: arguments[argumentIndex - 1], as: kind, placeholder: placeholder.text)
        } catch {
            throw self.error(error.reason, at: placeholder.position)
        }
    }

    /// `{a, b, …}`
    private mutating func parseList() throws(PredicateSyntaxError) -> PredicateExpression {
        let open = token.position
        try advance()
        var items: [PredicateExpression] = []
        while !(try skip(.punctuation("}"))) {
            if token.kind == .end { throw error("unbalanced brace", at: open) }
            if !items.isEmpty, !(try skip(.punctuation(","))) { throw unexpected("',' or '}' in the list") }
            items.append(try parseSum())
        }
        return .list(items)
    }

    /// `SUBQUERY(collection, $variable, predicate)`, then an optional key path such as `.@count`.
    private mutating func parseSubquery() throws(PredicateSyntaxError) -> PredicateExpression {
        let open = try openCall("SUBQUERY")
        let collection = try parseSum()
        try expect(",", "',' after the SUBQUERY collection")
        guard case .variable(let variable) = token.kind else {
            throw unexpected("a variable such as '$x' as the second SUBQUERY argument")
        }
        try advance()
        try expect(",", "',' after the SUBQUERY variable")
        let predicate = try parseCompound(.or)
        try close(open, expected: "AND, OR or ')'")
        return .subquery(collection: collection, variable: variable, predicate: predicate, path: try parsePath())
    }

    /// A function's arguments after its name, from the `(`: `now()`, `lowercase:(name)`, `add:to:(a, 1)`. Whether
    /// the function exists and takes these arguments is for the binder to say.
    private mutating func parseFunction(_ name: String) throws(PredicateSyntaxError) -> PredicateExpression {
        let open = token.position
        try advance()
        var arguments: [PredicateExpression] = []
        while !(try skip(.punctuation(")"))) {
            if token.kind == .end { throw error("unbalanced parenthesis", at: open) }
            if !arguments.isEmpty, !(try skip(.punctuation(","))) {
                throw unexpected("',' or ')' in the arguments of '\(name)'")
            }
            arguments.append(try parseSum())
        }
        return .function(name, arguments)
    }

    /// `FUNCTION(receiver, 'selector', arguments…)`: NSExpression's method call, whose selector is a string literal.
    /// What the receiver may be and which selectors exist is for the binder to say.
    private mutating func parseCall() throws(PredicateSyntaxError) -> PredicateExpression {
        let open = try openCall("FUNCTION")
        let receiver = try parseSum()
        try expect(",", "',' after the FUNCTION receiver")
        guard case .string(let selector) = token.kind, !selector.isEmpty else {
            throw unexpected("the selector as a quoted string, such as 'uppercaseString', after the FUNCTION receiver")
        }
        try advance()
        var arguments: [PredicateExpression] = []
        while try skip(.punctuation(",")) {
            arguments.append(try parseSum())
        }
        try close(open, expected: "',' or ')' in the FUNCTION arguments")
        return .call(receiver: receiver, selector: selector, arguments: arguments)
    }

    /// `CAST(seconds, "NSDate")`, a date as seconds since the reference date; the only CAST supported.
    private mutating func parseCast() throws(PredicateSyntaxError) -> PredicateExpression {
        let open = try openCall("CAST")
        let valueStart = token.position
        let seconds: Double
        switch try parseOperand() {
        case .constant(.integer(let value)): seconds = Double(value)
        case .constant(.double(let value)) where value.isFinite: seconds = value
        default:
            throw error("CAST to NSDate needs a finite number of seconds since the reference date", at: valueStart)
        }
        try expect(",", "',' after the CAST value")
        let typeStart = token.position
        guard case .constant(.string(let type)) = try parseOperand() else {
            throw error("CAST needs a type name string such as \"NSDate\"", at: typeStart)
        }
        guard type == "NSDate" else { throw error("CAST to '\(type)' is not supported", at: typeStart) }
        try close(open, expected: "')' after the CAST type")
        return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
    }

    // MARK: - Tokens

    /// Moves to the next token.
    private mutating func advance() throws(PredicateSyntaxError) {
        previousEnd = token.range.upperBound
        token = try lexer.next()
    }

    /// Consumes the current token when it is `kind`.
    private mutating func skip(_ kind: PredicateToken.Kind) throws(PredicateSyntaxError) -> Bool {
        guard token.kind == kind else { return false }
        try advance()
        return true
    }

    /// Consumes the punctuation `mark`, or fails saying what was expected.
    private mutating func expect(_ mark: Unicode.Scalar, _ description: String) throws(PredicateSyntaxError) {
        guard try skip(.punctuation(mark)) else { throw unexpected(description) }
    }

    /// Consumes a keyword such as SUBQUERY and its `(`, returning the position of the `(`.
    private mutating func openCall(_ name: String) throws(PredicateSyntaxError) -> Int {
        try advance()
        let open = token.position
        try expect("(", "'(' after \(name)")
        return open
    }

    /// Consumes the `)` matching the `(` at `open`.
    private mutating func close(_ open: Int, expected: String) throws(PredicateSyntaxError) {
        if token.kind == .end { throw error("unbalanced parenthesis", at: open) }
        guard try skip(.punctuation(")")) else { throw unexpected(expected) }
    }

    /// Counts one level of nesting, failing past `maximumDepth`; the caller undoes it with `defer`.
    private mutating func enter() throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("predicate is nested too deeply", at: token.position) }
    }

    /// The error for a current token that is not what the grammar expects here.
    private func unexpected(_ expected: String) -> PredicateSyntaxError {
        switch token.kind {
        case .end:
            return error("expected \(expected)", at: token.position)
        case .unsupported(let feature):
            return error("\(feature) is not supported", at: token.position)
        case .keyword(let word) where [.function, .fetch, .anyKey].contains(word):
            return error("\(word.rawValue) is not supported", at: token.position)
        default:
            return error("unexpected '\(token.text)', expected \(expected)", at: token.position)
        }
    }

    private func error(_ reason: String, at position: Int) -> PredicateSyntaxError {
        lexer.error(reason, at: position)
    }
}
