import Foundation
import ObjectStack
import Testing

/// The plans the LMDB and in-memory stores choose (`ManagedObjectContext.explain`): which index, whether the
/// order comes from it, how many rows a fetch reads, and that the results are still those of a scan.
@Suite("Query plans")
struct QueryPlanTests {
    /// Stores whose plans the context can show (SQLite has its own EXPLAIN QUERY PLAN).
    static let explaining: [StoreType] = [.inMemory, .lmdb]

    /// `Item`: a name (required, indexed by `byName`), a rank with ties (indexed attribute), a note (optional,
    /// not indexed), unique by name.
    private static func model() throws -> ManagedObjectModel {
        let item = EntityDescription(
            name: "Item",
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(
                    name: "rank", type: .integer64, isOptional: false, defaultValue: .integer(0), isIndexed: true),
                AttributeDescription(name: "note", type: .string),
                AttributeDescription(name: "weight", type: .integer64),
            ],
            uniquenessConstraints: [["name"]],
            indexes: [IndexDescription(name: "byName", attributeNames: ["name"])])
        return try ManagedObjectModel(entities: [item])
    }

    /// A stack holding 300 items: names in a scrambled order, rank i % 30 (ten of each), a note on every third,
    /// a weight (not indexed) of i % 7 except on every eleventh, which has none.
    private static func seeded(_ kind: StoreType) throws -> (TestStack, ManagedObjectContext) {
        let stack = try TestStack(kind, model: model())
        let context = stack.newContext()
        try context.performAndWait {
            for i in 0..<300 {
                let object = ManagedObject(entity: stack.model.entitiesByName["Item"]!, insertInto: context)
                try object.setValue("item\((i * 7919) % 1000)", forKey: "name")
                try object.setValue(Int64(i % 30), forKey: "rank")
                try object.setValue(i % 3 == 0 ? "n\(i)" : nil, forKey: "note")
                try object.setValue(i % 11 == 0 ? nil : Int64(i % 7), forKey: "weight")
            }
            try context.save()
        }
        return (stack, context)
    }

    private static func request(_ format: String? = nil, sort: [SortKey] = [], limit: Int = 0) throws -> FetchRequest<
        ManagedObject
    > {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        if let format { request.predicate = try FetchPredicate(format: format) }
        request.sortDescriptors = sort
        request.fetchLimit = limit
        return request
    }

    /// The names a fetch returns, and the same fetch's answer computed from every row in Swift.
    private static func names(_ context: ManagedObjectContext, _ request: FetchRequest<ManagedObject>) throws
        -> [String]
    {
        try context.fetch(request).map { $0.value(forKey: "name") as! String }
    }

    @Test(
        "a sorted, limited fetch walks the index that orders it and reads about offset+limit rows",
        arguments: explaining)
    func sortedWithLimit(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let all = try Self.names(context, Self.request()).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for ascending in [true, false] {
                var request = try Self.request(sort: [SortKey("name", ascending: ascending)], limit: 10)
                request.fetchOffset = 5
                let plan = try context.explain(request)
                #expect(plan.index?.name == "index/Item/byName" || plan.index?.name == "unique/Item/name")
                #expect(plan.orderFromIndex && plan.isDescending == !ascending)
                #expect(plan.rowsRead <= 16, "\(plan)")
                let expected = Array((ascending ? all : all.reversed()).dropFirst(5).prefix(10))
                #expect(try Self.names(context, request) == expected)
            }
        }
    }

    @Test(
        "ties on a sort key served by an index come back in primary-key order, both directions", arguments: explaining)
    func tiesInKeyOrder(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let byKey = try context.fetch(Self.request())
            for ascending in [true, false] {
                let request = try Self.request(sort: [SortKey("rank", ascending: ascending)], limit: 25)
                let plan = try context.explain(request)
                #expect(plan.index?.name == "index/Item/.rank" && plan.orderFromIndex)
                // Ranks 0, 0, … (ten rows each): the first 25 are ranks 0-1 and five of rank 2, in key order.
                let ranks = ascending ? [0, 1, 2] : [29, 28, 27]
                let expected = ranks.flatMap { rank in
                    byKey.filter { $0.value(forKey: "rank") as! Int64 == Int64(rank) }
                }
                #expect(try context.fetch(request).map(\.objectID) == Array(expected.prefix(25)).map(\.objectID))
                #expect(plan.rowsRead < 40, "\(plan)")
            }
        }
    }

    @Test("IN is a set of seeks on the index of its key path", arguments: explaining)
    func inSeeks(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let wanted = ["item0", "item919", "item838", "nothing"]
            var filled = try Self.request(sort: [SortKey("name")])
            filled.predicate = try FetchPredicate(format: "name IN %@", wanted)
            let plan = try context.explain(filled)
            #expect(plan.index != nil && plan.index!.columns.first?.name == "name")
            if case .index(_, .values(let values)) = plan.access {
                #expect(values.count == 4)
            } else {
                Issue.record("expected seeks, got \(plan)")
            }
            #expect(plan.rowsRead == 3)
            #expect(try Self.names(context, filled) == ["item0", "item838", "item919"])
        }
    }

    @Test("a count whose predicate an index range decides reads no row", arguments: explaining)
    func countFromIndex(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            var request = try Self.request("rank BETWEEN {10, 14}")
            request.resultType = .count
            let plan = try context.explain(request)
            #expect(plan.countsFromIndex && plan.rowsRead == 0, "\(plan)")
            #expect(try context.count(for: Self.request("rank BETWEEN {10, 14}")) == 50)
            // A second condition the index does not decide: rows are read and the count is still right.
            var mixed = try Self.request("rank BETWEEN {10, 14} AND note != nil")
            mixed.resultType = .count
            let mixedPlan = try context.explain(mixed)
            #expect(!mixedPlan.countsFromIndex && mixedPlan.rowsRead == 50)
            let expected = (0..<300).filter { (10...14).contains($0 % 30) && $0 % 3 == 0 }.count
            #expect(try context.count(for: Self.request("rank BETWEEN {10, 14} AND note != nil")) == expected)
        }
    }

    @Test(
        "[c] and other comparisons an index cannot order fall back to a scan with the same results",
        arguments: explaining)
    func notIndexable(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let request = try Self.request(
                "name BEGINSWITH[c] 'ITEM1'", sort: [SortKey("name", caseInsensitive: true)], limit: 5)
            let plan = try context.explain(request)
            if case .scan = plan.access {} else { Issue.record("expected a scan, got \(plan)") }
            #expect(!plan.orderFromIndex && plan.rowsRead == 300)
            let expected = try Self.names(context, Self.request())
                .filter { $0.hasPrefix("item1") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(5)
            #expect(try Self.names(context, request) == Array(expected))
        }
    }

    @Test(
        "counts and fetches of plain attribute tests on unindexed columns match the rows", arguments: StoreType.allCases
    )
    func plainTests(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let expected = (0..<300).filter { $0 % 3 == 0 && "n\($0)" >= "n5" && "n\($0)" != "n60" }
            let format = "note >= 'n5' AND note != 'n60' AND note != nil"
            #expect(try context.count(for: Self.request(format)) == expected.count)
            let fetched = try context.fetch(Self.request(format)).map { $0.value(forKey: "note") as! String }
            #expect(fetched == expected.map { "n\($0)" })
            var limited = try Self.request(format, limit: 3)
            limited.resultType = .count
            #expect(try context.count(for: limited) == 3)
        }
    }

    @Test("nil is found on a column whose uniqueness constraint has no entry for it", arguments: StoreType.allCases)
    func nilOnUniqueColumn(_ kind: StoreType) throws {
        let tag = EntityDescription(
            name: "Tag", attributes: [AttributeDescription(name: "code", type: .string)],
            uniquenessConstraints: [["code"]])
        let stack = try TestStack(kind, model: ManagedObjectModel(entities: [tag]))
        let context = stack.newContext()
        try context.performAndWait {
            for code in [nil, "a", nil, "b", nil] as [String?] {
                try ManagedObject(entity: stack.model.entitiesByName["Tag"]!, insertInto: context).setValue(
                    code, forKey: "code")
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Tag")
            request.predicate = try FetchPredicate(format: "code == nil")
            #expect(try context.count(for: request) == 3)
            request.predicate = try FetchPredicate(format: "code IN {nil, 'a'}")
            #expect(try context.fetch(request).count == 4)
            request.predicate = try FetchPredicate(format: "code == 'b'")
            #expect(try context.fetch(request).count == 1)
        }
    }

    @Test(
        "a limited walk of an index whose only column is the sort key reads no row past the last match",
        arguments: explaining)
    func limitedWalkStopsAtLastMatch(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let byKey = try context.fetch(Self.request())
            // Rank 0 has ten rows; the first four in key order are the answer, and the walk stops at them.
            let request = try Self.request(sort: [SortKey("rank")], limit: 4)
            let plan = try context.explain(request)
            #expect(plan.index?.name == "index/Item/.rank" && plan.orderFromIndex)
            #expect(plan.rowsRead == 4, "\(plan)")
            let expected = byKey.filter { $0.value(forKey: "rank") as! Int64 == 0 }.prefix(4).map(\.objectID)
            #expect(try context.fetch(request).map(\.objectID) == Array(expected))
        }
    }

    @Test(
        "a sort on a column no index orders returns the scan's rows in sort order, nil first, ties by key",
        arguments: StoreType.allCases)
    func sortWithoutIndex(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let byKey = try context.fetch(Self.request())
            func weight(_ object: ManagedObject) -> Int64 { object.value(forKey: "weight") as? Int64 ?? -1 }
            for (ascending, limit) in [(true, 0), (true, 20), (false, 20), (false, 200)] {
                let request = try Self.request(sort: [SortKey("weight", ascending: ascending)], limit: limit)
                // Swift's sort is stable, so rows of one weight stay in key order.
                let sorted = byKey.sorted { ascending ? weight($0) < weight($1) : weight($0) > weight($1) }
                let expected = (limit > 0 ? Array(sorted.prefix(limit)) : sorted).map(\.objectID)
                #expect(
                    try context.fetch(request).map(\.objectID) == expected, "ascending \(ascending), limit \(limit)")
            }
        }
    }

    @Test(
        "counts of integer tests on an unindexed column match the rows, nil and a double constant included",
        arguments: StoreType.allCases)
    func integerTestCounts(_ kind: StoreType) throws {
        let (_, context) = try Self.seeded(kind)
        try context.performAndWait {
            let weights: [Int64?] = (0..<300).map { $0 % 11 == 0 ? nil : Int64($0 % 7) }
            let cases: [(String, (Int64?) -> Bool)] = [
                ("weight > 3", { $0.map { $0 > 3 } ?? false }),
                ("weight >= 3 AND weight != 5", { $0.map { $0 >= 3 && $0 != 5 } ?? false }),
                ("weight != 4", { $0 != 4 }),
                ("weight == 0", { $0 == 0 }),
                ("weight < 2.5", { $0.map { $0 < 3 } ?? false }),
                ("weight <= 1 AND note != nil", { _ in true }),
            ]
            for (format, holds) in cases {
                var expected = weights.filter(holds).count
                if format.hasSuffix("note != nil") {
                    expected = (0..<300).filter { $0 % 3 == 0 && $0 % 11 != 0 && $0 % 7 <= 1 }.count
                }
                let request = try Self.request(format)
                let counted = try context.count(for: request)
                let fetched = try context.fetch(request).count
                #expect(counted == expected && fetched == expected, "\(format): counted \(counted), fetched \(fetched)")
            }
        }
    }

    @Test("the SQLite store says it does not explain through the context")
    func sqliteDoesNotExplain() throws {
        let (_, context) = try Self.seeded(.sqlite)
        _ = context.performAndWait {
            #expect(throws: ObjectStackError.self) { try context.explain(Self.request()) }
        }
    }
}
