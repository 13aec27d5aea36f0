import Foundation
import ObjectStack
import Testing

/// `FetchPredicate.evaluate(with:)` on single objects, with NSPredicate's semantics for `MATCHES` (ICU's whole-input
/// match), bare key paths inside `SUBQUERY` (the evaluated object's) and `**` (issue 37, items 4–6).
@Suite("Predicate evaluate(with:)")
struct PredicateEvaluateWithTests {
    /// People with an age, a bio and friends, in an in-memory store; returns the context and the people by name.
    private static func people() throws -> (ManagedObjectContext, [String: ManagedObject]) {
        let person = EntityDescription(
            name: "Person",
            attributes: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "bio", type: .string),
                AttributeDescription(name: "age", type: .integer32),
            ],
            relationships: [
                RelationshipDescription(name: "friends", destination: "Person", inverse: "friendOf", isToMany: true),
                RelationshipDescription(name: "friendOf", destination: "Person", inverse: "friends", isToMany: true),
            ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [person]))
        _ = try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://evaluate-\(UUID())")!)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let people = try context.performAndWait {
            var people: [String: ManagedObject] = [:]
            for (name, age, bio) in [("Ann", 30, "a\nb"), ("Bo", 40, "b"), ("Cy", 20, "a\n"), ("Di", 25, "axb")] {
                let object = try context.insertNewObject(forEntityName: "Person")
                try object.setValue(name, forKey: "name")
                try object.setValue(age, forKey: "age")
                try object.setValue(bio, forKey: "bio")
                people[name] = object
            }
            // Ann's friends: Bo (older) and Cy (younger); Cy's friend: Di (older); Bo has none.
            try people["Ann"]!.setValue(Set([people["Bo"]!, people["Cy"]!]), forKey: "friends")
            try people["Cy"]!.setValue(Set([people["Di"]!]), forKey: "friends")
            return people
        }
        return (context, people)
    }

    private static func selected(_ format: String, _ arguments: Any...) throws -> Set<String> {
        let (context, people) = try people()
        let predicate = try FetchPredicate(format: format, argumentArray: arguments)
        return try context.performAndWait {
            Set(try people.filter { try predicate.evaluate(with: $0.value) }.keys)
        }
    }

    @Test(
        "MATCHES matches the whole input as ICU does: no anchor before a final newline, no newline for '.'",
        arguments: [
            ("a", []), ("a$", []), ("^a$.*", []), (".*^b$", ["Bo"]), ("a.b", ["Di"]),
            ("(?s)a.b", ["Ann", "Di"]), ("(?m)a$\nb", ["Ann"]), ("a\\n", ["Cy"]),
            ("(?s).*", ["Ann", "Bo", "Cy", "Di"]),
        ] as [(String, Set<String>)])
    func matches(pattern: String, expected: Set<String>) throws {
        #expect(try Self.selected("bio MATCHES %@", pattern) == expected, "\(pattern.debugDescription)")
    }

    @Test("inside SUBQUERY a key path without the variable is the evaluated object's")
    func subqueryOuterKey() throws {
        // NSPredicate's own example shape: friends older than the person.
        #expect(try Self.selected("SUBQUERY(friends, $f, $f.age > age).@count > 0") == ["Ann", "Cy"])
        #expect(try Self.selected("SUBQUERY(friends, $f, $f.age < age).@count > 0") == ["Ann"])
        #expect(
            try Self.selected("SUBQUERY(friends, $f, SUBQUERY($f.friends, $g, $g.age < age).@count > 0).@count > 0")
                == ["Ann"],
            "at depth two the bare key is still the evaluated object's: Cy's friend Di is younger than Ann, not than Cy"
        )
    }

    @Test("** raises to a power, tighter than * and left to right, with variables substituted")
    func exponent() throws {
        let (context, people) = try Self.people()
        let ann = try #require(people["Ann"])
        try context.performAndWait {
            for (format, expected) in [
                ("$a ** 3 == 8.0", true), ("($a + 1) ** 3 == 27", true), ("$a ** 3 ** 2 == 64", true),
                ("2 * $a ** 2 == 8", true), ("age ** 2 == 900", true), ("age ** 0.5 > 5.47", true),
                ("(0 - age) ** 0.5 == nil", true), ("$a ** 3 == 9", false),
            ] {
                let predicate = try FetchPredicate(format: format).withSubstitutionVariables(["a": 2])
                #expect(try predicate.evaluate(with: ann) == expected, "\(format)")
            }
        }
    }
}
