import Foundation
import ObjectStack

final class Author: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("born") var born: Date?
    @Attribute("rating") var rating: Double
    @Relationship("books") var books: Set<Book>
    @Relationship("agent") var agent: Agent?

    override func awakeFromInsert() {
        rating = 1.5
    }
}

final class Book: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("pages") var pages: Int
    @Attribute("subtitle") var subtitle: String?
    @Attribute("inPrint") var inPrint: Bool
    @Relationship("author") var author: Author?
    @Relationship("tags") var tags: Set<Tag>
    @Relationship("chapters") var chapters: Set<Chapter>
    @Relationship("publisher") var publisher: Publisher?

    /// A custom rule: a book may not be titled "Forbidden".
    override func validateForInsert() throws {
        if value(forKey: "title") as? String == "Forbidden" { throw BookRuleError() }
    }
}

struct BookRuleError: Error, CustomStringConvertible {
    var description: String { "the title Forbidden is not allowed" }
}

final class Tag: ManagedObject {
    @Attribute("name") var name: String
    @Relationship("books") var books: Set<Book>
}

final class Chapter: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("number") var number: Int16
    @Relationship("book") var book: Book?
}

final class Publisher: ManagedObject {
    @Attribute("name") var name: String
    @Relationship("books") var books: Set<Book>
}

final class Agent: ManagedObject {
    @Attribute("name") var name: String
    @Relationship("client") var client: Author?
}

final class Shelf: ManagedObject {
    @Attribute("label") var label: String
    @Relationship("books") var books: Set<Book>
}

class Animal: ManagedObject {
    @Attribute("name") var name: String
}

final class Dog: Animal {
    @Attribute("breed") var breed: String?
}

final class Cat: Animal {
    @Attribute("lives") var lives: Int
}

/// Stores a `[String: String]` as JSON: the transformer of `Book.metadata`.
struct JSONDictionaryTransformer: AttributeValueTransformer {
    func transformedValue(_ value: Any) throws -> Data {
        guard let dictionary = value as? [String: String] else { throw BookRuleError() }
        return try JSONEncoder().encode(dictionary)
    }

    func reverseTransformedValue(_ data: Data) throws -> Any {
        try JSONDecoder().decode([String: String].self, from: data)
    }
}

/// The conformance suite's model: every attribute type, every relationship shape and delete rule,
/// inheritance, a uniqueness constraint, an index, a derived attribute and min/max counts.
enum LibraryModel {
    static func make() throws -> ManagedObjectModel {
        ValueTransformerRegistry.register(JSONDictionaryTransformer(), forName: "JSONDictionaryTransformer")
        let author = EntityDescription(
            name: "Author", managedObjectClass: Author.self,
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "born", type: .date),
                AttributeDescription(name: "rating", type: .double, defaultValue: 0),
                AttributeDescription(name: "bookCount", type: .integer64, derivationExpression: "books.@count"),
            ],
            relationships: [
                RelationshipDescription(
                    name: "books", destination: "Book", inverse: "author", isToMany: true, deleteRule: .cascade),
                RelationshipDescription(name: "agent", destination: "Agent", inverse: "client", deleteRule: .nullify),
            ],
            indexes: [IndexDescription(name: "byName", attributeNames: ["name"])])
        let book = EntityDescription(
            name: "Book", managedObjectClass: Book.self,
            attributes: [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "subtitle", type: .string),
                AttributeDescription(name: "pages", type: .integer32, defaultValue: 0),
                AttributeDescription(name: "rank", type: .integer16),
                AttributeDescription(name: "sales", type: .integer64),
                AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "weight", type: .float),
                AttributeDescription(name: "score", type: .double),
                AttributeDescription(name: "inPrint", type: .boolean, defaultValue: true),
                AttributeDescription(name: "published", type: .date),
                AttributeDescription(name: "cover", type: .binaryData),
                AttributeDescription(name: "isbn", type: .uuid),
                AttributeDescription(name: "site", type: .uri),
                AttributeDescription(
                    name: "metadata", type: .transformable, valueTransformerName: "JSONDictionaryTransformer"),
                AttributeDescription(name: "scratch", type: .string, isTransient: true),
            ],
            relationships: [
                RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "books", isToMany: true),
                RelationshipDescription(
                    name: "chapters", destination: "Chapter", inverse: "book", isToMany: true, deleteRule: .cascade),
                RelationshipDescription(name: "publisher", destination: "Publisher", inverse: "books"),
                RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books"),
            ])
        let tag = EntityDescription(
            name: "Tag", managedObjectClass: Tag.self,
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(name: "books", destination: "Book", inverse: "tags", isToMany: true)
            ],
            uniquenessConstraints: [["name"]])
        let chapter = EntityDescription(
            name: "Chapter", managedObjectClass: Chapter.self,
            attributes: [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "number", type: .integer16, defaultValue: 1),
            ],
            relationships: [
                RelationshipDescription(name: "book", destination: "Book", inverse: "chapters", isOptional: false)
            ])
        let publisher = EntityDescription(
            name: "Publisher", managedObjectClass: Publisher.self,
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(
                    name: "books", destination: "Book", inverse: "publisher", isToMany: true, deleteRule: .deny)
            ])
        let agent = EntityDescription(
            name: "Agent", managedObjectClass: Agent.self,
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(name: "client", destination: "Author", inverse: "agent", deleteRule: .noAction)
            ])
        let shelf = EntityDescription(
            name: "Shelf", managedObjectClass: Shelf.self,
            attributes: [AttributeDescription(name: "label", type: .string, isOptional: false)],
            relationships: [
                RelationshipDescription(
                    name: "books", destination: "Book", inverse: "shelf", isToMany: true, minCount: 1, maxCount: 3)
            ])
        let animal = EntityDescription(
            name: "Animal", managedObjectClass: Animal.self, isAbstract: true,
            attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)])
        let dog = EntityDescription(
            name: "Dog", managedObjectClass: Dog.self, parent: "Animal",
            attributes: [AttributeDescription(name: "breed", type: .string)])
        let cat = EntityDescription(
            name: "Cat", managedObjectClass: Cat.self, parent: "Animal",
            attributes: [AttributeDescription(name: "lives", type: .integer16, defaultValue: 9)])
        return try ManagedObjectModel(entities: [author, book, tag, chapter, publisher, agent, shelf, animal, dog, cat])
    }
}
