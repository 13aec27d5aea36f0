import CLMDB
import Foundation
import ObjectStack

/// A range of an index that holds every row a predicate can match, found from one of its comparisons.
///
/// Used for `=`, `<`, `<=`, `>`, `>=`, `BETWEEN` and `BEGINSWITH` on the first attribute of an index that covers
/// the fetched entity, when the comparison is the whole predicate or one operand of a top-level `AND`, has no
/// `[c]`/`[d]` options and compares with a constant of the attribute's kind. The range is a superset (bounds
/// are inclusive, long keys are cut): the fetch still evaluates the whole predicate on each row, so results
/// are those of a full scan.
struct LMDBIndexScan {
    let dbi: MDB_dbi
    /// Where the scan starts.
    let start: [UInt8]
    /// Every key in range starts with this.
    let prefix: [UInt8]
    /// Keys whose value part sorts after this (and does not start with it) end the scan.
    let upper: [UInt8]?

    /// The scan for a request, or nil when no index applies (the fetch scans the rows).
    init?(_ request: StoreFetchRequest, schema: LMDBSchema, codec: LMDBRowCodec) {
        guard let predicate = request.predicate, let layout = schema.layout(of: request.entity),
            !layout.indexes.isEmpty
        else { return nil }
        let parts: [BoundPredicate]
        switch predicate {
        case .and(let conjuncts): parts = conjuncts
        default: parts = [predicate]
        }
        var best: LMDBIndexScan?
        for case .comparison(let comparison) in parts {
            guard let scan = Self.scan(for: comparison, layout: layout, codec: codec) else { continue }
            if best == nil || scan.upper == nil && best?.upper != nil { best = scan }
        }
        guard let best else { return nil }
        self = best
    }

    private init(dbi: MDB_dbi, start: [UInt8], prefix: [UInt8], upper: [UInt8]?) {
        self.dbi = dbi
        self.start = start
        self.prefix = prefix
        self.upper = upper
    }

    private static func scan(for comparison: BoundComparison, layout: LMDBSchema.EntityLayout, codec: LMDBRowCodec)
        -> LMDBIndexScan?
    {
        guard comparison.quantifier == .direct, comparison.options.subtracting(.normalized).isEmpty,
            case .keyPath(let path) = comparison.lhs, path.variable == nil, path.steps.count == 1,
            case .attribute(let attribute) = path.steps[0], let storedIndex = attribute.storedIndex,
            let index = layout.indexes.first(where: { $0.attributes.first?.storedIndex == storedIndex
                && $0.attributes.first?.name == attribute.name })
        else { return nil }
        func encoded(_ value: StoreValue) -> [UInt8]? {
            guard let value = keyValue(value, for: attribute) else { return nil }
            var key: [UInt8] = []
            LMDBKeyCodec.append(value, to: &key, codeOf: codec.code(of:))
            return Array(key.prefix(LMDBKeyCodec.maximumIndexValueBytes))
        }
        let orderable = attribute.type != .decimal
        switch (comparison.op, comparison.rhs) {
        case (.equal, .constant(let value)):
            guard let key = encoded(value) else { return nil }
            return LMDBIndexScan(dbi: index.dbi, start: key, prefix: key, upper: nil)
        case (.lessThan, .constant(let value)), (.lessThanOrEqual, .constant(let value)):
            guard orderable, let key = encoded(value) else { return nil }
            return LMDBIndexScan(dbi: index.dbi, start: [key[0]], prefix: [key[0]], upper: key)
        case (.greaterThan, .constant(let value)), (.greaterThanOrEqual, .constant(let value)):
            guard orderable, let key = encoded(value) else { return nil }
            return LMDBIndexScan(dbi: index.dbi, start: key, prefix: [key[0]], upper: nil)
        case (.between, .list(let bounds)) where bounds.count == 2:
            guard orderable, let low = encoded(bounds[0]), let high = encoded(bounds[1]) else { return nil }
            return LMDBIndexScan(dbi: index.dbi, start: low, prefix: [low[0]], upper: high)
        case (.beginsWith, .constant(.string(let text))) where attribute.type == .string:
            let key = Array(LMDBKeyCodec.stringPrefix(text).prefix(LMDBKeyCodec.maximumIndexValueBytes))
            return LMDBIndexScan(dbi: index.dbi, start: key, prefix: key, upper: nil)
        default:
            return nil
        }
    }

    /// The constant as the attribute's stored kind, or nil when the index cannot order it alike.
    private static func keyValue(_ value: StoreValue, for attribute: AttributeDescription) -> StoreValue? {
        switch (attribute.type, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer): return value
        case (.double, .double), (.float, .double): return value
        case (.double, .integer(let v)), (.float, .integer(let v)): return .double(Double(v))
        case (.string, .string), (.date, .date), (.boolean, .boolean), (.uuid, .uuid): return value
        default: return nil
        }
    }

    /// The primary keys of the rows in range, ascending and without repeats.
    func primaryKeys(_ txn: LMDBTransaction) throws -> [Int64] {
        var keys: [Int64] = []
        try txn.withCursor(dbi) { cursor in
            try start.withUnsafeBytes { start in
                try prefix.withUnsafeBytes { prefix in
                    var entry = try cursor.move(MDB_SET_RANGE, key: start)
                    while let (key, _) = entry, key.count > 8, key.count - 8 >= prefix.count,
                        memcmp(key.baseAddress!, prefix.baseAddress!, prefix.count) == 0
                    {
                        if let upper, isPast(UnsafeRawBufferPointer(rebasing: key[0..<(key.count - 8)]), upper) { break }
                        keys.append(key.trailingPrimaryKey)
                        entry = try cursor.move(MDB_NEXT)
                    }
                }
            }
        }
        keys.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }

    private func isPast(_ value: UnsafeRawBufferPointer, _ upper: [UInt8]) -> Bool {
        let common = min(value.count, upper.count)
        let order = upper.withUnsafeBytes { memcmp(value.baseAddress!, $0.baseAddress!, common) }
        if order != 0 { return order > 0 }
        // Equal over the common part: a longer value starting with the bound is still in range.
        return false
    }
}
