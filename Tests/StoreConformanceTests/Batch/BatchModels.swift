import Foundation
import ObjectStack

/// Small models for the batch request suites: an entity unique by code, for upserts; parents whose children
/// require them, for the nullify rule's mandatory inverses.
enum BatchModels {
    /// `Item`: `code` unique, `title` required, `count` with a default, `note` optional.
    static func items() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "code", type: .string, isOptional: false),
                    AttributeDescription(name: "title", type: .string, isOptional: false),
                    AttributeDescription(name: "count", type: .integer64, defaultValue: 0),
                    AttributeDescription(name: "note", type: .string),
                ],
                uniquenessConstraints: [["code"]])
        ])
    }

    /// `Parent.children` (nullify) whose inverse `Child.parent` is required; `Group.members` (nullify,
    /// many-to-many) whose inverse `Member.groups` is required; `Book.series` (nullify, to-one) whose inverse
    /// `Series.books` is a required to-many; `Ticket.seat` (nullify, one-to-one) whose inverse `Seat.ticket` is
    /// required.
    static func requiredInverses() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Book", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [RelationshipDescription(name: "series", destination: "Series", inverse: "books")]),
            EntityDescription(
                name: "Series", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "books", destination: "Book", inverse: "series", isToMany: true, isOptional: false,
                        minCount: 1)
                ]),
            EntityDescription(
                name: "Ticket", attributes: [AttributeDescription(name: "code", type: .string)],
                relationships: [RelationshipDescription(name: "seat", destination: "Seat", inverse: "ticket")]),
            EntityDescription(
                name: "Seat", attributes: [AttributeDescription(name: "row", type: .string)],
                relationships: [
                    RelationshipDescription(name: "ticket", destination: "Ticket", inverse: "seat", isOptional: false)
                ]),
            EntityDescription(
                name: "Parent", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "children", destination: "Child", inverse: "parent", isToMany: true)
                ]),
            EntityDescription(
                name: "Child", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "parent", destination: "Parent", inverse: "children", isOptional: false)
                ]),
            EntityDescription(
                name: "Group", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "members", destination: "Member", inverse: "groups", isToMany: true)
                ]),
            EntityDescription(
                name: "Member", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "groups", destination: "Group", inverse: "members", isToMany: true, isOptional: false)
                ]),
        ])
    }
}

extension ManagedObjectContext {
    /// Saves books titled `titles` with pages 0, 10, 20…; returns their IDs.
    func saveBooks(_ titles: [String]) throws -> [ManagedObjectID] {
        try performAndWait { () throws in
            let books = titles.enumerated().map { index, title -> Book in
                let book = Book(context: self)
                book.title = title
                book.pages = index * 10
                return book
            }
            try save()
            return books.map(\.objectID)
        }
    }

    /// The stored values of one object, read fresh from the store (not this context's registered object).
    func storedValues(_ id: ManagedObjectID, _ keys: [String]) throws -> [String: Any] {
        var request = FetchRequest<[String: Any]>(entityName: id.entityName)
        request.predicate = try FetchPredicate(format: "SELF == %@", id)
        request.propertiesToFetch = keys
        return try fetch(request).first ?? [:]
    }
}
