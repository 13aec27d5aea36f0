import Foundation
import Testing

@testable import ObjectStack

/// `RowChunkCollector`: rows come out in order, in chunks of the asked size with a partial last one, each row with
/// its own ID and values, and the count of rows still to come falls to zero when the store knew the total.
@Suite("RowChunkCollector")
struct RowChunkCollectorTests {
    private static func entity() throws -> EntityDescription {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        return try #require(model.entitiesByName["Item"])
    }

    @Test("chunks in order, the last partial; rows left counts down when known", arguments: [0, 1, 7, 8, 9, 20])
    func chunks(rows: Int) throws {
        let entity = try Self.entity()
        for expected in [rows, nil] as [Int?] {
            var sizes: [Int] = []
            var left: [Int?] = []
            var keys: [Int64] = []
            var codes: [String] = []
            let collector = RowChunkCollector(chunkSize: 8, expected: expected) { chunk, rowsLeft in
                sizes.append(chunk.count)
                left.append(rowsLeft)
                for (id, row) in chunk {
                    keys.append(id.key)
                    if case .string(let code) = row[0] { codes.append(code) }
                }
            }
            for key in 0..<rows {
                collector.packer.beginRow(fieldCount: 1)
                collector.packer.appendString("code \(key)")
                collector.packer.endRow(version: 1)
                try collector.rowPacked(ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: Int64(key)))
            }
            try collector.finish()
            let full = rows / 8
            #expect(sizes == Array(repeating: 8, count: full) + (rows % 8 == 0 ? [] : [rows % 8]))
            #expect(keys == (0..<rows).map(Int64.init))
            #expect(codes == (0..<rows).map { "code \($0)" })
            if expected == nil {
                #expect(left.allSatisfy { $0 == nil })
            } else {
                var handed = 0
                #expect(
                    left
                        == sizes.map { size in
                            handed += size
                            return rows - handed
                        })
            }
        }
    }

    @Test("what the receiver throws stops the collection")
    func receiverThrows() throws {
        struct Stop: Error {}
        let entity = try Self.entity()
        var calls = 0
        let collector = RowChunkCollector(chunkSize: 2, expected: nil) { _, _ in
            calls += 1
            throw Stop()
        }
        collector.packer.beginRow(fieldCount: 0)
        collector.packer.endRow(version: 1)
        try collector.rowPacked(ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: 1))
        collector.packer.beginRow(fieldCount: 0)
        collector.packer.endRow(version: 1)
        #expect(throws: Stop.self) {
            try collector.rowPacked(ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: 2))
        }
        #expect(calls == 1)
    }
}
