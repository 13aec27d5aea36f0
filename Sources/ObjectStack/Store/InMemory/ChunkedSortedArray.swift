/// A sorted array kept in chunks of at most `chunkCapacity` elements, so that a copy held by a reader costs a
/// save one copy of the chunk list (n / 512 references) and of the chunks it changes, not of every element.
///
/// The in-memory store's rows (by primary key) and ordered indexes. swift-collections' persistent
/// `TreeDictionary` is unordered and its sorted collections are not released, hence this small two-level tree.
/// - Note: A value type; copies are independent (copy-on-write per chunk). Not thread-safe to mutate.
struct ChunkedSortedArray<Element: Comparable> {
    /// A position: chunk and offset in it.
    struct Position: Equatable {
        var chunk: Int
        var offset: Int
    }

    static var chunkCapacity: Int { 512 }

    private(set) var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The first position whose element satisfies `belongs`, which must be false then true along the order;
    /// `end` when none does.
    /// - Complexity: O(log n).
    func partitionPoint(_ belongs: (Element) -> Bool) -> Position {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if belongs(chunks[middle][chunks[middle].count - 1]) { high = middle } else { low = middle + 1 }
        }
        guard low < chunks.count else { return end }
        let chunk = chunks[low]
        var first = 0
        var last = chunk.count
        while first < last {
            let middle = (first + last) / 2
            if belongs(chunk[middle]) { last = middle } else { first = middle + 1 }
        }
        return Position(chunk: low, offset: first)
    }

    /// The position after the last element.
    var end: Position { Position(chunk: chunks.count, offset: 0) }

    /// The element at a position before `end`.
    @inline(__always)
    subscript(position: Position) -> Element { chunks[position.chunk][position.offset] }

    /// The position before `position`, or nil at the start.
    @inline(__always)
    func before(_ position: Position) -> Position? {
        if position.offset > 0 { return Position(chunk: position.chunk, offset: position.offset - 1) }
        guard position.chunk > 0 else { return nil }
        return Position(chunk: position.chunk - 1, offset: chunks[position.chunk - 1].count - 1)
    }

    /// Inserts an element, or replaces the equal one.
    /// - Complexity: O(log n + chunk size); O(1) amortised when appending in order.
    mutating func insert(_ element: Element) {
        if let lastChunk = chunks.indices.last, let last = chunks[lastChunk].last, last < element {
            chunks[lastChunk].append(element)
            count += 1
            splitIfNeeded(lastChunk)
            return
        }
        guard !chunks.isEmpty else {
            chunks = [[element]]
            count = 1
            return
        }
        var position = partitionPoint { !($0 < element) }
        if position == end { position = Position(chunk: chunks.count - 1, offset: chunks[chunks.count - 1].count) }
        if position.offset < chunks[position.chunk].count, chunks[position.chunk][position.offset] == element {
            chunks[position.chunk][position.offset] = element
            return
        }
        chunks[position.chunk].insert(element, at: position.offset)
        count += 1
        splitIfNeeded(position.chunk)
    }

    /// Removes the element equal to `element`; returns whether there was one.
    /// - Complexity: O(log n + chunk size).
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        let position = partitionPoint { !($0 < element) }
        guard position != end, self[position] == element else { return false }
        chunks[position.chunk].remove(at: position.offset)
        count -= 1
        if chunks[position.chunk].isEmpty { chunks.remove(at: position.chunk) }
        return true
    }

    private mutating func splitIfNeeded(_ chunk: Int) {
        guard chunks[chunk].count > 2 * Self.chunkCapacity else { return }
        let upper = Array(chunks[chunk][Self.chunkCapacity...])
        chunks[chunk].removeLast(chunks[chunk].count - Self.chunkCapacity)
        chunks.insert(upper, at: chunk + 1)
    }

    /// Visits the elements from `start` on, in order, until `body` returns false.
    func forEach(from start: Position, _ body: (Element) throws -> Bool) rethrows {
        var chunk = start.chunk
        var offset = start.offset
        while chunk < chunks.count {
            let elements = chunks[chunk]
            while offset < elements.count {
                guard try body(elements[offset]) else { return }
                offset += 1
            }
            chunk += 1
            offset = 0
        }
    }

    /// Visits the elements before `end`, backwards, until `body` returns false.
    func forEachBackwards(before end: Position, _ body: (Element) throws -> Bool) rethrows {
        var position = before(end)
        while let current = position {
            guard try body(self[current]) else { return }
            position = before(current)
        }
    }
}
