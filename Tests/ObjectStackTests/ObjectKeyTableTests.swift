import Foundation
import Testing

@testable import ObjectStack

/// The row cache's table: every key is found with its value however keys came and went, a removal leaves no key
/// unreachable, a copy keeps its entries while the original changes, and tables fill to seven eighths.
@Suite("Object key table")
struct ObjectKeyTableTests {
    private static let entity: EntityDescription = {
        let model = try! ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        return model.entitiesByName["Item"]!
    }()

    /// The key of an item's ID in one of two stores (7 or 9).
    private static func key(_ key: Int64, scope: UInt64 = 7) -> ObjectKey {
        ObjectKey(ManagedObjectID(entity: entity, storeIdentifier: "store \(scope)", primaryKey: key))
    }

    @Test("keys inserted, then half removed in random order: the rest keep their values, the removed are gone")
    func insertAndRemove() {
        var generator = SplitMix(seed: 7)
        // Keys in runs and scattered, in two scopes, so probe runs collide and removals shift entries across them.
        let keys = Array(Set((0..<3_000).map { _ in Int64(generator.next() % 6_000) } + (1...2_000).map(Int64.init)))
        var table = ObjectKeyTable<String>()
        for key in keys {
            for scope: UInt64 in [7, 9] {
                let bucket = table.bucket(inserting: Self.key(key, scope: scope)) { "\(scope):\(key)" }
                #expect(table[bucket] == "\(scope):\(key)")
            }
        }
        #expect(table.count == keys.count * 2)
        // A second insert of a key finds its entry and makes nothing.
        let first = table.bucket(inserting: Self.key(keys[0])) { "again" }
        #expect(table[first] == "7:\(keys[0])" && table.count == keys.count * 2)
        let removed = Set(keys.shuffled(using: &generator).prefix(keys.count / 2))
        for key in removed {
            let bucket = table.bucket(of: Self.key(key))
            #expect(bucket != nil)
            if let bucket { table.remove(at: bucket) }
        }
        #expect(table.count == keys.count * 2 - removed.count)
        var wrong = 0
        for key in keys {
            let found = table.bucket(of: Self.key(key)).map { table[$0] }
            if found != (removed.contains(key) ? nil : "7:\(key)") { wrong += 1 }
            if table.bucket(of: Self.key(key, scope: 9)).map({ table[$0] }) != "9:\(key)" { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test("a copy keeps its entries and values while the original changes them, removes and grows")
    func copyOnWrite() {
        var table = ObjectKeyTable<[Int]>()
        for key in 1...40 { _ = table.bucket(inserting: Self.key(Int64(key))) { [key] } }
        let copy = table
        for key in 1...20 {
            if let bucket = table.bucket(of: Self.key(Int64(key))) { table[bucket].append(0) }
        }
        for key in 21...40 {
            if let bucket = table.bucket(of: Self.key(Int64(key))) { table.remove(at: bucket) }
        }
        for key in 41...400 { _ = table.bucket(inserting: Self.key(Int64(key))) { [key] } }
        #expect(copy.count == 40 && table.count == 380)
        for key in 1...40 {
            #expect(copy.bucket(of: Self.key(Int64(key))).map { copy[$0] } == [key])
        }
        #expect(table.bucket(of: Self.key(5)).map { table[$0] } == [5, 0])
        #expect(table.bucket(of: Self.key(30)) == nil)
    }

    @Test("a table fills to seven eighths before it grows: 100,000 keys fit in 2^17 buckets")
    func sizes() {
        #expect(TableGrowth.buckets(for: 100_000) == 1 << 17)
        #expect(TableGrowth.maximumKeys(inBuckets: 1 << 17) >= 100_000)
        #expect(TableGrowth.buckets(for: 14) == 16 && TableGrowth.buckets(for: 15) == 32)
        #expect(TableGrowth.buckets(for: 0) == 0)
        for keys in [1, 13, 14, 15, 1_000, 98_304, 114_688, 114_689] {
            let buckets = TableGrowth.buckets(for: keys)
            #expect(TableGrowth.maximumKeys(inBuckets: buckets) >= keys)
            #expect(buckets == 16 || TableGrowth.maximumKeys(inBuckets: buckets / 2) < keys)
        }
    }
}
