import Foundation
import ObjectStack

/// Writes a `PopulationPlan` into a store: every object with its values, every relationship, in one save.
///
/// For example:
/// ```swift
/// let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 1_000), seed: 7)
/// let result = try ModelPopulator.populateStore(plan, store: .sqlite, url: URL(fileURLWithPath: "app.sqlite"))
/// print(result.summary)
/// ```
/// One save means the context validates everything the stack validates (required values, minimum and maximum
/// values and counts, regular expressions) and the store checks uniqueness constraints before anything is
/// committed: a plan the stack would refuse leaves no half-written store.
public enum ModelPopulator {
    /// What was written.
    public struct Result: Sendable {
        /// Objects per concrete entity, in model order.
        public let objectsByEntity: [(entity: String, count: Int, reason: String)]
        /// Relationship links written (each pair once).
        public let links: Int
        /// How long writing took (planning not included).
        public let writeDuration: Duration
        /// The plan's notes.
        public let notes: [String]

        /// The number of objects written.
        public var objects: Int { objectsByEntity.reduce(0) { $0 + $1.count } }

        /// One line per entity, then the totals and the notes.
        public var summary: String {
            var lines = objectsByEntity.map { "  \($0.entity): \($0.count) (\($0.reason))" }
            lines.append(
                "\(objects) objects, \(links) relationship links, written in "
                    + String(format: "%.1f ms", writeDuration.milliseconds))
            lines += notes.map { "  note: \($0)" }
            return lines.joined(separator: "\n")
        }
    }

    /// Writes the plan through a new context of `coordinator`, in one save.
    /// - Throws: what the save throws (validation, a uniqueness conflict, the store's errors); nothing is
    ///   committed then.
    public static func write(_ plan: PopulationPlan, into coordinator: PersistentStoreCoordinator) throws -> Result {
        let clock = ContinuousClock()
        let started = clock.now
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            var objects: [[ManagedObject]] = []
            objects.reserveCapacity(plan.entities.count)
            for entity in plan.entities {
                var made: [ManagedObject] = []
                made.reserveCapacity(entity.count)
                let width = entity.attributes.count
                for index in 0..<entity.count {
                    let object = try context.insertNewObject(forEntityName: entity.entity.name)
                    for (column, attribute) in entity.attributes.enumerated() {
                        try object.setGeneratedValue(entity.values[index * width + column], forKey: attribute.name)
                    }
                    made.append(object)
                }
                objects.append(made)
            }
            for link in plan.links {
                for (source, targets) in link.pairs {
                    let object = objects[source.entity][source.index]
                    if link.relationship.isToMany {
                        try object.setValue(
                            targets.map { objects[$0.entity][$0.index] }, forKey: link.relationship.name)
                    } else {
                        try object.setValue(
                            objects[targets[0].entity][targets[0].index], forKey: link.relationship.name)
                    }
                }
            }
            try context.save()
            context.reset()
        }
        return Result(
            objectsByEntity: plan.entities.map { ($0.entity.name, $0.count, $0.reason) }, links: plan.linkCount,
            writeDuration: clock.now - started, notes: plan.notes)
    }

    /// Creates a store of `store` kind at `url` (which must not exist yet) and writes the plan into it.
    /// - Throws: `LabError.unsupported` when a file is already at `url`; the stores' and the save's errors, after
    ///   which the new store file is deleted.
    public static func populateStore(
        _ plan: PopulationPlan, store: StoreKind, url: URL, options: [String: String] = [:]
    )
        throws -> Result
    {
        if store.isFile, FileManager.default.fileExists(atPath: url.path) {
            throw LabError(.unsupported, "\(url.path) already exists; the generator writes only new stores")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: plan.model)
        do {
            let opened = try coordinator.addPersistentStore(
                type: store.storeType, configuration: nil, at: url, options: options)
            defer { try? coordinator.remove(opened) }
            return try write(plan, into: coordinator)
        } catch {
            if store.isFile { try? store.storeType.destroyStore(at: url) }
            throw error
        }
    }
}
