import Foundation
import ObjectStack
import Testing

/// Persistent history: what saves and batch requests record, how it is fetched, filtered and purged, and that it
/// lives in the store (across restarts, with the rows it describes).
@Suite("Persistent history")
struct PersistentHistoryTests {
    @Test(
        "each save records one transaction: author, context name, and its inserts, updates and deletes",
        arguments: StoreType.allCases)
    func recordsSaves(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext(author: "app", name: "editor")
        let (a, b) = try context.performAndWait { () throws in
            let a = try context.insertNote("a", body: "one", rank: 1)
            let b = try context.insertNote("b", body: "two", rank: nil)
            try context.save()
            try a.setValue("changed", forKey: "body")
            try context.save()
            context.delete(b)
            try context.save()
            return (a.objectID, b.objectID)
        }
        let transactions = try stack.history()
        try #require(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "app" && $0.contextName == "editor" })
        #expect(transactions.allSatisfy { $0.storeID == stack.store.identifier })
        #expect(transactions.map(\.processID) == Array(repeating: String(getpid()), count: 3))
        #expect(Set(transactions.map(\.token)).count == 3)
        #expect(transactions.map(\.transactionNumber) == transactions.map(\.transactionNumber).sorted())
        #expect(zip(transactions, transactions.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })

        let inserts = try #require(transactions[0].changes)
        #expect(Set(inserts.map(\.changedObjectID)) == [a, b])
        #expect(inserts.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })

        let update = try #require(transactions[1].changes?.first)
        #expect(transactions[1].changes?.count == 1)
        #expect(update.changeType == .update)
        #expect(update.changedObjectID == a)
        #expect(update.updatedProperties == ["body"])

        let delete = try #require(transactions[2].changes?.first)
        #expect(delete.changeType == .delete)
        #expect(delete.changedObjectID == b)
        // Only preserved attributes with a value: title (rank was nil, body is not preserved).
        #expect(delete.tombstoneValues == ["title": .string("b")])
        #expect(delete.tombstone?["title"] as? String == "b")
        #expect(Set(transactions.flatMap { $0.changes ?? [] }.map(\.changeID)).count == 4)
    }

    @Test("a to-many link changed through a join table is an update of both objects", arguments: StoreType.allCases)
    func recordsLinks(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext()
        let (note, label) = try context.performAndWait { () throws in
            let note = try context.insertNote("n")
            let label = try context.insertNewObject(forEntityName: "Label")
            try context.save()
            note.addObject(label, toRelationship: "labels")
            try context.save()
            return (note.objectID, label.objectID)
        }
        let last = try #require(try stack.history().last?.changes)
        let byObject = Dictionary(uniqueKeysWithValues: last.map { ($0.changedObjectID, $0) })
        #expect(byObject[note]?.changeType == .update)
        #expect(byObject[note]?.updatedProperties == ["labels"])
        #expect(byObject[label]?.updatedProperties == ["notes"])
    }

    @Test("batch insert, update and delete each record one transaction", arguments: StoreType.allCases)
    func recordsBatchRequests(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext(author: "importer")
        let ids = try context.performAndWait { () throws in
            var insert = BatchInsertRequest(
                entityName: "Note",
                objects: [["title": "x", "rank": 1], ["title": "y", "rank": 2], ["title": "z", "body": "b"]])
            insert.resultType = .objectIDs
            let ids = try #require(try context.execute(insert).objectIDs)
            var update = BatchUpdateRequest(entityName: "Note")
            update.predicate = try FetchPredicate(format: "rank != nil")
            update.propertiesToUpdate = ["rank": 9]
            try context.execute(update)
            try context.execute(BatchDeleteRequest(objectIDs: [ids[0]]))
            return ids
        }
        let transactions = try stack.history()
        try #require(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "importer" })
        #expect(transactions[0].changes?.map(\.changeType) == [.insert, .insert, .insert])
        #expect(Set(transactions[0].changes?.map(\.changedObjectID) ?? []) == Set(ids))
        #expect(Set(transactions[1].changes?.map(\.changedObjectID) ?? []) == [ids[0], ids[1]])
        #expect(transactions[1].changes?.allSatisfy { $0.updatedProperties == ["rank"] } == true)
        let delete = try #require(transactions[2].changes?.first)
        #expect(delete.changeType == .delete)
        #expect(delete.tombstoneValues == ["title": .string("x"), "rank": .integer(9)])
    }

