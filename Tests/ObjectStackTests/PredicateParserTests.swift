import Foundation
import Testing

@testable import ObjectStack

// MARK: - Helpers

/// Foundation declares a `PredicateExpression` protocol too, so the tests name ours through an alias.
typealias SyntaxExpression = ObjectStack.PredicateExpression

private func parse(_ format: String, _ arguments: [Any] = []) throws(PredicateSyntaxError) -> PredicateNode {
    var parser = PredicateParser(format: format, arguments: arguments)
    return try parser.parsePredicate()
}

private func key(_ path: String) -> SyntaxExpression {
    .keyPath(path.split(separator: ".").map(String.init))
}

private func int(_ value: Int64) -> SyntaxExpression { .constant(.integer(value)) }
private func double(_ value: Double) -> SyntaxExpression { .constant(.double(value)) }
private func str(_ value: String) -> SyntaxExpression { .constant(.string(value)) }
private func bool(_ value: Bool) -> SyntaxExpression { .constant(.boolean(value)) }
private let null = SyntaxExpression.constant(.null)

private func cmp(
    _ lhs: SyntaxExpression, _ op: PredicateOperator, _ rhs: SyntaxExpression,
    _ quantifier: PredicateQuantifier = .direct, _ options: PredicateOptions = []
) -> PredicateNode {
    .comparison(PredicateComparison(lhs, op, rhs, quantifier: quantifier, options: options))
}

private func math(_ lhs: SyntaxExpression, _ op: ArithmeticOperator, _ rhs: SyntaxExpression) -> SyntaxExpression {
    .arithmetic(op, lhs, rhs)
}

private let a1 = cmp(key("a"), .equal, int(1))
private let b2 = cmp(key("b"), .equal, int(2))
private let c3 = cmp(key("c"), .equal, int(3))

/// The tree with booleans as the integers 1 and 0: they print as NSPredicate prints them and read back so.
private func booleansAsIntegers(_ node: PredicateNode) -> PredicateNode {
    switch node {
    case .constant: return node
    case .and(let nodes): return .and(nodes.map(booleansAsIntegers))
    case .or(let nodes): return .or(nodes.map(booleansAsIntegers))
    case .not(let inner): return .not(booleansAsIntegers(inner))
    case .comparison(var comparison):
        comparison.lhs = booleansAsIntegers(comparison.lhs)
        comparison.rhs = booleansAsIntegers(comparison.rhs)
        return .comparison(comparison)
    }
}

private func booleansAsIntegers(_ expression: SyntaxExpression) -> SyntaxExpression {
    switch expression {
    case .constant(.boolean(let value)): return int(value ? 1 : 0)
    case .constant, .keyPath, .variable: return expression
    case .list(let items): return .list(items.map(booleansAsIntegers))
    case .subquery(let collection, let variable, let predicate, let path):
        return .subquery(
            collection: booleansAsIntegers(collection), variable: variable,
            predicate: booleansAsIntegers(predicate), path: path)
    case .arithmetic(let op, let lhs, let rhs): return .arithmetic(op, booleansAsIntegers(lhs), booleansAsIntegers(rhs))
    case .negate(let operand): return .negate(booleansAsIntegers(operand))
    case .function(let name, let arguments): return .function(name, arguments.map(booleansAsIntegers))
    case .call(let receiver, let selector, let arguments):
        return .call(
            receiver: booleansAsIntegers(receiver), selector: selector, arguments: arguments.map(booleansAsIntegers))
    }
}

/// A test-only argument type standing in for managed objects.
private struct Tagged: PredicateArgumentConvertible {
    var predicateArgument: StoreValue { .integer(42) }
}

/// A type the converter does not know.
private struct Opaque {}

/// A well-formed format string with its arguments and the tree it must parse to.
/// Arguments are immutable test data, hence `@unchecked Sendable`.
struct PredicateWellFormedCase: @unchecked Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [Any]
    let expected: PredicateNode
    /// False for arguments whose constants have no format syntax (UUIDs, data…).
    let roundTrips: Bool

    init(_ format: String, _ arguments: [Any], _ expected: PredicateNode, roundTrips: Bool = true) {
        (self.format, self.arguments, self.expected, self.roundTrips) = (format, arguments, expected, roundTrips)
    }

    init(_ format: String, _ expected: PredicateNode) {
        self.init(format, [], expected)
    }

    var testDescription: String { format }
}

/// A malformed format string with where and why it fails.
struct PredicateMalformedCase: @unchecked Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [Any]
    let position: Int
    let reason: String

    init(_ format: String, _ arguments: [Any] = [], at position: Int, _ reason: String) {
        (self.format, self.arguments, self.position, self.reason) = (format, arguments, position, reason)
    }

    var testDescription: String { format }
}

// MARK: - Tables

