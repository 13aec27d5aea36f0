import Foundation
import Testing

@testable import ObjectStack

/// The context's registry table: every object is found under its own ID however the objects came and went,
/// removals leave no object unreachable (the entries after a hole are moved back), a copy or an iteration in
/// progress does not see later changes, and a rekey files objects under their new IDs.
@Suite("Object registry")
struct ObjectRegistryTests {
    private static func entity() throws -> EntityDescription {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        return try #require(model.entitiesByName["Item"])
    }

    private static func object(_ entity: EntityDescription, key: Int64) -> ManagedObject {
        let object = ManagedObject(entity: entity, insertInto: nil)
        object.objectID = ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: key)
        return object
    }

    @Test("objects registered, then half removed in random order: the rest are all found, the removed are not")
    func insertAndRemove() throws {
        let entity = try Self.entity()
        var generator = SplitMix(seed: 42)
        // Keys in runs and scattered, so probe runs collide and removals shift entries across them.
        let keys = Array(Set((0..<3_000).map { _ in Int64(generator.next() % 5_000) } + (1...2_000).map(Int64.init)))
        var registry = ObjectRegistry()
        var objects: [Int64: ManagedObject] = [:]
        for key in keys {
            let object = Self.object(entity, key: key)
            let (registered, isNew) = registry.object(for: object.objectID) { object }
            #expect(isNew && registered === object)
            objects[key] = object
        }
        #expect(registry.count == keys.count)
        let removed = Set(keys.shuffled(using: &generator).prefix(keys.count / 2))
        for key in removed {
            let id = ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: key)
            #expect(registry.removeValue(forKey: id) === objects[key])
        }
        #expect(registry.count == keys.count - removed.count)
        var missing = 0
        var wrong = 0
        for key in keys {
            let found = registry[ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: key)]
            if removed.contains(key) {
                if found != nil { wrong += 1 }
            } else if found !== objects[key] {
                missing += 1
            }
        }
        #expect(missing == 0 && wrong == 0)
        #expect(Set(registry.values.map(ObjectIdentifier.init)).count == registry.count)
        // A second registration of a registered ID hands back the object there, making nothing.
        let kept = try #require(keys.first { !removed.contains($0) })
        let (again, made) = registry.object(
            for: ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: kept)
        ) {
            Issue.record("made an object for a registered ID")
            return Self.object(entity, key: kept)
        }
        #expect(!made && again === objects[kept])
    }

    @Test("a copy and an iteration in progress keep the objects they had; the registry changes alone")
    func valueSemantics() throws {
        let entity = try Self.entity()
        var registry = ObjectRegistry()
        let objects = (1...40).map { Self.object(entity, key: Int64($0)) }
        for object in objects { registry[object.objectID] = object }
        let copy = registry
        var seen = 0
        for object in registry.values {
            seen += 1
            registry.removeValue(forKey: object.objectID)
        }
        #expect(seen == 40 && registry.isEmpty)
        #expect(copy.count == 40 && objects.allSatisfy { copy[$0.objectID] === $0 })
    }

    @Test("rekey files objects under their new IDs, a few at a time and most of the table at once")
    func rekey() throws {
        let entity = try Self.entity()
        for share in [3, 30] {
            var registry = ObjectRegistry()
            let objects = (1...40).map { _ in ManagedObject(entity: entity, insertInto: nil) }
            for object in objects { registry[object.objectID] = object }
            let temporary = objects.map(\.objectID)
            let moving = Array(objects.prefix(share))
            registry.rekey(
                moving.enumerated().map {
                    ($1, ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: Int64($0 + 1)))
                })
            #expect(registry.count == 40)
            for (index, object) in objects.enumerated() {
                #expect(registry[object.objectID] === object)
                if index < share {
                    #expect(!object.objectID.isTemporaryID && registry[temporary[index]] == nil)
                }
            }
        }
    }
}
