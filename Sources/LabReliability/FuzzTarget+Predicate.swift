import Foundation
import LabWorkloads
import ObjectStack

extension FuzzTarget {
    /// The predicate format-string parser, then the binder and evaluator on a fetch of a small pod store.
    public static let predicate = FuzzTarget(
        name: "predicate",
        dictionary: [
            " AND ", " OR ", " NOT ", "&&", "||", "!", "ANY ", "ALL ", "NONE ", "SOME ", "SUBQUERY(", "$x", "$x.",
            "@count", "@sum", "@avg", ".@count", " BEGINSWITH ", " ENDSWITH ", " CONTAINS ", " LIKE ", " MATCHES ",
            " IN ", " BETWEEN ", "[c]", "[d]", "[cd]", "==", "!=", "<=", ">=", "<", ">", "=", "(", ")", "{", "}",
            ",", "'", "\"", "\\", "%@", "%K", "%d", "%f", "%lld", "nil", "NULL", "YES", "NO", "TRUEPREDICATE",
            "FALSEPREDICATE", "SELF", "name", "version", "summary", "downloads", "score", "released", "1", "-2.5",
            "1e308", "0x1F", "'a*'", "'.*'", "'('", "\u{0}", "é", "\u{301}", " + ", " - ", " * ", " / ", "-", "/ 0",
            "[SIZE]", "[FIRST]", "[LAST]", "[0]", "[%d]", "\\*", "\\?", "'a\\*'",
        ],
        execute: { data in
            let format = String(decoding: data, as: UTF8.self)
            do {
                let predicate = try FetchPredicate(format: format, argumentArray: PredicateProbe.arguments(for: format))
                try PredicateProbe.shared.fetch(predicate)
                return .accepted
            } catch is PredicateSyntaxError {
                return .rejected("syntax")
            } catch let error as ObjectStackError {
                return .rejected(error.message)
            } catch {
                return .unexpectedError("\(type(of: error)): \(error)")
            }
        })
}

/// A small in-memory store of pods with tags that fuzzed predicates are bound to and evaluated on.
final class PredicateProbe: Sendable {
    static let shared = try! PredicateProbe()
    /// One argument per placeholder of the format, of the placeholder's kind, so inputs get past counting.
    static func arguments(for format: String) -> [Any] {
        let objects: [Any] = ["AFNetworking", ["a", "b"], 7, "x", 1.5, Date(timeIntervalSince1970: 0)]
        var arguments: [Any] = []
        var characters = format[...]
        while let percent = characters.firstIndex(of: "%") {
            characters = characters[characters.index(after: percent)...]
            guard let kind = characters.first else { break }
            switch kind {
            case "%": characters = characters.dropFirst()
            case "@": arguments.append(objects[arguments.count % objects.count])
            case "K": arguments.append(["name", "downloads", "tags.name", "score"][arguments.count % 4])
            case "f", "g", "e": arguments.append(2.5)
            default: arguments.append(3)
            }
        }
        return arguments
    }

    private let context: ManagedObjectContext

    private init() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Pod",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "version", type: .string),
                    AttributeDescription(name: "summary", type: .string),
                    AttributeDescription(name: "downloads", type: .integer64, defaultValue: 0),
                    AttributeDescription(name: "score", type: .double),
                    AttributeDescription(name: "released", type: .date),
                ],
                relationships: [
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "pods", isToMany: true)
                ]),
            EntityDescription(
                name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "pods", destination: "Pod", inverse: "tags", isToMany: true)
                ]),
        ])
        context = try LabStack.openContext(store: .memory, at: nil, model: model)
        try context.performAndWait {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValue("networking", forKey: "name")
            for index in 0..<5 {
                let pod = try context.insertNewObject(forEntityName: "Pod")
                try pod.setValue(["AFNetworking", "Alamofire", "é", "", "x"][index], forKey: "name")
                try pod.setValue(index % 2 == 0 ? "1.\(index)" : nil, forKey: "version")
                try pod.setValue(Int64(index * 10), forKey: "downloads")
                try pod.setValue(Double(index) / 2, forKey: "score")
                try pod.setValue(Date(timeIntervalSince1970: Double(index) * 86_400), forKey: "released")
                if index < 3 { try pod.setValue(Set([tag]), forKey: "tags") }
            }
            try context.save()
        }
    }

    /// Fetches with the predicate, so binding and evaluation run on real rows.
    func fetch(_ predicate: FetchPredicate) throws {
        var request = FetchRequest<ManagedObject>(entityName: "Pod")
        request.predicate = predicate
        _ = try context.performAndWait { try context.fetch(request) }
    }
}
