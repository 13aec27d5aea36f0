import CLMDB
import Foundation
import ObjectStack

/// A walk over the entries of one index whose first column lies in a `QueryKeyRange`, in key order or
/// backwards: the LMDB side of a `QueryPlan`.
///
/// The range becomes byte segments of the key's value part. A key is in a segment when its value part,
/// compared with each bound over the bound's length, lies between them; keys are prefix-free encodings, so a
/// value part that starts with a bound holds that bound's value in its first column. Long keys are cut
/// (`LMDBKeyCodec`), which keeps their order, so a walk is an exact superset of the range and the fetch
/// still evaluates the predicate on each row.
struct LMDBIndexWalk {
    /// A run of keys between two bounds (empty `low`: from the start; nil `high`: to the end).
    struct Segment {
        var low: [UInt8]
        var lowInclusive: Bool
        var high: [UInt8]?
        var highInclusive: Bool
    }

    let index: QueryIndex
    let dbi: MDB_dbi
    let segments: [Segment]
    /// Whether each segment's bounds are whole encodings (not cut), so the walk reads exactly the range.
    let boundsAreExact: Bool

    init(index: QueryIndex, dbi: MDB_dbi, range: QueryKeyRange, codec: LMDBRowCodec) {
        self.index = index
        self.dbi = dbi
        var exact = true
        let limit = index.kind == .unique ? LMDBKeyCodec.orderedUniqueKeyBytes : LMDBKeyCodec.maximumIndexValueBytes
        func encoded(_ value: StoreValue) -> [UInt8] {
            var key: [UInt8] = []
            if index.kind == .reference {
                if case .objectID(let id) = value { key.appendPrimaryKey(id.key) }
                return key
            }
            LMDBKeyCodec.append(value, to: &key, codec: codec)
            if key.count >= limit {
                exact = false
                key.removeLast(key.count - limit)
            }
            return key
        }
        switch range {
        case .all:
            segments = [Segment(low: [], lowInclusive: true, high: nil, highInclusive: true)]
        case .values(let values):
            segments = values.map { value in
                let key = encoded(value)
                return Segment(low: key, lowInclusive: true, high: key, highInclusive: true)
            }
        case .range(let lower, let lowerInclusive, let upper, let upperInclusive):
            let kind = [LMDBKeyCodec.kindByte(of: lower ?? upper ?? .null)]
            segments = [
                Segment(
                    low: lower.map(encoded) ?? kind, lowInclusive: lower == nil || lowerInclusive,
                    high: upper.map(encoded) ?? kind, highInclusive: upper == nil || upperInclusive)
            ]
        case .prefix(let prefix):
            var key = LMDBKeyCodec.stringPrefix(prefix)
            if key.count >= limit {
                exact = false
                key.removeLast(key.count - limit)
            }
            segments = [Segment(low: key, lowInclusive: true, high: key, highInclusive: true)]
        }
        boundsAreExact = exact
    }

    /// The part of an entry's key that holds the values (a referrer or index key ends with the row's key).
    @inline(__always)
    func valuePart(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        index.kind == .unique ? key : UnsafeRawBufferPointer(rebasing: key[0..<max(key.count - 8, 0)])
    }

    /// The row's primary key of an entry.
    @inline(__always)
    func primaryKey(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Int64 {
        index.kind == .unique ? value.primaryKey(at: 0) : key.trailingPrimaryKey
    }

    /// The order of a value part against a bound: 0 when it starts with the bound.
    @inline(__always)
    private static func compare(_ value: UnsafeRawBufferPointer, _ bound: [UInt8]) -> Int32 {
        bound.withUnsafeBytes { bound in
            let common = min(value.count, bound.count)
            if common > 0 {
                let order = memcmp(value.baseAddress!, bound.baseAddress!, common)
                if order != 0 { return order }
            }
            return value.count >= bound.count ? 0 : -1
        }
    }

    private enum Position { case below, inside, above }

    @inline(__always)
    private static func position(of value: UnsafeRawBufferPointer, in segment: Segment) -> Position {
        if !segment.low.isEmpty {
            let order = compare(value, segment.low)
            if order < 0 || order == 0 && !segment.lowInclusive { return .below }
        }
        if let high = segment.high {
            let order = compare(value, high)
            if order > 0 || order == 0 && !segment.highInclusive { return .above }
        }
        return .inside
    }

    /// The smallest key after every key that starts with `bytes`, or nil when there is none.
    private static func successor(_ bytes: [UInt8]) -> [UInt8]? {
        var result = bytes
        while let last = result.last, last == 0xFF { result.removeLast() }
        guard !result.isEmpty else { return nil }
        result[result.count - 1] += 1
        return result
    }

    /// Visits the entries in range, in key order (or backwards), until `body` returns false.
    /// `body` gets the row's primary key and the entry's value part.
    func walk(
        _ txn: LMDBTransaction, descending: Bool,
        _ body: (_ primaryKey: Int64, _ values: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try txn.withCursor(dbi) { cursor in
            for segment in descending ? segments.reversed() : segments {
                var entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
                if descending {
                    if let high = segment.high, let after = Self.successor(high) {
                        entry = try after.withUnsafeBytes { try cursor.move(MDB_SET_RANGE, key: $0) }
                        entry = try entry == nil ? cursor.move(MDB_LAST) : cursor.move(MDB_PREV)
                    } else {
                        entry = try cursor.move(MDB_LAST)
                    }
                } else if segment.low.isEmpty {
                    entry = try cursor.move(MDB_FIRST)
                } else {
                    entry = try segment.low.withUnsafeBytes { try cursor.move(MDB_SET_RANGE, key: $0) }
                }
                while let (key, value) = entry {
                    let values = valuePart(key)
                    switch Self.position(of: values, in: segment) {
                    case .inside:
                        guard try body(primaryKey(key, value), values) else { return }
                    case .below:
                        if descending {
                            entry = nil
                            continue
                        }
                    case .above:
                        if !descending {
                            entry = nil
                            continue
                        }
                    }
                    entry = try cursor.move(descending ? MDB_PREV : MDB_NEXT)
                }
            }
        }
    }

    /// The length of the value part's leading bytes that order the first `columns` columns exactly, and
    /// whether it covers all of them (false when the key was cut inside them).
    func orderingPrefix(_ values: UnsafeRawBufferPointer, columns: Int) -> (length: Int, complete: Bool) {
        var offset = 0
        for _ in 0..<columns {
            guard let length = LMDBKeyCodec.encodedLength(in: values, at: offset) else {
                let reliable = index.kind == .unique ? LMDBKeyCodec.orderedUniqueKeyBytes : values.count
                return (min(values.count, reliable), false)
            }
            offset += length
        }
        let reliable = index.kind == .unique ? LMDBKeyCodec.orderedUniqueKeyBytes : LMDBKeyCodec.maximumIndexValueBytes
        return offset <= reliable ? (offset, true) : (reliable, false)
    }
}
