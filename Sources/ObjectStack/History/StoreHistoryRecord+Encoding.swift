import Foundation

extension StoreHistoryRecord {
    // MARK: - Encoding

    /// The layout's version, the encoding's first byte.
    static let formatVersion: UInt8 = 1

    /// The record as bytes: the version, the timestamp (so a store can filter by date reading 9 bytes), the
    /// transaction's strings, a table of the entity and property names it uses, then each change.
    ///
    /// - Complexity: O(changes); a name is written once per transaction, a change as a few varints.
    public func encoded() -> [UInt8] {
        var writer = HistoryByteWriter()
        writer.bytes.reserveCapacity(64 + changes.count * 6)
        writer.byte(Self.formatVersion)
        writer.double(timestamp.timeIntervalSinceReferenceDate)
        writer.optionalString(author)
        writer.optionalString(contextName)
        writer.string(bundleID)
        writer.varint(UInt64(UInt32(bitPattern: processID)))
        var entityCodes: [ObjectIdentifier: Int] = [:]
        var entityNames: [String] = []
        var propertyCodes: [String: Int] = [:]
        var propertyNames: [String] = []
        func property(_ name: String) -> Int {
            if let code = propertyCodes[name] { return code }
            propertyCodes[name] = propertyNames.count
            propertyNames.append(name)
            return propertyNames.count - 1
        }
        var body = HistoryByteWriter()
        body.bytes.reserveCapacity(changes.count * 5)
        for change in changes {
            let entity = change.objectID.entity
            let code =
                entityCodes[ObjectIdentifier(entity)]
                ?? {
                    entityCodes[ObjectIdentifier(entity)] = entityNames.count
                    entityNames.append(entity.name)
                    return entityNames.count - 1
                }()
            body.varint(UInt64(code))
            body.varint(UInt64(bitPattern: change.objectID.key))
            body.byte(UInt8(change.changeType.rawValue))
            switch change.changeType {
            case .insert: break
            case .update:
                let names = change.updatedProperties ?? []
                body.varint(UInt64(names.count))
                for name in names { body.varint(UInt64(property(name))) }
            case .delete:
                let tombstone = (change.tombstone ?? [:]).sorted { $0.key < $1.key }
                body.varint(change.tombstone == nil ? 0 : UInt64(tombstone.count + 1))
                for (name, value) in tombstone {
                    body.varint(UInt64(property(name)))
                    body.value(value)
                }
            }
        }
        writer.varint(UInt64(entityNames.count))
        for name in entityNames { writer.string(name) }
        writer.varint(UInt64(propertyNames.count))
        for name in propertyNames { writer.string(name) }
        writer.varint(UInt64(changes.count))
        writer.bytes += body.bytes
        return writer.bytes
    }

    /// The timestamp of an encoded record, read from its first bytes; nil when they are not a record.
    public static func timestamp(ofEncoded bytes: UnsafeRawBufferPointer) -> Date? {
        guard bytes.count >= 9, bytes[0] == formatVersion else { return nil }
        let bits = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[1 + $1]) << (8 * UInt64($1)) }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
    }

    // MARK: - Decoding

    /// Decodes a transaction a store wrote under `sequence`.
    /// - Parameters:
    ///   - bytes: the encoded record, as the store keeps it.
    ///   - sequence: the store's sequence number of the transaction, its token.
    ///   - model: the model whose entities the record names.
    ///   - storeIdentifier: the identifier of the store the changed objects' IDs belong to.
    ///   - includingChanges: false to skip the changes (a request for transactions only).
    /// - Throws: `StoreError.corrupt` when the bytes are not a record, or name an entity the model does not have.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, sequence: Int64, model: ManagedObjectModel, storeIdentifier: String,
        includingChanges: Bool = true
    ) throws -> PersistentHistoryTransaction {
        var reader = HistoryByteReader(bytes: bytes)
        guard try reader.byte() == formatVersion else { throw reader.corrupt("unknown history format") }
        let timestamp = Date(timeIntervalSinceReferenceDate: try reader.double())
        let author = try reader.optionalString()
        let contextName = try reader.optionalString()
        let bundleID = try reader.string()
        let processID = Int32(bitPattern: UInt32(truncatingIfNeeded: try reader.varint()))
        let token = PersistentHistoryToken(storeIdentifier: storeIdentifier, sequence: sequence)
        var changes: [PersistentHistoryChange]?
        if includingChanges {
            let entities = try (0..<reader.count()).map { _ -> EntityDescription in
                let name = try reader.string()
                guard let entity = model.entitiesByName[name] else {
                    throw reader.corrupt("history names entity \(name), which the model does not have")
                }
                return entity
            }
            let properties = try (0..<reader.count()).map { _ in try reader.string() }
            func property(_ code: Int) throws -> String {
                guard code < properties.count else { throw reader.corrupt("a property code out of range") }
                return properties[code]
            }
            let count = try reader.count()
            var decoded: [PersistentHistoryChange] = []
            decoded.reserveCapacity(count)
            for position in 0..<count {
                let entityCode = try reader.count()
                guard entityCode < entities.count else { throw reader.corrupt("an entity code out of range") }
                let key = Int64(bitPattern: try reader.varint())
                guard let type = PersistentHistoryChangeType(rawValue: Int(try reader.byte())) else {
                    throw reader.corrupt("an unknown change type")
                }
                var updated: Set<String>?
                var tombstone: [String: StoreValue]?
                switch type {
                case .insert: break
                case .update:
                    updated = Set(try (0..<reader.count()).map { _ in try property(try reader.count()) })
                case .delete:
                    let stored = try reader.count()
                    if stored > 0 {
                        var values: [String: StoreValue] = [:]
                        for _ in 0..<(stored - 1) {
                            let name = try property(try reader.count())
                            values[name] = try reader.value(model: model, storeIdentifier: storeIdentifier)
                        }
                        tombstone = values
                    }
                }
                decoded.append(
                    PersistentHistoryChange(
                        changeID: sequence * changesPerTransaction + Int64(position),
                        changedObjectID: ManagedObjectID(
                            entity: entities[entityCode], storeIdentifier: storeIdentifier, primaryKey: key),
                        changeType: type, updatedProperties: updated, tombstoneValues: tombstone,
                        transactionToken: token))
            }
            changes = decoded
        }
        return PersistentHistoryTransaction(
            timestamp: timestamp, changes: changes, storeID: storeIdentifier, bundleID: bundleID,
            processID: String(processID), contextName: contextName, author: author, token: token)
    }
}
