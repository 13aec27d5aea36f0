import CLMDB
import Foundation
import ObjectStack

/// One save inside one write transaction, with the in-memory store's semantics.
///
/// Order: version checks; deleted rows and the old index entries of updated rows are removed (their owners
/// give up their unique values); unique values are claimed for inserts, then updates, each with one
/// `MDB_NOOVERWRITE` put (a clash is a conflict with the store, or with an earlier object of this save);
/// then rows, index entries, referrer entries and links are written. Any error throws and the caller aborts
/// the transaction, so nothing of a failed save lands.
struct LMDBSave {
    let request: StoreSaveRequest
    let schema: LMDBSchema
    let codec: LMDBRowCodec
    let url: URL

    private typealias Layout = LMDBSchema.EntityLayout

    /// Applies the save; returns the new version of every written row.
    func run(_ txn: LMDBTransaction) throws -> [ManagedObjectID: Int64] {
        // The stored version of each update's row, -1 for a row that is gone: read once, for the check and the
        // write (a second lookup per row was a tenth of a large update's store time).
        let oldVersions = try checkVersions(txn)
        var buffer: [UInt8] = []
        var key: [UInt8] = []
        for delete in request.deletes {
            let id = delete.objectID
            guard let layout = schema.layout(of: id.entity), let old = try stored(id, layout, txn) else { continue }
            try unindex(id, try codec.decodeAll(old.bytes, header: old.header), layout, txn, &key)
            try withKey(id.key) { _ = try txn.delete(layout.rows, $0) }
            try removeLinks(of: id, layout, txn)
        }
        // An update at a checked version that keeps every keyed value (what the row read then held) leaves its
        // unique, index and referrer entries where they are: no decoding the old row, no delete and re-put.
        var keepsKeys: [Bool] = []
        keepsKeys.reserveCapacity(request.updates.count)
        for position in request.updates.indices {
            let id = request.updates[position].objectID
            guard oldVersions[position] >= 0, let layout = schema.layout(of: id.entity) else {
                keepsKeys.append(false)
                continue
            }
            let keeps =
                request.updates[position].expectedVersion == oldVersions[position]
                && request.updates[position].keepsCommittedValues(at: layout.keyedStoredIndices)
            keepsKeys.append(keeps)
            if !keeps, let old = try stored(id, layout, txn) {
                try unindex(id, try codec.decodeAll(old.bytes, header: old.header), layout, txn, &key)
            }
        }
        try claimUniqueValues(txn, &key, keepsKeys)

        var indexBatches: [LMDBKeyBatch] = []
        var versions: [ManagedObjectID: Int64] = [:]
        versions.reserveCapacity(request.updates.count)
        for (position, update) in request.updates.enumerated() where oldVersions[position] >= 0 {
            let id = update.objectID
            let oldVersion = oldVersions[position]
            guard let layout = schema.layout(of: id.entity) else { continue }
            buffer.removeAll(keepingCapacity: true)
            codec.encode(entity: id.entity, version: oldVersion + 1, values: update.values, into: &buffer)
            try withKey(id.key) { rowKey in _ = try buffer.withUnsafeBytes { try txn.put(layout.rows, rowKey, $0) } }
            if !keepsKeys[position] { try index(id, update.values, layout, txn, &key, &indexBatches) }
            // A checked update's new version is its expected one plus one: the caller knows it.
            if update.expectedVersion == nil { versions[id] = oldVersion + 1 }
        }
        var lastKeys: [MDB_dbi: Int64] = [:]
        for insert in request.inserts {
            let id = insert.objectID
            guard let layout = schema.layout(of: id.entity) else {
                throw StoreError(
                    code: .unsupported, message: "the store does not hold entity \(id.entityName)", url: url)
            }
            let last = try lastKeys[layout.rows] ?? lastKey(in: layout.rows, txn)
            // Keys past the last one go in with MDB_APPEND (no search, full pages); others must not overwrite.
            let flags = id.key > last ? MDB_APPEND : MDB_NOOVERWRITE
            lastKeys[layout.rows] = max(last, id.key)
            buffer.removeAll(keepingCapacity: true)
            codec.encode(entity: id.entity, version: 1, values: insert.values, into: &buffer)
            let rc = try withKey(id.key) { rowKey in
                try buffer.withUnsafeBytes { try txn.put(layout.rows, rowKey, $0, flags: flags) }
            }
            if rc == MDB_KEYEXIST {
                throw StoreError(
                    code: .constraintConflict,
                    message: "primary key \(id.key) of \(id.entityName) is already in the store", url: url,
                    nativeCode: rc)
            }
            try index(id, insert.values, layout, txn, &key, &indexBatches)
        }
        try writeIndexEntries(&indexBatches, txn)
        try applyLinks(txn)
        return versions
    }

