import Foundation
import ObjectStack
import Testing

/// Validation at save and uniqueness constraints: every failure reported at once, nothing written.
@Suite("Validation and constraints")
struct ValidationTests {
    @Test("one save reports every validation failure together and writes nothing", arguments: StoreType.allCases)
    func allFailuresAtOnce(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let valid = Author(context: context)
            valid.name = "Valid"
            _ = Book(context: context)  // no title: required
            let empty = Shelf(context: context)
            empty.label = "Empty"  // no books: valid, the minimum of an optional to-many applies once it is non-empty
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
            #expect(reasons == ["Book.-", "Book.title", "Chapter.book", "Shelf.books"])
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

    /// Boxes hold items (optional to-many, 2 to 4) and labels (required to-many, at least 1).
    static func boxModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Box", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: "Item", inverse: "box", isToMany: true, minCount: 2, maxCount: 4),
                    RelationshipDescription(
                        name: "labels", destination: "Label", inverse: "box", isToMany: true, isOptional: false),
                ]),
            EntityDescription(
                name: "Item", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "box", destination: "Box", inverse: "items")]),
            EntityDescription(
                name: "Label", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "box", destination: "Box", inverse: "labels")]),
        ])
    }

    @Test(
        "an empty optional to-many passes its minimum count; a non-empty one below it and an empty required one fail",
        arguments: StoreType.allCases)
    func minimumCountOfOptionalToMany(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.boxModel())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            func box(_ name: String, items: Int, labels: Int) throws -> ManagedObject {
                let box = try context.insertNewObject(forEntityName: "Box")
                try box.setValue(name, forKey: "name")
                for _ in 0..<items {
                    try box.addObject(context.insertNewObject(forEntityName: "Item"), toRelationship: "items")
                }
                for _ in 0..<labels {
                    try box.addObject(context.insertNewObject(forEntityName: "Label"), toRelationship: "labels")
                }
                return box
            }
            _ = try box("empty", items: 0, labels: 1)
            try context.save()  // an empty optional to-many with a minimum count is valid, as in Core Data
            _ = try box("one item", items: 1, labels: 1)
            _ = try box("no label", items: 2, labels: 0)
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(
                error.validationFailures.map(\.reason).sorted { "\($0)" < "\($1)" }
                    == [.tooFewObjects(count: 0, minimum: 1), .tooFewObjects(count: 1, minimum: 2)])
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.count("Box") == 1, "only the valid save was written")
        }
    }

    @Test(
        "a duplicate under a uniqueness constraint fails the save naming entity, constraint and values",
        arguments: StoreType.allCases)
    func uniquenessAgainstStore(kind: StoreType) throws {
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
            #expect(
                conflict.entityName == "Tag" && conflict.attributeNames == ["name"]
                    && conflict.values == [.string("unique")])
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

    /// One entity, `Item`: a required `code`, unique, and an optional `note`.
    private static func itemModel(indexes: [IndexDescription] = []) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "code", type: .string, isOptional: false),
                    AttributeDescription(name: "note", type: .string),
                ],
                uniquenessConstraints: [["code"]], indexes: indexes)
        ])
    }

    @Test(
        "an update that keeps its unique value still owns it; one that loses it to another object of the save clashes",
        arguments: StoreType.allCases)
    func keptUniqueValues(kind: StoreType) throws {
        let stack = try TestStack(
            kind, model: Self.itemModel(indexes: [IndexDescription(name: "byCode", attributeNames: ["code", "note"])]))
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let kept = try context.insertNewObject(forEntityName: "Item")
            try kept.setValue("v", forKey: "code")
            let other = try context.insertNewObject(forEntityName: "Item")
            try other.setValue("w", forKey: "code")
            try context.save()
            // Only the note changes: the row keeps its unique and index entries.
            try kept.setValue("first", forKey: "note")
            try context.save()
            let duplicate = try context.insertNewObject(forEntityName: "Item")
            try duplicate.setValue("v", forKey: "code")
            var error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.constraintConflicts.first?.existingObjectID == kept.objectID, "the kept value is still owned")
            context.delete(duplicate)
            // One save: `kept` changes its note again while `other` takes its code.
            try kept.setValue("second", forKey: "note")
            try other.setValue("v", forKey: "code")
            error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.code == .constraintConflict)
            let conflict = try #require(error.constraintConflicts.first)
            #expect(error.constraintConflicts.count == 1 && conflict.values == [.string("v")])
            #expect(Set(conflict.conflictingObjectIDs) == [kept.objectID, other.objectID])
            #expect(conflict.existingObjectID == nil)
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try FetchPredicate(format: "code == 'v'")
            let found = try reader.fetch(request)
            #expect(found.count == 1 && found.first?.value(forKey: "note") as? String == "first")
            request.predicate = try FetchPredicate(format: "code == 'w'")
            #expect(try reader.fetch(request).count == 1, "the failed save changed nothing")
        }
    }

    /// Saves one item per code and reads back the rows the store holds for them.
    private static func savedItems(coded codes: [String], in stack: TestStack) throws -> (
        ids: [ManagedObjectID], rows: [RowSnapshot]
    ) {
        let context = stack.newContext()
        let ids = try context.performAndWait { () throws -> [ManagedObjectID] in
            let items = try codes.map { code in
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue(code, forKey: "code")
                return item
            }
            try context.save()
            return items.map(\.objectID)
        }
        return (ids, try stack.store.snapshots(for: ids).map { try #require($0) })
    }

    @Test(
        "a store names the same clash whether the update keeping a unique value comes before or after its taker",
        arguments: StoreType.allCases)
    func keptUniqueValueOrder(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.itemModel())
        let (ids, rows) = try Self.savedItems(coded: ["v", "w"], in: stack)
        // The first keeps its code "v" and changes its note; the second takes "v". Each is sent twice: with the
        // values alone to compare, and with the mask of changed values a context sends.
        let keeper = StoreSaveRequest.Update(
            objectID: ids[0], values: [.string("v"), .string("note")], expectedVersion: rows[0].version,
            committedValues: rows[0].values)
        let taker = StoreSaveRequest.Update(
            objectID: ids[1], values: [.string("v"), .null], expectedVersion: rows[1].version,
            committedValues: rows[1].values)
        var maskedKeeper = keeper
        maskedKeeper.changedMask = 0b10
        var maskedTaker = taker
        maskedTaker.changedMask = 0b01
        for (updates, expected) in [
            ([keeper, taker], [ids[0], ids[1]]), ([taker, keeper], [ids[1], ids[0]]),
            ([maskedKeeper, maskedTaker], [ids[0], ids[1]]), ([maskedTaker, maskedKeeper], [ids[1], ids[0]]),
        ] {
            var request = StoreSaveRequest()
            request.updates = updates
            let error = try #require(throws: StoreError.self) { try stack.store.execute(request) }
            #expect(error.code == .constraintConflict)
            #expect(
                error.constraintConflicts.map(\.conflictingObjectIDs) == [expected], "first claimant, then the other")
            #expect(error.constraintConflicts.first?.values == [.string("v")])
        }
        #expect(try stack.store.snapshots(for: ids).map { $0?.values } == rows.map(\.values), "nothing was written")
    }

    @Test(
        "two takers of a kept unique value each clash with the first claimant in request order",
        arguments: StoreType.allCases)
    func keptUniqueValueTwoTakers(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.itemModel())
        let (ids, rows) = try Self.savedItems(coded: ["v", "w", "x"], in: stack)
        var keeper = StoreSaveRequest.Update(
            objectID: ids[0], values: [.string("v"), .string("note")], expectedVersion: rows[0].version,
            committedValues: rows[0].values)
        keeper.changedMask = 0b10
        let takers = [1, 2].map { index in
            var taker = StoreSaveRequest.Update(
                objectID: ids[index], values: [.string("v"), .null], expectedVersion: rows[index].version,
                committedValues: rows[index].values)
            taker.changedMask = 0b01
            return taker
        }
        // The keeper first: it holds "v", and each taker clashes with it. The keeper last: the first taker claims
        // "v", and the second taker, then the keeper, clash with it.
        for (updates, expected) in [
            ([keeper] + takers, [[ids[0], ids[1]], [ids[0], ids[2]]]),
            (takers + [keeper], [[ids[1], ids[2]], [ids[1], ids[0]]]),
        ] {
            var request = StoreSaveRequest()
            request.updates = updates
            let error = try #require(throws: StoreError.self) { try stack.store.execute(request) }
            #expect(error.code == .constraintConflict)
            #expect(error.constraintConflicts.map(\.conflictingObjectIDs) == expected)
            #expect(error.constraintConflicts.allSatisfy { $0.existingObjectID == nil && $0.values == [.string("v")] })
        }
        #expect(try stack.store.snapshots(for: ids).map { $0?.values } == rows.map(\.values), "nothing was written")
    }

    @Test(
        "an update onto a saved object's unique value clashes; one that changes another value of the same row does not",
        arguments: StoreType.allCases)
    func updateOntoStoredUniqueValue(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.itemModel())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let items = try ["v", "w"].map { code in
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue(code, forKey: "code")
                return item
            }
            try context.save()
            try items[1].setValue("v", forKey: "code")
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(error.code == .constraintConflict)
            #expect(error.constraintConflicts.first?.existingObjectID == items[0].objectID)
            context.rollback()
            try items[1].setValue("a note", forKey: "note")
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let items = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            let rows = Set(items.map { "\($0.value(forKey: "code") ?? "-")/\($0.value(forKey: "note") ?? "-")" })
            #expect(rows == ["v/-", "w/a note"])
        }
    }

    @Test("two new objects with the same constrained value clash within one save", arguments: StoreType.allCases)
    func uniquenessWithinSave(kind: StoreType) throws {
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

    @Test("renaming frees a value for another object in the same save", arguments: StoreType.allCases)
    func uniquenessSwap(kind: StoreType) throws {
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
