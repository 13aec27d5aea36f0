import Foundation
import ObjectStack
import Testing

/// What a pinned generation costs a file store under continuous writes: the space later writes free cannot be
/// reused while an old generation is held (LMDB keeps the pages the reader sees off its freelist; SQLite cannot
/// checkpoint the WAL past the reader's mark, so the WAL keeps growing).
@Suite("Query generations: file growth under writes")
struct QueryGenerationGrowthTests {
    /// The bytes of the store's files (SQLite: with its WAL).
    private func size(of url: URL) -> Int {
        [url.path, url.path + "-wal"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Seeds 200 notes, then saves 150 rounds of changes to all of them, with or without a pinned reader; returns
    /// the files' growth over the rounds in bytes, and what the reader still saw.
    private func growth(_ kind: StoreType, pinned: Bool) throws -> (bytes: Int, readerTitles: Set<String>) {
        // LMDB: a map large enough from the start, since growing the map ends a pinned generation (tested below).
        let stack = try HistoryStack(kind, tracking: false, options: kind == .lmdb ? ["mapSize": "\(64 << 20)"] : [:])
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            for index in 0..<200 {
                try writer.insertNote("v0", body: String(repeating: "x", count: 200), rank: Int64(index))
            }
            try writer.save()
        }
        let reader = stack.newContext()
        if pinned { try reader.performAndWait { () throws in try reader.setQueryGenerationFrom(.current) } }
        let before = size(of: stack.location)
        try writer.performAndWait { () throws in
            let notes = try writer.all(ManagedObject.self, "Note")
            for round in 1...150 {
                for note in notes { try note.setValue("v\(round)", forKey: "title") }
                try writer.save()
            }
        }
        let grown = size(of: stack.location) - before
        let titles = try reader.performAndWait { () throws in
            Set(try reader.all(ManagedObject.self, "Note").compactMap { $0.value(forKey: "title") as? String })
        }
        return (grown, titles)
    }

    @Test(
        "writes go on while a generation is pinned; the file grows more than without it", arguments: StoreType.fileTypes
    )
    func growsWhilePinned(kind: StoreType) throws {
        let free = try growth(kind, pinned: false)
        let held = try growth(kind, pinned: true)
        print("\(kind) growth over 150 saves of 200 rows: \(free.bytes) bytes unpinned, \(held.bytes) bytes pinned")
        #expect(held.readerTitles == ["v0"])
        #expect(free.readerTitles == ["v150"])
        #expect(held.bytes > free.bytes)
    }

    @Test("LMDB: growing the map ends a pinned generation, and its reads say so")
    func lmdbGrowthEndsGeneration() throws {
        let stack = try HistoryStack(.lmdb, tracking: false)
        let reader = stack.newContext()
        try reader.performAndWait { () throws in try reader.setQueryGenerationFrom(.current) }
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            // Well past the new store's 1 MB map.
            for _ in 0..<2_000 { try writer.insertNote(String(repeating: "x", count: 1_000)) }
            try writer.save()
        }
        reader.performAndWait {
            #expect {
                try reader.count("Note")
            } throws: { error in
                "\(error)".contains("the pinned generation ended")
            }
        }
        // Moving on pins the new generation.
        try reader.performAndWait { () throws in
            reader.reset()
            #expect(try reader.count("Note") == 2_000)
        }
    }
}
