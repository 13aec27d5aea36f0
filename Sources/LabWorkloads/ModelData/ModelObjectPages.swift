import Foundation
import ObjectStack

/// The generated objects of a `PopulationPlan` as pages of JSON, per entity, as an app's web API would serve them.
///
/// A page is `{"entity": "Mood", "number_of_pages": P, "page": N, "result": [object, …]}`. An object has its
/// `@id` (`"Mood/12"`: its entity and position in the plan; no attribute can be named so, while `id` often is),
/// each stored attribute (`null` when nil; dates as ISO 8601 with fractional seconds, data as base64, UUIDs and
/// URIs as text, decimals as text so no digit is lost, transformable values as they are before their
/// transformer: arrays, objects, text or numbers, dates and data as text), and each relationship from both of its sides: a reference for a to-one (or `null`), an array of
/// references for a to-many (in order, for an ordered one). A reference is `{"@id": …}` plus the referenced
/// object's uniqueness-constraint values, so an importer finds it by its key (`ModelImporter`).
///
/// For example:
/// ```swift
/// let pages = try ModelObjectPages(plan: plan, pageSize: 100)
/// let first = pages.page(1, of: "Mood")   // Data, or nil past the last page or for an unknown entity
/// ```
public struct ModelObjectPages: Sendable {
    /// Objects per page.
    public let pageSize: Int
    /// The concrete entities served, in model order.
    public let entityNames: [String]
    private let pages: [String: [Data]]

    /// Encodes every object of the plan.
    /// - Throws: an encoding error (not expected: every value is encodable).
    public init(plan: PopulationPlan, pageSize: Int) throws {
        precondition(pageSize > 0, "pageSize must be positive")
        self.pageSize = pageSize
        let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let related = Self.relatedObjects(plan)
        let keys = plan.entities.map { Self.keyAttributes(of: $0.entity) }

        func json(_ value: AttributeValueGenerator.Value?, _ formatter: Date.ISO8601FormatStyle) -> Any {
            value?.json(formatter) ?? NSNull()
        }
        func reference(_ ref: PopulationPlan.ObjectRef) -> [String: Any] {
            let entity = plan.entities[ref.entity]
            var result: [String: Any] = ["@id": "\(entity.entity.name)/\(ref.index)"]
            for name in keys[ref.entity] {
                guard let column = entity.attributes.firstIndex(where: { $0.name == name }) else { continue }
                result[name] = json(entity.values[ref.index * entity.attributes.count + column], formatter)
            }
            return result
        }

        var pages: [String: [Data]] = [:]
        for (position, entity) in plan.entities.enumerated() {
            var objects: [[String: Any]] = []
            objects.reserveCapacity(entity.count)
            let width = entity.attributes.count
            for index in 0..<entity.count {
                var object: [String: Any] = ["@id": "\(entity.entity.name)/\(index)"]
                for (column, attribute) in entity.attributes.enumerated() {
                    object[attribute.name] = json(entity.values[index * width + column], formatter)
                }
                let links = related[PopulationPlan.ObjectRef(entity: position, index: index)] ?? [:]
                for relationship in entity.entity.relationships where !relationship.isTransient {
                    let targets = links[relationship.name] ?? []
                    object[relationship.name] =
                        relationship.isToMany
                        ? targets.map(reference) as Any : (targets.first.map(reference) ?? NSNull()) as Any
                }
                objects.append(object)
            }
            let count = max(1, (objects.count + pageSize - 1) / pageSize)
            pages[entity.entity.name] = try (1...count).map { number in
                let slice =
                    objects.isEmpty
                    ? [] : Array(objects[((number - 1) * pageSize)..<min(number * pageSize, objects.count)])
                return try JSONSerialization.data(
                    withJSONObject: [
                        "entity": entity.entity.name, "number_of_pages": count, "page": number, "result": slice,
                    ] as [String: Any],
                    options: [.sortedKeys])
            }
        }
        self.pages = pages
        entityNames = plan.entities.map(\.entity.name)
    }

    /// The number of pages of an entity's objects (at least 1), nil for an entity not served.
    public func pageCount(of entity: String) -> Int? { pages[entity]?.count }

    /// Page `number` (from 1) of an entity's objects, nil past the last page or for an entity not served.
    public func page(_ number: Int, of entity: String) -> Data? {
        guard let entityPages = pages[entity], number >= 1, number <= entityPages.count else { return nil }
        return entityPages[number - 1]
    }

    /// The attributes an object is found by: its first uniqueness constraint's (the entity's own, else inherited).
    static func keyAttributes(of entity: EntityDescription) -> [String] {
        entity.applicableUniquenessConstraints.first?.attributes.map(\.name) ?? []
    }

    /// Every object's related objects by relationship name, from both sides of each wired relationship.
    private static func relatedObjects(_ plan: PopulationPlan)
        -> [PopulationPlan.ObjectRef: [String: [PopulationPlan.ObjectRef]]]
    {
        var related: [PopulationPlan.ObjectRef: [String: [PopulationPlan.ObjectRef]]] = [:]
        for link in plan.links {
            for (source, targets) in link.pairs {
                related[source, default: [:]][link.relationship.name, default: []] += targets
                guard let inverse = link.relationship.inverse else { continue }
                for target in targets { related[target, default: [:]][inverse.name, default: []].append(source) }
            }
        }
        return related
    }
}
