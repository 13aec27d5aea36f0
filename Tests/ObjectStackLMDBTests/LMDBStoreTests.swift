import Foundation
import ObjectStack
import Testing

@testable import ObjectStackLMDB

/// The LMDB store's own behaviour: map growth, the environment registry, reopening, index range scans.
@Suite("LMDB store")
struct LMDBStoreTests {
    @Test("a save larger than the initial map grows the map, succeeds and persists")
    func mapGrowth() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        let stack = try LMDBStack(url, options: ["mapSize": "65536"])
        try stack.insertItems(4000, padding: 300)
        let store = try #require(stack.store as? LMDBStore)
        #expect(store.mapSize > 1 << 20)
        #expect(try stack.count() == 4000)
        try stack.coordinator.remove(stack.store)
        let reopened = try LMDBStack(url, options: ["mapSize": "65536"])
        #expect(try reopened.count() == 4000)
    }

    @Test("two coordinators on one file share one environment and see each other's saves")
    func registry() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        let first = try LMDBStack(url)
        let second = try LMDBStack(URL(fileURLWithPath: folder.url.path + "/./store.lmdb"))
        #expect(LMDBEnvironmentRegistry.users(of: url) == 2)
        #expect(first.store.identifier == second.store.identifier)
        try first.insertItems(10)
        #expect(try second.count() == 10)
        try second.insertItems(5, from: 10)
        #expect(try first.count() == 15)
        let firstIDs = try first.ids(sort: [SortKey("code")])
        #expect(try second.ids(sort: [SortKey("code")]) == firstIDs)
        try first.coordinator.remove(first.store)
        #expect(LMDBEnvironmentRegistry.users(of: url) == 1)
        #expect(try second.count() == 15)
        try second.coordinator.remove(second.store)
        #expect(LMDBEnvironmentRegistry.users(of: url) == 0)
    }

    @Test("a store reopened after close keeps its data, identifier and keys")
    func reopen() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        let stack = try LMDBStack(url)
        try stack.insertItems(20)
        let identifier = stack.store.identifier
        let ids = try stack.ids()
        try stack.coordinator.remove(stack.store)
        #expect(!FileManager.default.fileExists(atPath: url.path) || LMDBEnvironmentRegistry.users(of: url) == 0)
        let reopened = try LMDBStack(url)
        #expect(reopened.store.identifier == identifier)
        #expect(try reopened.ids().map { $0.uriRepresentation() } == ids.map { $0.uriRepresentation() })
        try reopened.insertItems(1, from: 20)
        let all = try reopened.ids()
        #expect(all.count == 21 && all.last!.primaryKey! > ids.last!.primaryKey!)
    }

    @Test("index range scans return what a full scan returns")
    func indexScans() throws {
        let folder = try ScratchFolder()
        let stack = try LMDBStack(folder.file())
        try stack.insertItems(700)
        let store = try #require(stack.store as? LMDBStore)
        let when = Date(timeIntervalSinceReferenceDate: 20 * 3600)
        let later = Date(timeIntervalSinceReferenceDate: 30 * 3600)
        let cases: [(String, [Any])] = [
            ("%K == %@", [120]), ("%K < %@", [-100]), ("%K <= %@", [-100]), ("%K > %@", [250]), ("%K >= %@", [250]),
            ("%K BETWEEN {-50, 75}", []), ("%K == %@ AND code BEGINSWITH 'c1'", [-500]),
        ]
        let doubles: [(String, [Any])] = [
            ("%K == %@", [2.25]), ("%K < %@", [-3.5]), ("%K <= %@", [0]), ("%K > %@", [7.75]), ("%K >= %@", [-0.0]),
            ("%K BETWEEN {-1.5, 2}", []),
        ]
        let strings: [(String, [Any])] = [
            ("%K == %@", ["alps3"]), ("%K < %@", ["beta"]), ("%K <= %@", ["alps3"]), ("%K > %@", ["b"]),
            ("%K >= %@", ["zeta1"]), ("%K BETWEEN {'alpha', 'beta5'}", []), ("%K BEGINSWITH %@", ["al"]),
            ("%K BEGINSWITH %@", ["b\u{0}"]), ("%K BEGINSWITH %@", ["é"]), ("%K BEGINSWITH %@", [""]),
            ("%K == nil", []), ("%K BEGINSWITH[c] %@", ["AL"]),
        ]
        let dates: [(String, [Any])] = [
            ("%K == %@", [when]), ("%K < %@", [when]), ("%K >= %@", [when]), ("%K BETWEEN %@", [[when, later]]),
        ]
        let groups = [
            ("n", "plainN", cases), ("x", "plainX", doubles), ("name", "plainName", strings),
            ("when", "plainWhen", dates),
        ]
        var compared = 0
        for (indexed, plain, formats) in groups {
            for (format, args) in formats {
                let viaIndex = try stack.ids(format, arguments: [indexed] + args)
                let viaScan = try stack.ids(format, arguments: [plain] + args)
                #expect(viaIndex == viaScan, "\(format) on \(indexed)")
                let sort = [SortKey("x", ascending: false)]
                #expect(
                    try stack.ids(format, arguments: [indexed] + args, sort: sort)
                        == stack.ids(format, arguments: [plain] + args, sort: sort))
                compared += 1
            }
        }
        #expect(compared == 29)
        // Every comparison above except `[c]` uses an index, each fetched twice; so does the plain side of
        // `== … AND code BEGINSWITH 'c1'`, through code's uniqueness constraint.
        #expect(store.indexScanCount.load(ordering: .relaxed) == 2 * (29 - 1) + 2)
    }
}
