import Foundation
import ObjectStack

/// Versions of a small library model for migration tests: `base()` is version 1, and each change is a
/// variation of it, built fresh (a model owns its descriptions).
enum MigrationModels {
    /// What a variation changes, as overrides of version 1's declarations.
    struct Changes {
        var authorAttributes: [AttributeDescription]? = nil
        var authorName = "Author"
        var authorRenamingIdentifier: String? = nil
        var bookAttributes: [AttributeDescription]? = nil
        var bookAuthorName = "author"
        var bookAuthorRenamingIdentifier: String? = nil
        var authorConstraints: [[String]] = []
        var bookIndexes: [IndexDescription] = []
        var bookConstraints: [[String]] = []
        var extraEntities: [EntityDescription] = []
        var dropsTags = false
        /// Book's author becomes a to-many (`authors` when renamed), so Author–Book is many-to-many.
        var bookAuthorIsToMany = false
        /// A parent entity for Author (declared in `extraEntities`), and one for Tag.
        var authorParent: String? = nil
        var tagParent: String? = nil
        /// The name of Book's to-many to Tag (Tag's `books` is its inverse).
        var bookTagsName = "tags"
        /// Relationships Author declares besides `books`.
        var authorExtraRelationships: [RelationshipDescription] = []
    }

    static func base() throws -> ManagedObjectModel { try make(Changes()) }

    static func make(_ changes: Changes) throws -> ManagedObjectModel {
        let authorAttributes =
            changes.authorAttributes ?? [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "nickname", type: .string),
                AttributeDescription(name: "rating", type: .integer32),
            ]
        let bookAttributes =
            changes.bookAttributes ?? [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "isbn", type: .string),
            ]
        var bookRelationships = [
            RelationshipDescription(
                name: changes.bookAuthorName, destination: changes.authorName, inverse: "books",
                isToMany: changes.bookAuthorIsToMany, renamingIdentifier: changes.bookAuthorRenamingIdentifier)
        ]
        var entities = [
            EntityDescription(
                name: changes.authorName, parent: changes.authorParent, attributes: authorAttributes,
                relationships: [
                    RelationshipDescription(
                        name: "books", destination: "Book", inverse: changes.bookAuthorName, isToMany: true)
                ] + changes.authorExtraRelationships, uniquenessConstraints: changes.authorConstraints,
                renamingIdentifier: changes.authorRenamingIdentifier)
        ]
        if !changes.dropsTags {
            bookRelationships.append(
                RelationshipDescription(
                    name: changes.bookTagsName, destination: "Tag", inverse: "books", isToMany: true))
            entities.append(
                EntityDescription(
                    name: "Tag", parent: changes.tagParent,
                    attributes: [
                        AttributeDescription(name: "label", type: .string, isOptional: false)
                    ],
                    relationships: [
                        RelationshipDescription(
                            name: "books", destination: "Book", inverse: changes.bookTagsName, isToMany: true)
                    ]))
        }
        entities.append(
            EntityDescription(
                name: "Book", attributes: bookAttributes, relationships: bookRelationships,
                uniquenessConstraints: changes.bookConstraints, indexes: changes.bookIndexes))
        return try ManagedObjectModel(entities: entities + changes.extraEntities)
    }

    /// Fills a version-1 store: 12 authors (every third without a nickname or rating), two books each, and
    /// two tags on every book whose number is even.
    static func seed(_ context: ManagedObjectContext) throws {
        try context.performAndWait { () throws in
            let tags = try ["classic", "modern"].map { label -> ManagedObject in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                try tag.setValue(label, forKey: "label")
                return tag
            }
            for number in 0..<12 {
                let author = try context.insertNewObject(forEntityName: "Author")
                try author.setValue("Author \(number)", forKey: "name")
                if number % 3 != 0 {
                    try author.setValue("nick\(number)", forKey: "nickname")
                    try author.setValue(number, forKey: "rating")
                }
                for volume in 0..<2 {
                    let book = try context.insertNewObject(forEntityName: "Book")
                    try book.setValue("Book \(number)-\(volume)", forKey: "title")
                    try book.setValue("isbn-\(number)-\(volume)", forKey: "isbn")
                    try book.setValue(author, forKey: "author")
                    if volume == 0 { try book.setValue(Set(tags), forKey: "tags") }
                }
            }
            try context.save()
        }
    }
}
