import CLMDB
import Foundation
import ObjectStack

/// One fetch inside one read transaction, with the in-memory store's semantics.
///
/// Candidates come from an index range (`LMDBIndexScan`) or a scan of the hierarchy's rows in primary-key
/// order; the predicate is evaluated on every candidate by `PredicateEvaluator`, decoding only the fields it
/// reads; sort keys are read once per row and ties fall back to primary-key order; only the rows in the
/// offset/limit window are decoded in full.
struct LMDBFetch {
    let request: StoreFetchRequest
    let resolver: LMDBResolver

    /// Runs the fetch.
    /// - Complexity: O(n) rows read for a scan, O(k log k) for k rows from an index range; plus O(m log m)
    ///   to sort m matches.
    /// - Returns: the result, and whether an index range supplied the candidates.
    func run() throws -> (StoreFetchResult, usedIndex: Bool) {
        let codec = resolver.codec
        let txn = resolver.txn
        guard let layout = resolver.schema.layout(of: request.entity) else { return (try result([]), false) }
        var candidate = [Bool](repeating: false, count: codec.entitiesByCode.count)
        for entity in request.candidateEntities {
            let code = Int(codec.code(of: entity))
            if code < candidate.count { candidate[code] = true }
        }
        let evaluator = PredicateEvaluator(resolver: resolver)
        let predicate = request.predicate
        var matches: [LMDBRow] = []
        func consider(_ key: Int64, _ bytes: UnsafeRawBufferPointer) throws {
            let header = try codec.header(of: bytes)
            let code = Int(header.entityCode)
            guard code < candidate.count, candidate[code], let entity = codec.entity(code: header.entityCode) else {
                return
            }
            let row = LMDBRow(entity: entity, key: key, bytes: bytes, header: header)
            if let predicate, try !evaluator.evaluate(predicate, on: row) { return }
            matches.append(row)
        }
        let scan = LMDBIndexScan(request, schema: resolver.schema, codec: codec)
        if let scan {
            for key in try scan.primaryKeys(txn) {
                if let bytes = try txn.get(layout.rows, primaryKey: key) { try consider(key, bytes) }
            }
        } else {
            try txn.withCursor(layout.rows) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let (key, value) = entry {
                    try consider(key.primaryKey(at: 0), value)
                    entry = try cursor.move(MDB_NEXT)
                }
            }
        }
        if !request.sortKeys.isEmpty {
            // Sort keys are read once per row, not once per comparison.
            let keyed = try matches.map { row in (row, try request.sortKeys.map { try evaluator.value(of: $0.keyPath, on: row) }) }
            matches = keyed.sorted { a, b in
                let order = ValueComparison.compareSortKeys(a.1, b.1, request.sortKeys)
                return order == .orderedSame ? a.0.key < b.0.key : order == .orderedAscending
            }.map(\.0)
        }
        return (try result(matches), scan != nil)
    }

    private func result(_ matches: [LMDBRow]) throws -> StoreFetchResult {
        if case .count = request.resultType, request.fetchOffset == 0, request.fetchLimit == 0 {
            return .count(matches.count)
        }
        let window = matches.dropFirst(request.fetchOffset).prefix(request.fetchLimit > 0 ? request.fetchLimit : Int.max)
        switch request.resultType {
        case .count:
            return .count(window.count)
        case .objectIDs:
            return .objectIDs(window.map { resolver.objectID(of: $0) })
        case .objects:
            let codec = resolver.codec
            var rows: [(ManagedObjectID, RowSnapshot)] = []
            rows.reserveCapacity(window.count)
            for row in window {
                let snapshot = RowSnapshot(values: try codec.decodeAll(row.bytes, header: row.header), version: row.header.version)
                rows.append((resolver.objectID(of: row), snapshot))
            }
            return .objects(rows)
        case .values(let paths, let distinct):
            let evaluator = PredicateEvaluator(resolver: resolver)
            var rows: [[StoreValue]] = []
            var seen: Set<[StoreValue]> = []
            for row in window {
                let values = try paths.map { try evaluator.value(of: $0, on: row) }
                if distinct, !seen.insert(values).inserted { continue }
                rows.append(values)
            }
            return .values(rows)
        }
    }
}
