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
        matches = try evaluator.sorted(matches, by: request.sortKeys, limit: request.sortLimit) { $0.key }
        return (try result(matches), scan != nil)
    }

    private func result(_ matches: [LMDBRow]) throws -> StoreFetchResult {
        let codec = resolver.codec
        return try PredicateEvaluator(resolver: resolver).result(of: request, matches: matches, objectID: resolver.objectID(of:)) {
            RowSnapshot(values: try codec.decodeAll($0.bytes, header: $0.header), version: $0.header.version)
        }
    }
}
