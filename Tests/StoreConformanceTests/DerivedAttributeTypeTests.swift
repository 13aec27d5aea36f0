import Foundation
import ObjectStack
import Testing

/// A derived attribute's derivation must yield values of the attribute's type (issue 37, item 10): a mismatch is
/// refused when the model loads, built in code or read from a model file, naming the entity, the attribute and
/// both types; a well-typed derivation loads and computes on every store.
@Suite("Core Data semantics: derived attribute types")
struct DerivedAttributeTypeTests {
    /// A derived attribute that does not fit, and the result type the error must name.
    struct Mismatch: Sendable, CustomTestStringConvertible {
        let name: String
        let type: AttributeType
        let fileType: String
        let derivation: String
        let result: String
        var testDescription: String { "\(derivation) on \(fileType)" }
    }

    static let mismatches: [Mismatch] = [
        Mismatch(name: "label", type: .string, fileType: "String", derivation: "pages * 2", result: "number"),
        Mismatch(
            name: "label", type: .string, fileType: "String", derivation: "chapters.@count", result: "Integer 64"),
        Mismatch(name: "total", type: .integer64, fileType: "Integer 64", derivation: "title", result: "String"),
        Mismatch(name: "when", type: .date, fileType: "Date", derivation: "pages", result: "Integer 32"),
        Mismatch(
            name: "shout", type: .integer32, fileType: "Integer 32", derivation: "uppercase:(title)", result: "String"),
        Mismatch(name: "stamp", type: .string, fileType: "String", derivation: "now()", result: "Date"),
        Mismatch(name: "flag", type: .boolean, fileType: "Boolean", derivation: "owner.name", result: "String"),
        Mismatch(name: "ref", type: .string, fileType: "String", derivation: "owner", result: "object"),
        Mismatch(
            name: "longest", type: .string, fileType: "String", derivation: "chapters.@max.pages", result: "Integer 32"
        ),
    ]

    /// Item (title, name, pages; to-one `owner`, to-many `chapters` of Items) plus derived attributes.
    private static func entities(deriving derived: [AttributeDescription]) -> [EntityDescription] {
        [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "pages", type: .integer32),
                ] + derived,
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Item", inverse: "chapters"),
                    RelationshipDescription(name: "chapters", destination: "Item", inverse: "owner", isToMany: true),
                ])
        ]
    }

    @Test("a derivation of another type is refused when a model built in code loads", arguments: mismatches)
    func refusedInCode(mismatch: Mismatch) throws {
        let attribute = AttributeDescription(
            name: mismatch.name, type: mismatch.type, derivationExpression: mismatch.derivation)
        let error = try #require(throws: ObjectStackError.self) {
            try ManagedObjectModel(entities: Self.entities(deriving: [attribute]))
        }
        #expect(error.code == .invalidModel)
        for part in ["Item.\(mismatch.name)", mismatch.fileType, "'\(mismatch.derivation)'", mismatch.result] {
            #expect(error.message.contains(part), "\(part) in: \(error.message)")
        }
    }

    @Test(
        "a derivation of another type is refused when a model file loads, on the attribute's line",
        arguments: mismatches)
    func refusedInFile(mismatch: Mismatch) throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(
            TemporaryModelFile.xml(
                """
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                    <attribute name="\(mismatch.name)" optional="YES" attributeType="\(mismatch.fileType)" derived="YES" derivationExpression="\(mismatch.derivation)"/>
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="chapters" inverseEntity="Item"/>
                    <relationship name="chapters" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
                </entity>
                """))
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: url) }
        #expect(error.line == 7, "\(error)")
        for part in ["Item.\(mismatch.name)", mismatch.fileType, mismatch.result] {
            #expect(error.reason.contains(part), "\(part) in: \(error.reason)")
        }
    }

    @Test("derivations that fit their attribute's type load and are computed at save", arguments: StoreType.allCases)
    func fittingDerivationsWork(kind: StoreType) throws {
        let derived: [(String, AttributeType, String)] = [
            ("double", .double, "pages * 2"),
            ("decimal", .decimal, "pages / 4"),
            ("count", .integer16, "chapters.@count"),
            ("countAsDouble", .double, "chapters.@count"),
            ("sum", .integer64, "chapters.@sum.pages"),
            ("average", .float, "chapters.@avg.pages"),
            ("maxTitle", .string, "chapters.@max.title"),
            ("ownerName", .string, "owner.name"),
            ("lower", .string, "lowercase:(title)"),
            ("created", .date, "now()"),
            ("createdSeconds", .double, "now()"),
            ("power", .double, "pages ** 2"),
        ]
        let entities = Self.entities(
            deriving: derived.map { AttributeDescription(name: $0.0, type: $0.1, derivationExpression: $0.2) })
        let stack = try TestStack(kind, model: ManagedObjectModel(entities: entities))
        let context = stack.newContext()
        try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("Book", forKey: "title")
            try item.setValue("Owner", forKey: "name")
            try item.setValue(10, forKey: "pages")
            for (title, pages) in [("b", 4), ("a", 8)] {
                let chapter = try context.insertNewObject(forEntityName: "Item")
                try chapter.setValue(title, forKey: "title")
                try chapter.setValue(pages, forKey: "pages")
                try chapter.setValue(item, forKey: "owner")
            }
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try FetchPredicate(format: "title == 'Book'")
            let item = try #require(try reader.fetch(request).first)
            #expect((item.value(forKey: "double") as? NSNumber)?.doubleValue == 20)
            #expect(item.value(forKey: "decimal") as? Decimal == 2, "integer division, as NSExpression's")
            #expect((item.value(forKey: "count") as? NSNumber)?.intValue == 2)
            #expect((item.value(forKey: "countAsDouble") as? NSNumber)?.doubleValue == 2)
            #expect((item.value(forKey: "sum") as? NSNumber)?.intValue == 12)
            #expect((item.value(forKey: "average") as? NSNumber)?.floatValue == 6)
            #expect(item.value(forKey: "maxTitle") as? String == "b")
            #expect(item.value(forKey: "lower") as? String == "book")
            #expect(item.value(forKey: "created") is Date)
            #expect(((item.value(forKey: "createdSeconds") as? NSNumber)?.doubleValue ?? 0) > 0)
            #expect((item.value(forKey: "power") as? NSNumber)?.doubleValue == 100)
            let chapter = try #require(
                try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first {
                    $0.value(forKey: "title") as? String == "a"
                })
            #expect(chapter.value(forKey: "ownerName") as? String == "Owner")
        }
    }
}