    // MARK: - Checks

    private func stored(_ id: ManagedObjectID, _ layout: Layout, _ txn: LMDBTransaction) throws
        -> (bytes: UnsafeRawBufferPointer, header: LMDBRowCodec.Header)?
    {
        guard !id.isTemporaryID, let bytes = try txn.get(layout.rows, primaryKey: id.key) else { return nil }
        return (bytes, try codec.header(of: bytes))
    }

    private func snapshot(_ id: ManagedObjectID, _ txn: LMDBTransaction) throws -> RowSnapshot? {
        guard let layout = schema.layout(of: id.entity), let row = try stored(id, layout, txn) else { return nil }
        return RowSnapshot(values: try codec.decodeAll(row.bytes, header: row.header), version: row.header.version)
    }

    /// Checks the versions of updated and deleted rows; returns the stored version of each update's row (-1 for
    /// a row that is gone).
    private func checkVersions(_ txn: LMDBTransaction) throws -> [Int64] {
        var conflicts: [StoreVersionConflict] = []
        func storedVersion(_ id: ManagedObjectID) throws -> Int64? {
            guard let layout = schema.layout(of: id.entity) else { return nil }
            return try stored(id, layout, txn)?.header.version
        }
        // The row's header answers; the row is decoded only to report a conflict.
        func check(_ id: ManagedObjectID, _ expected: Int64?, stored: Int64?) throws {
            guard let expected, stored != expected else { return }
            conflicts.append(
                StoreVersionConflict(objectID: id, expectedVersion: expected, storedSnapshot: try snapshot(id, txn)))
        }
        var updateVersions: [Int64] = []
        updateVersions.reserveCapacity(request.updates.count)
        for position in request.updates.indices {
            let id = request.updates[position].objectID
            let stored = try storedVersion(id)
            updateVersions.append(stored ?? -1)
            try check(id, request.updates[position].expectedVersion, stored: stored)
        }
        for delete in request.deletes {
            try check(delete.objectID, delete.expectedVersion, stored: try storedVersion(delete.objectID))
        }
        for (position, update) in request.updates.enumerated()
        where update.expectedVersion == nil && updateVersions[position] < 0 {
            conflicts.append(StoreVersionConflict(objectID: update.objectID, expectedVersion: 0, storedSnapshot: nil))
        }
        if !conflicts.isEmpty {
            var error = StoreError(
                code: .versionConflict,
                message: "\(conflicts.count) object(s) changed in the store since they were read", url: url)
            error.versionConflicts = conflicts
            throw error
        }
        return updateVersions
    }

