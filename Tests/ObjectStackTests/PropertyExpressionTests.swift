import Foundation
import Testing

@testable import ObjectStack

/// The expression engine batch updates and derived attributes share: NSExpression's format and functions parsed,
/// bound against an entity with errors that name the culprit, and computed by one definition.
@Suite("Property expressions")
struct PropertyExpressionTests {
    /// `Pod` (name, downloads, rating), of a built model: binding reads the entity's resolved properties.
    static let entity: EntityDescription = {
        let pod = EntityDescription(
            name: "Pod",
            attributes: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "downloads", type: .integer64),
                AttributeDescription(name: "rating", type: .double),
            ])
        _ = try! ManagedObjectModel(entities: [pod])
        return pod
    }()

    @Test(
        "NSExpression's function syntax parses and prints back as NSExpression prints it",
        arguments: [
            "downloads + 1", "lowercase:(name)", "now()", "add:to:(downloads, 1)", "raise:toPower:(2, 3)",
            "max:({downloads, 10})", "abs:(rating - 3) * 2",
        ])
    func roundTrip(format: String) throws {
        let expression = try PropertyExpression(format: format)
        #expect(try PropertyExpression(format: expression.description) == expression)
        #expect(
            expression.description.replacingOccurrences(of: " ", with: "")
                == format.replacingOccurrences(of: " ", with: ""))
    }

    @Test("the code-built forms equal the parsed ones")
    func builtInCode() throws {
        let built = PropertyExpression(
            forFunction: "add:to:",
            arguments: [PropertyExpression(forKeyPath: "downloads"), try PropertyExpression(forConstantValue: 1)])
        #expect(built == (try PropertyExpression(format: "add:to:(downloads, 1)")))
        #expect(try PropertyExpression(forConstantValue: nil) == (try PropertyExpression(format: "nil")))
    }

    /// A function, its arguments' values and the value it must give.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [StoreValue]
        let expected: StoreValue
        var testDescription: String { "\(name)(\(arguments.map(\.description).joined(separator: ", ")))" }
    }

    static let cases: [Case] = [
        Case(name: "abs:", arguments: [.integer(-3)], expected: .integer(3)),
        Case(name: "abs:", arguments: [.double(-2.5)], expected: .double(2.5)),
        Case(name: "floor:", arguments: [.double(2.7)], expected: .double(2)),
        Case(name: "ceiling:", arguments: [.double(2.1)], expected: .double(3)),
        Case(name: "trunc:", arguments: [.double(-2.7)], expected: .double(-2)),
        Case(name: "trunc:", arguments: [.integer(7)], expected: .integer(7)),
        Case(name: "modulus:by:", arguments: [.integer(7), .integer(3)], expected: .integer(1)),
        Case(name: "modulus:by:", arguments: [.integer(7), .integer(0)], expected: .null),
        Case(name: "modulus:by:", arguments: [.double(7.5), .integer(2)], expected: .double(1.5)),
        Case(name: "divide:by:", arguments: [.integer(7), .integer(2)], expected: .integer(3)),
        Case(name: "divide:by:", arguments: [.integer(7), .integer(0)], expected: .null),
        Case(name: "from:subtract:", arguments: [.integer(7), .integer(2)], expected: .integer(5)),
        Case(name: "raise:toPower:", arguments: [.integer(2), .integer(3)], expected: .double(8)),
        Case(name: "sqrt:", arguments: [.integer(-1)], expected: .null),
        Case(name: "log:", arguments: [.integer(100)], expected: .double(2)),
        Case(name: "ln:", arguments: [.integer(1)], expected: .double(0)),
        Case(name: "exp:", arguments: [.integer(0)], expected: .double(1)),
        Case(name: "bitwiseAnd:with:", arguments: [.integer(12), .integer(10)], expected: .integer(8)),
        Case(name: "bitwiseOr:with:", arguments: [.integer(12), .integer(10)], expected: .integer(14)),
        Case(name: "bitwiseXor:with:", arguments: [.integer(12), .integer(10)], expected: .integer(6)),
        Case(name: "leftshift:by:", arguments: [.integer(1), .integer(4)], expected: .integer(16)),
        Case(name: "rightshift:by:", arguments: [.integer(16), .double(2)], expected: .integer(4)),
        Case(name: "leftshift:by:", arguments: [.integer(1), .integer(64)], expected: .null),
        Case(name: "onesComplement:", arguments: [.integer(0)], expected: .integer(-1)),
        Case(name: "bitwiseAnd:with:", arguments: [.double(1.5), .integer(1)], expected: .null),
        Case(name: "sum:", arguments: [.integer(1), .integer(2), .integer(3)], expected: .integer(6)),
        Case(name: "count:", arguments: [.integer(1), .null], expected: .integer(2)),
        Case(name: "average:", arguments: [.integer(1), .integer(2)], expected: .double(1.5)),
        Case(name: "min:", arguments: [.integer(4), .integer(2)], expected: .integer(2)),
        Case(name: "max:", arguments: [.string("a"), .string("b")], expected: .string("b")),
        Case(name: "median:", arguments: [.integer(3), .integer(1), .integer(2)], expected: .double(2)),
        Case(name: "median:", arguments: [1, 2, 3, 4].map { .integer($0) }, expected: .double(2.5)),
        Case(name: "stddev:", arguments: [2, 4, 4, 4, 5, 5, 7, 9].map { .integer($0) }, expected: .double(2)),
        Case(name: "uppercase:", arguments: [.string("straße")], expected: .string("STRASSE")),
        Case(name: "lowercase:", arguments: [.string("ÉLAN")], expected: .string("élan")),
        Case(name: "canonical:", arguments: [.string("Élan")], expected: .string("elan")),
        Case(name: "lowercase:", arguments: [.integer(5)], expected: .null),
        Case(name: "noindex:", arguments: [.integer(5)], expected: .integer(5)),
    ]

    @Test(
        "each function computes NSExpression's documented value; nil for nil, unfit or not-a-number", arguments: cases)
    func apply(function: Case) throws {
        let named = try #require(ExpressionFunction(name: function.name))
        #expect(named.apply(function.arguments, now: Date()) == function.expected)
    }

    @Test("now() gives the date it is handed; random: stays below its argument")
    func dates() throws {
        let now = Date(timeIntervalSinceReferenceDate: 1000)
        #expect(ExpressionFunction(name: "now")?.apply([], now: now) == .date(now))
        let random = try #require(ExpressionFunction(name: "random:"))
        for _ in 0..<200 {
            guard case .integer(let value) = random.apply([.integer(10)], now: now) else {
                Issue.record("random: gave no integer")
                return
            }
            #expect((0..<10).contains(value))
        }
    }

    @Test(
        "binding refuses what it cannot compute, naming the function or operand",
        arguments: [
            ("shout:(name)", "unknown function 'shout:'"),
            ("add:to:(downloads)", "add:to: takes 2 arguments, not 1"),
            ("now(1)", "now takes 0 arguments, not 1"),
            (
                "lowercase:(downloads)",
                "'downloads' in 'lowercase:(downloads)' is an Integer 64, where a string is needed"
            ),
            ("abs:(name)", "'name' in 'abs:(name)' is a String, where a number is needed"),
            ("now() * 2", "'now()' in 'now() * 2' is a Date, where a number is needed"),
            ("mode:({1, 2})", "mode: in 'mode:({1, 2})' yields an array"),
            ("{lowercase:(name)}", "calls a function where only constants and key paths may be"),
            ("lowercase:(nam)", "nam"),
        ])
    func refused(format: String, says: String) throws {
        let error = try #require(throws: ObjectStackError.self) {
            try PropertyExpression(format: format).bound(to: Self.entity)
        }
        #expect(error.message.contains(says), "\(error.message)")
    }

    @Test("a predicate refuses a function: functions are for expressions")
    func notInPredicates() throws {
        let predicate = try FetchPredicate(format: "lowercase:(name) == 'a'")
        let error = try #require(throws: ObjectStackError.self) {
            try PredicateBinder(entity: Self.entity).bind(predicate.node)
        }
        #expect(error.code == .typeMismatch && error.message.contains("not predicates"), "\(error.message)")
    }

    @Test("a computed value is stored as its attribute holds it, or refused when it cannot be without loss")
    func storing() {
        #expect(PropertyExpression.storedValue(.integer(3), as: .double) == .double(3))
        #expect(PropertyExpression.storedValue(.double(3), as: .integer16) == .integer(3))
        #expect(PropertyExpression.storedValue(.double(3.5), as: .integer32) == nil)
        #expect(PropertyExpression.storedValue(.integer(40_000), as: .integer16) == nil)
        let date = Date(timeIntervalSinceReferenceDate: 12.75)
        #expect(PropertyExpression.storedValue(.date(date), as: .double) == .double(12.75))
        #expect(PropertyExpression.storedValue(.date(date), as: .integer64) == .integer(12))
        #expect(PropertyExpression.storedValue(.null, as: .string) == .null)
    }
}
