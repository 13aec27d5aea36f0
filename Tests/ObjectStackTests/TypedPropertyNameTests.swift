import Foundation
import Synchronization
import Testing

@testable import ObjectStack

/// `@Attribute` holds its name as one word (`AttributeName`): one-character names, long names, names given as
/// strings, and properties inherited by sub-entities all reach the right attribute, from many threads at once.
@Suite("Typed property names")
struct TypedPropertyNameTests {
    final class Gadget: ManagedObject {
        @Attribute("x") var x: String
        @Attribute("aVeryLongAttributeNameBeyondSixteenBytes") var long: Int
        @Attribute("label") var label: String?
    }

    final class Widget: ManagedObject {
        @Attribute("label") var label: String?
        @Attribute("x") var x: String
    }

    private static func context() throws -> ManagedObjectContext {
        context(on: try coordinator())
    }

    private static func context(on coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private static func coordinator() throws -> PersistentStoreCoordinator {
        func attributes() -> [AttributeDescription] {
            [
                AttributeDescription(name: "x", type: .string, defaultValue: .string("")),
                AttributeDescription(
                    name: "aVeryLongAttributeNameBeyondSixteenBytes", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "label", type: .string),
            ]
        }
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Gadget", managedObjectClass: Gadget.self, attributes: attributes()),
            // The same names in another order: each entity finds its own slots.
            EntityDescription(name: "Widget", managedObjectClass: Widget.self, attributes: attributes().reversed()),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://names-\(UUID())")!)
        return coordinator
    }

    @Test("one-character, long and shared names read and write their own attributes")
    func namesReachTheirAttributes() throws {
        let context = try Self.context()
        try context.performAndWait {
            let gadget = Gadget(context: context)
            let widget = Widget(context: context)
            gadget.x = "gx"
            gadget.long = 41
            gadget.label = "g"
            widget.x = "wx"
            widget.label = "w"
            #expect(gadget.value(forKey: "x") as? String == "gx")
            #expect((gadget.value(forKey: "aVeryLongAttributeNameBeyondSixteenBytes") as? NSNumber)?.intValue == 41)
            #expect(widget.value(forKey: "label") as? String == "w" && widget.value(forKey: "x") as? String == "wx")
            try context.save()
            context.refresh(gadget, mergeChanges: false)
            #expect(gadget.x == "gx" && gadget.long == 41 && gadget.label == "g")
        }
    }

    @Test("a wrapper's key is the name it was given, literal or not")
    func keys() {
        #expect(Attribute<String>("x").key == "x")
        #expect(Attribute<String>("title").key == "title")
        #expect(
            Attribute<String>("aVeryLongAttributeNameBeyondSixteenBytes").key
                == "aVeryLongAttributeNameBeyondSixteenBytes")
        let built = ["lab", "el"].joined()
        let interned = AttributeName(interning: built)
        #expect(interned.string == "label")
        #expect(AttributeName(interning: "lab" + "el") == interned, "a name given as a string is interned once")
    }

    @Test("threads meeting an entity's names for the first time at once all read the right values")
    func concurrentFirstReads() throws {
        // One coordinator, so every thread reads through the same entity's table of names.
        let coordinator = try Self.coordinator()
        let contexts = (0..<8).map { _ in Self.context(on: coordinator) }
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: contexts.count) { index in
            let context = contexts[index]
            context.performAndWait {
                for round in 0..<50 {
                    let gadget = Gadget(context: context)
                    gadget.x = "\(index)-\(round)"
                    gadget.long = index * 1000 + round
                    gadget.label = round % 2 == 0 ? nil : "odd"
                    if gadget.x != "\(index)-\(round)" || gadget.long != index * 1000 + round
                        || gadget.label != (round % 2 == 0 ? nil : "odd")
                    {
                        failures.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