    /// Claims the unique values of inserts, then updates, one `MDB_NOOVERWRITE` put each, written per
    /// constraint in key order (`LMDBKeyBatch`): puts of equal keys keep the request's order, so the same object
    /// claims a value first as when written in request order, and conflicts are reported in request order.
    ///
    /// An update that keeps its keyed values (`keepsKeys`) claims nothing: it still owns its entries. Without
    /// that shortcut it would have given them up and claimed them again in its turn, so an earlier claimant of
    /// one of its values takes it and the keeper is the one that conflicts, as before.
    private func claimUniqueValues(_ txn: LMDBTransaction, _ key: inout [UInt8], _ keepsKeys: [Bool]) throws {
        var batches: [LMDBKeyBatch] = []
        var position: Int64 = 0
        func gather(_ id: ManagedObjectID, _ values: [StoreValue]) {
            defer { position += 1 }
            guard let layout = schema.layout(of: id.entity) else { return }
            for (number, constraint) in layout.constraints.enumerated() {
                var hasNull = false
                key.removeAll(keepingCapacity: true)
                for attribute in constraint.attributes {
                    let value = values[attribute.storedIndex!]
                    if value.isNull {
                        hasNull = true
                        break
                    }
                    LMDBKeyCodec.append(value, to: &key, codec: codec)
                }
                if hasNull { continue }
                LMDBKeyCodec.fitUniqueKey(&key)
                let batch: Int
                if let found = batches.firstIndex(where: { $0.dbi == constraint.dbi }) {
                    batch = found
                } else {
                    batches.append(LMDBKeyBatch(dbi: constraint.dbi))
                    batch = batches.count - 1
                    batches[batch].reserve(keys: request.inserts.count + request.updates.count, bytesPerKey: key.count)
                }
                batches[batch].add(key, owner: id.key, tag: position << 16 | Int64(number))
            }
        }
        for insert in request.inserts { gather(insert.objectID, insert.values) }
        for (index, update) in request.updates.enumerated() {
            if keepsKeys[index] {
                position += 1
            } else {
                gather(update.objectID, update.values)
            }
        }

        guard !batches.isEmpty else { return }
        // For each constraint's sub-database: the keepers' primary keys, with their update and constraint number.
        // Only a claim can meet a keeper, so a save whose updates all keep their values (no claim) skips this
        // table: building it for 10,000 kept rows was a fifth of such a save.
        var keepers: [MDB_dbi: [Int64: (update: Int, constraint: Int)]] = [:]
        for (index, update) in request.updates.enumerated() where keepsKeys[index] {
            guard let layout = schema.layout(of: update.objectID.entity) else { continue }
            for (number, constraint) in layout.constraints.enumerated() {
                keepers[constraint.dbi, default: [:]][update.objectID.key] = (index, number)
            }
        }
        /// The object and values written at a position of the request: its inserts, then its updates.
        func written(at position: Int) -> (id: ManagedObjectID, values: [StoreValue]) {
            position < request.inserts.count
                ? (request.inserts[position].objectID, request.inserts[position].values)
                : (
                    request.updates[position - request.inserts.count].objectID,
                    request.updates[position - request.inserts.count].values
                )
        }
        var conflicts: [(order: Int64, conflict: ConstraintConflict)] = []
        var savedIDs: [String: [Int64: ManagedObjectID]]?
        for index in batches.indices {
            batches[index].sort()
            let dbi = batches[index].dbi
            try batches[index].forEachInOrder(txn, otherwise: MDB_NOOVERWRITE) { entry, uniqueKey, flags in
                var existing: UnsafeRawBufferPointer?
                let rc = try withKey(entry.owner) { owner in
                    try txn.put(dbi, uniqueKey, owner, flags: flags, existing: &existing)
                }
                guard rc == MDB_KEYEXIST, let existing, existing.count == 8 else { return }
                let ownerKey = existing.primaryKey(at: 0)
                if ownerKey == entry.owner { return }
                let requestPosition = Int(entry.tag >> 16)
                if let keeper = keepers[dbi]?[ownerKey], request.inserts.count + keeper.update > requestPosition {
                    // The keeper's turn is later: this claimant takes the value and the keeper conflicts with it.
                    try withKey(entry.owner) { owner in _ = try txn.put(dbi, uniqueKey, owner, flags: 0) }
                    keepers[dbi]?[ownerKey] = nil
                    let kept = request.updates[keeper.update]
                    let claimant = written(at: requestPosition).id
                    guard let keeperLayout = schema.layout(of: kept.objectID.entity) else { return }
                    let constraint = keeperLayout.constraints[keeper.constraint]
                    conflicts.append(
                        (
                            Int64(request.inserts.count + keeper.update) << 16 | Int64(keeper.constraint),
                            ConstraintConflict(
                                entityName: constraint.declaring.name,
                                attributeNames: constraint.attributes.map(\.name),
                                values: constraint.attributes.map { kept.values[$0.storedIndex!] },
                                conflictingObjectIDs: [claimant, kept.objectID], existingObjectID: nil)
                        ))
                    return
                }
                let (id, values) = written(at: requestPosition)
                guard let layout = schema.layout(of: id.entity) else { return }
                let constraint = layout.constraints[Int(entry.tag & 0xFFFF)]
                let combination = constraint.attributes.map { values[$0.storedIndex!] }
                let names = constraint.attributes.map(\.name)
                // Leaving owners gave up their entries above, so an owner that is part of this save claimed
                // the values earlier in it.
                if savedIDs == nil { savedIDs = savedObjectIDs() }
                if let other = savedIDs?[id.entity.rootEntity.name]?[ownerKey] {
                    conflicts.append(
                        (
                            entry.tag,
                            ConstraintConflict(
                                entityName: constraint.declaring.name,
                                attributeNames: names, values: combination, conflictingObjectIDs: [other, id],
                                existingObjectID: nil)
                        ))
                    return
                }
                var existingID = id
                if let bytes = try txn.get(layout.rows, primaryKey: ownerKey),
                    let entity = codec.entity(code: try codec.header(of: bytes).entityCode)
                {
                    existingID = ManagedObjectID(
                        entity: entity, storeIdentifier: id.storeIdentifier, primaryKey: ownerKey)
                }
                conflicts.append(
                    (
                        entry.tag,
                        ConstraintConflict(
                            entityName: constraint.declaring.name,
                            attributeNames: names, values: combination, conflictingObjectIDs: [id],
                            existingObjectID: existingID)
                    ))
            }
        }
        if !conflicts.isEmpty { throw StoreError(constraintConflicts: conflicts, url: url) }
    }

