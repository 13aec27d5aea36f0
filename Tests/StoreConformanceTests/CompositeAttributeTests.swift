import Foundation
import ObjectStack
import Testing

/// Composite attributes (Xcode 15): a dictionary of named elements, each stored as an attribute of its own, read,
/// written, validated, filtered, sorted and migrated the same on every store.
@Suite("Composite attributes")
struct CompositeAttributeTests {
    /// A `Place` with a composite `location` (a required `x`, an optional `y`, a nested `area` with `width`), in
    /// version 1; version 2 adds the element `location.z` and the composite `size` (`w`, `h`).
    static func model(version: Int = 1) throws -> ManagedObjectModel {
        var elements = [
            AttributeDescription(name: "x", type: .double, isOptional: false, defaultValue: .double(0)),
            AttributeDescription(name: "y", type: .double),
        ]
        if version >= 2 {
            elements.append(AttributeDescription(name: "z", type: .integer32, defaultValue: .integer(7)))
        }
        var composites = [
            CompositeAttributeDescription(
                name: "location", elements: elements,
                composites: [
                    CompositeAttributeDescription(
                        name: "area", elements: [AttributeDescription(name: "width", type: .integer64)])
                ])
        ]
        if version >= 2 {
            composites.append(
                CompositeAttributeDescription(
                    name: "size",
                    elements: [
                        AttributeDescription(name: "w", type: .integer32),
                        AttributeDescription(name: "h", type: .integer32),
                    ]))
        }
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Place", attributes: [AttributeDescription(name: "name", type: .string)],
                compositeAttributes: composites)
        ])
    }

    static func insert(_ context: ManagedObjectContext, _ name: String, _ location: [String: Any]?) throws {
        let place = ManagedObject(
            entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Place"]!, insertInto: context
        )
        try place.setValue(name, forKey: "name")
        try place.setValue(location, forKey: "location")
    }

    @Test(
        "a composite value is written and read back as a dictionary, nested composites too",
        arguments: StoreType.allCases)
    func roundTrip(kind: StoreType) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insert(context, "a", ["x": 1.5, "y": 2.5, "area": ["width": 40]])
            try Self.insert(context, "b", nil)
            try context.save()
        }
        let fresh = try stack.separateStack().newContext()
        try fresh.performAndWait {
            let places = try fresh.all(ManagedObject.self, "Place", where: "name == %@", "a")
            let location = try #require(places.first?.value(forKey: "location") as? [String: Any])
            #expect((location["x"] as? NSNumber)?.doubleValue == 1.5)
            #expect((location["y"] as? NSNumber)?.doubleValue == 2.5)
            #expect(((location["area"] as? [String: Any])?["width"] as? NSNumber)?.intValue == 40)
            #expect((places.first?.value(forKey: "location.x") as? NSNumber)?.doubleValue == 1.5)
            let empty = try fresh.all(ManagedObject.self, "Place", where: "name == %@", "b")
            #expect(empty.first?.value(forKey: "location") == nil)
        }
    }

    @Test(
        "a composite with a value lacking a required element fails the save naming the element",
        arguments: StoreType.allCases)
    func requiredElement(kind: StoreType) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let context = stack.newContext()
        let error = try context.performAndWait {
            try Self.insert(context, "a", ["y": 2.0])
            return try #require(throws: ObjectStackError.self) { try context.save() }
        }
        #expect(error.code == .validationFailed)
        #expect(error.message.contains("Place.location.x"), "\(error)")
        #expect(try context.performAndWait { try stack.separateStack().newContext().count("Place") } == 0)
    }

    @Test(
        "an element that is not in the composite is refused naming the elements there are",
        arguments: [StoreType.inMemory])
    func unknownElement(kind: StoreType) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let context = stack.newContext()
        try context.performAndWait {
            let error = try #require(throws: ObjectStackError.self) {
                try Self.insert(context, "a", ["x": 1.0, "q": 2])
            }
            #expect(error.code == .unknownKey && error.message.contains("'q'") && error.message.contains("x, y"))
        }
    }

    @Test(
        "predicates and sort keys take composite key paths, with the same results on every store",
        arguments: StoreType.allCases)
    func filterAndSort(kind: StoreType) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let context = stack.newContext()
        try context.performAndWait {
            for (name, x, y) in [("a", 3.0, 1.0), ("b", 1.0, 3.0), ("c", 2.0, 2.0), ("d", 5.0, -1.0)] {
                try Self.insert(context, name, ["x": x, "y": y, "area": ["width": Int(x * 10)]])
            }
            try Self.insert(context, "e", ["x": 4.0])
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Place")
            request.predicate = try FetchPredicate(format: "location.x >= 2 AND location.area.width < 50")
            request.sortDescriptors = [SortKey("location.y", ascending: false)]
            // d's width is 50, e has none (a comparison with nil is false).
            #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["c", "a"])
            request.predicate = try FetchPredicate(format: "location.y == nil")
            request.sortDescriptors = [SortKey("name")]
            #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["e"])
            #expect(throws: ObjectStackError.self) {
                var wrong = FetchRequest<ManagedObject>(entityName: "Place")
                wrong.predicate = try FetchPredicate(format: "location.q > 1")
                _ = try context.fetch(wrong)
            }
        }
    }

    @Test(
        "a lightweight migration adds a composite and an element, keeping every value",
        arguments: [StoreType.sqlite, .lmdb])
    func migration(kind: StoreType) throws {
        let stack = try TestStack(kind, model: try Self.model())
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insert(context, "a", ["x": 1.0, "y": 2.0, "area": ["width": 3]])
            try context.save()
        }
        try stack.coordinator.remove(stack.store)
        let container = PersistentContainer(name: "Composite", managedObjectModel: try Self.model(version: 2))
        var description = StoreDescription(type: kind, url: stack.location)
        description.sourceModels = [try Self.model()]
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
        if let error = failure.withLock({ $0 }) { throw error }
        let migrated = container.newBackgroundContext()
        try migrated.performAndWait {
            let place = try #require(try migrated.fetch(FetchRequest<ManagedObject>(entityName: "Place")).first)
            let location = try #require(place.value(forKey: "location") as? [String: Any])
            #expect((location["x"] as? NSNumber)?.doubleValue == 1.0)
            #expect((location["z"] as? NSNumber)?.intValue == 7, "the new element takes its default")
            #expect(place.value(forKey: "size") == nil)
            try place.setValue(["w": 4, "h": 5], forKey: "size")
            try migrated.save()
        }
    }
}
