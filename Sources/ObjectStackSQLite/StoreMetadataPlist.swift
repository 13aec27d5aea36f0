import Foundation
import ObjectStack

/// The store metadata Core Data keeps in `Z_METADATA.Z_PLIST`: a binary property list with the store type, each
/// entity's version hash (32 bytes of data), the model's version identifiers and the framework's version, plus any
/// keys the app set.
///
/// A store ObjectStack creates gets the same keys, its entity hashes being ObjectStack's own (16 bytes each), and
/// `writerKey` saying so: Core Data computes its hashes with a function that is not documented, so it would find
/// no model for such a store and migrate or refuse it, as its documentation says it does for a store of an
/// unknown model. A store Core Data wrote keeps its plist byte for byte: ObjectStack never rewrites it.
struct StoreMetadataPlist {
    /// The key ObjectStack adds to the plist of a store it creates: the entity hashes are ObjectStack's.
    static let writerKey = "ObjectStackWriter"
    /// Its value.
    static let writerValue = "ObjectStack"
    static let hashesKey = "NSStoreModelVersionHashes"
    static let identifiersKey = "NSStoreModelVersionIdentifiers"
    static let frameworkVersionKey = "NSPersistenceFrameworkVersion"
    /// Core Data's own keys: every other key of the plist is one the app set (`setMetadata`).
    static let coreDataKeys: Set<String> = [
        "NSStoreType", hashesKey, "NSStoreModelVersionHashesVersion", identifiersKey, frameworkVersionKey,
        "_NSAutoVacuumLevel", "NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey", "NSStoreUUID",
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

    /// Whether ObjectStack wrote the store (its hashes are ObjectStack's).
    var isWrittenByObjectStack: Bool { values[Self.writerKey] as? String == Self.writerValue }

    /// The entity hashes, by entity name, as lowercase hex.
    var versionHashes: [String: String] {
        guard let hashes = values[Self.hashesKey] as? [String: Any] else { return [:] }
        var result: [String: String] = [:]
        for (name, value) in hashes {
            if let data = value as? Data { result[name] = data.map { String(format: "%02x", $0) }.joined() }
        }
        return result
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
        for (key, value) in values where !Self.coreDataKeys.contains(key) && key != Self.writerKey {
            if let text = value as? String { entries[key] = text }
        }
        return entries
    }

    /// The plist of a store ObjectStack creates for `entities`.
    static func data(for entities: [EntityDescription], versionIdentifiers: [String]) -> Data {
        var hashes: [String: Any] = [:]
        for entity in entities { hashes[entity.name] = bytes(ofHex: entity.versionHash) }
        let values: [String: Any] = [
            "NSStoreType": "SQLite",
            hashesKey: hashes,
            "NSStoreModelVersionHashesVersion": 3,
            identifiersKey: versionIdentifiers.isEmpty ? [""] : versionIdentifiers,
            "_NSAutoVacuumLevel": "2",
            writerKey: writerValue,
        ]
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
