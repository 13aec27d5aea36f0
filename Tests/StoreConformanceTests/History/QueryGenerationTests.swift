import Foundation
import ObjectStack
import Testing

/// Query generations: a pinned context reads one generation of its store until it saves, resets, refreshes all
/// objects or is given another token.
@Suite("Query generations")
struct QueryGenerationTests {
    /// A stack with one note titled "old", and a second context on it that writes.
    private func seeded(_ kind: StoreType) throws -> (HistoryStack, ManagedObjectID) {
        let stack = try HistoryStack(kind, tracking: false)
        let seeder = stack.newContext()
        let id = try seeder.performAndWait { () throws in
            let note = try seeder.insertNote("old")
            try seeder.save()
            return note.objectID
        }
        return (stack, id)
    }

    /// Changes the note's title and inserts another note, from another coordinator.
    private func writeElsewhere(_ stack: HistoryStack, _ id: ManagedObjectID) throws {
        let writer = try stack.separateStack(tracking: false).newContext()
        try writer.performAndWait { () throws in
            try (try writer.existingObject(with: id)).setValue("new", forKey: "title")
            try writer.insertNote("second")
            try writer.save()
        }
    }

    private func titles(_ context: ManagedObjectContext) throws -> [String] {
        try context.all(ManagedObject.self, "Note").compactMap { $0.value(forKey: "title") as? String }.sorted()
    }

    @Test("a pinned context sees neither later saves nor their rows until it refreshes", arguments: StoreType.allCases)
    func pinnedReads(kind: StoreType) throws {
        let (stack, id) = try seeded(kind)
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(reader.queryGenerationToken == nil)
            try reader.setQueryGenerationFrom(.current)
            #expect(reader.queryGenerationToken != nil)
            #expect(reader.queryGenerationToken != .current)
        }
        try writeElsewhere(stack, id)
        try reader.performAndWait { () throws in
            #expect(try titles(reader) == ["old"])
            #expect(try reader.count("Note") == 1)
            // A fault fired now reads the generation too, not the newer row.
            let note = try reader.existingObject(with: id)
            reader.refresh(note, mergeChanges: false)
            #expect(note.value(forKey: "title") as? String == "old")
            reader.refreshAllObjects()
            #expect(try titles(reader) == ["new", "second"])
            #expect(note.value(forKey: "title") as? String == "new")
        }
    }

    @Test("saving, resetting or unpinning moves a context to the latest data", arguments: StoreType.allCases)
    func advances(kind: StoreType) throws {
        let (stack, id) = try seeded(kind)
        let reader = stack.newContext()
        try reader.performAndWait { () throws in try reader.setQueryGenerationFrom(.current) }
        try writeElsewhere(stack, id)
        try reader.performAndWait { () throws in
            let before = reader.queryGenerationToken
            try reader.insertNote("mine")
            try reader.save()
            #expect(reader.queryGenerationToken != before)
            #expect(try titles(reader) == ["mine", "new", "second"])
        }
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            try writer.insertNote("later")
            try writer.save()
        }
        try reader.performAndWait { () throws in
            #expect(try reader.count("Note") == 3)
            reader.reset()
            #expect(try reader.count("Note") == 4)
            try writer.performAndWait { () throws in
                try writer.insertNote("latest")
                try writer.save()
            }
            #expect(try reader.count("Note") == 4)
            try reader.setQueryGenerationFrom(nil)
            #expect(reader.queryGenerationToken == nil)
            #expect(try reader.count("Note") == 5)
        }
    }

    @Test("merging a save moves a pinned context to the generation that holds it", arguments: StoreType.allCases)
    func mergeAdvances(kind: StoreType) throws {
        let (stack, id) = try seeded(kind)
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            try reader.setQueryGenerationFrom(.current)
            #expect(try titles(reader) == ["old"])
        }
        let writer = stack.newContext()
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil
        ) { note in
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait { () throws in
            try (try writer.existingObject(with: id)).setValue("merged", forKey: "title")
            try writer.save()
        }
        try reader.performAndWait { () throws in
            #expect(reader.registeredObject(for: id)?.value(forKey: "title") as? String == "merged")
            #expect(try titles(reader) == ["merged"])
        }
    }

    @Test("another context given the token reads the same generation", arguments: StoreType.allCases)
    func sharedToken(kind: StoreType) throws {
        let (stack, id) = try seeded(kind)
        let first = stack.newContext()
        let token = try first.performAndWait { () throws in
            try first.setQueryGenerationFrom(.current)
            return try #require(first.queryGenerationToken)
        }
        try writeElsewhere(stack, id)
        let latest = stack.newContext()
        try latest.performAndWait { () throws in #expect(try titles(latest) == ["new", "second"]) }
        // (Pinned before it reads: pinning leaves objects a context already holds as they are, as in Core Data.)
        let second = stack.newContext()
        try second.performAndWait { () throws in
            try second.setQueryGenerationFrom(token)
            #expect(second.queryGenerationToken == token)
            #expect(try titles(second) == ["old"])
        }
    }

    @Test("a token whose generation nobody holds, or of another store, is refused", arguments: StoreType.allCases)
    func refusesTokens(kind: StoreType) throws {
        let (stack, _) = try seeded(kind)
        let first = stack.newContext()
        let released = try first.performAndWait { () throws in
            try first.setQueryGenerationFrom(.current)
            let token = try #require(first.queryGenerationToken)
            try first.setQueryGenerationFrom(nil)
            return token
        }
        let second = stack.newContext()
        second.performAndWait {
            #expect {
                try second.setQueryGenerationFrom(released)
            } throws: { error in
                (error as? ObjectStackError)?.code == .queryGenerationUnavailable
            }
        }
        let (other, _) = try seeded(kind)
        let foreignHolder = other.newContext()
        let foreign = try foreignHolder.performAndWait { () throws in
            try foreignHolder.setQueryGenerationFrom(.current)
            return try #require(foreignHolder.queryGenerationToken)
        }
        second.performAndWait {
            #expect {
                try second.setQueryGenerationFrom(foreign)
            } throws: { error in
                (error as? ObjectStackError)?.code == .invalidArgument
            }
        }
        // The holder keeps its generation alive until here.
        foreignHolder.performAndWait { #expect(foreignHolder.queryGenerationToken == foreign) }
    }
}