    @Test("fetches after a token, a transaction and a date", arguments: StoreType.allCases)
    func fetchesAfter(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext()
        for title in ["a", "b", "c"] {
            try context.performAndWait { () throws in
                try context.insertNote(title)
                try context.save()
            }
        }
        let all = try stack.history()
        try #require(all.count == 3)
        #expect(try stack.history(after: all[0].token).map(\.token) == [all[1].token, all[2].token])
        #expect(try stack.history(after: all[2].token).isEmpty)
        let viaTransaction = try context.performAndWait {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: all[1])).transactions
        }
        #expect(viaTransaction.map(\.token) == [all[2].token])
        let viaDate = try context.performAndWait {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: all[0].timestamp)).transactions
        }
        #expect(viaDate.allSatisfy { $0.timestamp > all[0].timestamp })
        #expect(viaDate.last?.token == all[2].token)
        let future = try context.performAndWait {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: Date().addingTimeInterval(60)))
                .transactions
        }
        #expect(future.isEmpty)
    }

    @Test("a fetch request filters transactions by author and changes by type", arguments: StoreType.allCases)
    func filters(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let app = stack.newContext(author: "app")
        let widget = stack.newContext(author: "widget")
        let anonymous = stack.newContext()
        for context in [app, widget, anonymous, app] {
            try context.performAndWait { () throws in
                try context.insertNote("t")
                try context.save()
            }
        }
        try widget.performAndWait { () throws in
            for note in try widget.all(ManagedObject.self, "Note").prefix(1) { widget.delete(note) }
            try widget.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            var transactions = PersistentHistoryTransaction.fetchRequest
            transactions.predicate = try FetchPredicate(format: "author != %@", "app")
            request.fetchRequest = transactions
            let result = try reader.execute(request).transactions
            // A nil author is not "app" in NSPredicate either.
            #expect(result.map(\.author) == ["widget", nil, "widget"])

            var changes = PersistentHistoryChange.fetchRequest
            changes.predicate = try FetchPredicate(
                format: "changeType == %d", PersistentHistoryChangeType.delete.rawValue)
            let deletes = try reader.execute(PersistentHistoryChangeRequest.fetchHistory(withFetchRequest: changes))
            #expect(deletes.transactions.count == 1)
            #expect(deletes.transactions.first?.changes?.map(\.changeType) == [.delete])

            var wrong = PersistentHistoryTransaction.fetchRequest
            wrong.predicate = try FetchPredicate(format: "nonsense == 1")
            let bad = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            bad.fetchRequest = wrong
            #expect(throws: ObjectStackError.self) { try reader.execute(bad) }
        }
    }

    @Test("result types: count, object IDs, changes only, transactions only", arguments: StoreType.allCases)
    func resultTypes(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext()
        let ids = try context.performAndWait { () throws in
            let notes = try ["a", "b"].map { try context.insertNote($0) }
            try context.save()
            try notes[0].setValue(5, forKey: "rank")
            try context.save()
            return notes.map(\.objectID)
        }
        try context.performAndWait { () throws in
            func run(_ type: PersistentHistoryResultType) throws -> PersistentHistoryResult {
                let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
                request.resultType = type
                return try context.execute(request)
            }
            #expect(try run(.count).result as? Int == 2)
            #expect(try run(.statusOnly).result as? Bool == true)
            let changed = try #require(try run(.objectIDs).result as? [ManagedObjectID])
            #expect(changed.count == 3)
            #expect(Set(changed) == Set(ids))
            #expect((try run(.changesOnly).result as? [PersistentHistoryChange])?.count == 3)
            let only = try run(.transactionsOnly).transactions
            #expect(only.count == 2)
            #expect(only.allSatisfy { $0.changes == nil })
        }
    }

    @Test(
        "a purge deletes through the token; a fetch after an earlier token reports the history expired",
        arguments: StoreType.allCases)
    func purges(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext()
        for title in ["a", "b", "c", "d"] {
            try context.performAndWait { () throws in
                try context.insertNote(title)
                try context.save()
            }
        }
        let all = try stack.history()
        try #require(all.count == 4)
        try context.performAndWait { () throws in
            let purge = PersistentHistoryChangeRequest.deleteHistory(before: all[1].token)
            purge.resultType = .count
            #expect(try context.execute(purge).count == 2)
        }
        #expect(try stack.history().map(\.token) == [all[2].token, all[3].token])
        #expect(try stack.history(after: all[1].token).map(\.token) == [all[2].token, all[3].token])
        #expect {
            try stack.history(after: all[0].token)
        } throws: { error in
            (error as? ObjectStackError)?.code == .persistentHistoryTokenExpired
        }
        // Numbers are not handed out again after a purge.
        try context.performAndWait { () throws in
            try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: nil as PersistentHistoryToken?))
            try context.insertNote("e")
            try context.save()
        }
        let after = try stack.history()
        #expect(after.count == 1)
        #expect(after[0].transactionNumber > all[3].transactionNumber)
        #expect(throws: ObjectStackError.self) { try stack.history(after: all[2].token) }
    }

    @Test("deleting history before a date keeps what came later", arguments: StoreType.allCases)
    func purgesByDate(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("old")
            try context.save()
        }
        Thread.sleep(forTimeInterval: 0.02)
        let cut = Date()
        Thread.sleep(forTimeInterval: 0.02)
        try context.performAndWait { () throws in
            try context.insertNote("new")
            try context.save()
            try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: cut))
        }
        let left = try stack.history()
        #expect(left.count == 1)
        #expect(left.first.map { $0.timestamp > cut } == true)
    }

    @Test("history and its tokens survive closing and reopening the store", arguments: StoreType.fileTypes)
    func survivesRestart(kind: StoreType) throws {
        let location = kind.newLocation()
        var tokens: [PersistentHistoryToken] = []
        do {
            let stack = try HistoryStack(kind, location: location)
            let context = stack.newContext(author: "first run")
            try context.performAndWait { () throws in
                try context.insertNote("a")
                try context.save()
            }
            tokens = try stack.history().map(\.token)
            try stack.coordinator.remove(stack.store)
        }
        let archived = try JSONEncoder().encode(tokens[0])
        let reopened = try HistoryStack(kind, location: location)
        let context = reopened.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("b")
            try context.save()
        }
        let history = try reopened.history()
        #expect(history.count == 2)
        #expect(history.first?.token == tokens[0])
        #expect(history.first?.author == "first run")
        let restored = try JSONDecoder().decode(PersistentHistoryToken.self, from: archived)
        #expect(try reopened.history(after: restored).count == 1)
        #expect(reopened.coordinator.currentPersistentHistoryToken() == history.last?.token)
    }

    @Test("a token of another store is refused, naming the store", arguments: StoreType.allCases)
    func refusesForeignToken(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let other = try HistoryStack(kind)
        let context = other.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("elsewhere")
            try context.save()
        }
        let foreign = try #require(try other.history().first?.token)
        #expect(foreign != (try stack.history().first?.token))
        #expect {
            try stack.history(after: foreign)
        } throws: { error in
            let error = error as? ObjectStackError
            return error?.code == .invalidArgument && error?.message.contains(other.store.identifier) == true
        }
    }

    @Test("a transaction's object-ID notification merges its changes into a context", arguments: StoreType.allCases)
    func mergesTransaction(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let viewer = stack.newContext()
        let writer = try stack.separateStack().newContext()
        let (kept, gone) = try viewer.performAndWait { () throws in
            let kept = try viewer.insertNote("kept", rank: 1)
            let gone = try viewer.insertNote("gone")
            try viewer.save()
            return (kept.objectID, gone.objectID)
        }
        let before = try #require(try stack.history().last?.token)
        try writer.performAndWait { () throws in
            let note = try writer.existingObject(with: kept)
            try note.setValue(2, forKey: "rank")
            writer.delete(try writer.existingObject(with: gone))
            try writer.save()
        }
        let transactions = try stack.history(after: before)
        #expect(transactions.count == 1)
        try viewer.performAndWait { () throws in
            for transaction in transactions {
                viewer.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
            #expect(viewer.registeredObject(for: kept)?.value(forKey: "rank") as? Int64 == 2)
            #expect(viewer.registeredObject(for: gone) == nil)
        }
    }

    @Test("without history tracking nothing is recorded", arguments: StoreType.allCases)
    func offByDefault(kind: StoreType) throws {
        let stack = try HistoryStack(kind, tracking: false)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("a")
            try context.save()
            try context.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "b"]]))
        }
        #expect(try stack.history().isEmpty)
        #expect(stack.coordinator.currentPersistentHistoryToken() == nil)
    }

    @Test("a save that fails records no transaction", arguments: StoreType.allCases)
    func failedSaveRecordsNothing(kind: StoreType) throws {
        let stack = try HistoryStack(kind)
        let first = stack.newContext()
        let second = stack.newContext()
        let id = try first.performAndWait { () throws in
            let note = try first.insertNote("a")
            try first.save()
            return note.objectID
        }
        try second.performAndWait { () throws in try (try second.existingObject(with: id)).setValue("b", forKey: "body")
        }
        try first.performAndWait { () throws in
            try (try first.existingObject(with: id)).setValue("c", forKey: "body")
            try first.save()
        }
        let count = try stack.history().count
        second.performAndWait {
            #expect(throws: ObjectStackError.self) { try second.save() }
        }
        #expect(try stack.history().count == count)
    }
}
