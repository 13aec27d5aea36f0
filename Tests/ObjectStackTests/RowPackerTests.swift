import Foundation
import Testing

@testable import ObjectStack

/// Rows packed by `RowPacker`: every kind of value reads back as it went in, by index and as a whole, and rows
/// outlive their packer and the chunks after theirs.
@Suite("RowPacker")
struct RowPackerTests {
    private static func values(_ seed: Int, id: ManagedObjectID) -> [StoreValue] {
        [
            .null,
            .integer(Int64.min + Int64(seed)),
            .integer(Int64(seed)),
            .double(-0.0),
            .double(Double(seed) + 0.5),
            .boolean(seed % 2 == 0),
            .boolean(seed % 2 == 1),
            .string(""),
            .string("short"),
            .string(String(repeating: "ü🙂", count: 40 + seed)),
            .date(Date(timeIntervalSinceReferenceDate: -1_000.25 * Double(seed))),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            .decimal(Decimal(string: "12.5")!),
            .data(Data([0, 1, 2, 255])),
            .uri(URL(string: "https://example.com/\(seed)")!),
            .objectID(id),
        ]
    }

    private static func someID() throws -> ManagedObjectID {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        return ManagedObjectID(entity: try #require(model.entitiesByName["Item"]), storeIdentifier: "s", primaryKey: 7)
    }

    @Test("every kind of value reads back as it went in, by index and as a whole, across chunks")
    func roundTrip() throws {
        let id = try Self.someID()
        let packer = RowPacker(capacity: 64)  // small, so the packer grows while packing
        var rows: [(RowSnapshot, [StoreValue], Int64)] = []
        for chunk in 0..<3 {
            for row in 0..<5 {
                let seed = chunk * 5 + row
                let values = Self.values(seed, id: id)
                packer.beginRow(fieldCount: values.count)
                for value in values { packer.append(value) }
                packer.endRow(version: Int64(seed + 1))
            }
            #expect(packer.rowCount == 5)
            let finished = packer.finish()
            #expect(packer.rowCount == 0)
            for (row, snapshot) in finished.enumerated() {
                let seed = chunk * 5 + row
                rows.append((snapshot, Self.values(seed, id: id), Int64(seed + 1)))
            }
        }
        for (snapshot, values, version) in rows {
            #expect(snapshot.isPacked)
            #expect(snapshot.version == version)
            #expect(snapshot.count == values.count)
            #expect(snapshot.values == values)
            for index in values.indices { #expect(snapshot[index] == values[index], "field \(index)") }
            #expect(snapshot.value(at: values.count) == .null)
            #expect(snapshot.value(at: -1) == .null)
            for index in values.indices { #expect(snapshot.isNull(at: index) == values[index].isNull) }
            #expect(snapshot.isNull(at: values.count))
        }
    }

    @Test("chunks packed into a region share it, a chunk that overflows it gets its own buffer, and rows outlive both")
    func region() throws {
        let id = try Self.someID()
        let packer = RowPacker(capacity: 64)
        func pack(_ seeds: Range<Int>) -> [(RowSnapshot, [StoreValue])] {
            for seed in seeds {
                let values = Self.values(seed, id: id)
                packer.beginRow(fieldCount: values.count)
                for value in values { packer.append(value) }
                packer.endRow(version: Int64(seed))
            }
            return zip(packer.finish(), seeds.map { Self.values($0, id: id) }).map { ($0, $1) }
        }
        // A chunk of 8 rows tells their size; the region has room for a chunk of `perChunk` rows and part of
        // another, so the second starts in it and moves out, and the third has its own buffer.
        var rows = pack(0..<8)
        let rowBytes = packer.finishedBytes / 8 + 8
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        packer.packInRegions(bytes: 4 * page)
        let perChunk = 4 * page / rowBytes / 2 + 2
        rows += pack(8..<(8 + perChunk))
        rows += pack((8 + perChunk)..<(8 + 2 * perChunk))
        rows += pack((8 + 2 * perChunk)..<(8 + 3 * perChunk))
        weak var region: PackedRegion?
        do {
            let first = try #require(rows[8].0.packedRegion)
            region = first
            #expect(rows[..<8].allSatisfy { $0.0.packedRegion == nil }, "the sizing chunk has its own buffer")
            #expect(rows[8..<(8 + perChunk)].allSatisfy { $0.0.packedRegion === first }, "one chunk in the region")
            #expect(rows[(8 + perChunk)...].allSatisfy { $0.0.packedRegion == nil }, "later chunks have their own")
            #expect(UInt(bitPattern: first.base) % UInt(PackedRegion.hugePageSize) == 0, "it starts on a huge page")
            #expect(first.size == 4 * page)
        }
        // Every row reads back as it went in; the region is unmapped with its last row.
        for (snapshot, values) in rows { #expect(snapshot.values == values) }
        #expect(region != nil)
        rows.removeAll()
        #expect(region == nil, "the region goes with its last row")
    }

    @Test("a fetch larger than a huge page fills one region after another; each goes with its own last row")
    func regionsOneAfterAnother() throws {
        let packer = RowPacker(capacity: 64)
        let text = String(repeating: "x", count: 16 * 1024)
        func packChunk(_ chunk: Int) -> [RowSnapshot] {
            for row in 0..<4 {
                packer.beginRow(fieldCount: 2)
                packer.appendInteger(Int64(chunk * 4 + row))
                packer.appendString(text)
                packer.endRow(version: 1)
            }
            return packer.finish()
        }
        // As a fetch does: the first chunk in the packer's own buffer, then about three huge pages' worth (48
        // chunks of 4 rows of 16 KiB, 3 MiB) announced and packed.
        var rows = packChunk(0)
        packer.packInRegions(bytes: 3 * PackedRegion.hugePageSize)
        for chunk in 1...48 { rows += packChunk(chunk) }
        let regions = rows.compactMap(\.packedRegion).reduce(into: [PackedRegion]()) { seen, region in
            if seen.last !== region { seen.append(region) }
        }
        #expect(rows[4...].allSatisfy { $0.packedRegion != nil }, "every announced chunk lies in a region")
        #expect(regions.count == 2, "2 MiB each, filled in turn: \(regions.map(\.size))")
        #expect(regions.allSatisfy { $0.size == PackedRegion.hugePageSize })
        #expect(Set(regions.map { ObjectIdentifier($0) }).count == regions.count, "no region is used twice")
        for (index, row) in rows.enumerated() { #expect(row[0] == .integer(Int64(index)) && row[1] == .string(text)) }
        // The first region's rows gone, its mapping goes; the second stays with its rows.
        weak var first = regions[0]
        weak var second = regions[1]
        let kept = rows.filter { $0.packedRegion === regions[1] }
        rows.removeAll()
        _ = consume regions
        #expect(first == nil, "the first region goes with its last row")
        #expect(second != nil && kept.allSatisfy { $0.packedRegion === second })
    }

    @Test("strings appended as bytes read back as Swift decodes them: invalid UTF-8 repaired")
    func stringBytes() {
        let packer = RowPacker()
        packer.beginRow(fieldCount: 3)
        let valid = Array("naïve café".utf8)
        valid.withUnsafeBytes { packer.appendString(utf8: $0) }
        let invalid: [UInt8] = [0x61, 0xFF, 0x62, 0xC3]
        invalid.withUnsafeBytes { packer.appendString(utf8: $0) }
        packer.appendString(utf8: UnsafeRawBufferPointer(start: nil, count: 0))
        packer.endRow(version: 1)
        let row = packer.finish()[0]
        #expect(row[0] == .string("naïve café"))
        #expect(row[1] == .string(String(decoding: invalid, as: UTF8.self)))
        #expect(row[2] == .string(""))
    }

    @Test("fields not appended read as nil, and a row outlives its packer")
    func shortRowOutlivesPacker() {
        var row: RowSnapshot?
        do {
            let packer = RowPacker()
            packer.beginRow(fieldCount: 4)
            packer.appendInteger(9)
            packer.appendString("kept")
            packer.endRow(version: 3)
            row = packer.finish().first
        }
        #expect(row?.values == [.integer(9), .string("kept"), .null, .null])
    }

    @Test("a snapshot made from an array is not packed and reads the same way")
    func arraySnapshot() {
        let row = RowSnapshot(values: [.integer(1), .string("a")], version: 2)
        #expect(!row.isPacked)
        #expect(row.count == 2 && row[1] == .string("a") && row.value(at: 2) == .null)
        #expect(!row.isNull(at: 0) && row.isNull(at: 2))
    }
}
