import ObjectStack

/// Packs an object fetch's rows as they are read and hands them over a chunk at a time (`RowChunkCollector`),
/// after an offset and up to a limit.
///
/// A scan in key order feeds it straight from its cursor, so each row is packed while its bytes are in cache
/// and no list of every matching row is built first (that list, grown to 100,000 rows, was a tenth of a fetch).
final class LMDBChunkSink {
    private let resolver: LMDBResolver
    private let collector: RowChunkCollector
    // Unchecked exclusivity: a sink serves one read on one thread (the runtime's checks showed per row).
    /// Matches still to skip before the window.
    @exclusivity(unchecked) private var skipping: Int
    /// Rows the window still takes.
    @exclusivity(unchecked) private var room: Int

    /// A sink for the window `offset`, `limit` (0: no limit) of the matches; `expected` is how many rows the
    /// window will hold, when the caller knows, so the context sizes its tables once.
    init(
        resolver: LMDBResolver, offset: Int, limit: Int, expected: Int?,
        body: @escaping ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) {
        self.resolver = resolver
        collector = RowChunkCollector(chunkSize: LMDBStore.rowChunkSize, expected: expected, body: body)
        skipping = offset
        room = limit > 0 ? limit : Int.max
    }

    /// Whether the window is full: the scan can stop.
    var isFull: Bool { room == 0 }

    /// Takes a matching row (skipped while the offset lasts, dropped once the window is full).
    @inline(__always)
    func add(_ row: LMDBRow) throws {
        if skipping > 0 {
            skipping -= 1
            return
        }
        guard room > 0 else { return }
        room -= 1
        try resolver.codec.pack(row.bytes, header: row.header, into: collector.packer)
        try collector.rowPacked(resolver.objectID(of: row))
    }

    /// Hands over the last, partial chunk.
    func finish() throws { try collector.finish() }
}
