import Foundation
import ObjectStack
import Testing

/// Validation at save and uniqueness constraints: every failure reported at once, nothing written.
@Suite("Validation and constraints")
struct ValidationTests {
    @Test("one save reports every validation failure together and writes nothing", arguments: StoreKind.allCases)
    func allFailuresAtOnce(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let valid = Author(context: context)
            valid.name = "Valid"
            _ = Book(context: context)  // no title: required
            let empty = Shelf(context: context)
            empty.label = "Empty"  // no books: fewer than 1
            let full = Shelf(context: context)
            full.label = "Full"
            for index in 0..<4 {
                let book = Book(context: context)
                book.title = "B\(index)"
                full.books.insert(book)
            }
            let chapter = Chapter(context: context)
            chapter.title = "Orphan"  // no book: required to-one
            let forbidden = Book(context: context)
            forbidden.title = "Forbidden"  // custom validateForInsert
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.code == .validationFailed)
            let reasons = error.validationFailures.map { "\($0.entityName).\($0.key ?? "-")" }.sorted()
            #expect(reasons == ["Book.-", "Book.title", "Chapter.book", "Shelf.books", "Shelf.books"])
            #expect(error.validationFailures.contains { $0.reason == .tooFewObjects(count: 0, minimum: 1) })
            #expect(error.validationFailures.contains { $0.reason == .tooManyObjects(count: 4, maximum: 3) })
            #expect(error.message.contains("Book.title is required"))
            #expect(context.hasChanges, "a failed save keeps the changes")
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.count("Author") == 0, "nothing of the failed save was written")
            #expect(try reader.count("Book") == 0)
        }
    }

    @Test("a duplicate under a uniqueness constraint fails the save naming entity, constraint and values", arguments: StoreKind.allCases)
    func uniquenessAgainstStore(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let tag = Tag(context: context)
            tag.name = "unique"
            try context.save()
            let duplicate = Tag(context: context)
            duplicate.name = "unique"
            let bystander = Author(context: context)
            bystander.name = "Bystander"
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.code == .constraintConflict)
            let conflict = try #require(error.constraintConflicts.first)
            #expect(conflict.entityName == "Tag" && conflict.attributeNames == ["name"] && conflict.values == [.string("unique")])
            #expect(conflict.existingObjectID == tag.objectID)
            #expect(conflict.conflictingObjectIDs == [duplicate.objectID])
            #expect(error.message.contains("Tag") && error.message.contains("unique"))
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.count("Tag") == 1)
            #expect(try reader.count("Author") == 0, "the bystander of the failed save was not written")
        }
    }

    @Test("two new objects with the same constrained value clash within one save", arguments: StoreKind.allCases)
    func uniquenessWithinSave(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for _ in 0..<2 {
                let tag = Tag(context: context)
                tag.name = "twin"
            }
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.constraintConflicts.first?.conflictingObjectIDs.count == 2)
            #expect(try context.count("Tag", where: nil) == 2, "the context still holds both")
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in #expect(try reader.count("Tag") == 0) }
    }

    @Test("renaming frees a value for another object in the same save", arguments: StoreKind.allCases)
    func uniquenessSwap(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let tag = Tag(context: context)
            tag.name = "old"
            try context.save()
            tag.name = "renamed"
            let newcomer = Tag(context: context)
            newcomer.name = "old"
            try context.save()
            #expect(Set(try context.all(Tag.self, "Tag").map(\.name)) == ["renamed", "old"])
        }
    }
}
