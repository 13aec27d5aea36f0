import Foundation
import ObjectStack
import Testing

/// Aggregate fetches (`ExpressionDescription`, `propertiesToGroupBy`, `havingPredicate`) on every store: the
/// values Core Data computes, nils and empty sets, integer and decimal arithmetic, the order of groups, and the
/// refusals of bad requests before anything is read.
@Suite("Aggregate fetches")
struct AggregateFetchTests {
    /// Six books by three authors (one book without an author):
    ///
    /// | title | author | pages | rank | price | score | published | inPrint |
    /// |---|---|---|---|---|---|---|---|
    /// | Dune | Herbert | 412 | 1 | 9.99 | 4.5 | 1965 | yes |
    /// | Children of Dune | Herbert | 444 | nil | 10.01 | 4.0 | 1976 | yes |
    /// | Messiah | Herbert | 256 | 3 | nil | nil | 1969 | no |
    /// | Earthsea | Le Guin | 205 | 2 | 7.10 | 4.25 | 1968 | yes |
    /// | Lathe | Le Guin | 184 | nil | 7.20 | nil | nil | no |
    /// | Anonymous | nil | 100 | nil | nil | 1.0 | nil | yes |
    static func seeded(_ kind: StoreType) throws -> (TestStack, ManagedObjectContext) {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let herbert = Author(context: context)
            herbert.name = "Herbert"
            let guin = Author(context: context)
            guin.name = "Le Guin"
            let rows: [(String, Author?, Int, Int?, String?, Double?, Int?, Bool)] = [
                ("Dune", herbert, 412, 1, "9.99", 4.5, 1965, true),
                ("Children of Dune", herbert, 444, nil, "10.01", 4.0, 1976, true),
                ("Messiah", herbert, 256, 3, nil, nil, 1969, false),
                ("Earthsea", guin, 205, 2, "7.10", 4.25, 1968, true),
                ("Lathe", guin, 184, nil, "7.20", nil, nil, false),
                ("Anonymous", nil, 100, nil, nil, 1.0, nil, true),
            ]
            for (title, author, pages, rank, price, score, year, inPrint) in rows {
                let book = Book(context: context)
                book.title = title
                book.author = author
                book.pages = pages
                book.inPrint = inPrint
                try book.setValue(rank, forKey: "rank")
                try book.setValue(price.map { Decimal(string: $0)! }, forKey: "price")
                try book.setValue(score, forKey: "score")
                try book.setValue(year.map(Self.date), forKey: "published")
            }
            try context.save()
        }
        return (stack, context)
    }

    static func date(_ year: Int) -> Date {
        Date(timeIntervalSince1970: Double(year - 1970) * 365.25 * 86_400)
    }

    static func request(
        _ properties: [any FetchPropertyConvertible], groupBy: [any FetchPropertyConvertible]? = nil,
        where format: String? = nil, having: String? = nil, sort: [SortKey] = []
    ) throws -> FetchRequest<[String: Any]> {
        var request = FetchRequest<[String: Any]>(entityName: "Book")
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy
        if let format { request.predicate = try FetchPredicate(format: format) }
        if let having { request.havingPredicate = try FetchPredicate(format: having) }
        request.sortDescriptors = sort
        return request
    }

    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    // MARK: - Values

    @Test("count:, sum:, min:, max:, average: over every book, nils skipped", arguments: StoreType.allCases)
    func wholeTable(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let rows = try context.performAndWait {
            try context.fetch(
                Self.request([
                    ExpressionDescription(name: "books", expression: .count("title")),
                    ExpressionDescription(name: "ranked", expression: .count("rank")),
                    ExpressionDescription(name: "pages", expression: .sum("pages")),
                    ExpressionDescription(name: "meanRank", expression: .average("rank")),
                    ExpressionDescription(name: "price", expression: .sum("price")),
                    ExpressionDescription(name: "meanPrice", expression: .average("price")),
                    ExpressionDescription(name: "firstTitle", expression: .min("title")),
                    ExpressionDescription(name: "latest", expression: .max("published")),
                    ExpressionDescription(name: "best", expression: .max("score")),
                    ExpressionDescription(name: "anyOutOfPrint", expression: .min("inPrint")),
                ]))
        }
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["books"] as? Int == 6)
        #expect(row["ranked"] as? Int == 3)
        #expect(row["pages"] as? Int == 1601)
        #expect(row["pages"] as? NSNumber == NSNumber(value: Int64(1601)))
        // (1 + 3 + 2) / 3: an average of integers is a double.
        #expect(Self.number(row["meanRank"]) == 2.0)
        // Decimals add exactly: 9.99 + 10.01 + 7.10 + 7.20.
        #expect(row["price"] as? Decimal == Decimal(string: "34.30"))
        #expect(row["meanPrice"] as? Decimal == Decimal(string: "8.575"))
        #expect(row["firstTitle"] as? String == "Anonymous")
        #expect(row["latest"] as? Date == Self.date(1976))
        #expect(Self.number(row["best"]) == 4.5)
        #expect(row["anyOutOfPrint"] as? Bool == false)
    }

    @Test(
        "over no object: counts and sums are 0, the rest nil (left out of the dictionary)",
        arguments: StoreType.allCases)
    func emptySet(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let rows = try context.performAndWait {
            try context.fetch(
                Self.request(
                    [
                        ExpressionDescription(name: "books", expression: .count("title")),
                        ExpressionDescription(name: "pages", expression: .sum("pages")),
                        ExpressionDescription(name: "score", expression: .sum("score")),
                        ExpressionDescription(name: "price", expression: .sum("price")),
                        ExpressionDescription(name: "meanPages", expression: .average("pages")),
                        ExpressionDescription(name: "first", expression: .min("title")),
                    ], where: "pages > 10000"))
        }
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["books"] as? Int == 0)
        #expect(row["pages"] as? Int == 0)
        #expect(Self.number(row["score"]) == 0)
        #expect(row["price"] as? Decimal == 0)
        #expect(row["meanPages"] == nil && row["first"] == nil)
        #expect(Set(row.keys) == ["books", "pages", "score", "price"])
    }

    @Test("a group whose values are all nil: count 0, sum 0, average and max nil", arguments: StoreType.allCases)
    func nilGroup(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let rows = try context.performAndWait {
            try context.fetch(
                Self.request(
                    [
                        "author.name",
                        ExpressionDescription(name: "ranked", expression: .count("rank")),
                        ExpressionDescription(name: "rank", expression: .sum("rank")),
                        ExpressionDescription(name: "meanRank", expression: .average("rank")),
                        ExpressionDescription(name: "top", expression: .max("rank")),
                    ], groupBy: ["author.name"], where: "rank == nil"))
        }
        // Nil keys sort first and are left out of their dictionary.
        #expect(rows.map { $0["author.name"] as? String } == [nil, "Herbert", "Le Guin"])
        for row in rows {
            #expect(row["ranked"] as? Int == 0)
            #expect(row["rank"] as? Int == 0)
            #expect(row["meanRank"] == nil && row["top"] == nil)
        }
    }

    @Test(
        "expressionResultType converts as SQLite reads a column: an average as integer64 truncates",
        arguments: StoreType.allCases)
    func resultTypes(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let row = try context.performAndWait {
            try #require(
                try context.fetch(
                    Self.request([
                        ExpressionDescription(
                            name: "meanPages", expression: .average("pages"), expressionResultType: .integer64),
                        ExpressionDescription(name: "exact", expression: .average("pages")),
                        ExpressionDescription(
                            name: "asDecimal", expression: .sum("pages"), expressionResultType: .decimal),
                        ExpressionDescription(
                            name: "asDouble", expression: .sum("price"), expressionResultType: .double),
                        ExpressionDescription(
                            name: "count", expression: .count("title"), expressionResultType: .integer16),
                    ])
                ).first)
        }
        // 1601 / 6 = 266.83…
        #expect(row["meanPages"] as? Int == 266)
        #expect(abs((Self.number(row["exact"]) ?? 0) - 1601.0 / 6.0) < 1e-9)
        #expect(row["asDecimal"] as? Decimal == 1601)
        #expect(Self.number(row["asDouble"]) == 34.3)
        #expect(row["count"] as? Int16 == 6)
    }

    // MARK: - Groups

    @Test("groups by a key path: one dictionary per group, in ascending key order", arguments: StoreType.allCases)
    func grouped(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let rows = try context.performAndWait {
            try context.fetch(
                Self.request(
                    [
                        "author.name",
                        ExpressionDescription(name: "books", expression: .count("title")),
                        ExpressionDescription(name: "pages", expression: .sum("pages")),
                        ExpressionDescription(name: "longest", expression: .max("pages")),
                    ], groupBy: ["author.name"]))
        }
        #expect(rows.map { $0["author.name"] as? String } == [nil, "Herbert", "Le Guin"])
        #expect(rows.map { $0["books"] as? Int } == [1, 3, 2])
        #expect(rows.map { $0["pages"] as? Int } == [100, 1112, 389])
        #expect(rows.map { $0["longest"] as? Int } == [100, 444, 205])
        #expect(rows[0].keys.contains("author.name") == false)
        let count = try context.performAndWait {
            try context.count(
                for: Self.request(
                    ["author.name", ExpressionDescription(name: "books", expression: .count("title"))],
                    groupBy: ["author.name"]))
        }
        #expect(count == 3)
    }

    @Test("havingPredicate names aggregates as $name and keys by their key path", arguments: StoreType.allCases)
    func having(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let properties: [any FetchPropertyConvertible] = [
            "author.name", ExpressionDescription(name: "books", expression: .count("title")),
            ExpressionDescription(name: "pages", expression: .sum("pages")),
        ]
        let (several, named, arithmetic) = try context.performAndWait {
            (
                try context.fetch(Self.request(properties, groupBy: ["author.name"], having: "$books > 1")),
                try context.fetch(
                    Self.request(properties, groupBy: ["author.name"], having: "author.name BEGINSWITH 'L'")),
                try context.fetch(
                    Self.request(properties, groupBy: ["author.name"], having: "$pages / $books > 300"))
            )
        }
        #expect(several.map { $0["author.name"] as? String } == ["Herbert", "Le Guin"])
        #expect(named.map { $0["author.name"] as? String } == ["Le Guin"])
        #expect(arithmetic.map { $0["author.name"] as? String } == ["Herbert"])
    }

    @Test("sort keys on a group key or an aggregate, then fetchOffset and fetchLimit", arguments: StoreType.allCases)
    func orderAndWindow(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        var request = try Self.request(
            ["author.name", ExpressionDescription(name: "pages", expression: .sum("pages"))],
            groupBy: ["author.name"], sort: [SortKey("pages", ascending: false)])
        let byPages = try context.performAndWait { try context.fetch(request) }
        #expect(byPages.map { $0["pages"] as? Int } == [1112, 389, 100])
        request.sortDescriptors = [SortKey("author.name", ascending: false)]
        request.fetchOffset = 1
        request.fetchLimit = 1
        let window = try context.performAndWait { try context.fetch(request) }
        #expect(window.map { $0["author.name"] as? String } == ["Herbert"])
    }

    @Test("groups by a to-one (object IDs) and by two keys", arguments: StoreType.allCases)
    func objectAndCompoundKeys(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        let (byAuthor, byBoth, authors) = try context.performAndWait {
            (
                try context.fetch(
                    Self.request(
                        ["author", ExpressionDescription(name: "books", expression: .count("title"))],
                        groupBy: ["author"])),
                try context.fetch(
                    Self.request(
                        ["author.name", "inPrint", ExpressionDescription(name: "books", expression: .count("title"))],
                        groupBy: ["author.name", "inPrint"])),
                try context.all(Author.self, "Author").sorted { $0.name < $1.name }
            )
        }
        #expect(byAuthor.map { $0["author"] as? ManagedObjectID } == [nil] + authors.map(\.objectID))
        #expect(byAuthor.map { $0["books"] as? Int } == [1, 3, 2])
        #expect(
            byBoth.map { "\($0["author.name"] ?? "-") \($0["inPrint"] ?? "-") \($0["books"] ?? "-")" } == [
                "- true 1", "Herbert false 1", "Herbert true 2", "Le Guin false 1", "Le Guin true 1",
            ])
    }

    @Test("decimal keys that are equal as numbers form one group", arguments: StoreType.allCases)
    func decimalGroups(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let rows = try context.performAndWait {
            for (title, price) in [("a", "1.1"), ("b", "1.10"), ("c", "2"), ("d", "2.000")] {
                let book = Book(context: context)
                book.title = title
                try book.setValue(Decimal(string: price)!, forKey: "price")
            }
            try context.save()
            return try context.fetch(
                Self.request(
                    ["price", ExpressionDescription(name: "books", expression: .count("title"))], groupBy: ["price"]))
        }
        #expect(rows.map { $0["price"] as? Decimal } == [Decimal(string: "1.1"), 2])
        #expect(rows.map { $0["books"] as? Int } == [2, 2])
    }

    @Test(
        "aggregates read the store: unsaved changes do not count, as for every dictionary fetch",
        arguments: StoreType.allCases)
    func storeOnly(kind: StoreType) throws {
        let (stack, context) = try Self.seeded(kind)
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        let counts = try context.performAndWait {
            let extra = Book(context: context)
            extra.title = "Unsaved"
            let request = try Self.request([ExpressionDescription(name: "books", expression: .count("title"))])
            let own = try context.fetch(request).first?["books"] as? Int
            let fromChild = try child.performAndWait { try child.fetch(request).first?["books"] as? Int }
            let fresh = stack.newContext()
            let other = try fresh.performAndWait { try fresh.fetch(request).first?["books"] as? Int }
            return [own, fromChild, other]
        }
        #expect(counts == [6, 6, 6])
    }

    @Test("a key-path expression description renames a plain dictionary fetch's key", arguments: StoreType.allCases)
    func renamedKeyPath(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        var request = FetchRequest<[String: Any]>(entityName: "Book")
        request.propertiesToFetch = [ExpressionDescription(name: "name", expression: .keyPath("title")), "pages"]
        request.sortDescriptors = [SortKey("title")]
        let rows = try context.performAndWait { try context.fetch(request) }
        #expect(rows.first?["name"] as? String == "Anonymous")
        #expect(rows.first?["pages"] as? Int == 100)
        #expect(rows.first?["title"] == nil)
    }

    // MARK: - Indexes

    @Test("min: and max: of an indexed attribute come from the index's ends", arguments: QueryPlanTests.explaining)
    func extremesFromIndex(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        var request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [
            ExpressionDescription(name: "first", expression: .min("name")),
            ExpressionDescription(name: "last", expression: .max("name")),
        ]
        let (rows, plan) = try context.performAndWait { (try context.fetch(request), try context.explain(request)) }
        #expect(rows.first?["first"] as? String == "Herbert")
        #expect(rows.first?["last"] as? String == "Le Guin")
        #expect(plan.aggregatesFromIndex, "\(plan)")
        #expect(plan.index?.columns.first?.name == "name")
        #expect(plan.entriesRead <= 2, "\(plan)")
        // Not indexed: the values are read from every row.
        request.propertiesToFetch = [ExpressionDescription(name: "best", expression: .max("rating"))]
        let scanned = try context.performAndWait { try context.explain(request) }
        #expect(!scanned.aggregatesFromIndex)
        #expect(scanned.rowsRead == 2)
    }

    @Test("count: with an index-served predicate is counted from the index", arguments: QueryPlanTests.explaining)
    func countFromIndex(kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        var request = FetchRequest<[String: Any]>(entityName: "Author")
        request.propertiesToFetch = [ExpressionDescription(name: "authors", expression: .count("name"))]
        request.predicate = try FetchPredicate(format: "name BEGINSWITH 'L'")
        let (rows, plan) = try context.performAndWait { (try context.fetch(request), try context.explain(request)) }
        #expect(rows.first?["authors"] as? Int == 1)
        #expect(plan.countsFromIndex, "\(plan)")
        #expect(plan.rowsRead == 0, "\(plan)")
    }

    // MARK: - Bad input

    /// The error a request is refused with, by every store alike and before the store is read: the store is
    /// removed from the coordinator first, so a request that reached it would fail with `.storeFailed`.
    static func refusal(_ kind: StoreType, _ request: FetchRequest<[String: Any]>) throws -> ObjectStackError {
        let stack = try TestStack(kind)
        try stack.coordinator.remove(stack.store)
        let context = stack.newContext()
        return try context.performAndWait {
            do {
                _ = try context.fetch(request)
            } catch let error as ObjectStackError {
                return error
            }
            Issue.record("the request was not refused")
            return ObjectStackError(code: .invalidArgument, message: "")
        }
    }

    @Test("an aggregate of a type it cannot take names the key and the type", arguments: StoreType.allCases)
    func nonNumericAggregate(kind: StoreType) throws {
        let error = try Self.refusal(
            kind, Self.request([ExpressionDescription(name: "total", expression: .sum("title"))]))
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("'title'") && error.message.contains("string") && error.message.contains("sum:"))
        let average = try Self.refusal(
            kind, Self.request([ExpressionDescription(name: "mean", expression: .average("published"))]))
        #expect(average.code == .typeMismatch && average.message.contains("'published'"))
        let cover = try Self.refusal(
            kind, Self.request([ExpressionDescription(name: "cover", expression: .max("cover"))]))
        #expect(cover.code == .typeMismatch && cover.message.contains("binaryData"))
    }

    @Test("unknown and unsupported functions are refused with the function's name", arguments: StoreType.allCases)
    func functions(kind: StoreType) throws {
        let unknown = try Self.refusal(
            kind,
            Self.request([ExpressionDescription(name: "x", expression: .function("frobnicate:", [.keyPath("pages")]))]))
        #expect(unknown.code == .invalidArgument && unknown.message.contains("unknown function 'frobnicate:'"))
        let median = try Self.refusal(
            kind,
            Self.request([ExpressionDescription(name: "x", expression: try FetchExpression(format: "median:(pages)"))]))
        #expect(median.code == .invalidArgument && median.message.contains("median:"))
        #expect(median.message.contains("does not compute"))
        let arity = try Self.refusal(
            kind, Self.request([ExpressionDescription(name: "x", expression: .function("sum:", []))]))
        #expect(arity.code == .invalidArgument && arity.message.contains("one key path"))
    }

    @Test("group-by keys must be fetched, and fetched keys grouped", arguments: StoreType.allCases)
    func grouping(kind: StoreType) throws {
        let count = ExpressionDescription(name: "books", expression: .count("title"))
        let unfetched = try Self.refusal(kind, Self.request([count], groupBy: ["author.name"]))
        #expect(unfetched.code == .invalidArgument)
        #expect(unfetched.message.contains("'author.name'") && unfetched.message.contains("not in propertiesToFetch"))
        let ungrouped = try Self.refusal(kind, Self.request(["author.name", "title", count], groupBy: ["author.name"]))
        #expect(ungrouped.code == .invalidArgument && ungrouped.message.contains("'title'"))
        let bare = try Self.refusal(kind, Self.request(["title", count]))
        #expect(bare.code == .invalidArgument && bare.message.contains("'title'"))
        let onAggregate = try Self.refusal(kind, Self.request(["author.name", count], groupBy: [count]))
        #expect(onAggregate.code == .invalidArgument && onAggregate.message.contains("aggregate 'books'"))
        let toMany = try Self.refusal(kind, Self.request(["tags.name", count], groupBy: ["tags.name"]))
        #expect(toMany.code == .unknownKeyPath && toMany.message.contains("tags.name"))
    }

    @Test("havingPredicate and sort keys must name what is fetched", arguments: StoreType.allCases)
    func havingNames(kind: StoreType) throws {
        let properties: [any FetchPropertyConvertible] = [
            "author.name", ExpressionDescription(name: "books", expression: .count("title")),
        ]
        let unknown = try Self.refusal(
            kind, Self.request(properties, groupBy: ["author.name"], having: "$pages > 1"))
        #expect(unknown.code == .unknownKeyPath && unknown.message.contains("$pages"))
        let ungrouped = try Self.refusal(kind, Self.request(properties, having: "$books > 1"))
        #expect(ungrouped.code == .invalidArgument && ungrouped.message.contains("needs propertiesToGroupBy"))
        let mismatch = try Self.refusal(
            kind, Self.request(properties, groupBy: ["author.name"], having: "$books BEGINSWITH 'a'"))
        #expect(mismatch.code == .typeMismatch && mismatch.message.contains("books"))
        let sort = try Self.refusal(
            kind, Self.request(properties, groupBy: ["author.name"], sort: [SortKey("pages")]))
        #expect(sort.code == .unknownKeyPath && sort.message.contains("pages"))
    }

    @Test("aggregates need dictionary results and a result type that holds their value", arguments: StoreType.allCases)
    func resultTypeRefusals(kind: StoreType) throws {
        var objects = try Self.request([ExpressionDescription(name: "books", expression: .count("title"))])
        objects.resultType = .managedObject
        let notDictionary = try Self.refusal(kind, objects)
        #expect(notDictionary.code == .invalidArgument && notDictionary.message.contains(".dictionary"))
        let string = try Self.refusal(
            kind,
            Self.request([
                ExpressionDescription(name: "books", expression: .count("title"), expressionResultType: .string)
            ]))
        #expect(string.code == .typeMismatch && string.message.contains("'books'"))
        let unknownKey = try Self.refusal(
            kind, Self.request([ExpressionDescription(name: "x", expression: .sum("pagez"))]))
        #expect(unknownKey.code == .unknownKeyPath && unknownKey.message.contains("pagez"))
    }
}