    private func savedObjectIDs() -> [String: [Int64: ManagedObjectID]] {
        var result: [String: [Int64: ManagedObjectID]] = [:]
        for id in request.inserts.map(\.objectID) + request.updates.map(\.objectID) {
            result[id.entity.rootEntity.name, default: [:]][id.key] = id
        }
        return result
    }

    // MARK: - Index entries

    /// Writes the referrer entries of a row and gathers its index entries into `batches` (unique values were
    /// claimed before).
    private func index(
        _ id: ManagedObjectID, _ values: [StoreValue], _ layout: Layout, _ txn: LMDBTransaction,
        _ key: inout [UInt8], _ batches: inout [LMDBKeyBatch]
    ) throws {
        for index in layout.indexes {
            codec.indexKey(index.attributes, values, id.key, into: &key)
            let batch: Int
            if let found = batches.firstIndex(where: { $0.dbi == index.dbi }) {
                batch = found
            } else {
                batches.append(LMDBKeyBatch(dbi: index.dbi))
                batch = batches.count - 1
                batches[batch].reserve(keys: request.inserts.count + request.updates.count, bytesPerKey: key.count)
            }
            batches[batch].add(key, owner: id.key)
        }
        guard !layout.toOnes.isEmpty else { return }
        let code = codec.code(of: id.entity)
        let codeBytes: [UInt8] = [UInt8(truncatingIfNeeded: code), UInt8(truncatingIfNeeded: code >> 8)]
        for toOne in layout.toOnes {
            guard case .objectID(let target) = values[toOne.relationship.storedIndex!] else { continue }
            LMDBRowCodec.referrerKey(target.key, id.key, into: &key)
            try key.withUnsafeBytes { k in try codeBytes.withUnsafeBytes { _ = try txn.put(toOne.dbi, k, $0) } }
        }
    }

    /// Removes a row's unique (where it owns them), index and referrer entries.
    private func unindex(
        _ id: ManagedObjectID, _ values: [StoreValue], _ layout: Layout, _ txn: LMDBTransaction,
        _ key: inout [UInt8]
    ) throws {
        for constraint in layout.constraints {
            let combination = constraint.attributes.map { values[$0.storedIndex!] }
            if combination.contains(where: \.isNull) { continue }
            codec.uniqueKey(combination, into: &key)
            let owned = try key.withUnsafeBytes { k -> Bool in
                guard let owner = try txn.get(constraint.dbi, k), owner.count == 8 else { return false }
                return owner.primaryKey(at: 0) == id.key
            }
            if owned { try key.withUnsafeBytes { _ = try txn.delete(constraint.dbi, $0) } }
        }
        for index in layout.indexes {
            codec.indexKey(index.attributes, values, id.key, into: &key)
            try key.withUnsafeBytes { _ = try txn.delete(index.dbi, $0) }
        }
        for toOne in layout.toOnes {
            guard case .objectID(let target) = values[toOne.relationship.storedIndex!] else { continue }
            LMDBRowCodec.referrerKey(target.key, id.key, into: &key)
            try key.withUnsafeBytes { _ = try txn.delete(toOne.dbi, $0) }
        }
    }

    /// Writes gathered index entries in key order (an entry already there is overwritten, as unsorted).
    private func writeIndexEntries(_ batches: inout [LMDBKeyBatch], _ txn: LMDBTransaction) throws {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        for index in batches.indices {
            batches[index].sort()
            let dbi = batches[index].dbi
            try batches[index].forEachInOrder(txn, otherwise: 0) { _, key, flags in
                _ = try txn.put(dbi, key, empty, flags: flags)
            }
        }
    }

    // MARK: - Links

