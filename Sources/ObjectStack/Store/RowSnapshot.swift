/// A stored row: the values of an object's stored properties and the row's version.
///
/// `values` follows the entity's `storedProperties` (stored attributes, then to-one relationships as
/// `.objectID` or `.null`). The version grows by one on every save of the row; optimistic locking
/// compares it. Snapshots are shared, never changed: the coordinator's row cache and every object
/// read from it hold the same instance.
///
/// A row a store read is packed (`RowPacker`): its values are decoded when read, so read one value with the
/// subscript rather than through `values`, which decodes them all.
public final class RowSnapshot: Sendable {
    private enum Storage {
        case values([StoreValue])
        case packed(PackedRowStorage)
    }

    private let storage: Storage
    /// Where the row starts in its packed storage.
    private let offset: Int
    /// The row's version: 1 after the insert, one more after each update.
    public let version: Int64

    /// Creates a snapshot.
    public init(values: [StoreValue], version: Int64) {
        storage = .values(values)
        offset = 0
        self.version = version
    }

    init(packed: PackedRowStorage, offset: Int, version: Int64) {
        storage = .packed(packed)
        self.offset = offset
        self.version = version
    }

    /// Values by `storedIndex` (decoded, for a packed row).
    public var values: [StoreValue] {
        switch storage {
        case .values(let values): return values
        case .packed(let packed): return packed.values(at: offset)
        }
    }

    /// Whether the values are packed (decoded on each read) rather than held as an array.
    var isPacked: Bool {
        if case .packed = storage { return true }
        return false
    }

    /// The region the row's chunk was packed into, when a large fetch packed it in one (`PackedRegion`).
    var packedRegion: PackedRegion? {
        if case .packed(let packed) = storage { return packed.region }
        return nil
    }

    /// The number of values.
    public var count: Int {
        switch storage {
        case .values(let values): return values.count
        case .packed(let packed): return packed.fieldCount(at: offset)
        }
    }

    /// The value at a `storedIndex`.
    /// - Precondition: `index < count`.
    public subscript(index: Int) -> StoreValue {
        switch storage {
        case .values(let values): return values[index]
        case .packed(let packed):
            precondition(index >= 0 && index < packed.fieldCount(at: offset), "RowSnapshot: index out of range")
            return packed.value(at: offset, field: index)
        }
    }

    /// The value at a `storedIndex`, or `.null` past the row's end (a row written before the property existed).
    public func value(at index: Int) -> StoreValue {
        switch storage {
        case .values(let values): return index >= 0 && index < values.count ? values[index] : .null
        case .packed(let packed):
            return index >= 0 && index < packed.fieldCount(at: offset) ? packed.value(at: offset, field: index) : .null
        }
    }

    /// The value at a `storedIndex` read as a string (nil past the row's end): a packed row decodes it from its
    /// bytes, and neither kind wraps it in a `StoreValue` that the reader then unwraps and releases.
    func string(at index: Int) -> TypedStringRead {
        read(index, null: .null, TypedStringRead.init) { $0.string(at: $1, field: $2) }
    }

    /// The value at a `storedIndex` read as a number, Boolean or date (nil past the row's end), without copying
    /// a `StoreValue` out.
    func scalar(at index: Int) -> TypedScalarRead {
        read(index, null: .null, TypedScalarRead.init) { $0.scalar(at: $1, field: $2) }
    }

    /// The value at a `storedIndex` read one way from either kind of storage; `null` past the row's end.
    @inline(__always)
    private func read<Read>(
        _ index: Int, null: Read, _ value: (borrowing StoreValue) -> Read,
        _ packedValue: (PackedRowStorage, Int, Int) -> Read
    ) -> Read {
        switch storage {
        case .values(let values):
            return index >= 0 && index < values.count ? value(values[index]) : null
        case .packed(let packed):
            return index >= 0 && index < packed.fieldCount(at: offset) ? packedValue(packed, offset, index) : null
        }
    }

    /// Whether the value at a `storedIndex` is nil (or past the row's end), without decoding it.
    func isNull(at index: Int) -> Bool {
        switch storage {
        case .values(let values): return index < 0 || index >= values.count || values[index].isNull
        case .packed(let packed):
            return index < 0 || index >= packed.fieldCount(at: offset) || packed.isNull(at: offset, field: index)
        }
    }
}
