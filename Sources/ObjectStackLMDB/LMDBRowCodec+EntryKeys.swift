import Foundation
import ObjectStack

/// The keys of the entries a row owns outside its rows database, as a save writes them and the integrity walk
/// looks them up: one definition, so the two cannot drift apart.
extension LMDBRowCodec {
    /// The key of a uniqueness entry: the combination's values, cut to `LMDBKeyCodec.fitUniqueKey`.
    func uniqueKey(_ combination: [StoreValue], into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        for value in combination { LMDBKeyCodec.append(value, to: &key, codec: self) }
        LMDBKeyCodec.fitUniqueKey(&key)
    }

    /// The key of an index entry: the attributes' values (cut to `maximumIndexValueBytes`), then the row's key.
    func indexKey(
        _ attributes: [AttributeDescription], _ values: [StoreValue], _ primaryKey: Int64, into key: inout [UInt8]
    ) {
        key.removeAll(keepingCapacity: true)
        for attribute in attributes { LMDBKeyCodec.append(values[attribute.storedIndex!], to: &key, codec: self) }
        if key.count > LMDBKeyCodec.maximumIndexValueBytes {
            key.removeLast(key.count - LMDBKeyCodec.maximumIndexValueBytes)
        }
        key.appendPrimaryKey(primaryKey)
    }

    /// The key of a referrer entry: the target's key, then the referring row's.
    static func referrerKey(_ target: Int64, _ referrer: Int64, into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        key.appendPrimaryKey(target)
        key.appendPrimaryKey(referrer)
    }
}
