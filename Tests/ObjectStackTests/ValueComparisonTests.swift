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
}
