import Foundation
import Testing

@testable import ObjectStack

/// The row cache keeps each row's holders and the time it was stored in one word: counts go up and down as
/// contexts register and let go, the row leaves with its last holder, a row's age is never understated, and a
/// count too large to keep stops moving instead of wrapping to zero.
@Suite("Row cache")
struct RowCacheTests {
    private static func ids(_ count: Int) throws -> [ManagedObjectID] {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        let item = try #require(model.entitiesByName["Item"])
        return (1...count).map { ManagedObjectID(entity: item, storeIdentifier: "s", primaryKey: Int64($0)) }
    }

    private static func row(_ code: String, version: Int64 = 1) -> RowSnapshot {
        RowSnapshot(values: [.string(code)], version: version)
    }

    @Test("a row stays while any holder has it and leaves with the last; holders of one row are not another's")
    func holders() throws {
        let ids = try Self.ids(2)
        var cache = RowCache()
        let now = RowCacheInstant.now
        cache.store(Self.row("a"), for: ids[0], at: now, references: 1)
        cache.store(Self.row("b"), for: ids[1], at: now, references: 1)
        cache.retain(ids[0], snapshot: nil)
        cache.retain(ids[0], snapshot: nil)
        cache.release(ids[1])
        #expect(cache.snapshot(for: ids[1]) == nil)
        cache.release(ids[0])
        cache.release(ids[0])
        #expect(cache.snapshot(for: ids[0])?.values.first == .string("a"))
        cache.release(ids[0])
        #expect(cache.snapshot(for: ids[0]) == nil && cache.count == 0)
    }

    @Test("a newer version replaces the row and keeps its holders; an older one does not")
    func versions() throws {
        let id = try Self.ids(1)[0]
        var cache = RowCache()
        cache.store(Self.row("a", version: 2), for: id, at: .now, references: 1)
        cache.store(Self.row("old", version: 1), for: id, at: .now, references: 1)
        #expect(cache.snapshot(for: id)?.values.first == .string("a"))
        cache.store(Self.row("new", version: 3), for: id, at: .now)
        #expect(cache.snapshot(for: id)?.values.first == .string("new"))
        cache.release(id)
        #expect(cache.snapshot(for: id) != nil)
        cache.release(id)
        #expect(cache.snapshot(for: id) == nil)
    }

    @Test("a row stored a minute ago is older than 30 seconds and younger than an hour; a new one is never too old")
    func age() throws {
        let ids = try Self.ids(2)
        var cache = RowCache()
        let minuteAgo = RowCacheInstant(nanoseconds: RowCacheInstant.now.nanoseconds - 60_000_000_000)
        cache.store(Self.row("a"), for: ids[0], at: minuteAgo, references: 1)
        #expect(cache.snapshot(for: ids[0], maximumAge: 30) == nil)
        #expect(cache.snapshot(for: ids[0], maximumAge: 3600) != nil)
        cache.store(Self.row("b"), for: ids[1], at: .now, references: 1)
        #expect(cache.snapshot(for: ids[1], maximumAge: 3600) != nil)
        #expect(cache.snapshot(for: ids[1], maximumAge: 0) == nil)
    }

    @Test("a count past what the entry keeps stops there, and the row stays however many let go")
    func saturatedCount() throws {
        let id = try Self.ids(1)[0]
        var cache = RowCache()
        cache.store(Self.row("a"), for: id, at: .now, references: 1 << 24 + 5)
        for _ in 0..<10 { cache.release(id) }
        #expect(cache.snapshot(for: id)?.values.first == .string("a"))
    }
}
