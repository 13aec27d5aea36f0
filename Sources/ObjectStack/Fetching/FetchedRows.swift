import Foundation

/// One fetched object with the sort-key values it was placed by.
///
/// The values are kept because a changed object must be found where its old values put it: by the time the
/// controller hears of the change, the object already answers with the new ones.
struct FetchedEntry {
    let object: ManagedObject
    let keys: [StoreValue]
    /// The first key that varies within a section (`FetchedResultsOrder.lead(of:)`), kept inline: a binary
    /// search compares it without loading `keys` (a cache miss per probe over many objects).
    let lead: StoreValue
}

/// The rows of one section in the controller's order, held in chunks of at most `maximumChunk` entries.
///
/// A plain array would move every later element on each insert or removal (O(n)); chunks bound that to one
/// chunk's elements plus the chunk list, so a change costs O(log n + B + n/B) whatever the section's size.
/// Ranks (row numbers) come from start offsets computed once after a change and kept until the next.
struct FetchedRows {
    /// Largest chunk; a chunk that grows past it is split in two halves.
    static let maximumChunk = 1_024
    /// Chunks smaller than this are merged into a neighbour when the pair fits in one chunk.
    static let minimumChunk = 128

    private(set) var chunks: [[FetchedEntry]] = []
    private(set) var count = 0
    /// The rank of each chunk's first entry; nil when a change made it stale.
    private var starts: [Int]?

    /// A place in the rows: a chunk and an index in it.
    struct Position: Equatable {
        var chunk: Int
        var index: Int
    }

    /// Creates rows from entries already in order.
    init(sorted entries: some Collection<FetchedEntry>) {
        let size = Self.maximumChunk / 2
        var chunk: [FetchedEntry] = []
        chunk.reserveCapacity(size)
        for entry in entries {
            chunk.append(entry)
            if chunk.count == size {
                chunks.append(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        count = entries.count
    }

    var isEmpty: Bool { count == 0 }

    /// Every entry, in order.
    var entries: FlattenSequence<[[FetchedEntry]]> { chunks.joined() }

    /// The objects, in order.
    /// - Complexity: O(n).
    var objects: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for chunk in chunks { for entry in chunk { result.append(entry.object) } }
        return result
    }

    // MARK: - Searching

    /// The first position whose entry is not ordered before an object's keys and ID in an order. Entries are
    /// read in place, not copied (a copy would retain and release its object and keys at every probe).
    /// - Complexity: O(log n) comparisons.
    func lowerBound(of keys: [StoreValue], _ id: ManagedObjectID, in order: FetchedResultsOrder) -> Position {
        guard !chunks.isEmpty else { return Position(chunk: 0, index: 0) }
        let lead = order.lead(of: keys)
        @inline(__always) func before(_ entry: borrowing FetchedEntry) -> Bool {
            let byLead = order.compareLeads(entry.lead, lead)
            if byLead != .orderedSame { return byLead == .orderedAscending }
            let byKeys = ValueComparison.compareSortKeys(entry.keys, keys, order.sortKeys)
            if byKeys != .orderedSame { return byKeys == .orderedAscending }
            return order.compare(entry, to: keys, id) == .orderedAscending
        }
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            let isBefore = chunks[middle].withUnsafeBufferPointer { before($0[$0.count - 1]) }
            if isBefore { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else {
            return Position(chunk: chunks.count - 1, index: chunks[chunks.count - 1].count)
        }
        let index = chunks[low].withUnsafeBufferPointer { chunk in
            var first = 0
            var last = chunk.count
            while first < last {
                let middle = (first + last) / 2
                if before(chunk[middle]) { first = middle + 1 } else { last = middle }
            }
            return first
        }
        return Position(chunk: low, index: index)
    }

    /// The entry at a position, or nil past the end.
    func entry(at position: Position) -> FetchedEntry? {
        guard position.chunk < chunks.count, position.index < chunks[position.chunk].count else { return nil }
        return chunks[position.chunk][position.index]
    }

    /// The row number of a position.
    /// - Complexity: O(1), after O(n/B) once following a change.
    mutating func rank(of position: Position) -> Int {
        startOffsets()[safe: position.chunk].map { $0 + position.index } ?? count
    }

    /// The entry at a row number (without caching offsets, for read-only callers).
    func entry(atRank rank: Int) -> FetchedEntry? {
        guard rank >= 0, rank < count else { return nil }
        var remaining = rank
        for chunk in chunks {
            if remaining < chunk.count { return chunk[remaining] }
            remaining -= chunk.count
        }
        return nil
    }

    private mutating func startOffsets() -> [Int] {
        if let starts { return starts }
        var offsets: [Int] = []
        offsets.reserveCapacity(chunks.count)
        var total = 0
        for chunk in chunks {
            offsets.append(total)
            total += chunk.count
        }
        starts = offsets
        return offsets
    }

    // MARK: - Changing

    /// Inserts an entry at a position from `lowerBound`.
    /// - Complexity: O(B + n/B).
    mutating func insert(_ entry: FetchedEntry, at position: Position) {
        starts = nil
        count += 1
        guard !chunks.isEmpty else {
            chunks.append([entry])
            return
        }
        chunks[position.chunk].insert(entry, at: position.index)
        if chunks[position.chunk].count > Self.maximumChunk {
            let tail = Array(chunks[position.chunk][(Self.maximumChunk / 2)...])
            chunks[position.chunk].removeSubrange((Self.maximumChunk / 2)...)
            chunks.insert(tail, at: position.chunk + 1)
        }
    }

    /// Removes the entry at a position; positions before it stay valid.
    /// - Complexity: O(B + n/B).
    mutating func remove(at position: Position) {
        starts = nil
        count -= 1
        chunks[position.chunk].remove(at: position.index)
        let size = chunks[position.chunk].count
        if size == 0 {
            chunks.remove(at: position.chunk)
        } else if size < Self.minimumChunk, position.chunk + 1 < chunks.count,
            chunks[position.chunk + 1].count + size <= Self.maximumChunk
        {
            // Keep chunks from thinning out after many removals: fold the next chunk into a small one. Only
            // the next, so positions before this one stay valid (removals go in descending order).
            chunks[position.chunk].append(contentsOf: chunks[position.chunk + 1])
            chunks.remove(at: position.chunk + 1)
        }
    }

    // MARK: - Checking

    /// Debug check: chunk sizes within bounds, the count right, and every entry in order.
    func checkInvariants(_ isOrdered: (FetchedEntry, FetchedEntry) -> Bool) -> String? {
        var total = 0
        var previous: FetchedEntry?
        for (index, chunk) in chunks.enumerated() {
            if chunk.isEmpty { return "chunk \(index) is empty" }
            if chunk.count > Self.maximumChunk { return "chunk \(index) holds \(chunk.count) entries" }
            total += chunk.count
            for entry in chunk {
                if let previous, !isOrdered(previous, entry) {
                    return "\(previous.object.objectID) is not ordered before \(entry.object.objectID)"
                }
                previous = entry
            }
        }
        return total == count ? nil : "count \(count) but \(total) entries"
    }
}

extension Array {
    /// The element at an index, or nil when the index is out of range.
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
