import CLMDB
import Foundation
import ObjectStack

/// One fetch inside one read transaction, with the in-memory store's semantics, run as `QueryPlanner` plans it.
///
/// Candidates come from primary-key seeks, an index walk (`LMDBIndexWalk`) or a scan of the hierarchy's rows
/// in primary-key order; the predicate is evaluated on every candidate by `PredicateEvaluator`, decoding only
/// the fields it reads (unless the plan's range alone decides it). When the index gives the order, the walk
/// stops once offset+limit rows matched and the rows tying with the last one were read; those few rows are
/// then sorted by the sort keys (ties by primary key), which puts right what the index cannot order (cut
/// keys, descending ties, sort keys past the index's). Only the rows in the offset/limit window are decoded
/// in full.
struct LMDBFetch {
    let request: StoreFetchRequest
    let resolver: LMDBResolver
    /// For an object fetch, where the rows go a chunk at a time (decoded while their bytes are in cache); the
    /// result then holds none.
    var streaming: (([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void)?

    /// Runs the fetch.
    /// - Complexity: O(n) rows read for a scan; about offset+limit for an ordered walk with a limit; O(k log k)
    ///   for k candidates of an index range; plus O(m log m) to sort m matches the index did not order.
    /// - Returns: the result, and the plan with the entries and rows it read.
    func run() throws -> (StoreFetchResult, QueryPlan) {
        let codec = resolver.codec
        let txn = resolver.txn
        guard let layout = resolver.schema.layout(of: request.entity) else {
            return (try result([]), QueryPlan(entityName: request.entity.name, access: .scan))
        }
        var plan = QueryPlanner.plan(for: request, indexes: layout.queryIndexes.map(\.index))
        var candidate = [Bool](repeating: false, count: codec.entitiesByCode.count)
        for entity in request.candidateEntities {
            let code = Int(codec.code(of: entity))
            if code < candidate.count { candidate[code] = true }
        }
        let onlyCandidates = layout.ownsAllRows && request.candidateEntities.count == 1
        let evaluator = PredicateEvaluator(resolver: resolver)
        let predicate = plan.isExact ? nil : request.predicate
        // Plain attribute tests are read straight from the row's fields, without the general evaluator.
        let filter = predicate.flatMap(QueryFilter.init)
        let isCount: Bool
        if case .count = request.resultType { isCount = true } else { isCount = false }
        // A count without offset or limit needs only the number of matches, not the rows.
        let countsOnly = isCount && request.fetchOffset == 0 && request.fetchLimit == 0
        var counted = 0
        var matches: [LMDBRow] = []
        var rowsRead = 0
        var sortedByIndex = request.sortKeys.isEmpty
        // An unsorted scan's object rows go straight from the cursor to the context, packed as they are read.
        let sink: LMDBChunkSink?
        if let streaming, case .objects = request.resultType, case .scan = plan.access, sortedByIndex {
            // Every row of the entity's table matches: the store's entry count says how many come.
            let everyRow = filter == nil && predicate == nil && onlyCandidates
            let window = everyRow ? windowed(try txn.entryCount(layout.rows)) : nil
            sink = LMDBChunkSink(
                resolver: resolver, offset: request.fetchOffset, limit: request.fetchLimit, expected: window,
                body: streaming)
        } else {
            sink = nil
        }
        func consider(_ key: Int64, _ bytes: UnsafeRawBufferPointer) throws -> Bool {
            rowsRead += 1
            let header = try codec.header(of: bytes)
            let code = Int(header.entityCode)
            guard code < candidate.count, candidate[code] else { return false }
            if let filter {
                guard try Self.matches(filter, bytes, header, codec) else { return false }
                if countsOnly {
                    counted += 1
                    return true
                }
            }
            guard let entity = codec.entity(code: header.entityCode) else { return false }
            let row = LMDBRow(entity: entity, key: key, bytes: bytes, header: header)
            if filter == nil, let predicate, try !evaluator.evaluate(predicate, on: row) { return false }
            if countsOnly {
                counted += 1
                return true
            }
            if let sink {
                try sink.add(row)
            } else {
                matches.append(row)
            }
            return true
        }

        switch plan.access {
        case .scan:
            if isCount, plan.isExact, onlyCandidates {
                plan.countsFromIndex = true
                let count = try txn.entryCount(layout.rows)
                plan.entriesRead = count
                return (windowedCount(count), plan)
            }
            if countsOnly, let filter {
                // The count of a scan in one tight loop: no row kept, no captured state to check for exclusive
                // access on every row.
                let (count, read) = try txn.withCursor(layout.rows) { cursor in
                    var count = 0
                    var read = 0
                    var entry = try cursor.move(MDB_FIRST)
                    while let (_, bytes) = entry {
                        read += 1
                        let header = try codec.header(of: bytes)
                        let code = Int(header.entityCode)
                        if code < candidate.count, candidate[code], try Self.matches(filter, bytes, header, codec) {
                            count += 1
                        }
                        entry = try cursor.move(MDB_NEXT)
                    }
                    return (count, read)
                }
                plan.rowsRead = read
                return (.count(count), plan)
            }
            let stop = plan.stopsAfter
            try txn.withCursor(layout.rows) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let (key, value) = entry {
                    _ = try consider(key.primaryKey(at: 0), value)
                    if stop > 0, matches.count >= stop { break }
                    if let sink, sink.isFull { break }
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            if let sink {
                try sink.finish()
                plan.rowsRead = rowsRead
                return (.objects([]), plan)
            }
        case .primaryKeys(let keys):
            for key in keys {
                if let bytes = try txn.get(layout.rows, primaryKey: key) { _ = try consider(key, bytes) }
            }
        case .index(let index, let range):
            guard let dbi = layout.queryIndexes.first(where: { $0.index.name == index.name })?.dbi else {
                throw StoreError(
                    code: .corrupt, message: "the store has no sub-database for \(index.name)", url: codec.url)
            }
            let walk = LMDBIndexWalk(index: index, dbi: dbi, range: range, codec: codec)
            var entries = 0
            if plan.orderedSortKeys > 0 {
                let stop = plan.stopsAfter
                let columns = plan.orderedSortKeys
                var lastGroup: [UInt8] = []
                var exactOrder =
                    !plan.isDescending && columns == request.sortKeys.count
                    && (index.kind == .unique ? columns == index.columns.count : columns == index.columns.count)
                try walk.walk(txn, descending: plan.isDescending) { key, values in
                    entries += 1
                    let group = walk.orderingPrefix(values, columns: columns)
                    if !group.complete { exactOrder = false }
                    let groupBytes = UnsafeRawBufferPointer(rebasing: values[0..<group.length])
                    // While every key read so far was whole, an ascending walk over exactly the sort keys meets
                    // ties in primary-key order, the result's: no need to read the rows tying with the last match.
                    if stop > 0, matches.count >= stop, exactOrder || !groupBytes.elementsEqual(lastGroup) {
                        return false
                    }
                    guard let bytes = try txn.get(layout.rows, primaryKey: key) else { return true }
                    if try consider(key, bytes), stop > 0, matches.count >= stop,
                        lastGroup.isEmpty || matches.count == stop
                    {
                        lastGroup = Array(groupBytes)
                    }
                    return true
                }
                sortedByIndex = exactOrder
            } else if isCount, plan.isExact, walk.boundsAreExact, onlyCandidates {
                plan.countsFromIndex = true
                var count = 0
                try walk.walk(txn, descending: false) { _, _ in
                    count += 1
                    return true
                }
                plan.entriesRead = count
                return (windowedCount(count), plan)
            } else {
                var keys: [Int64] = []
                try walk.walk(txn, descending: false) { key, _ in
                    keys.append(key)
                    return true
                }
                entries = keys.count
                keys.sort()
                var previous: Int64?
                for key in keys where key != previous {
                    previous = key
                    if let bytes = try txn.get(layout.rows, primaryKey: key) { _ = try consider(key, bytes) }
                }
            }
            plan.entriesRead = entries
        }
        plan.rowsRead = rowsRead
        if countsOnly { return (.count(counted), plan) }
        if !sortedByIndex {
            let keys = request.sortKeys
            // A key on one of the row's own attributes is its field, read directly: the generic evaluator, called
            // from this module, runs unspecialised (a quarter of an LMDB Moody first screen).
            let fields = keys.map { QuerySorter.storedIndex(of: $0) }
            let values = try matches.map { row in
                try keys.indices.map { position in
                    if let field = fields[position] {
                        return try codec.decodeField(field, of: row.bytes, header: row.header)
                    }
                    return try evaluator.value(of: keys[position].keyPath, on: row)
                }
            }
            matches = QuerySorter.order(values, primaryKeys: matches.map(\.key), by: keys, limit: request.sortLimit)
                .map { matches[$0] }
        }
        return (try result(matches), plan)
    }

    /// Whether a row passes a filter; integer fields are read as integers, not as `StoreValue`s.
    @inline(__always)
    private static func matches(
        _ filter: QueryFilter, _ bytes: UnsafeRawBufferPointer, _ header: LMDBRowCodec.Header, _ codec: LMDBRowCodec
    ) throws -> Bool {
        try filter.matches(
            integer: { codec.integerField($0, of: bytes, header: header) },
            value: { try codec.decodeField($0, of: bytes, header: header) })
    }

    /// A count of `total` matches after the request's offset and limit.
    private func windowedCount(_ total: Int) -> StoreFetchResult { .count(windowed(total)) }

    /// How many of `total` matches the request's offset and limit leave.
    private func windowed(_ total: Int) -> Int {
        let afterOffset = max(total - request.fetchOffset, 0)
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    private func result(_ matches: [LMDBRow]) throws -> StoreFetchResult {
        let codec = resolver.codec
        // Objects and IDs are built here, on concrete types: the evaluator's generic `result`, called from this
        // module, ran unspecialised (a fifth of a sorted first screen of 50 pods).
        let window = matches.dropFirst(request.fetchOffset).prefix(
            request.fetchLimit > 0 ? request.fetchLimit : Int.max)
        switch request.resultType {
        case .objects:
            if let streaming {
                try pack(window, inChunks: streaming)
                return .objects([])
            }
            var rows: [(ManagedObjectID, RowSnapshot)] = []
            try pack(window) { chunk, _ in rows += chunk }
            return .objects(rows)
        case .objectIDs:
            return .objectIDs(window.map { resolver.objectID(of: $0) })
        case .count, .values:
            break
        }
        return try PredicateEvaluator(resolver: resolver).result(
            of: request, matches: matches, objectID: resolver.objectID(of:)
        ) {
            RowSnapshot(values: try codec.decodeAll($0.bytes, header: $0.header), version: $0.header.version)
        }
    }

    /// Packs rows (`RowPacker`) and hands them to `body` a chunk at a time: the rows of a chunk share one buffer,
    /// made while their bytes are in cache.
    private func pack(
        _ rows: ArraySlice<LMDBRow>,
        inChunks body: @escaping ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) throws {
        let sink = LMDBChunkSink(resolver: resolver, offset: 0, limit: 0, expected: rows.count, body: body)
        for row in rows { try sink.add(row) }
        try sink.finish()
    }
}