private let wellFormed: [PredicateWellFormedCase] = [
    // Comparison operators and their spellings.
    .init("name == \"Alice\"", cmp(key("name"), .equal, str("Alice"))),
    .init("name = 'Alice'", cmp(key("name"), .equal, str("Alice"))),
    .init("age != 3", cmp(key("age"), .notEqual, int(3))),
    .init("age <> 3", cmp(key("age"), .notEqual, int(3))),
    .init("age < 3", cmp(key("age"), .lessThan, int(3))),
    .init("age <= 3", cmp(key("age"), .lessThanOrEqual, int(3))),
    .init("age =< 3", cmp(key("age"), .lessThanOrEqual, int(3))),
    .init("age > -3", cmp(key("age"), .greaterThan, int(-3))),
    .init("age >= 3", cmp(key("age"), .greaterThanOrEqual, int(3))),
    .init("age => 3", cmp(key("age"), .greaterThanOrEqual, int(3))),
    .init("age IN {1, 2, 3}", cmp(key("age"), .in, .list([int(1), int(2), int(3)]))),
    .init("age between {1, 10}", cmp(key("age"), .between, .list([int(1), int(10)]))),
    .init("name BEGINSWITH 'A'", cmp(key("name"), .beginsWith, str("A"))),
    .init("name endswith[c] 'a'", cmp(key("name"), .endsWith, str("a"), .direct, .caseInsensitive)),
    .init(
        "name CONTAINS[cd] \"x\"",
        cmp(key("name"), .contains, str("x"), .direct, [.caseInsensitive, .diacriticInsensitive])),
    .init(
        "name CONTAINS[dc] 'x'",
        cmp(key("name"), .contains, str("x"), .direct, [.caseInsensitive, .diacriticInsensitive])),
    .init("name LIKE[n] 'a*'", cmp(key("name"), .like, str("a*"), .direct, .normalized)),
    .init("name MATCHES '[a-z]+'", cmp(key("name"), .matches, str("[a-z]+"))),
    .init("name ==[c] 'a'", cmp(key("name"), .equal, str("a"), .direct, .caseInsensitive)),
    .init(
        "name !=[cdn] 'a'",
        cmp(key("name"), .notEqual, str("a"), .direct, [.caseInsensitive, .diacriticInsensitive, .normalized])),
    .init("age <[c] 3", cmp(key("age"), .lessThan, int(3), .direct, .caseInsensitive)),
    .init(
        "name == [CD] 'x'",
        cmp(key("name"), .equal, str("x"), .direct, [.caseInsensitive, .diacriticInsensitive])),
    // Compounds.
    .init("a = 1 AND b = 2 AND c = 3", .and([a1, b2, c3])),
    .init("a = 1 && b = 2", .and([a1, b2])),
    .init("a = 1 OR b = 2 || c = 3", .or([a1, b2, c3])),
    .init("a = 1 OR b = 2 AND c = 3", .or([a1, .and([b2, c3])])),
    .init("a = 1 AND b = 2 OR c = 3", .or([.and([a1, b2]), c3])),
    .init("(a = 1 OR b = 2) AND c = 3", .and([.or([a1, b2]), c3])),
    .init("(a = 1 AND b = 2) AND c = 3", .and([.and([a1, b2]), c3])),
    .init("(((a = 1)))", a1),
    .init("NOT a = 1", .not(a1)),
    .init("! a = 1", .not(a1)),
    .init("not NOT a = 1", .not(.not(a1))),
    .init("NOT (a = 1 OR b = 2)", .not(.or([a1, b2]))),
    .init("a = 1 AND (b = 2 OR c = 3) AND NOT a = 1", .and([a1, .or([b2, c3]), .not(a1)])),
    .init("TRUEPREDICATE", .constant(true)),
    .init("FALSEPREDICATE OR a = 1", .or([.constant(false), a1])),
    .init("  a\n==\t1  ", a1),
    // Quantifiers.
    .init("ANY books.pages > 100", cmp(key("books.pages"), .greaterThan, int(100), .any)),
    .init("SOME books.pages > 100", cmp(key("books.pages"), .greaterThan, int(100), .any)),
    .init("ALL books.pages > 100", cmp(key("books.pages"), .greaterThan, int(100), .all)),
    .init("NONE books.title CONTAINS 'x'", cmp(key("books.title"), .contains, str("x"), .none)),
    .init("NOT ANY books.pages > 100", .not(cmp(key("books.pages"), .greaterThan, int(100), .any))),
    .init("ANY tags.name IN {'a', 'b'}", cmp(key("tags.name"), .in, .list([str("a"), str("b")]), .any)),
    // Key paths.
    .init("author.name == \"x\"", cmp(key("author.name"), .equal, str("x"))),
    .init("books.@count > 2", cmp(.keyPath(["books", "@count"]), .greaterThan, int(2))),
    .init("books.@sum.pages >= 1000", cmp(.keyPath(["books", "@sum", "pages"]), .greaterThanOrEqual, int(1000))),
    .init("books.@avg.pages < 3.5", cmp(.keyPath(["books", "@avg", "pages"]), .lessThan, double(3.5))),
    .init(
        "books.@min.pages = books.@max.pages",
        cmp(.keyPath(["books", "@min", "pages"]), .equal, .keyPath(["books", "@max", "pages"]))),
    .init("SELF == %@", [Tagged()], cmp(.keyPath([]), .equal, int(42))),
    .init("self.name == 'x'", cmp(key("name"), .equal, str("x"))),
    .init("#IN == 1", cmp(key("IN"), .equal, int(1))),
    .init(
        "author.#size == 2 AND item.size == 3",
        .and([cmp(key("author.size"), .equal, int(2)), cmp(key("item.size"), .equal, int(3))])),
    .init("prénom == 'x'", cmp(key("prénom"), .equal, str("x"))),
    .init("'abc' == name", cmp(str("abc"), .equal, key("name"))),
    .init("{1, 2} CONTAINS a", cmp(.list([int(1), int(2)]), .contains, key("a"))),
    // Literals.
    .init(#"name == "a\"b\\c\n\t\r\0\u00e9""#, cmp(key("name"), .equal, str("a\"b\\c\n\t\r\0é"))),
    .init(#"name == 'it\'s'"#, cmp(key("name"), .equal, str("it's"))),
    .init(#"name == "\uD83D\uDE00 Zoë""#, cmp(key("name"), .equal, str("😀 Zoë"))),
    .init("n == 0x1F", cmp(key("n"), .equal, int(31))),
    .init(
        "n == 0o17 OR n == 0b101 OR n == -0x10",
        .or([cmp(key("n"), .equal, int(15)), cmp(key("n"), .equal, int(5)), cmp(key("n"), .equal, int(-16))])),
    .init("n == -42", cmp(key("n"), .equal, int(-42))),
    .init("n == 1.5e3", cmp(key("n"), .equal, double(1500))),
    .init("n == 2.5E-2", cmp(key("n"), .equal, double(0.025))),
    .init("n == 1e+3", cmp(key("n"), .equal, double(1000))),
    .init("n == 1.0", cmp(key("n"), .equal, double(1))),
    .init("n == 9223372036854775807", cmp(key("n"), .equal, int(.max))),
    .init("n == -9223372036854775808", cmp(key("n"), .equal, int(.min))),
    .init(
        "flag == TRUE OR flag == yes",
        .or([
            cmp(key("flag"), .equal, bool(true)),
            cmp(key("flag"), .equal, bool(true)),
        ])),
    .init(
        "flag == FALSE OR flag == No",
        .or([
            cmp(key("flag"), .equal, bool(false)),
            cmp(key("flag"), .equal, bool(false)),
        ])),
    .init("name == nil OR name = NULL", .or([cmp(key("name"), .equal, null), cmp(key("name"), .equal, null)])),
    .init("a == {}", cmp(key("a"), .equal, .list([]))),
    .init("a IN {{1, 2}, {3}}", cmp(key("a"), .in, .list([.list([int(1), int(2)]), .list([int(3)])]))),
    .init(
        "created > CAST(0, \"NSDate\")",
        cmp(key("created"), .greaterThan, .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))),
    .init(
        "created < cast(-3.5, 'NSDate')",
        cmp(key("created"), .lessThan, .constant(.date(Date(timeIntervalSinceReferenceDate: -3.5))))),
    // NSExpression's function calls parse (a predicate binds none; a PropertyExpression does).
    .init("lowercase:(name) == 'a'", cmp(.function("lowercase:", [key("name")]), .equal, str("a"))),
    .init("now() > created", cmp(.function("now", []), .greaterThan, key("created"))),
    .init(
        "add:to:(pages, 1) * 2 == raise:toPower:(2, 3)",
        cmp(
            .arithmetic(.multiply, .function("add:to:", [key("pages"), int(1)]), int(2)), .equal,
            .function("raise:toPower:", [int(2), int(3)]))),
    // Variables and subqueries.
    .init("$x == 1", cmp(.variable("x", []), .equal, int(1))),
    .init("$b.author.name == 'a'", cmp(.variable("b", ["author", "name"]), .equal, str("a"))),
    .init(
        "SUBQUERY(books, $b, $b.pages > 100).@count > 0",
        cmp(
            .subquery(
                collection: key("books"), variable: "b",
                predicate: cmp(.variable("b", ["pages"]), .greaterThan, int(100)), path: ["@count"]),
            .greaterThan, int(0))),
    .init(
        "SUBQUERY(books, $b, $b.pages > 1 AND $b.title BEGINSWITH 'A') != nil",
        cmp(
            .subquery(
                collection: key("books"), variable: "b",
                predicate: .and([
                    cmp(.variable("b", ["pages"]), .greaterThan, int(1)),
                    cmp(.variable("b", ["title"]), .beginsWith, str("A")),
                ]),
                path: []),
            .notEqual, null)),
    .init(
        "SUBQUERY(authors, $a, SUBQUERY($a.books, $b, $b.pages > 1).@count > 2).@count == 1",
        cmp(
            .subquery(
                collection: key("authors"), variable: "a",
                predicate: cmp(
                    .subquery(
                        collection: .variable("a", ["books"]), variable: "b",
                        predicate: cmp(.variable("b", ["pages"]), .greaterThan, int(1)),
                        path: ["@count"]),
                    .greaterThan, int(2)),
                path: ["@count"]),
            .equal, int(1))),
    // Arguments.
    .init("%K == %@", ["author.name", "x"], cmp(key("author.name"), .equal, str("x"))),
    .init("%K.@count > 1", ["books"], cmp(.keyPath(["books", "@count"]), .greaterThan, int(1))),
    .init(
        "age == %d OR age == %i OR age == %ld", [5, Int32(6), Int64(7)],
        .or([cmp(key("age"), .equal, int(5)), cmp(key("age"), .equal, int(6)), cmp(key("age"), .equal, int(7))])),
    .init(
        "age == %lu OR age == %u OR age == %hd OR age == %lld", [UInt(1), UInt32(2), Int16(-3), Int64(4)],
        .or([
            cmp(key("age"), .equal, int(1)), cmp(key("age"), .equal, int(2)),
            cmp(key("age"), .equal, int(-3)), cmp(key("age"), .equal, int(4)),
        ])),
    .init(
        "score > %f AND score < %lf AND score != %g AND score != %e", [2.5, Float(1.5), 3, Double(4)],
        .and([
            cmp(key("score"), .greaterThan, double(2.5)), cmp(key("score"), .lessThan, double(1.5)),
            cmp(key("score"), .notEqual, double(3)), cmp(key("score"), .notEqual, double(4)),
        ])),
    .init("name IN %@", [["a", "b"]], cmp(key("name"), .in, .list([str("a"), str("b")]))),
    .init("id IN %@", [Set([7])], cmp(key("id"), .in, .list([int(7)]))),
    .init("a BETWEEN %@", [[1, 10]], cmp(key("a"), .between, .list([int(1), int(10)]))),
    .init("tags IN {'a', \"b\", %@}", [3], cmp(key("tags"), .in, .list([str("a"), str("b"), int(3)]))),
    .init("name == %@", [String?.none as Any], cmp(key("name"), .equal, null)),
    .init("name == %@", [NSNull()], cmp(key("name"), .equal, null)),
    .init(
        "name == %@ AND flag == %@", [Substring("sub"), true],
        .and([cmp(key("name"), .equal, str("sub")), cmp(key("flag"), .equal, bool(true))])),
    .init(
        "created == %@", [Date(timeIntervalSinceReferenceDate: 100)],
        cmp(key("created"), .equal, .constant(.date(Date(timeIntervalSinceReferenceDate: 100))))),
    .init(
        "id == %@", [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") as Any],
        cmp(
            key("id"), .equal,
            .constant(.uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()))),
        roundTrips: false),
    // Arithmetic: * and / before + and -, left to right, unary minus first of all.
    .init("price * 2 > 10", cmp(math(key("price"), .multiply, int(2)), .greaterThan, int(10))),
    .init("a + b == c", cmp(math(key("a"), .add, key("b")), .equal, key("c"))),
    .init("c == a + b", cmp(key("c"), .equal, math(key("a"), .add, key("b")))),
    .init(
        "a + b * c - d / 2 < 1",
        cmp(
            math(math(key("a"), .add, math(key("b"), .multiply, key("c"))), .subtract, math(key("d"), .divide, int(2))),
            .lessThan, int(1))),
    .init("a - b - c == 0", cmp(math(math(key("a"), .subtract, key("b")), .subtract, key("c")), .equal, int(0))),
    .init("(a + 1) * 2 >= 3", cmp(math(math(key("a"), .add, int(1)), .multiply, int(2)), .greaterThanOrEqual, int(3))),
    .init("((a) + 1) > 2", cmp(math(key("a"), .add, int(1)), .greaterThan, int(2))),
    .init("(a + 1 > 2)", cmp(math(key("a"), .add, int(1)), .greaterThan, int(2))),
    .init("NOT (a + 1) > 2 OR b = 2", .or([.not(cmp(math(key("a"), .add, int(1)), .greaterThan, int(2))), b2])),
    .init("-a < 3", cmp(.negate(key("a")), .lessThan, int(3))),
    .init("a * -b < - 3", cmp(math(key("a"), .multiply, .negate(key("b"))), .lessThan, int(-3))),
    .init(
        "a-1 == 0 AND a - -1 == 2",
        .and([
            cmp(math(key("a"), .subtract, int(1)), .equal, int(0)),
            cmp(math(key("a"), .subtract, int(-1)), .equal, int(2)),
        ])),
    .init(
        "%d * price / %@ > %f", [2, 3, 1.5],
        cmp(math(math(int(2), .multiply, key("price")), .divide, int(3)), .greaterThan, double(1.5))),
    .init(
        "author.rating + $x.y <= 1.5",
        cmp(math(key("author.rating"), .add, .variable("x", ["y"])), .lessThanOrEqual, double(1.5))),
    // ** before * and /, left to right (NSExpression's 2 ** 3 ** 2 is 64); a minus sign belongs to its operand.
    .init("a ** 2 == 4", cmp(math(key("a"), .power, int(2)), .equal, int(4))),
    .init("2 ** 3 ** 2 == 64", cmp(math(math(int(2), .power, int(3)), .power, int(2)), .equal, int(64))),
    .init(
        "2 * a ** 2 / b == 1",
        cmp(math(math(int(2), .multiply, math(key("a"), .power, int(2))), .divide, key("b")), .equal, int(1))),
    .init("-a ** 2 < 0", cmp(math(.negate(key("a")), .power, int(2)), .lessThan, int(0))),
    .init("-2 ** -1 < 0", cmp(math(int(-2), .power, int(-1)), .lessThan, int(0))),
    .init("($a + 1) ** 3 == 27", cmp(math(math(.variable("a", []), .add, int(1)), .power, int(3)), .equal, int(27))),
    .init("a**b*c == 1", cmp(math(math(key("a"), .power, key("b")), .multiply, key("c")), .equal, int(1))),
    // Subscripts on to-many key paths.
    .init("tags[SIZE] > 2", cmp(.keyPath(["tags", "[SIZE]"]), .greaterThan, int(2))),
    .init("tags[FIRST].name == 'x'", cmp(.keyPath(["tags", "[FIRST]", "name"]), .equal, str("x"))),
    .init("tags[last].name == 'x'", cmp(.keyPath(["tags", "[LAST]", "name"]), .equal, str("x"))),
    .init("a.tags[0].b[12] == nil", cmp(.keyPath(["a", "tags", "[0]", "b", "[12]"]), .equal, null)),
    .init("tags[%d].name == 'x'", [1], cmp(.keyPath(["tags", "[1]", "name"]), .equal, str("x"))),
    .init("%K[SIZE] * 2 == 4", ["tags"], cmp(math(.keyPath(["tags", "[SIZE]"]), .multiply, int(2)), .equal, int(4))),
    .init("$t.tags[LAST] == nil", cmp(.variable("t", ["tags", "[LAST]"]), .equal, null)),
    .init(
        "SUBQUERY(tags, $t, $t.n == 1)[SIZE] > 0",
        cmp(
            .subquery(
                collection: key("tags"), variable: "t", predicate: cmp(.variable("t", ["n"]), .equal, int(1)),
                path: ["[SIZE]"]),
            .greaterThan, int(0))),
    // LIKE's escapes keep their backslash, written once or twice in the format.
    .init(#"name LIKE 'a\*b\?'"#, cmp(key("name"), .like, str(#"a\*b\?"#))),
    .init(#"name LIKE 'a\\*'"#, cmp(key("name"), .like, str(#"a\*"#))),
    .init("name LIKE %@", [#"a\*"#], cmp(key("name"), .like, str(#"a\*"#))),
    // Surplus arguments are ignored, as NSPredicate ignores them.
    .init("name = %@", ["a", "b"], cmp(key("name"), .equal, str("a"))),
    .init("TRUEPREDICATE", [1, "x"], .constant(true)),
    // Keywords in any case.
    .init(
        "name contains[c] 'a' and not age < 3 or any x.y = 1",
        .or([
            .and([
                cmp(key("name"), .contains, str("a"), .direct, .caseInsensitive),
                .not(cmp(key("age"), .lessThan, int(3))),
            ]),
            cmp(key("x.y"), .equal, int(1), .any),
        ])),
]

private let malformed: [PredicateMalformedCase] = [
    .init("", at: 0, "empty predicate"),
    .init("   ", at: 0, "empty predicate"),
    .init("name", at: 4, "expected an operator after 'name'"),
    .init("author.name 'x'", at: 12, "expected an operator after 'author.name'"),
    .init("name ==", at: 7, "expected an expression"),
    .init("name = 'abc", at: 7, "unterminated string literal"),
    .init("(name = 1", at: 0, "unbalanced parenthesis"),
    .init("name = 1)", at: 8, "unbalanced parenthesis"),
    .init("SUBQUERY(books, $b, $b.x = 1 > 0", at: 29, "unexpected '>', expected AND, OR or ')'"),
    .init("SUBQUERY(books, $b, $b.x = 1", at: 8, "unbalanced parenthesis"),
    .init("name ==[x] 'a'", at: 8, "unknown option 'x'"),
    .init("name ==[cx] 'a'", at: 9, "unknown option 'x'"),
    .init("name ==[] 'a'", at: 8, "expected comparison options"),
    .init("name ==[c 'a'", at: 10, "expected ']' after the options"),
    .init("name = %@", at: 7, "missing argument for %@"),
    .init("a = %d AND b = %ld", [1], at: 15, "missing argument for %ld"),
    .init("AND name = 1", at: 0, "unexpected 'AND'"),
    .init("a = 1 AND", at: 9, "expected an expression"),
    .init("NOT", at: 3, "expected an expression"),
    .init("a = 1 b = 2", at: 6, "unexpected 'b'"),
    .init("()", at: 1, "unexpected ')', expected an expression"),
    .init("a + = 1", at: 4, "unexpected '=', expected an expression"),
    .init("a = 1 +", at: 7, "expected an expression"),
    .init("(a + 1 = 2", at: 0, "unbalanced parenthesis"),
    .init("(a + 1) * = 2", at: 10, "unexpected '=', expected an expression"),
    .init("a = (b + 1", at: 4, "unbalanced parenthesis"),
    .init("a = (b c)", at: 7, "unexpected 'c', expected an arithmetic operator or ')'"),
    .init("a := 1", at: 2, "assignment (':=') is not supported"),
    .init("FUNCTION(a, 'b') = 1", at: 0, "FUNCTION is not supported"),
    .init("lowercase:name = 'a'", at: 10, "unexpected 'name', expected '(' after the function name 'lowercase:'"),
    .init("max:(a b) = 1", at: 7, "unexpected 'b', expected ',' or ')' in the arguments of 'max:'"),
    .init("now( = 1", at: 5, "unexpected '=', expected an expression"),
    .init("tags[x] = 1", at: 5, "unexpected 'x', expected FIRST, LAST, SIZE or a non-negative index"),
    .init("tags[-1] = 1", at: 5, "unexpected '-1', expected FIRST, LAST, SIZE or a non-negative index"),
    .init("tags[FIRST = 1", at: 11, "unexpected '=', expected ']' after the subscript"),
    .init("tags[SIZE", at: 4, "unbalanced bracket"),
    .init("tags[%d] = 1", [-1], at: 5, "a subscript argument must be a non-negative integer"),
    .init("name = %%", at: 7, "'%%' is not valid"),
    .init("name = %s", ["x"], at: 7, "unsupported format specifier '%s'"),
    .init("%1$@ = 1", [1], at: 0, "unsupported format specifier"),
    .init("%K = 1", [5], at: 0, "%K needs a string argument, not 'Int'"),
    .init("%K = 1", ["a..b"], at: 0, "invalid key path 'a..b'"),
    .init("a = %d", ["x"], at: 4, "%d needs an integer argument, not 'String'"),
    .init("a = %f", ["x"], at: 4, "%f needs a number argument"),
    .init("a = %@", [Opaque()], at: 4, "unsupported argument type 'Opaque'"),
    .init("a IN %@", [[1, Opaque()]], at: 5, "unsupported argument type 'Opaque'"),
    .init("a = %@", [UInt64.max], at: 4, "out of range for a 64-bit integer"),
    .init("d = CAST(1, 'NSString')", at: 12, "CAST to 'NSString' is not supported"),
    .init("d = CAST('x', 'NSDate')", at: 9, "CAST to NSDate needs a finite number"),
    .init("d = CAST(-1e999, 'NSDate')", at: 9, "CAST to NSDate needs a finite number"),
    .init("d = CAST(1, 2)", at: 12, "CAST needs a type name string"),
    .init("d = CAST 1", at: 9, "expected '(' after CAST"),
    .init("a = {1, 2", at: 4, "unbalanced brace"),
    .init("a = {1 2}", at: 7, "expected ',' or '}' in the list"),
    .init("a = {1,}", at: 7, "unexpected '}', expected an expression"),
    .init("SUBQUERY(books, b, b.x = 1).@count > 0", at: 16, "expected a variable such as '$x'"),
    .init("SUBQUERY(books $b, $b.x = 1).@count > 0", at: 15, "expected ',' after the SUBQUERY collection"),
    .init(#"a = 'x\q'"#, at: 6, "invalid escape sequence '\\q'"),
    .init(#"a = "\u12""#, at: 5, "invalid unicode escape"),
    .init(#"a = "\uD83D""#, at: 5, "invalid unicode escape"),
    .init("a = 0xZZ", at: 4, "invalid hexadecimal literal '0xZZ'"),
    .init("a = 0b102", at: 4, "invalid binary literal"),
    .init("a = 12abc", at: 4, "invalid number literal '12abc'"),
    .init("a = 1e", at: 4, "invalid number literal '1e'"),
    .init("a = 99999999999999999999", at: 4, "integer literal '99999999999999999999' is out of range"),
    .init("a = -9223372036854775809", at: 4, "is out of range"),
    .init("a.@foo = 1", at: 2, "unsupported collection operator '@foo'"),
    .init("a = $", at: 4, "expected a variable name after '$'"),
    .init("# = 1", at: 0, "expected a key name after '#'"),
    .init("a ~ 1", at: 2, "unexpected character '~'"),
    .init("a = 1 & b = 2", at: 6, "unexpected character '&'"),
    .init("a.b. = 1", at: 5, "expected a key after '.'"),
    .init("IN = 1", at: 0, "unexpected 'IN', expected an expression"),
    .init("a = TRUEPREDICATE", at: 4, "unexpected 'TRUEPREDICATE'"),
    .init("ANY", at: 3, "expected an expression"),
    .init("a = FETCH(x, y)", at: 4, "FETCH is not supported"),
    // Positions count Characters: the decomposed "é" below is two scalars but one Character.
    .init("pre\u{301}nom == 'abc", at: 10, "unterminated string literal"),
    .init("😀 == 1", at: 0, "unexpected character '😀'"),
]

// MARK: - Tests

@Suite("PredicateParser")
struct PredicateParserTests {
    @Test("well-formed format strings parse to the expected tree", arguments: wellFormed)
    func parsesWellFormed(_ testCase: PredicateWellFormedCase) throws {
        #expect(try parse(testCase.format, testCase.arguments) == testCase.expected)
    }

    @Test("malformed format strings fail at the expected position", arguments: malformed)
    func rejectsMalformed(_ testCase: PredicateMalformedCase) {
        do {
            let node = try parse(testCase.format, testCase.arguments)
            Issue.record("parsed to \(node) instead of failing")
        } catch {
            #expect(error.format == testCase.format)
            #expect(error.position == testCase.position, "\(error.reason)")
            #expect(error.reason.contains(testCase.reason), "reason was: \(error.reason)")
        }
    }

    @Test("printing then parsing gives the same tree", arguments: wellFormed.filter(\.roundTrips))
    func roundTrips(_ testCase: PredicateWellFormedCase) throws {
        let node = try parse(testCase.format, testCase.arguments)
        let printed = node.predicateFormat
        let reparsed = try parse(printed)
        #expect(reparsed == booleansAsIntegers(node), "printed as \(printed)")
        #expect(reparsed.predicateFormat == printed)
    }

    @Test(
        "trees built in code print in a form that parses back",
        arguments: [
            PredicateNode.and([.and([a1, b2]), .or([c3, .not(.and([a1, b2]))])]),
            .or([.or([a1, b2]), .and([b2, .or([a1, c3])])]),
            .not(.not(.constant(true))),
            cmp(str("tab\tquote\"back\\slash\u{1}\u{7F}\nend"), .equal, key("a")),
            cmp(str("\u{301}starts with a combining mark"), .equal, key("a")),
            cmp(.keyPath(["SELF", "in", "Size", "@count", "2nd", "\u{301}"]), .greaterThan, double(.infinity)),
            cmp(.keyPath(["x"]), .lessThan, double(-.infinity)),
            cmp(.keyPath(["x"]), .equal, .constant(.date(Date(timeIntervalSinceReferenceDate: 123_456.789))), .all),
            cmp(.variable("v", ["AND"]), .in, .list([double(0.1), double(1e-300), int(.min)]), .none, .normalized),
        ])
    func roundTripsBuiltTrees(_ node: PredicateNode) throws {
        let printed = node.predicateFormat
        #expect(try parse(printed) == booleansAsIntegers(node), "printed as \(printed)")
    }

    @Test func printsCanonicalForm() throws {
        let node = try parse("not (a=1 or b=2) and any x.#in contains[dc] 'q' && SELF IN {nil, true, 2.5}")
        #expect(
            node.predicateFormat
                == #"NOT (a == 1 OR b == 2) AND ANY x.#in CONTAINS[cd] "q" AND SELF IN {nil, 1, 2.5}"#)
        #expect(PredicateNode.and([]).predicateFormat == "TRUEPREDICATE")
        #expect(PredicateNode.or([]).predicateFormat == "FALSEPREDICATE")
    }

    /// What NSPredicate's `predicateFormat` prints for these, as recorded by test suites run on Apple's
    /// Foundation (SafeFetching's compound and string tests, mySTEP's arithmetic test) or documented.
    @Test(
        "prints as NSPredicate's predicateFormat",
        arguments: [
            ("(a = 1 OR b = 2) AND c = 3", [], "(a == 1 OR b == 2) AND c == 3"),
            ("a = 1 AND b = 2 OR c = 3", [], "(a == 1 AND b == 2) OR c == 3"),
            ("a = 1 OR b = 2 AND c = 3", [], "a == 1 OR (b == 2 AND c == 3)"),
            (
                "a > 10 AND (b BEGINSWITH 'To' OR b ENDSWITH 'ta')", [],
                #"a > 10 AND (b BEGINSWITH "To" OR b ENDSWITH "ta")"#
            ),
            ("a = 1 AND b = 2 AND c = 3", [], "a == 1 AND b == 2 AND c == 3"),
            ("NOT name BEGINSWITH 'Desp'", [], #"NOT name BEGINSWITH "Desp""#),
            ("NOT (a = 1 AND b = 2)", [], "NOT (a == 1 AND b == 2)"),
            ("flag == YES", [], "flag == 1"),
            ("flag == FALSE OR flag != %@", [true], "flag == 0 OR flag != 1"),
            ("flag IN {TRUE, NO}", [], "flag IN {1, 0}"),
            ("%K like %@+$b+$c", ["$single", #"b""#], #"$single LIKE ("b\"" + $b) + $c"#),
            ("price * 2 > 10", [], "price * 2 > 10"),
            ("a + b * c == d", [], "a + (b * c) == d"),
            ("(a + b) * c == d - -1", [], "(a + b) * c == d - -1"),
            ("-a < -(b / 2)", [], "-a < -(b / 2)"),
            ("tags[SIZE] > 2", [], "tags[SIZE] > 2"),
            (
                "tags[first].name == 'x' OR tags[last] == nil OR tags[%d].n == 1", [3],
                #"tags[FIRST].name == "x" OR tags[LAST] == nil OR tags[3].n == 1"#
            ),
            ("SUBQUERY(tags, $t, $t.tags[0].n == 1)[SIZE] > 0", [], "SUBQUERY(tags, $t, $t.tags[0].n == 1)[SIZE] > 0"),
            (#"name LIKE 'a\*'"#, [], #"name LIKE "a\\*""#),
        ] as [(String, [any Sendable], String)])
    func printsAsNSPredicate(_ format: String, _ arguments: [any Sendable], _ expected: String) throws {
        let node = try parse(format, arguments.map { $0 as Any })
        #expect(node.predicateFormat == expected)
    }

    @Test("** prints like the other operators, an arithmetic operand in parentheses, and reads back the same")
    func printsPower() throws {
        let node = try parse("2 ** 3 ** 2 == 64 AND a * b ** 2 > -c ** 2")
        #expect(node.predicateFormat == "(2 ** 3) ** 2 == 64 AND a * (b ** 2) > (-c) ** 2")
        #expect(try parse(node.predicateFormat) == node)
    }

    @Test func substitutesVariablesInsideArithmetic() throws {
        let template = try FetchPredicate(format: "price * $FACTOR > -$LIMIT AND tags[SIZE] == $N + 1")
        let predicate = try template.withSubstitutionVariables(["FACTOR": 2, "LIMIT": 10, "N": true])
        #expect(predicate.predicateFormat == "price * 2 > -10 AND tags[SIZE] == 1 + 1")
    }

    @Test(
        "lone expressions parse for derived attributes",
        arguments: [
            ("books.@count", SyntaxExpression.keyPath(["books", "@count"])),
            ("author.name", key("author.name")),
            ("SELF", .keyPath([])),
            ("'x'", str("x")),
            (
                "SUBQUERY(books, $b, $b.pages > 1).@count",
                .subquery(
                    collection: key("books"), variable: "b",
                    predicate: cmp(.variable("b", ["pages"]), .greaterThan, int(1)), path: ["@count"])
            ),
        ])
    func parsesExpressions(_ format: String, _ expected: SyntaxExpression) throws {
        var parser = PredicateParser(format: format, arguments: [])
        let expression = try parser.parseExpression()
        #expect(expression == expected)
        var reparser = PredicateParser(format: expression.predicateFormat, arguments: [])
        #expect(try reparser.parseExpression() == expected)
    }

    @Test func parsesKeyPathArgumentAsExpression() throws {
        var parser = PredicateParser(format: "%K", arguments: ["books.@sum.pages"])
        #expect(try parser.parseExpression() == .keyPath(["books", "@sum", "pages"]))
    }

    @Test(
        "malformed lone expressions fail",
        arguments: [
            ("", 0, "empty expression"),
            ("a == 1", 2, "unexpected '==', expected the end of the expression"),
            ("a)", 1, "unbalanced parenthesis"),
            ("%@", 0, "missing argument for %@"),
        ])
    func rejectsMalformedExpressions(_ format: String, _ position: Int, _ reason: String) {
        var parser = PredicateParser(format: format, arguments: [])
        let error = #expect(throws: PredicateSyntaxError.self) { try parser.parseExpression() }
        #expect(error?.position == position)
        #expect(error?.reason.contains(reason) == true, "reason was: \(error?.reason ?? "")")
    }

    @Test func parsingTwiceGivesTheSameResult() throws {
        var parser = PredicateParser(format: "a = %d AND b = %@", arguments: [1, "x"])
        let first = try parser.parsePredicate()
        #expect(try parser.parsePredicate() == first)
    }

    @Test(
        "deep nesting is an error, not a stack overflow",
        arguments: ["(", "NOT ", "{", "SUBQUERY(b, $c, ", "-", "a + ", "a * ", "x[FIRST].y * ", "(a + "])
    func rejectsDeepNesting(_ opener: String) {
        let error = #expect(throws: PredicateSyntaxError.self) {
            try parse(String(repeating: opener, count: 10_000) + "a = 1")
        }
        #expect(error?.reason == "predicate is nested too deeply")
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        // Each parenthesis is one level; the comparison inside and its operand take two more.
        let nested = { (depth: Int) in
            String(repeating: "(", count: depth) + "a = 1" + String(repeating: ")", count: depth)
        }
        #expect(try parse(nested(PredicateParser.maximumDepth - 2)) == a1)
        #expect(throws: PredicateSyntaxError.self) { try parse(nested(PredicateParser.maximumDepth - 1)) }
    }

    @Test("random garbage and mutated predicates only return or throw, and what parses round-trips")
    func survivesGarbage() throws {
        let fragments = [
            "a", "name", "x.y", " ", "==", "=", "<", ">=", "!", "!=", "(", ")", "{", "}", "[c]", "[", "]", ",", ".",
            "'", "\"", "\\", "\\u", "%@", "%K", "%d", "%f", "%", "%%", "$v", "$", "#", "#IN", "#1", "@count", "@",
            "AND", "OR", "NOT", "ANY", "ALL", "SUBQUERY(", "CAST(", "IN", "BETWEEN", "CONTAINS", "-", "0x", "0x1F",
            "1", "-2", "2.5", "1e", "e", "\u{301}", "é", "😀", "\u{600}", "\r\n", "\0", "TRUEPREDICATE", "NIL",
            "SELF", "\n", ":=", "+", "&&", "||", "'str'", "\"s\\n\"", "\"NSDate\"", "9223372036854775808", "1e999",
        ]
        var generator = SplitMix64(seed: 0x5EED)
        var parsed = 0
        for round in 0..<6_000 {
            var format: String
            if round.isMultiple(of: 2) {
                let count = Int.random(in: 1...16, using: &generator)
                format = (0..<count).map { _ in fragments.randomElement(using: &generator) ?? "" }.joined()
            } else {
                // Small edits of well-formed strings reach deeper into the grammar than pure noise.
                var characters = Array(wellFormed.randomElement(using: &generator)?.format ?? "")
                for _ in 0..<Int.random(in: 1...2, using: &generator) {
                    let offset = Int.random(in: 0...characters.count, using: &generator)
                    if offset < characters.count, Bool.random(using: &generator) {
                        characters.remove(at: offset)
                    } else {
                        characters.insert(contentsOf: fragments.randomElement(using: &generator) ?? "", at: offset)
                    }
                }
                format = String(characters)
            }
            let arguments: [Any] = Array([7, "a.b", 2.5, [1]].prefix(Int.random(in: 0...4, using: &generator)))
            var expressionParser = PredicateParser(format: format, arguments: arguments)
            _ = try? expressionParser.parseExpression()
            do {
                let node = try parse(format, arguments)
                parsed += 1
                #expect(
                    try parse(node.predicateFormat) == booleansAsIntegers(node),
                    "\(format) printed as \(node.predicateFormat)")
            } catch {
                #expect((0...format.count).contains(error.position), "\(format): \(error)")
            }
        }
        #expect(parsed > 100, "the generator should reach valid predicates too")
    }

    @Test("random trees print in a form that parses back")
    func roundTripsRandomTrees() throws {
        var trees = TreeGenerator(seed: 0xC0FFEE)
        for _ in 0..<2_000 {
            let node = trees.node(depth: 3)
            #expect(try parse(node.predicateFormat) == booleansAsIntegers(node), "printed as \(node.predicateFormat)")
        }
    }
}

/// Builds random trees that the format-string language can spell, to test printing beyond the tables.
private struct TreeGenerator {
    var random: SplitMix64
    let keys = [
        "a", "name", "IN", "size", "Self", "2nd", "prénom", "\u{301}x", "_k", "@count", "@sum", "[FIRST]", "[SIZE]",
        "[7]",
    ]
    let scalars: [Unicode.Scalar] = ["a", "\"", "'", "\\", "\n", "\0", "\u{1F}", "\u{301}", "é", "😀", "\u{600}"]

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    mutating func count(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func node(depth: Int) -> PredicateNode {
        switch depth > 0 ? count(0...5) : 0 {
        case 0, 1: return .comparison(comparison(depth: depth))
        case 2: return .and((0..<count(2...3)).map { _ in node(depth: depth - 1) })
        case 3: return .or((0..<count(2...3)).map { _ in node(depth: depth - 1) })
        case 4: return .not(node(depth: depth - 1))
        default: return .constant(Bool.random(using: &random))
        }
    }

    mutating func comparison(depth: Int) -> PredicateComparison {
        PredicateComparison(
            expression(depth: depth), pick(PredicateOperator.allCases), expression(depth: depth),
            quantifier: pick([.direct, .any, .all, .none]), options: PredicateOptions(rawValue: UInt8(count(0...7))))
    }

    mutating func expression(depth: Int) -> SyntaxExpression {
        switch count(0...(depth > 0 ? 9 : 5)) {
        case 0: return .keyPath((0..<count(0...3)).map { _ in pick(keys) })
        case 1: return .variable(pick(["v", "AND", "x1"]), (0..<count(0...2)).map { _ in pick(keys) })
        case 2: return str(String(String.UnicodeScalarView((0..<count(0...6)).map { _ in pick(scalars) })))
        case 3:
            let value = Double(bitPattern: random.next())
            return double(value.isNaN ? 0 : value)
        case 4: return int(Int64(bitPattern: random.next()))
        case 5:
            let date = Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: random.next())) / 7)
            return .constant(pick([.null, .boolean(true), .boolean(false), .integer(.min), .date(date)]))
        case 6: return .list((0..<count(0...3)).map { _ in expression(depth: depth - 1) })
        case 7:
            return .arithmetic(
                pick(ArithmeticOperator.allCases), expression(depth: depth - 1), expression(depth: depth - 1))
        case 8:
            // Minus on a number literal reads back as the negative number, so negate other operands only.
            return .negate(pick([.keyPath(["a", "[LAST]"]), .variable("v", []), .arithmetic(.add, key("a"), int(1))]))
        default:
            return .subquery(
                collection: expression(depth: depth - 1), variable: "s",
                predicate: node(depth: depth - 1), path: (0..<count(0...1)).map { _ in pick(keys) })
        }
    }
}

@Suite("PredicateArgument")
struct PredicateArgumentTests {
    /// Argument values are immutable test data, hence `@unchecked Sendable`.
    struct Conversion: @unchecked Sendable, CustomTestStringConvertible {
        let value: Any
        let expected: SyntaxExpression
        var testDescription: String { "\(type(of: value)) \(value)" }
    }

    static let conversions: [Conversion] = [
        .init(value: "s", expected: str("s")),
        .init(value: Substring("sub"), expected: str("sub")),
        .init(value: 1, expected: int(1)),
        .init(value: Int8(-2), expected: int(-2)),
        .init(value: Int16(-3), expected: int(-3)),
        .init(value: Int32(4), expected: int(4)),
        .init(value: Int64.min, expected: int(.min)),
        .init(value: UInt8(255), expected: int(255)),
        .init(value: UInt16(6), expected: int(6)),
        .init(value: UInt32.max, expected: int(Int64(UInt32.max))),
        .init(value: UInt(8), expected: int(8)),
        .init(value: UInt64(Int64.max), expected: int(.max)),
        .init(value: 1.5, expected: double(1.5)),
        .init(value: Float(0.5), expected: double(0.5)),
        .init(value: Decimal(string: "1.25") ?? 0, expected: .constant(.decimal(Decimal(string: "1.25") ?? 0))),
        .init(value: true, expected: bool(true)),
        .init(value: false, expected: bool(false)),
        .init(value: NSNumber(value: true), expected: bool(true)),
        .init(value: NSNumber(value: false), expected: bool(false)),
        .init(value: NSNumber(value: Int8(1)), expected: int(1)),
        .init(value: NSNumber(value: 7), expected: int(7)),
        .init(value: NSNumber(value: 3.5), expected: double(3.5)),
        .init(value: NSNumber(value: UInt64(9)), expected: int(9)),
        .init(value: NSDecimalNumber(string: "2.5"), expected: .constant(.decimal(Decimal(string: "2.5") ?? 0))),
        .init(
            value: Date(timeIntervalSinceReferenceDate: 5),
            expected: .constant(.date(Date(timeIntervalSinceReferenceDate: 5)))),
        .init(value: Data([1, 2]), expected: .constant(.data(Data([1, 2])))),
        .init(
            value: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)),
            expected: .constant(.uuid(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))))),
        .init(value: URL(fileURLWithPath: "/tmp/x"), expected: .constant(.uri(URL(fileURLWithPath: "/tmp/x")))),
        .init(value: Tagged(), expected: int(42)),
        .init(value: StoreValue.string("raw"), expected: str("raw")),
        .init(value: Int?.none as Any, expected: null),
        .init(value: Int??.some(nil) as Any, expected: null),
        .init(value: Int?.some(5) as Any, expected: int(5)),
        .init(value: NSNull(), expected: null),
        .init(value: [1, 2], expected: .list([int(1), int(2)])),
        .init(value: [1, "a", nil] as [Any?], expected: .list([int(1), str("a"), null])),
        .init(value: Set(["only"]), expected: .list([str("only")])),
        .init(value: [[1], [2, 3]], expected: .list([.list([int(1)]), .list([int(2), int(3)])])),
        .init(value: 1...3, expected: .list([int(1), int(2), int(3)])),
        .init(value: [String](), expected: .list([])),
    ]

    @Test("format arguments convert to constants and lists", arguments: conversions)
    func converts(_ conversion: Conversion) throws {
        #expect(try PredicateArgument.expression(for: conversion.value) == conversion.expected)
    }

    @Test func rejectsUnsupportedArguments() {
        let failures: [(Any, String)] = [
            (Opaque(), "unsupported argument type 'Opaque'"),
            ([Opaque()], "unsupported argument type 'Opaque'"),
            (UInt64.max, "out of range"),
            (UInt.max, "out of range"),
            (NSNumber(value: UInt64.max), "out of range"),
            (["k": 1], "unsupported argument type"),
        ]
        for (value, reason) in failures {
            let error = #expect(throws: UnsupportedPredicateArgument.self) {
                try PredicateArgument.expression(for: value)
            }
            #expect(error?.reason.contains(reason) == true, "reason was: \(error?.reason ?? "")")
        }
    }

    @Test func numericPlaceholdersCheckTheirArgument() throws {
        #expect(try PredicateArgument.expression(for: 3, as: .double, placeholder: "%f") == double(3))
        #expect(try PredicateArgument.expression(for: NSNumber(value: 4), as: .integer, placeholder: "%d") == int(4))
        #expect(throws: UnsupportedPredicateArgument.self) {
            try PredicateArgument.expression(for: 2.5, as: .integer, placeholder: "%d")
        }
        #expect(throws: UnsupportedPredicateArgument.self) {
            try PredicateArgument.expression(for: true, as: .integer, placeholder: "%d")
        }
    }
}

/// A small seeded generator, so that the garbage test is the same on every run.
/// The suite's seeded generator (SplitMix64), shared with the other test targets.
private typealias SplitMix64 = SeededGenerator
