/// Collects the rows a streaming store packs (`RowPacker`) and hands them over a chunk at a time
/// (`StoreRowStreaming`), with the number of rows still to come when the store knows it.
///
/// For example, in a store's `fetchObjects(_:inChunks:)`:
/// ```swift
/// let collector = RowChunkCollector(chunkSize: Self.rowChunkSize, expected: rowCount, body: body)
/// for row in rows {
///     collector.packer.beginRow(fieldCount: row.count)
///     // append the row's values to collector.packer, then:
///     collector.packer.endRow(version: row.version)
///     try collector.rowPacked(row.objectID)
/// }
/// try collector.finish()
/// ```
/// - Note: Not thread-safe: one collector per read.
public final class RowChunkCollector {
    /// The packer the store packs each row into.
    public let packer = RowPacker(capacity: 64 * 1024)
    private let chunkSize: Int
    private let body: ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    // Unchecked exclusivity: a collector serves one read on one thread, and the runtime's checks showed per row.
    @exclusivity(unchecked) private var ids: [ManagedObjectID] = []
    @exclusivity(unchecked) private var chunk: [(ManagedObjectID, RowSnapshot)] = []
    /// Rows still to hand over after those collected so far, when known.
    @exclusivity(unchecked) private var expected: Int?
    /// Whether the packer was given regions for the rest of the fetch, or found not to need them.
    @exclusivity(unchecked) private var sizedRegion = false

    /// A collector handing chunks of `chunkSize` rows to `body`; `expected` is how many rows the fetch will
    /// hand over, when the store knows.
    public init(
        chunkSize: Int, expected: Int?, body: @escaping ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) {
        self.chunkSize = max(chunkSize, 1)
        self.body = body
        self.expected = expected
        let reserved = min(expected ?? self.chunkSize, self.chunkSize)
        ids.reserveCapacity(reserved)
        chunk.reserveCapacity(reserved)
    }

    /// Records that the row just ended in `packer` is `id`'s; a full chunk is handed over.
    /// - Throws: what the receiver throws.
    @inline(__always)
    public func rowPacked(_ id: ManagedObjectID) throws {
        ids.append(id)
        if ids.count == chunkSize { try handOver() }
    }

    /// Hands over the last, partial chunk.
    /// - Throws: what the receiver throws.
    public func finish() throws {
        if !ids.isEmpty { try handOver() }
    }

    private func handOver() throws {
        for (id, snapshot) in zip(ids, packer.finish()) { chunk.append((id, snapshot)) }
        ids.removeAll(keepingCapacity: true)
        let left = expected.map { max($0 - chunk.count, 0) }
        if !sizedRegion, let left {
            // The first chunk tells how many bytes a row takes: when the rows still to come fill at least a huge
            // page, they are packed into regions (an eighth more than the estimate, for longer rows later).
            sizedRegion = true
            let estimate = packer.finishedBytes / max(chunk.count, 1) * left
            if estimate >= PackedRegion.hugePageSize { packer.packInRegions(bytes: estimate + estimate / 8) }
        }
        expected = left
        try body(chunk, left)
        chunk.removeAll(keepingCapacity: true)
    }
}
