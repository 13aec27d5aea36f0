import Foundation
import LabCore
import ObjectStack

/// The fetch an app's first screen makes on a model file's store: an entity, its sort, an optional predicate and
/// a page size, from the scenario's `first_screen:` with what it leaves out inferred from the model and its
/// population.
public struct FirstScreen: Sendable {
    /// The entity listed.
    public let entity: EntityDescription
    /// The sort, in order.
    public let sort: [SortKey]
    /// The predicate, if any.
    public let predicate: FetchPredicate?
    /// Rows on the screen.
    public let limit: Int
    /// The attribute each row shows (read after the fetch, as a list cell would); nil when the entity has none.
    public let shownKey: String?
    /// How the entity and sort were chosen, for messages.
    public let reason: String

    /// The screen's fetch, from `offset`.
    public func request(offset: Int = 0) -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: entity.name)
        request.sortDescriptors = sort
        request.predicate = predicate
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    /// Resolves `spec` against the plan's model; what it leaves out is inferred: the root entity with the most
    /// planned objects (else any entity with the most), sorted by its first indexed attribute, else its first
    /// sortable one; 50 rows.
    /// - Throws: `LabError.invalidScenario` for an entity the model lacks, a sort key that is not a sortable
    ///   attribute of the entity, or a predicate that does not parse.
    public init(_ spec: FirstScreenSpec?, plan: PopulationPlan) throws {
        let model = plan.model
        let spec = spec ?? FirstScreenSpec()
        var reasons: [String] = []
        if let name = spec.entity {
            guard let entity = model.entitiesByName[name] else {
                throw LabError(
                    .invalidScenario,
                    "first_screen entity '\(name)' is not in the model; expected one of "
                        + model.entities.map(\.name).joined(separator: ", "))
            }
            self.entity = entity
        } else {
            let roots = plan.entities.filter { $0.reason.hasPrefix("root") }
            let candidates = roots.isEmpty ? plan.entities : roots
            // max(by:) keeps the last of equals; the first in model order reads better.
            guard let chosen = candidates.reversed().max(by: { $0.count < $1.count }) else {
                throw LabError(.invalidScenario, "the model has no entity with objects for a first screen")
            }
            entity = chosen.entity
            reasons.append("\(chosen.entity.name): the \(roots.isEmpty ? "" : "root ")entity with the most objects")
        }
        let entity = self.entity
        if let keys = spec.sort {
            sort = try keys.map { written in
                let descending = written.hasPrefix("-")
                let key = descending ? String(written.dropFirst()) : written
                guard let attribute = entity.attributesByName[key], Self.sortable(attribute) else {
                    throw LabError(
                        .invalidScenario,
                        "first_screen sort key '\(key)' is not a sortable attribute of \(entity.name); expected one of "
                            + entity.attributes.filter(Self.sortable).map(\.name).joined(separator: ", "))
                }
                return SortKey(key, ascending: !descending)
            }
        } else if let attribute = Self.inferredSortAttribute(of: entity) {
            sort = [SortKey(attribute.name)]
            reasons.append("sorted by \(attribute.name)")
        } else {
            sort = []
        }
        if let format = spec.predicate {
            do {
                predicate = try FetchPredicate(format: format)
            } catch {
                throw LabError(.invalidScenario, "first_screen predicate '\(format)' does not parse: \(error)")
            }
        } else {
            predicate = nil
        }
        limit = spec.limit ?? 50
        shownKey = sort.first?.key ?? entity.attributes.first(where: Self.sortable)?.name
        reason = reasons.joined(separator: ", ")
    }

    /// The first indexed sortable attribute (flagged, or first in a declared index), else the first sortable one.
    static func inferredSortAttribute(of entity: EntityDescription) -> AttributeDescription? {
        let sortable = entity.attributes.filter(sortable)
        if let indexed = sortable.first(where: \.isIndexed) { return indexed }
        for index in entity.indexes {
            if let name = index.attributeNames.first, let attribute = sortable.first(where: { $0.name == name }) {
                return attribute
            }
        }
        return sortable.first
    }

    /// Whether a store can sort by the attribute: stored, and of a type with an order.
    static func sortable(_ attribute: AttributeDescription) -> Bool {
        guard !attribute.isTransient, attribute.derivationExpression == nil else { return false }
        switch attribute.type {
        case .binaryData, .transformable: return false
        default: return true
        }
    }
}
