import Foundation

/// A reserved word of the format-string language other than the comparison operators.
///
/// Reserved words cannot be key names unless escaped with `#` (`#SIZE`), except after a `.` in a key path.
enum PredicateKeyword: String, CaseIterable {
    case and = "AND", or = "OR", not = "NOT"
    case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
    case `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO", `nil` = "NIL", null = "NULL"
    case `self` = "SELF", subquery = "SUBQUERY", cast = "CAST"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case function = "FUNCTION", fetch = "FETCH", anyKey = "ANYKEY", first = "FIRST", last = "LAST", size = "SIZE"
    case caseInsensitive = "CASEINSENSITIVE", ci = "CI"

    /// Whether a word is reserved, as a keyword or a comparison operator (`IN`, `LIKE`…), in any letter case.
    static func isReserved(_ word: String) -> Bool {
        let upper = word.uppercased()
        return PredicateKeyword(rawValue: upper) != nil || PredicateOperator(rawValue: upper) != nil
    }
}

/// One token of a format string, with where it was read from.
struct PredicateToken {
    /// What a token is.
    enum Kind: Equatable {
        /// A key name: a plain word, or a `#`-escaped one (`#IN` is the key `IN`).
        case identifier(String)
        case keyword(PredicateKeyword)
        /// `==`, `<>`, `IN`, `BEGINSWITH`…; `&&`, `||` and `!` are the keywords AND, OR and NOT.
        case comparison(PredicateOperator)
        /// `@count`, `@sum`…, with the `@`.
        case collectionOperator(String)
        /// A function name ending in a colon, as NSExpression spells its selectors: `lowercase:`, `add:to:`.
        case functionName(String)
        /// `$name`, without the `$`.
        case variable(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        case argument(PredicateArgumentKind)
        /// `+ - * / **`; a `-` directly before a digit where no operand ends is a number's sign instead.
        case arithmetic(ArithmeticOperator)
        /// One of `( ) { } [ ] , .`
        case punctuation(Unicode.Scalar)
        /// A token of a feature the parser rejects, named for the error message: "assignment (':=')".
        case unsupported(String)
        case end
    }

    var kind: Kind
    /// The token as written, for error messages.
    var text: String
    /// Character offset of the token's start, for errors.
    var position: Int
    /// Unicode-scalar offsets of the token, for quoting source text.
    var range: Range<Int>

    /// Whether the token can end an operand, so that a following `-` is subtraction rather than a sign.
    var endsOperand: Bool {
        switch kind {
        case .identifier, .collectionOperator, .variable, .string, .integer, .double, .argument: return true
        case .keyword(let word): return [.true, .yes, .false, .no, .nil, .null, .`self`].contains(word)
        case .punctuation(let mark): return mark == ")" || mark == "}" || mark == "]"
        case .comparison, .arithmetic, .unsupported, .functionName, .end: return false
        }
    }
}

/// What a `%` placeholder stands for.
enum PredicateArgumentKind: Equatable {
    /// `%@`: any object; collections become lists.
    case object
    /// `%K`: a key path given as a string.
    case keyPath
    /// `%d`, `%i`, `%ld`, `%lld`, `%lu`, `%u`, `%hd`…
    case integer
    /// `%f`, `%lf`, `%g`, `%e`.
    case double

    /// The placeholders the format-string language accepts, without the `%`.
    static let specifiers: [String: PredicateArgumentKind] = {
        var table: [String: PredicateArgumentKind] = ["@": .object, "K": .keyPath]
        for length in ["", "h", "hh", "l", "ll", "q"] {
            for conversion in ["d", "i", "u"] { table[length + conversion] = .integer }
        }
        for length in ["", "l"] {
            for conversion in ["f", "g", "e"] { table[length + conversion] = .double }
        }
        return table
    }()
}

/// Splits a format string into tokens on demand, tracking character offsets for error messages.
///
/// It reads Unicode scalars, not Characters: a quote or a backslash followed by a combining mark is one
/// Character, yet must still end a string or start an escape. Error positions are converted to Characters.
struct PredicateLexer {
    /// The format string as given, for errors.
    let format: String
    private let scalars: [Unicode.Scalar]
    /// The Character offset of each scalar, plus one entry for the end of the string.
    private let offsets: [Int]
    /// Index into `scalars` of the next scalar to read.
    private var index = 0
    /// Whether the previous token ended an operand, which decides whether `-1` is a number or a subtraction.
    private var afterOperand = false
    /// Whether the last `[` opened comparison options (`==[c]`) rather than a subscript: its `]` ends no operand.
    private var inOptions = false
    private var afterComparison = false

