import Foundation
import ObjectStack

/// The store metadata Core Data keeps in `Z_METADATA.Z_PLIST`: a binary property list with the store type, each
/// entity's version hash (32 bytes of data), the model's version identifiers and the framework's version, plus any
/// keys the app set.
///
/// A store ObjectStack creates gets the same keys, its entity hashes being ObjectStack's own (16 bytes each), and
/// `writerKey` saying so: Core Data computes its hashes with a function that is not documented, so it would find
/// no model for such a store and migrate or refuse it, as its documentation says it does for a store of an
/// unknown model. Given Core Data's own hashes of the model (`CoreDataVersionHashes`, from a compiled model or a
/// store Core Data wrote), it writes those instead, with their digest and checksum, and no marker: Core Data then
/// opens the store as current. Either way ObjectStack's hashes are under `objectStackHashesKey`, which Core Data
/// ignores as it ignores an app's keys. A store Core Data wrote keeps its plist byte for byte: ObjectStack never
/// rewrites it.
struct StoreMetadataPlist {
    /// The key ObjectStack adds to the plist of a store it creates: the entity hashes are ObjectStack's.
    static let writerKey = "ObjectStackWriter"
    /// Its value.
    static let writerValue = "ObjectStack"
    /// ObjectStack's own entity hashes (hex text by entity name), which decide whether a model matches the store.
    static let objectStackHashesKey = "ObjectStackVersionHashes"
    static let digestKey = "NSStoreModelVersionHashesDigest"
    static let checksumKey = "NSStoreModelVersionChecksumKey"
    static let hashesKey = "NSStoreModelVersionHashes"
    static let identifiersKey = "NSStoreModelVersionIdentifiers"
    static let frameworkVersionKey = "NSPersistenceFrameworkVersion"
    /// Core Data's own keys: every other key of the plist is one the app set (`setMetadata`).
    static let coreDataKeys: Set<String> = [
        "NSStoreType", hashesKey, "NSStoreModelVersionHashesVersion", identifiersKey, frameworkVersionKey,
        "_NSAutoVacuumLevel", digestKey, checksumKey, "NSStoreUUID",
        "NSPersistentStoreRemoteChangeNotificationOptionKey", "NSPersistentHistoryTrackingKey",
    ]

    /// The plist's entries.
    let values: [String: Any]

    /// Reads a plist.
    /// - Throws: `StoreError` `.corrupt` when it is not a property-list dictionary.
    init(data: Data, url: URL?) throws {
        guard let values = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else {
            throw StoreError(
                code: .corrupt, message: "the store's metadata (Z_METADATA.Z_PLIST) is not a property list", url: url)
        }
        self.values = values
    }

    /// Whether ObjectStack wrote the store's `NSStoreModelVersionHashes` (its own hashes, not Core Data's).
    var isWrittenByObjectStack: Bool { values[Self.writerKey] as? String == Self.writerValue }

    /// `NSStoreModelVersionHashes` as stored: each entity's hash bytes, by entity name.
    var storedHashes: [String: Data] {
        (values[Self.hashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
    }

    /// ObjectStack's hashes of the model that wrote the store, as lowercase hex by entity name; nil for a store
    /// Core Data wrote (its model is then told from its model cache).
    var objectStackHashes: [String: String]? {
        if let hashes = values[Self.objectStackHashesKey] as? [String: String] { return hashes }
        guard isWrittenByObjectStack else { return nil }
        return storedHashes.mapValues { data in data.map { String(format: "%02x", $0) }.joined() }
    }

    /// The framework version that wrote the store (`NSPersistenceFrameworkVersion`), such as 1344.
    var frameworkVersion: Int? {
        if let number = values[Self.frameworkVersionKey] as? Int { return number }
        if let number = values[Self.frameworkVersionKey] as? NSNumber { return number.intValue }
        return nil
    }

    /// The model's version identifiers, usually one empty string.
    var versionIdentifiers: [String] { (values[Self.identifiersKey] as? [String]) ?? [] }

    /// The keys the app set, with string values (others are left out of `StoreMetadata.userInfo`).
    var appEntries: [String: String] {
        var entries: [String: String] = [:]
        for (key, value) in values
        where !Self.coreDataKeys.contains(key) && key != Self.writerKey && key != Self.objectStackHashesKey {
            if let text = value as? String { entries[key] = text }
        }
        return entries
    }

    /// The plist of a store ObjectStack creates (or migrates) for `entities`: with Core Data's hashes of the model
    /// when given, else ObjectStack's under Core Data's key and the writer's mark.
    static func data(
        for entities: [EntityDescription], versionIdentifiers: [String], coreDataHashes: CoreDataVersionHashes? = nil,
        keeping kept: [String: Any] = [:]
    ) -> Data {
        var values = kept
        let ours = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
        values["NSStoreType"] = "SQLite"
        values["NSStoreModelVersionHashesVersion"] = 3
        values[identifiersKey] = versionIdentifiers.isEmpty ? [""] : versionIdentifiers
        values["_NSAutoVacuumLevel"] = "2"
        values[objectStackHashesKey] = ours
        if let coreDataHashes {
            values[hashesKey] = coreDataHashes.hashes
            values[digestKey] = coreDataHashes.digest
            values[checksumKey] = coreDataHashes.checksum
            values[writerKey] = nil
        } else {
            values[hashesKey] = ours.mapValues(bytes(ofHex:))
            values[digestKey] = nil
            values[checksumKey] = nil
            values[writerKey] = writerValue
        }
        // Serialising a dictionary of strings, numbers, arrays and data cannot fail.
        return (try? PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)) ?? Data()
    }

    private static func bytes(ofHex hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { data.append(byte) }
            index = next
        }
        return data
    }
}
