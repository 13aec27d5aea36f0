import Foundation
import Testing

@testable import ObjectStack

/// `ManagedObjectID` in three words: IDs made separately for one row are equal and hash alike, the store is told
/// apart by its interned identity, a temporary ID is never equal to a permanent one, and the IDs of one entity
/// never share a hash.
@Suite("ManagedObjectID layout")
struct ManagedObjectIDLayoutTests {
    private static func entities() throws -> (EntityDescription, EntityDescription) {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)]),
            EntityDescription(name: "Other", attributes: [AttributeDescription(name: "code", type: .string)]),
        ])
        return (try #require(model.entitiesByName["Item"]), try #require(model.entitiesByName["Other"]))
    }

    @Test("IDs of one row are equal and hash alike; another store, entity or key is another ID")
    func equality() throws {
        let (item, other) = try Self.entities()
        // Identifiers built at run time, so the two strings do not share storage.
        let store = ["A1B2C3D4-0000-4000-8000-", "000000000001"].joined()
        let a = ManagedObjectID(entity: item, storeIdentifier: store, primaryKey: 42)
        let b = ManagedObjectID(entity: item, storeIdentifier: String(store.reversed().reversed()), primaryKey: 42)
        #expect(a == b && a.hashValue == b.hashValue && a.storeIdentifier == store && a.key == 42)
        #expect(a != ManagedObjectID(entity: item, storeIdentifier: store + "X", primaryKey: 42))
        #expect(a != ManagedObjectID(entity: other, storeIdentifier: store, primaryKey: 42))
        #expect(a != ManagedObjectID(entity: item, storeIdentifier: store, primaryKey: 43))
        // An ID from another model instance with the same entity name is the same ID.
        let (again, _) = try Self.entities()
        let c = ManagedObjectID(entity: again, storeIdentifier: store, primaryKey: 42)
        #expect(a == c && a.hashValue == c.hashValue)
    }

    @Test("a temporary ID is not a permanent one, even with an empty store identifier")
    func temporaryIsApart() throws {
        let (item, _) = try Self.entities()
        let temporary = ManagedObjectID.temporary(for: item)
        let permanent = ManagedObjectID(entity: item, storeIdentifier: "", primaryKey: temporary.key)
        #expect(temporary.isTemporaryID && !permanent.isTemporaryID)
        #expect(temporary.storeIdentifier == "" && permanent.storeIdentifier == "")
        #expect(temporary != permanent)
        #expect(temporary.primaryKey == nil && permanent.primaryKey == temporary.key)
    }

    @Test("the IDs of one entity never share a hash")
    func distinctHashes() throws {
        let (item, _) = try Self.entities()
        let keys: [Int64] = Array(0..<20_000) + [Int64.max, Int64.min, -1, 1 << 40, 1 << 62]
        let hashes = Set(keys.map { ManagedObjectID(entity: item, storeIdentifier: "s", primaryKey: $0).hashCache })
        #expect(hashes.count == keys.count)
    }

    @Test("a run of 16 keys fills 16 neighbouring buckets; runs and entities land apart; equal IDs share buckets")
    func bucketRuns() throws {
        let (item, other) = try Self.entities()
        let seed = 0x1234_5678
        func bucket(_ entity: EntityDescription, _ key: Int64) -> Int {
            ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: key)._rawHashValue(seed: seed)
        }
        // Keys 32..<48: one run, so the high bits agree and the low four bits are the key's.
        let run = (32..<48).map { bucket(item, Int64($0)) }
        #expect(Set(run.map { $0 >> 4 }).count == 1)
        #expect(run.map { $0 & 15 } == Array(0..<16))
        // The next run, and the same run of another entity, start elsewhere.
        #expect(bucket(item, 48) >> 4 != run[0] >> 4)
        #expect(bucket(other, 32) >> 4 != run[0] >> 4)
        // Runs spread: 4,096 runs of one entity take nearly as many distinct high parts (a collision or two at
        // most among random 60-bit values would already be unlikely).
        let runs = Set((0..<4096).map { bucket(item, Int64($0) << 4) >> 4 })
        #expect(runs.count == 4096)
        // An equal ID made apart hashes alike.
        let id = ManagedObjectID(entity: item, storeIdentifier: "s", primaryKey: 77)
        let (again, _) = try Self.entities()
        #expect(
            ManagedObjectID(entity: again, storeIdentifier: "s", primaryKey: 77)._rawHashValue(seed: seed)
                == id._rawHashValue(seed: seed))
    }

    @Test("a table key: plain bits, equal exactly when the IDs are, hashed in runs of 16 neighbouring buckets")
    func objectKeys() throws {
        let (item, other) = try Self.entities()
        let (again, _) = try Self.entities()
        let seed = 0x1234_5678
        func key(_ entity: EntityDescription, _ store: String, _ primaryKey: Int64) -> ObjectKey {
            ObjectKey(ManagedObjectID(entity: entity, storeIdentifier: store, primaryKey: primaryKey))
        }
        // Two words and no reference: inserting a key retains nothing.
        #expect(MemoryLayout<ObjectKey>.size == 16)
        #expect(_isPOD(ObjectKey.self))
        // Equal IDs (an entity of the same name in another model instance) have equal keys and hashes.
        let key77 = key(item, "s", 77)
        #expect(key77 == key(again, "s", 77))
        #expect(key77._rawHashValue(seed: seed) == key(again, "s", 77)._rawHashValue(seed: seed))
        // Another store, entity or key, or a temporary ID with the same number, is another key.
        #expect(key77 != key(item, "t", 77))
        #expect(key77 != key(other, "s", 77))
        #expect(key77 != key(item, "s", 78))
        let temporary = ManagedObjectID.temporary(for: item)
        #expect(ObjectKey(temporary) != key(item, "s", temporary.key))
        #expect(ObjectKey(temporary) == ObjectKey(temporary))
        // Keys 32..<48 take 16 neighbouring buckets; the next run and another entity's start elsewhere.
        let run = (32..<48).map { key(item, "s", Int64($0))._rawHashValue(seed: seed) }
        #expect(Set(run.map { $0 >> 4 }).count == 1)
        #expect(run.map { $0 & 15 } == Array(0..<16))
        #expect(key(item, "s", 48)._rawHashValue(seed: seed) >> 4 != run[0] >> 4)
        #expect(key(other, "s", 32)._rawHashValue(seed: seed) >> 4 != run[0] >> 4)
        let runs = Set((0..<4096).map { key(item, "s", Int64($0) << 4)._rawHashValue(seed: seed) >> 4 })
        #expect(runs.count == 4096)
    }
}