    /// The collection operators a key path may hold.
    static let collectionOperators: Set<String> = [
        "@count", "@sum", "@avg", "@min", "@max", "@distinctUnionOfSets", "@distinctUnionOfObjects",
        "@distinctUnionOfArrays", "@unionOfSets", "@unionOfObjects", "@unionOfArrays",
    ]

    /// Creates a lexer positioned at the start of `format`.
    init(_ format: String) {
        self.format = format
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        for (offset, character) in format.enumerated() {
            scalars += character.unicodeScalars
            offsets += repeatElement(offset, count: character.unicodeScalars.count)
        }
        self.scalars = scalars
        self.offsets = offsets + [format.count]
    }

    /// Whether `scalar` may start a key name.
    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    /// Whether `scalar` may continue a key name; combining marks do, so decomposed accents stay in the name.
    static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return isIdentifierStart(scalar) || digitValue(scalar, radix: 10) != nil
        }
    }

    /// Whether `name` can be written as a key without escaping (reserved words still need a `#`).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierContinue)
    }

    /// The value of an ASCII digit in `radix` (up to 36), or nil; only ASCII counts, so "٣" is not a digit.
    static func digitValue(_ scalar: Unicode.Scalar, radix: Int) -> Int? {
        guard scalar.isASCII else { return nil }
        let ascii = Int(scalar.value)
        let value: Int
        switch ascii {
        case 48...57: value = ascii - 48
        case 65...90: value = ascii - 55
        case 97...122: value = ascii - 87
        default: return nil
        }
        return value < radix ? value : nil
    }

    /// The source text between two scalar offsets (a token's `range` bounds).
    func text(from start: Int, to end: Int) -> String {
        let range = min(max(0, start), scalars.count)..<min(max(start, end), scalars.count)
        return String(String.UnicodeScalarView(scalars[range]))
    }

    /// An error at a character offset.
    func error(_ reason: String, at position: Int) -> PredicateSyntaxError {
        PredicateSyntaxError(format: format, position: position, reason: reason)
    }

    /// An error at a scalar offset.
    private func error(_ reason: String, atScalar index: Int) -> PredicateSyntaxError {
        error(reason, at: offsets[min(max(0, index), scalars.count)])
    }

    /// Reads the next token; at the end of the string, returns `.end` tokens forever.
    mutating func next() throws(PredicateSyntaxError) -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
        let start = index
        let kind = try scan()
        let token = PredicateToken(
            kind: kind, text: text(from: start, to: index), position: offsets[start], range: start..<index)
        afterOperand = token.endsOperand
        switch kind {
        case .punctuation("["): inOptions = afterComparison
        case .punctuation("]"):
            if inOptions { afterOperand = false }
            inOptions = false
        default: break
        }
        if case .comparison = kind { afterComparison = true } else { afterComparison = false }
        return token
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// Consumes `scalar` when it comes next.
    private mutating func skip(_ scalar: Unicode.Scalar) -> Bool {
        guard peek() == scalar else { return false }
        index += 1
        return true
    }

    /// Consumes scalars while `condition` holds and returns them.
    private mutating func take(while condition: (Unicode.Scalar) -> Bool) -> String {
        let start = index
        while let scalar = peek(), condition(scalar) { index += 1 }
        return text(from: start, to: index)
    }

    private mutating func scan() throws(PredicateSyntaxError) -> PredicateToken.Kind {
        guard let scalar = peek() else { return .end }
        let start = index
        if Self.isIdentifierStart(scalar) {
            let word = take(while: Self.isIdentifierContinue)
            if peek() == ":", peek(1) != "=" { return .functionName(selector(startingWith: word)) }
            if let op = PredicateOperator(rawValue: word.uppercased()) { return .comparison(op) }
            return PredicateKeyword(rawValue: word.uppercased()).map { .keyword($0) } ?? .identifier(word)
        }
        if Self.digitValue(scalar, radix: 10) != nil
            || (scalar == "-" && !afterOperand && peek(1).flatMap { Self.digitValue($0, radix: 10) } != nil)
        {
            return try number()
        }
        index += 1
        switch scalar {
        case "\"", "'": return .string(try stringLiteral(quote: scalar, start: start))
        case "(", ")", "{", "}", "[", "]", ",", ".": return .punctuation(scalar)
        case "=": return .comparison(skip("<") ? .lessThanOrEqual : skip(">") ? .greaterThanOrEqual : skipEqual())
        case "<": return .comparison(skip("=") ? .lessThanOrEqual : skip(">") ? .notEqual : .lessThan)
        case ">": return .comparison(skip("=") ? .greaterThanOrEqual : .greaterThan)
        case "!": return skip("=") ? .comparison(.notEqual) : .keyword(.not)
        case "&" where skip("&"): return .keyword(.and)
        case "|" where skip("|"): return .keyword(.or)
        case ":" where skip("="): return .unsupported("assignment (':=')")
        case "+": return .arithmetic(.add)
        case "-": return .arithmetic(.subtract)
        case "/": return .arithmetic(.divide)
        case "*": return .arithmetic(skip("*") ? .power : .multiply)
        case "#":
            let name = take(while: Self.isIdentifierContinue)
            guard !name.isEmpty else { throw error("expected a key name after '#'", atScalar: start) }
            return .identifier(name)
        case "$":
            let name = take(while: Self.isIdentifierContinue)
            guard !name.isEmpty else { throw error("expected a variable name after '$'", atScalar: start) }
            return .variable(name)
        case "@":
            let name = "@" + take(while: Self.isIdentifierContinue)
            guard Self.collectionOperators.contains(name) else {
                throw error(
                    name == "@"
                        ? "expected a collection operator such as '@count' after '@'"
                        : "unsupported collection operator '\(name)'", atScalar: start)
            }
            return .collectionOperator(name)
        case "%": return .argument(try placeholder(start: start))
        default: throw error("unexpected character '\(scalar)'", atScalar: start)
        }
    }

    /// The rest of a selector after its first word, whose colon comes next: `word:` then `part:` as long as a word
    /// and a colon follow (`raise:toPower:`).
    private mutating func selector(startingWith word: String) -> String {
        var name = word
        while skip(":") {
            name += ":"
            guard let next = peek(), Self.isIdentifierStart(next) else { break }
            let mark = index
            let part = take(while: Self.isIdentifierContinue)
            guard peek() == ":", peek(1) != "=" else {
                index = mark
                break
            }
            name += part
        }
        return name
    }

    /// `=` alone and `==` both mean equality.
    private mutating func skipEqual() -> PredicateOperator {
        _ = skip("=")
        return .equal
    }

    /// Reads a placeholder after its `%`: a length modifier and one conversion character.
    private mutating func placeholder(start: Int) throws(PredicateSyntaxError) -> PredicateArgumentKind {
        if skip("%") { throw error("'%%' is not valid in a predicate", atScalar: start) }
        let modifier = take(while: { "hlq".unicodeScalars.contains($0) })
        let conversion = peek().map { String($0) } ?? ""
        index += conversion.isEmpty ? 0 : 1
        guard let kind = PredicateArgumentKind.specifiers[modifier + conversion] else {
            throw error("unsupported format specifier '%\(modifier + conversion)'", atScalar: start)
        }
        return kind
    }

    /// Reads an integer (decimal, `0x`, `0o` or `0b`) or a floating-point number, with an optional leading `-`.
    private mutating func number() throws(PredicateSyntaxError) -> PredicateToken.Kind {
        let start = index
        let negative = skip("-")
        let radixes: [Unicode.Scalar: (Int, String)] = [
            "x": (16, "hexadecimal"), "X": (16, "hexadecimal"), "o": (8, "octal"), "O": (8, "octal"),
            "b": (2, "binary"), "B": (2, "binary"),
        ]
        if peek() == "0", let marker = peek(1), let (radix, name) = radixes[marker] {
            index += 2
            let digits = take(while: Self.isIdentifierContinue)
            let valid = digits.unicodeScalars.allSatisfy { Self.digitValue($0, radix: radix) != nil }
            guard !digits.isEmpty, valid else {
                throw error("invalid \(name) literal '\(text(from: start, to: index))'", atScalar: start)
            }
            return .integer(try integer(UInt64(digits, radix: radix), negative: negative, start: start))
        }
        let isDigit = { (scalar: Unicode.Scalar) in Self.digitValue(scalar, radix: 10) != nil }
        var digits = take(while: isDigit)
        var isInteger = true
        if peek() == ".", peek(1).map(isDigit) == true {
            index += 1
            digits += "." + take(while: isDigit)
            isInteger = false
        }
        if let e = peek(), e == "e" || e == "E" {
            let signed = peek(1) == "+" || peek(1) == "-"
            if let first = peek(signed ? 2 : 1), isDigit(first) {
                index += signed ? 2 : 1
                digits += "e" + (signed ? text(from: index - 1, to: index) : "") + take(while: isDigit)
                isInteger = false
            }
        }
        if let next = peek(), Self.isIdentifierContinue(next) {
            _ = take(while: Self.isIdentifierContinue)
            throw error("invalid number literal '\(text(from: start, to: index))'", atScalar: start)
        }
        guard isInteger else {
            // Double(_:) turns an overflowing exponent into infinity, which the printer relies on.
            guard let value = Double((negative ? "-" : "") + digits) else {
                throw error("invalid number literal '\(text(from: start, to: index))'", atScalar: start)
            }
            return .double(value)
        }
        return .integer(try integer(UInt64(digits), negative: negative, start: start))
    }

    /// Applies the sign to a magnitude, which may be one past `Int64.max` when negative.
    private func integer(_ magnitude: UInt64?, negative: Bool, start: Int) throws(PredicateSyntaxError) -> Int64 {
        if let magnitude {
            if !negative, let value = Int64(exactly: magnitude) { return value }
            if negative, magnitude <= UInt64(Int64.max) + 1 { return Int64(truncatingIfNeeded: 0 &- magnitude) }
        }
        throw error("integer literal '\(text(from: start, to: index))' is out of range", atScalar: start)
    }

    /// Reads a quoted string after its opening quote, decoding escapes.
    private mutating func stringLiteral(quote: Unicode.Scalar, start: Int) throws(PredicateSyntaxError) -> String {
        var value = String.UnicodeScalarView()
        while let scalar = peek() {
            index += 1
            if scalar == quote { return String(value) }
            guard scalar == "\\" else {
                value.append(scalar)
                continue
            }
            let escapeStart = index - 1
            let simple: [Unicode.Scalar: Unicode.Scalar] = [
                "\"": "\"", "'": "'", "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "0": "\0",
            ]
            guard let escaped = peek() else { break }
            index += 1
            if let replacement = simple[escaped] {
                value.append(replacement)
            } else if escaped == "*" || escaped == "?" {
                // LIKE's escapes for a literal `*` or `?`: the backslash stays for LIKE to read.
                value.append("\\")
                value.append(escaped)
            } else if escaped == "u" {
                value.append(try unicodeEscape(start: escapeStart))
            } else {
                throw error("invalid escape sequence '\\\(escaped)'", atScalar: escapeStart)
            }
        }
        throw error("unterminated string literal", atScalar: start)
    }

    /// Decodes the hex digits of a `\uXXXX` escape, joining a UTF-16 surrogate pair written as two escapes.
    private mutating func unicodeEscape(start: Int) throws(PredicateSyntaxError) -> Unicode.Scalar {
        func hexUnit() -> UInt32? {
            let digits = (0..<4).compactMap { peek($0).flatMap { Self.digitValue($0, radix: 16) } }
            guard digits.count == 4 else { return nil }
            index += 4
            return digits.reduce(0) { $0 * 16 + UInt32($1) }
        }
        let invalid = error("invalid unicode escape '\(text(from: start, to: start + 6))'", atScalar: start)
        guard let unit = hexUnit() else { throw invalid }
        if (0xD800..<0xDC00).contains(unit), peek() == "\\", peek(1) == "u" {
            index += 2
            if let low = hexUnit(), (0xDC00..<0xE000).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            {
                return scalar
            }
            throw invalid
        }
        guard let scalar = Unicode.Scalar(unit) else { throw invalid }
        return scalar
    }
}