    /// Removes every link of a deleted object, from both directions of each join table it takes part in.
    private func removeLinks(of id: ManagedObjectID, _ layout: Layout, _ txn: LMDBTransaction) throws {
        for table in layout.sourceOf { try removeLinks(from: table.forward, mirror: table.backward, side: id.key, txn) }
        for table in layout.destinationOf {
            try removeLinks(from: table.backward, mirror: table.forward, side: id.key, txn)
        }
    }

    /// Deletes the entries under `side` in `dbi` (optionally only those pointing at `other`) and their mirrors.
    private func removeLinks(
        from dbi: MDB_dbi, mirror: MDB_dbi, side: Int64, only other: Int64? = nil,
        _ txn: LMDBTransaction
    ) throws {
        var doomed: [(key: [UInt8], mirrorKey: [UInt8])] = []
        var prefix: [UInt8] = []
        prefix.appendPrimaryKey(side)
        try txn.withCursor(dbi) { cursor in
            try prefix.withUnsafeBytes { prefix in
                try cursor.forEach(prefix: prefix) { key, value in
                    guard key.count == 16, value.count == 10 else { return true }
                    let target = value.primaryKey(at: 2)
                    if let other, other != target { return true }
                    var mirrorKey: [UInt8] = []
                    mirrorKey.appendPrimaryKey(target)
                    mirrorKey.append(contentsOf: key[8..<16])
                    doomed.append((Array(key), mirrorKey))
                    return true
                }
            }
        }
        for entry in doomed {
            try entry.key.withUnsafeBytes { _ = try txn.delete(dbi, $0) }
            try entry.mirrorKey.withUnsafeBytes { _ = try txn.delete(mirror, $0) }
        }
    }

    private func applyLinks(_ txn: LMDBTransaction) throws {
        guard !request.insertedLinks.isEmpty || !request.deletedLinks.isEmpty else { return }
        for link in request.deletedLinks {
            guard let table = schema.joinTables[link.relationship] else { continue }
            try removeLinks(
                from: table.forward, mirror: table.backward, side: link.source.key,
                only: link.destination.key, txn)
        }
        guard !request.insertedLinks.isEmpty else { return }
        let sequenceKey = Array("linkSequence".utf8)
        var sequence = try sequenceKey.withUnsafeBytes { k -> Int64 in
            guard let value = try txn.get(schema.meta, k), value.count == 8 else { return 0 }
            return value.primaryKey(at: 0)
        }
        for link in request.insertedLinks {
            guard let table = schema.joinTables[link.relationship] else {
                throw StoreError(
                    code: .unsupported, message: "the store has no join table \(link.relationship)", url: url)
            }
            var exists = false
            var prefix: [UInt8] = []
            prefix.appendPrimaryKey(link.source.key)
            try txn.withCursor(table.forward) { cursor in
                try prefix.withUnsafeBytes { prefix in
                    try cursor.forEach(prefix: prefix) { _, value in
                        exists = value.count == 10 && value.primaryKey(at: 2) == link.destination.key
                        return !exists
                    }
                }
            }
            if exists { continue }
            sequence += 1
            try putLink(table.forward, side: link.source.key, sequence: sequence, to: link.destination, txn)
            try putLink(table.backward, side: link.destination.key, sequence: sequence, to: link.source, txn)
        }
        var stored: [UInt8] = []
        stored.appendPrimaryKey(sequence)
        try sequenceKey.withUnsafeBytes { k in try stored.withUnsafeBytes { _ = try txn.put(schema.meta, k, $0) } }
    }

    private func putLink(
        _ dbi: MDB_dbi, side: Int64, sequence: Int64, to other: ManagedObjectID,
        _ txn: LMDBTransaction
    ) throws {
        var key: [UInt8] = []
        key.appendPrimaryKey(side)
        key.appendPrimaryKey(sequence)
        let code = codec.code(of: other.entity)
        var value: [UInt8] = [UInt8(truncatingIfNeeded: code), UInt8(truncatingIfNeeded: code >> 8)]
        value.appendPrimaryKey(other.key)
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { _ = try txn.put(dbi, k, $0) } }
    }

    // MARK: - Keys

    private func lastKey(in dbi: MDB_dbi, _ txn: LMDBTransaction) throws -> Int64 {
        try txn.withCursor(dbi) { cursor in
            guard let (key, _) = try cursor.move(MDB_LAST), key.count == 8 else { return 0 }
            return key.primaryKey(at: 0)
        }
    }

    @inline(__always)
    private func withKey<T>(_ primaryKey: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: UInt64(bitPattern: primaryKey).bigEndian, body)
    }
}
