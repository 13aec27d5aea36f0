import Foundation
import ObjectStack
import Testing

/// Sorting, limits, result types, pending changes, sub-entities and prefetching.
@Suite("Fetching")
struct FetchTests {
    /// Saves books with the given titles (pages = position) and returns the stack.
    private func stack(_ kind: StoreType, titles: [String?]) throws -> TestStack {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "Author"
            for (index, title) in titles.enumerated() {
                let book = Book(context: context)
                book.title = "t\(index)"
                try book.setValue(title, forKey: "subtitle")
                book.pages = index
                book.author = index % 2 == 0 ? author : nil
            }
            try context.save()
        }
        return stack
    }

    @Test(
        "a fetch with unsaved changes, inserts and deletes answers, window by window, what the store answers once they are saved",
        arguments: StoreType.allCases, [1, 2, 3] as [UInt64])
    func pendingChangesMatchSaved(kind: StoreType, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let titles = ["a", "b", "c", "B"]
        var requests: [FetchRequest<Book>] = []
        for predicate in [nil, "pages > 4", "title IN {'a', 'B'} OR pages < 3"] {
            for sort in [
                [], [SortKey("title")], [SortKey("title", ascending: false), SortKey("pages")],
                [SortKey("pages", ascending: false)],
            ] {
                for (offset, limit) in [(0, 0), (0, 5), (3, 4), (7, 0), (20, 100)] {
                    var request = FetchRequest<Book>(entityName: "Book")
                    request.predicate = try predicate.map { try FetchPredicate(format: $0) }
                    request.sortDescriptors = sort
                    request.fetchOffset = offset
                    request.fetchLimit = limit
                    requests.append(request)
                }
            }
        }
        try context.performAndWait { () throws in
            var books: [Book] = []
            for _ in 0..<30 {
                let book = Book(context: context)
                book.title = random.pick(titles)
                book.pages = Int.random(in: 0..<10, using: &random)
                books.append(book)
            }
            try context.save()
            // Unsaved: some changed (sort and predicate keys), some deleted, some new.
            for book in books.shuffled(using: &random).prefix(12) {
                if random.chance(0.4) {
                    context.delete(book)
                } else {
                    book.title = random.pick(titles)
                    book.pages = Int.random(in: 0..<10, using: &random)
                }
            }
            for _ in 0..<6 {
                let book = Book(context: context)
                book.title = random.pick(titles)
                book.pages = Int.random(in: 0..<10, using: &random)
            }
            let pending = try requests.map { try context.fetch($0) }
            let pendingCounts = try requests.map { try context.count(for: $0) }
            try context.save()
            for (index, request) in requests.enumerated() {
                let saved = try context.fetch(request)
                #expect(
                    pending[index].map(ObjectIdentifier.init) == saved.map(ObjectIdentifier.init),
                    "seed \(seed), \(request.predicate.map { "\($0)" } ?? "all"), \(request.sortDescriptors), \(request.fetchOffset)/\(request.fetchLimit)"
                )
                #expect(pendingCounts[index] == saved.count)
            }
        }
    }

    @Test(
        "strings sort by code point, nil first; case-insensitive and descending keys; ties by insertion",
        arguments: StoreType.allCases)
    func sortOrder(kind: StoreType) throws {
        let stack = try stack(kind, titles: ["b", "B", nil, "a", "é", "A", "b"])
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("subtitle")]
            #expect(try context.fetch(request).map(\.subtitle) == [nil, "A", "B", "a", "b", "b", "é"])
            #expect(
                try context.fetch(request).filter { $0.subtitle == "b" }.map(\.pages) == [0, 6],
                "ties keep insertion order")
            request.sortDescriptors = [SortKey("subtitle", ascending: false)]
            #expect(try context.fetch(request).map(\.subtitle) == ["é", "b", "b", "a", "B", "A", nil])
            request.sortDescriptors = [SortKey("subtitle", caseInsensitive: true), SortKey("pages", ascending: false)]
            #expect(try context.fetch(request).map(\.pages) == [2, 5, 3, 6, 1, 0, 4])
            request.sortDescriptors = [SortKey("author.name"), SortKey("pages")]
            #expect(try context.fetch(request).map(\.pages) == [1, 3, 5, 0, 2, 4, 6])
        }
    }

    @Test(
        "without sort keys, objects saved together come back in the order they were inserted",
        arguments: StoreType.allCases)
    func insertionOrder(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let titles = (0..<40).map { "book \(($0 * 17) % 40)" }
        try context.performAndWait { () throws in
            for title in titles {
                let book = Book(context: context)
                book.title = title
            }
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.all(Book.self, "Book").map(\.title) == titles)
        }
    }

    @Test("limit, offset, count, object IDs and dictionaries", arguments: StoreType.allCases)
    func limitsAndResultTypes(kind: StoreType) throws {
        let stack = try stack(kind, titles: ["e", "d", "c", "b", "a"])
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("subtitle")]
            request.fetchOffset = 1
            request.fetchLimit = 2
            #expect(try context.fetch(request).map(\.subtitle) == ["b", "c"])
            #expect(try context.count(for: request) == 2)
            var all = FetchRequest<Book>(entityName: "Book")
            all.predicate = try FetchPredicate(format: "pages >= 2")
            #expect(try context.count(for: all) == 3)
            var ids = FetchRequest<ManagedObjectID>(entityName: "Book")
            ids.sortDescriptors = [SortKey("pages", ascending: false)]
            let fetchedIDs = try context.fetch(ids)
            #expect(fetchedIDs.count == 5 && fetchedIDs.allSatisfy { !$0.isTemporaryID })
            #expect(context.registeredObject(for: fetchedIDs[0]) == nil, "an ID fetch registers no objects")
            var dictionaries = FetchRequest<[String: Any]>(entityName: "Book")
            dictionaries.propertiesToFetch = ["subtitle", "pages", "author.name"]
            dictionaries.sortDescriptors = [SortKey("pages")]
            let rows = try context.fetch(dictionaries)
            #expect(rows.count == 5)
            #expect(rows[0]["subtitle"] as? String == "e" && rows[0]["pages"] as? Int == 0)
            #expect(rows[0]["author.name"] as? String == "Author" && rows[1]["author.name"] == nil)
            var distinct = FetchRequest<[String: Any]>(entityName: "Book")
            distinct.propertiesToFetch = ["author"]
            distinct.returnsDistinctResults = true
            #expect(try context.fetch(distinct).count == 2, "the author and nil")
        }
    }

    @Test(
        "unsaved inserts, updates and deletes show in fetches and counts unless excluded", arguments: StoreType.allCases
    )
    func pendingChanges(kind: StoreType) throws {
        let stack = try stack(kind, titles: ["a", "b", "c"])
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<Book>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "subtitle IN %@", ["a", "b", "z"])
            request.sortDescriptors = [SortKey("subtitle")]
            let books = try context.fetch(request)
            #expect(books.map(\.subtitle) == ["a", "b"])
            books[0].subtitle = "y"  // no longer matches
            context.delete(books[1])
            let inserted = Book(context: context)
            inserted.title = "new"
            inserted.subtitle = "z"
            let extra = try #require(try context.all(Book.self, "Book", where: "subtitle == 'c'").first)
            extra.subtitle = "a"  // now matches
            #expect(try context.fetch(request).map(\.subtitle) == ["a", "z"])
            #expect(try context.count(for: request) == 2)
            request.fetchLimit = 1
            #expect(try context.fetch(request).map(\.subtitle) == ["a"])
            request.fetchLimit = 0
            request.includesPendingChanges = false
            #expect(
                try context.fetch(request).map { $0.committedValues(forKeys: ["subtitle"])["subtitle"] as? String } == [
                    "a", "b",
                ])
        }
    }

    @Test("a fetch of an abstract parent returns its sub-entities' objects", arguments: StoreType.allCases)
    func subentities(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let dog = Dog(context: context)
            dog.name = "Rex"
            dog.breed = "Collie"
            let cat = Cat(context: context)
            cat.name = "Tom"
            #expect(cat.lives == 9)
            try context.save()
            context.reset()
            var request = FetchRequest<Animal>(entityName: "Animal")
            request.sortDescriptors = [SortKey("name")]
            let animals = try context.fetch(request)
            #expect(animals.map(\.name) == ["Rex", "Tom"])
            #expect(animals[0] is Dog && animals[1] is Cat)
            #expect((animals[0] as? Dog)?.breed == "Collie")
            #expect(try context.all(Animal.self, "Animal", where: "name BEGINSWITH 'T'").map(\.name) == ["Tom"])
            var dogsOnly = FetchRequest<ManagedObject>(entityName: "Dog")
            dogsOnly.includesSubentities = false
            #expect(try context.count(for: dogsOnly) == 1)
            #expect(throws: ObjectStackError.self) { try context.insertNewObject(forEntityName: "Animal") }
        }
    }

    @Test(
        "prefetching reads relationship destinations with the results; batch size changes nothing",
        arguments: StoreType.allCases)
    func prefetchingAndBatches(kind: StoreType) throws {
        let stack = try stack(kind, titles: ["a", "b", "c", "d"])
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<Author>(entityName: "Author")
            request.relationshipKeyPathsForPrefetching = ["books"]
            let author = try #require(try context.fetch(request).first)
            let books = try #require(author.value(forKey: "books") as? Set<ManagedObject>)
            #expect(books.count == 2)
            #expect(books.allSatisfy { !$0.isFault }, "prefetched books are not faults")
            context.reset()
            var batched = FetchRequest<Book>(entityName: "Book")
            batched.fetchBatchSize = 2
            batched.sortDescriptors = [SortKey("pages", ascending: false)]
            let fetched = try context.fetch(batched)
            #expect(fetched.allSatisfy { $0.isFault })
            #expect(fetched[0].pages == 3)
            #expect(
                fetched.map(\.isFault) == [false, false, true, true], "firing one fault reads its whole batch only")
            #expect(fetched.map(\.pages) == [3, 2, 1, 0])
        }
    }
}

