import Foundation
import LabCore
import ObjectStack

/// The writes of a workload on a model file: updates of the generated objects of the first screen's entity with
/// values a second plan of the same model generated (another seed), so every written value keeps the attribute's
/// optionality, range and regular expression. Attributes under a uniqueness constraint are never written, so an
/// update cannot make a duplicate.
struct ModelObjectUpdater: Sendable {
    /// The concrete entity updated: the first screen's, or its first sub-entity with objects.
    let entityName: String
    /// Its objects in the seeded store.
    let objects: Int
    /// The attributes written, each with its column in `values`.
    private let columns: [(name: String, column: Int)]
    private let width: Int
    private let rows: Int
    private let values: [AttributeValueGenerator.Value?]

    /// Plans the fresh values (`seed` should differ from the store's) for `run`'s first-screen entity.
    /// - Throws: `PopulationRefusal` when the model cannot be planned again.
    init(_ run: ModelFileRun, seed: UInt64) throws {
        let names = Set(run.screen.entity.selfAndDescendants.map(\.name))
        let planned = run.plan.entities.first { names.contains($0.entity.name) && $0.count > 0 }
        entityName = planned?.entity.name ?? run.screen.entity.name
        objects = planned?.count ?? 0
        guard let planned else {
            (columns, width, rows, values) = ([], 0, 0, [])
            return
        }
        let fresh = try PopulationPlan(model: run.plan.model, spec: run.plan.spec, seed: seed)
        guard let entity = fresh.entities.first(where: { $0.entity.name == planned.entity.name }) else {
            (columns, width, rows, values) = ([], 0, 0, [])
            return
        }
        let constrained = Set(
            planned.entity.applicableUniquenessConstraints.flatMap { $0.attributes.map(\.name) })
        columns = entity.attributes.enumerated().compactMap { column, attribute in
            constrained.contains(attribute.name) ? nil : (attribute.name, column)
        }
        width = entity.attributes.count
        rows = entity.count
        values = entity.values
    }

    /// Whether there is anything to update (objects, and an attribute outside every uniqueness constraint).
    var canUpdate: Bool { objects > 0 && rows > 0 && !columns.isEmpty }

    /// Fetches `count` objects of the entity (all of them when there are fewer) from `offset`, wrapping past the
    /// last to the first, and writes one attribute of each (which one turns with `round`); call on `context`'s
    /// queue. Returns the objects updated.
    func update(count: Int, offset: Int, round: Int, in context: ManagedObjectContext) throws -> Int {
        guard canUpdate, count > 0 else { return 0 }
        let wanted = min(count, objects)
        let start = offset % objects
        func page(from offset: Int, limit: Int) throws -> [ManagedObject] {
            var request = FetchRequest<ManagedObject>(entityName: entityName)
            request.includesSubentities = false
            request.fetchOffset = offset
            request.fetchLimit = limit
            request.returnsObjectsAsFaults = false
            return try context.fetch(request)
        }
        var found = try page(from: start, limit: wanted)
        if found.count < wanted, start > 0 { found += try page(from: 0, limit: min(wanted - found.count, start)) }
        return try update(found, offset: offset, round: round)
    }

    /// Writes one attribute (which one turns with `round`) of each of `objects`, objects of `entityName`, with
    /// the fresh values from `offset` on; call on their context's queue. Returns the objects updated.
    func update(_ objects: [ManagedObject], offset: Int, round: Int) throws -> Int {
        guard canUpdate else { return 0 }
        let (name, column) = columns[round % columns.count]
        for (index, object) in objects.enumerated() {
            try object.setGeneratedValue(values[((offset + index + round) % rows) * width + column], forKey: name)
        }
        return objects.count
    }
}
