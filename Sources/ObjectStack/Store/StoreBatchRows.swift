/// New rows of one entity for a batch insert, without managed objects: values by `storedIndex`, row after row in
/// one array, the rows at consecutive primary keys from `firstKey`.
///
/// Every value is already of its attribute's type and every to-one reference is `.null`: a batch insert wires no
/// relationships. A store writes the rows as they are (version 1), checking only uniqueness constraints.
public struct StoreBatchRows: Sendable {
    /// The rows' entity (a concrete one).
    public let entity: EntityDescription
    /// Values per row: `entity.storedProperties.count`.
    public let width: Int
    /// Every row's values, row after row.
    public internal(set) var values: [StoreValue]
    /// The primary key of the first row; row `i` has key `firstKey + i`.
    public internal(set) var firstKey: Int64 = 0

    /// Rows of `entity` from `values`, row after row; keys are given by `firstKey` later.
    public init(entity: EntityDescription, values: [StoreValue]) {
        precondition(!entity.isAbstract, "rows of abstract entity \(entity.name)")
        self.entity = entity
        width = entity.storedProperties.count
        precondition(width == 0 ? values.isEmpty : values.count % width == 0, "values of partial rows")
        self.values = values
    }

    /// The number of rows.
    public var count: Int { width == 0 ? 0 : values.count / width }

    /// The values of row `row`, by `storedIndex`.
    public subscript(row: Int) -> ArraySlice<StoreValue> {
        values[row * width..<(row + 1) * width]
    }

    /// The value of row `row` at `storedIndex`.
    @inline(__always)
    public func value(row: Int, at storedIndex: Int) -> StoreValue { values[row * width + storedIndex] }

    /// The primary key of row `row`.
    @inline(__always)
    public func key(ofRow row: Int) -> Int64 { firstKey + Int64(row) }

    /// The row a primary key belongs to, nil for a key outside these rows.
    public func row(ofKey key: Int64) -> Int? {
        key >= firstKey && key < firstKey + Int64(count) ? Int(key - firstKey) : nil
    }

    /// The ID of row `row` in the store with `storeIdentifier`.
    public func objectID(ofRow row: Int, storeIdentifier: String) -> ManagedObjectID {
        ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: key(ofRow: row))
    }

    /// The first row that repeats an earlier row's values at `storedIndices` (a uniqueness constraint), with that
    /// earlier row; rows with a nil among those values take part in no clash.
    /// - Complexity: O(n): one hash of each row's values.
    public func firstRepeat(at storedIndices: [Int]) -> (earlier: Int, later: Int)? {
        guard count > 1, !storedIndices.isEmpty else { return nil }
        // Hashes to the first row that had them; different values that share a hash are kept in `others`, so the
        // 64-bit hash only speeds the search and never decides a clash.
        var first: [Int: Int32] = Dictionary(minimumCapacity: count)
        var others: [Int: [Int32]] = [:]
        func same(_ a: Int, _ b: Int) -> Bool {
            storedIndices.allSatisfy { value(row: a, at: $0) == value(row: b, at: $0) }
        }
        rows: for row in 0..<count {
            var hasher = Hasher()
            for index in storedIndices {
                let value = value(row: row, at: index)
                if value.isNull { continue rows }
                hasher.combine(value)
            }
            let hash = hasher.finalize()
            guard let earlier = first[hash] else {
                first[hash] = Int32(row)
                continue
            }
            if same(Int(earlier), row) { return (Int(earlier), row) }
            if let match = others[hash]?.first(where: { same(Int($0), row) }) { return (Int(match), row) }
            others[hash, default: []].append(Int32(row))
        }
        return nil
    }
}
