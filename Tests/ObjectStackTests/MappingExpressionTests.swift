import Foundation
import Testing

@testable import ObjectStack

/// What the expression engine reads and computes for mapping models' value expressions, and keeps out of
/// predicates, batch updates and derived attributes: `FUNCTION(…)`, the migration variables, the union operators,
/// and the listed Foundation methods, computed as Foundation computes them.
@Suite("Mapping expressions")
struct MappingExpressionTests {
    /// `Pod` (name, downloads) with to-many `tags` to `Tag` (label).
    static let model: ManagedObjectModel = try! ManagedObjectModel(entities: [
        EntityDescription(
            name: "Pod",
            attributes: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "downloads", type: .integer64),
            ],
            relationships: [RelationshipDescription(name: "tags", destination: "Tag", inverse: "pods", isToMany: true)]),
        EntityDescription(
            name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
            relationships: [RelationshipDescription(name: "pods", destination: "Pod", inverse: "tags", isToMany: true)]),
    ])
    static var pod: EntityDescription { model.entitiesByName["Pod"]! }

    static let scope = MappingExpressionScope(
        entityVariables: ["source": pod], entityMappingValues: ["name": .string("PodToPod")],
        entityMappingNames: ["PodToPod", "TagToTag"], sourceRelationshipNames: ["tags"],
        policyFunctions: ["label:"], policyName: "PodPolicy")

    @Test(
        "FUNCTION, variables and the union operators parse and print back as NSExpression prints them",
        arguments: [
            "FUNCTION($source.name, \"uppercaseString\")",
            "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"TagToTag\", $source.tags)",
            "$source.tags.@distinctUnionOfSets.pods.@count", "FUNCTION($entityPolicy, \"label:\", $source.name, 3)",
        ])
    func roundTrip(format: String) throws {
        #expect(try PropertyExpression(format: format).description == format)
        _ = try PropertyExpression(format: format).bound(to: Self.pod, mapping: Self.scope)
    }

    @Test("predicates, batch updates and derived attributes refuse what only a mapping model's expressions may hold")
    func keptOut() throws {
        let predicate = try #require(throws: ObjectStackError.self) {
            try FetchPredicate(format: "FUNCTION(name, 'uppercaseString') == 'A'")
        }
        #expect(predicate.message.contains("FUNCTION is not supported"))
        let call = try #require(throws: ObjectStackError.self) {
            try PropertyExpression(format: "FUNCTION(name, 'uppercaseString')").bound(to: Self.pod)
        }
        #expect(call.message.contains("mapping model's value expressions"))
        let union = try #require(throws: ObjectStackError.self) {
            try PredicateBinder(entity: Self.pod).bind(
                FetchPredicate(format: "ANY tags.@distinctUnionOfSets.pods.name == 'a'").node)
        }
        #expect(union.message.contains("@distinctUnionOfSets"))
        let variable = try #require(throws: ObjectStackError.self) {
            try PropertyExpression(format: "$source.name").bound(to: Self.pod)
        }
        #expect(variable.code == .unknownKeyPath)
    }

    @Test(
        "a mapping expression names what it may not use",
        arguments: [
            ("name", "reads objects through its variables"),
            ("$target.name", "unknown variable $target"),
            ("$manager", "is not a value"),
            ("$entityMapping.title", "no key 'title'"),
            ("FUNCTION($manager, 'sourceContext')", "no function 'sourceContext'"),
            (
                "FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', 'owner', $source.tags)",
                "'owner'"
            ),
            ("FUNCTION($source.name, 'uppercaseString', 1)", "takes 0 arguments, not 1"),
            ("FUNCTION($source.tags, 'uppercaseString')", "collection"),
        ])
    func refused(format: String, reason: String) throws {
        let error = try #require(throws: ObjectStackError.self) {
            try PropertyExpression(format: format).bound(to: Self.pod, mapping: Self.scope)
        }
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test(
        "Foundation's methods of values compute as Foundation does",
        arguments: [
            ("uppercaseString", StoreValue.string("élan"), [StoreValue](), StoreValue.string("ÉLAN")),
            ("capitalizedString", .string("core data"), [], .string("Core Data")),
            ("length", .string("e\u{301}👍"), [], .integer(4)),
            ("length", .data(Data([1, 2, 3])), [], .integer(3)),
            ("stringByAppendingString:", .string("ab"), [.string("cd")], .string("abcd")),
            (
                "stringByReplacingOccurrencesOfString:withString:", .string("a-b-c"), [.string("-"), .string("+")],
                .string("a+b+c")
            ),
            ("substringToIndex:", .string("hello"), [.integer(2)], .string("he")),
            ("substringToIndex:", .string("hi"), [.integer(5)], .null),
            ("substringFromIndex:", .string("hello"), [.integer(3)], .string("lo")),
            ("hasPrefix:", .string("hello"), [.string("he")], .boolean(true)),
            ("integerValue", .string("  42abc"), [], .integer(42)),
            ("integerValue", .string("abc"), [], .integer(0)),
            ("integerValue", .double(-2.7), [], .integer(-2)),
            ("doubleValue", .string("2.5e1x"), [], .double(25)),
            ("boolValue", .string(" yes"), [], .boolean(true)),
            ("boolValue", .string("007"), [], .boolean(true)),
            ("boolValue", .string("0"), [], .boolean(false)),
            ("boolValue", .string("no"), [], .boolean(false)),
            ("stringValue", .double(3), [], .string("3")),
            ("stringValue", .double(2.5), [], .string("2.5")),
            ("stringValue", .boolean(true), [], .string("1")),
            ("timeIntervalSinceReferenceDate", .date(Date(timeIntervalSinceReferenceDate: 9)), [], .double(9)),
            (
                "dateByAddingTimeInterval:", .date(Date(timeIntervalSinceReferenceDate: 9)), [.integer(1)],
                .date(Date(timeIntervalSinceReferenceDate: 10))
            ),
            (
                "UUIDString", .uuid(UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!), [],
                .string("00000000-0000-0000-0000-00000000000A")
            ),
            ("uppercaseString", .null, [], .null),
            ("uppercaseString", .integer(1), [], .null),
        ] as [(String, StoreValue, [StoreValue], StoreValue)])
    func foundationMethods(selector: String, receiver: StoreValue, arguments: [StoreValue], expected: StoreValue) {
        let method = ExpressionMethod(receiver: .value, selector: selector)
        #expect(method.apply(to: [receiver] + arguments) == expected)
    }
}
