import Foundation
import ObjectStack
import Testing

/// A typed object whose Swift properties are all non-optional while the model's attributes are optional: the
/// shape an app has when a model gains an attribute, or when a property is declared too strictly.
final class Note: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("created") var created: Date
    @Attribute("token") var token: UUID
    @Attribute("link") var link: URL
    @Attribute("body") var body: Data
    @Attribute("words") var words: Int
}

/// Reading an unset value through a non-optional typed property, and writing through a key path, never trap.
@Suite("Unset values through typed properties")
struct UnsetValueTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note", managedObjectClass: Note.self,
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "created", type: .date),
                    AttributeDescription(name: "token", type: .uuid),
                    AttributeDescription(name: "link", type: .uri),
                    AttributeDescription(name: "body", type: .binaryData),
                    AttributeDescription(name: "words", type: .integer32),
                ])
        ])
    }

    private static let nilUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Checks that every property of a note with no values reads its documented empty value.
    private static func expectEmpty(_ note: Note) {
        #expect(note.title == "")
        #expect(note.created == Date(timeIntervalSinceReferenceDate: 0))
        #expect(note.token == nilUUID)
        #expect(note.link == URL(string: "about:blank"))
        #expect(note.body == Data())
        #expect(note.words == 0)
        // value(forKey:) still tells an unset value apart.
        #expect(note.value(forKey: "title") == nil && note.value(forKey: "token") == nil)
    }

    @Test(
        "nil read through non-optional String, Date, UUID, URL and Data properties gives empty values, new and saved",
        arguments: StoreType.allCases)
    func nilReadsAsEmpty(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.model())
        let writer = stack.newContext()
        let id = try writer.performAndWait { () throws in
            let note = Note(context: writer)
            Self.expectEmpty(note)
            try writer.save()
            return note.objectID
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let note = try #require(try reader.existingObject(with: id) as? Note)
            Self.expectEmpty(note)
            let fetched = try #require(try reader.all(Note.self, "Note").first)
            Self.expectEmpty(fetched)
        }
    }

    @Test(
        "a key-path write and a compound assignment to an unset non-optional property store the new value",
        arguments: StoreType.allCases)
    func keyPathWriteToUnset(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.model())
        let context = stack.newContext()
        let id = try context.performAndWait { () throws in
            let note = Note(context: context)
            // A key-path write reads the old value first (the wrapper's modify accessor).
            note[keyPath: \Note.title] = "Groceries"
            note[keyPath: \Note.created] = Date(timeIntervalSince1970: 1_000)
            note.words += 3
            note.body.append(contentsOf: [1, 2])
            #expect(note.title == "Groceries" && note.words == 3 && note.body == Data([1, 2]))
            try context.save()
            return note.objectID
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let note = try #require(try reader.existingObject(with: id) as? Note)
            #expect(note.title == "Groceries" && note.created == Date(timeIntervalSince1970: 1_000))
            #expect(note.words == 3 && note.body == Data([1, 2]))
            #expect(note.token == Self.nilUUID, "never written")
        }
    }
}
