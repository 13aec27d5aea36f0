import Foundation
import ObjectStack
import Testing

@Suite("String operators")
struct ValueComparisonTests {
    static func contains(_ text: String, _ needle: String, _ options: PredicateOptions = []) -> Bool {
        ValueComparison.stringOperator(.contains, text, needle, options) { _, _ in nil }
    }

    @Test("CONTAINS compares bytes, also around NUL, where Foundation's contains traps or errs on Linux")
    func containsWithNUL() {
        #expect(!Self.contains("é", "é\u{0}"))
        #expect(!Self.contains("x", "x\u{0}"))
        #expect(Self.contains("a\u{0}b", "\u{0}b"))
        #expect(Self.contains("résumé", "sum"))
        #expect(Self.contains("RÉSUMÉ", "esu", [.caseInsensitive, .diacriticInsensitive]))
        #expect(!Self.contains("RÉSUMÉ", "esu", [.caseInsensitive]))
        #expect(Self.contains("anything", ""))
        #expect(!Self.contains("", "a"))
    }

    @Test(
        "LIKE reads a backslash as making the next character literal",
        arguments: [
            ("a*b", #"a\*b"#, true), ("axb", #"a\*b"#, false), ("a?b", #"a\?b"#, true), ("axb", #"a\?b"#, false),
            ("a*", #"a\**"#, true), ("a*yz", #"a\**"#, true), ("ab", #"a\**"#, false), (#"a\b"#, #"a\\b"#, true),
            ("axb", #"a\xb"#, true), (#"ab\"#, #"ab\"#, true), ("ab", #"ab\"#, false),
            ("a*b", "a*b", true), ("ab", "a*b", true), ("a?", "a?", true), ("ax", "a?", true),
        ])
    func likeEscapes(_ text: String, _ pattern: String, _ matches: Bool) {
        #expect(ValueComparison.like(text, pattern, []) == matches)
        #expect(ValueComparison.like(text.uppercased(), pattern, .caseInsensitive) == matches)
    }
}

@Suite("Arithmetic")
struct ArithmeticTests {
    @Test(
        "integers stay integers, floating point when either side is, nil for nil and division by zero",
        arguments: [
            (ArithmeticOperator.add, StoreValue.integer(2), StoreValue.integer(3), StoreValue.integer(5)),
            (.subtract, .integer(2), .integer(3), .integer(-1)),
            (.multiply, .integer(4), .integer(3), .integer(12)),
            (.divide, .integer(7), .integer(2), .integer(3)),
            (.divide, .integer(-7), .integer(2), .integer(-3)),
            (.divide, .integer(7), .double(2), .double(3.5)),
            (.divide, .double(7), .integer(2), .double(3.5)),
            (.add, .boolean(true), .integer(1), .integer(2)),
            (.multiply, .decimal(Decimal(string: "1.5")!), .integer(2), .double(3)),
            (.divide, .integer(1), .integer(0), .null),
            (.divide, .double(1), .double(0), .null),
            (.divide, .integer(0), .double(-0.0), .null),
            (.add, .integer(1), .null, .null),
            (.subtract, .null, .double(1), .null),
            (.add, .string("1"), .integer(1), .null),
            (.add, .integer(.max), .integer(1), .double(Double(Int64.max) + 1)),
            (.multiply, .integer(.min), .integer(-1), .double(-Double(Int64.min))),
            (.divide, .integer(.min), .integer(-1), .double(-Double(Int64.min))),
            (.subtract, .double(.infinity), .double(.infinity), .null),
            (.multiply, .double(1e308), .integer(10), .double(.infinity)),
        ])
    func arithmetic(_ op: ArithmeticOperator, _ a: StoreValue, _ b: StoreValue, _ expected: StoreValue) {
        #expect(ValueComparison.arithmetic(op, a, b) == expected)
    }
}
