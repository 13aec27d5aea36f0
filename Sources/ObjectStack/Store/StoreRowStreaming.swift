/// A store that hands the rows of an object fetch over a chunk at a time, while they are still in the
/// processor's cache.
///
/// `execute(_:)` builds every row before the caller sees any: a context registering 100,000 fetched objects then
/// touched each ID and row a second time, long after it had left the cache. A streaming store hands over a few
/// hundred rows at a time, and the context registers them before the store reads the next.
public protocol StoreRowStreaming: StoreReader {
    /// Runs a fetch whose result type is `.objects`, handing its rows to `body` in the result's order, in chunks
    /// of at most `rowChunkSize` rows, with the number of rows still to come after the chunk when the store knows
    /// it (nil otherwise), so the receiver can make room for them once.
    ///
    /// `body` runs inside the store's read, so it must not call back into the store. The chunk is lent: `body`
    /// copies out what it keeps.
    /// - Throws: `StoreError` as `execute(_:)` does, or what `body` throws (the fetch then stops).
    func fetchObjects(
        _ request: StoreFetchRequest,
        inChunks body: (_ rows: [(ManagedObjectID, RowSnapshot)], _ rowsLeft: Int?) throws -> Void
    ) throws
}

extension StoreRowStreaming {
    /// How many rows a streaming store hands over at once: a few hundred rows stay in a core's L2 cache between
    /// the store's read and the context's registration, and the chunk's array is reused.
    public static var rowChunkSize: Int { 256 }
}
