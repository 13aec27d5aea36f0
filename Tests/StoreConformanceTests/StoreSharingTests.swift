import Foundation
import ObjectStack
import Testing

/// Several coordinators on one store, optimistic locking, the row cache, and opening stores.
@Suite("Coordinators and stores")
struct StoreSharingTests {
    @Test("separate stacks on one store see each other's saves", arguments: StoreType.allCases)
    func separateStacksShareData(kind: StoreType) throws {
        let first = try TestStack(kind)
        let second = try first.separateStack()
        #expect(first.store.identifier == second.store.identifier)
        let writer = first.newContext()
        try writer.performAndWait { () throws in
            let tag = Tag(context: writer)
            tag.name = "shared"
            try writer.save()
        }
        let reader = second.newContext()
        try reader.performAndWait { () throws in #expect(try reader.all(Tag.self, "Tag").map(\.name) == ["shared"]) }
        let elsewhere = try TestStack(kind)
        let isolated = elsewhere.newContext()
        try isolated.performAndWait { () throws in #expect(try isolated.count("Tag") == 0) }
    }

    @Test(
        "a save over a row changed since it was read fails with the merge conflict; nothing is written",
        arguments: StoreType.allCases)
    func optimisticLocking(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let setup = stack.newContext()
        try setup.performAndWait { () throws in
            let book = Book(context: setup)
            book.title = "Original"
            book.pages = 1
            try setup.save()
        }
        let mine = try stack.separateStack().newContext()
        let theirs = try stack.separateStack().newContext()
        let myBook = try mine.performAndWait { try #require(try mine.all(Book.self, "Book").first) }
        mine.performAndWait { _ = myBook.title }
        try theirs.performAndWait { () throws in
            let book = try #require(try theirs.all(Book.self, "Book").first)
            book.title = "Theirs"
            try theirs.save()
        }
        try mine.performAndWait { () throws in
            myBook.pages = 99
            let other = Tag(context: mine)
            other.name = "bystander"
            let error = try #require(throws: ObjectStackError.self) { try mine.save() }
            #expect(error.code == .mergeConflict)
            let conflict = try #require(error.mergeConflicts.first)
            #expect(conflict.objectID == myBook.objectID)
            #expect(conflict.cachedVersion == 1 && conflict.storeVersion == 2)
            #expect(conflict.cachedValues["title"] == .string("Original"))
            #expect(conflict.storeValues?["title"] == .string("Theirs"))
            #expect(conflict.objectValues["pages"] == .integer(99))
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.count("Tag") == 0)
            #expect(try reader.all(Book.self, "Book").first?.pages == 1)
        }
    }

    @Test("a store written with another model is refused with the entities that differ", arguments: StoreType.allCases)
    func modelMismatch(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let other = try ManagedObjectModel(entities: [
            EntityDescription(name: "Author", attributes: [AttributeDescription(name: "nickname", type: .string)])
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: other)
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: kind, at: stack.location)
        }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("Author") && error.message.contains("Book"))
        _ = stack
    }

    @Test("a store added asynchronously calls back off the caller's thread", arguments: StoreType.allCases)
    func asynchronousAdd(kind: StoreType) async throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try LibraryModel.make())
        let location = kind.newLocation()
        let store: any PersistentStore = try await withCheckedThrowingContinuation { continuation in
            coordinator.addPersistentStore(type: kind, at: location) { result in
                continuation.resume(with: result)
            }
        }
        #expect(coordinator.persistentStores.count == 1)
        #expect(
            coordinator.metadata(for: store).entityVersionHashes["Book"]
                == coordinator.managedObjectModel.entitiesByName["Book"]?.versionHash)
        try coordinator.remove(store)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(throws: StoreError.self) {
            try store.execute(StoreFetchRequest(entity: coordinator.managedObjectModel.entitiesByName["Book"]!))
        }
    }

    @Test("the row cache holds what contexts hold and lets go on reset", arguments: StoreType.allCases)
    func rowCacheFollowsContexts(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for index in 0..<5 {
                let tag = Tag(context: context)
                tag.name = "t\(index)"
            }
            try context.save()
            #expect(stack.coordinator.cachedRowCount == 5)
            context.reset()
            #expect(stack.coordinator.cachedRowCount == 0)
            let tags = try context.all(Tag.self, "Tag")
            #expect(stack.coordinator.cachedRowCount == 5)
            #expect(tags.allSatisfy { $0.isFault })
            _ = tags.map(\.name)
        }
    }
}