extension FetchTests {
    @Test(
        "a limit (with an offset) on a sorted fetch returns exactly that window of the full sort, ties by insertion",
        arguments: StoreType.allCases)
    func sortedWindows(kind: StoreType) throws {
        // 300 books over 7 subtitles (and nil): many ties, so the window's edges fall inside runs of equal keys.
        let titles: [String?] = (0..<300).map { $0 % 8 == 0 ? nil : "s\(($0 * 37) % 7)" }
        let stack = try stack(kind, titles: titles)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for keys in [
                [SortKey("subtitle")], [SortKey("subtitle", ascending: false)],
                [SortKey("subtitle"), SortKey("pages", ascending: false)],
            ] {
                var request = FetchRequest<Book>(entityName: "Book")
                request.sortDescriptors = keys
                let full = try context.fetch(request).map(\.pages)
                #expect(full.count == 300)
                for (offset, limit) in [(0, 1), (0, 50), (13, 7), (140, 9), (295, 10), (0, 149), (0, 151), (10, 300)] {
                    request.fetchOffset = offset
                    request.fetchLimit = limit
                    let window = Array(full.dropFirst(offset).prefix(limit))
                    #expect(
                        try context.fetch(request).map(\.pages) == window, "offset \(offset), limit \(limit), \(keys)")
                    var ids = FetchRequest<ManagedObjectID>(entityName: "Book")
                    (ids.sortDescriptors, ids.fetchOffset, ids.fetchLimit) = (keys, offset, limit)
                    #expect(try context.fetch(ids).count == window.count)
                }
                request.fetchOffset = 0
                request.fetchLimit = 0
            }
        }
    }
}
