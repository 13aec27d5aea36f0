import Foundation
import ObjectStack

/// Reads a populated store back and checks it against its model, independently of the generator: required
/// values present, values within their bounds and regular expressions, to-many counts within their minimum and
/// maximum, required to-ones set, both sides of every relationship agreeing, no uniqueness constraint broken and
/// no object of an abstract entity. Also gives the store's contents as text, to compare two stores.
///
/// For example:
/// ```swift
/// let audit = try PopulationAudit(coordinator: coordinator)
/// #expect(audit.problems.isEmpty)
/// print(audit.objectsByEntity)
/// ```
public struct PopulationAudit: Sendable {
    /// Objects per entity name (of the entity itself, not its sub-entities).
    public let objectsByEntity: [String: Int]
    /// Everything found wrong, one sentence each (at most 20 per kind of problem).
    public let problems: [String]
    /// The contents: per entity, each object by primary key with its values and related primary keys.
    public let contents: String

    /// Audits the store(s) of `coordinator`.
    public init(coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let model = coordinator.managedObjectModel
        (objectsByEntity, problems, contents) = try context.performAndWait { () throws in
            var counts: [String: Int] = [:]
            var problems: [String] = []
            var reported: [String: Int] = [:]
            func report(_ kind: String, _ text: String) {
                reported[kind, default: 0] += 1
                if reported[kind]! <= 20 { problems.append(text) }
            }
            var lines: [String] = []
            var tuples: [String: Set<String>] = [:]
            for entity in model.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                let objects = try context.fetch(request).sorted { $0.objectID.key < $1.objectID.key }
                counts[entity.name] = objects.count
                if entity.isAbstract, !objects.isEmpty {
                    report("abstract", "\(entity.name) is abstract but has \(objects.count) object(s)")
                }
                for object in objects {
                    var fields: [String] = []
                    for attribute in entity.attributes where !attribute.isTransient {
                        let value = object.value(forKey: attribute.name)
                        fields.append("\(attribute.name)=\(Self.key(value))")
                        if value == nil, !attribute.isOptional, attribute.derivationExpression == nil {
                            report(
                                "required", "\(entity.name) \(object.objectID.key): required \(attribute.name) is nil")
                        }
                        if let value, let problem = Self.outOfBounds(value, attribute) {
                            report("bounds", "\(entity.name) \(object.objectID.key): \(attribute.name) \(problem)")
                        }
                    }
                    for relationship in entity.relationships where !relationship.isTransient {
                        let related = Self.related(object, relationship)
                        fields.append(
                            "\(relationship.name)=[\(related.map { "\($0.entity.name):\($0.objectID.key)" }.joined(separator: ","))]"
                        )
                        if relationship.isToMany {
                            if !ChildBounds(relationship).allows(related.count) {
                                report(
                                    "count",
                                    "\(entity.name) \(object.objectID.key): \(relationship.name) holds \(related.count), "
                                        + "outside its bounds (min \(relationship.minCount), max \(relationship.maxCount), "
                                        + "\(relationship.isOptional ? "optional" : "required"))")
                            }
                        } else if related.isEmpty, !relationship.isOptional {
                            report(
                                "count", "\(entity.name) \(object.objectID.key): required \(relationship.name) is nil")
                        }
                        if let inverse = relationship.inverse {
                            for other in related where !Self.related(other, inverse).contains(where: { $0 === object })
                            {
                                report(
                                    "inverse",
                                    "\(entity.name) \(object.objectID.key).\(relationship.name) holds "
                                        + "\(other.entity.name) \(other.objectID.key), whose \(inverse.name) does not hold it back"
                                )
                            }
                        }
                    }
                    for (declaring, attributes) in entity.applicableUniquenessConstraints {
                        let tuple = attributes.map { Self.key(object.value(forKey: $0.name)) }.joined(separator: "|")
                        let name = "\(declaring.name)(\(attributes.map(\.name).joined(separator: ",")))"
                        if !tuples[name, default: []].insert(tuple).inserted {
                            report(
                                "unique", "\(entity.name) \(object.objectID.key): \(name) repeats the values \(tuple)")
                        }
                    }
                    lines.append("\(entity.name) \(object.objectID.key): " + fields.joined(separator: " "))
                }
                context.reset()
            }
            for (kind, count) in reported.sorted(by: { $0.key < $1.key }) where count > 20 {
                problems.append("… and \(count - 20) more problem(s) of kind \(kind)")
            }
            return (counts, problems, lines.joined(separator: "\n"))
        }
    }

    private static func related(_ object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObject] {
        switch object.value(forKey: relationship.name) {
        case let ordered as [ManagedObject]: return ordered
        case let set as Set<ManagedObject>: return set.sorted { $0.objectID.key < $1.objectID.key }
        case let single as ManagedObject: return [single]
        default: return []
        }
    }

    /// A value as text that tells apart every two different values (dates to the nanosecond, data in full), and
    /// gives equal arrays and dictionaries (a transformable attribute's) the same text (keys sorted).
    static func key(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let date as Date: return "date:\(date.timeIntervalSinceReferenceDate)"
        case let data as Data: return "data:\(data.base64EncodedString())"
        case let text as String: return "\"\(text)\""
        case let elements as [Any]: return "[" + elements.map { key($0) }.joined(separator: ",") + "]"
        case let entries as [String: Any]:
            return "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key):\(key($0.value))" }.joined(separator: ",")
                + "}"
        case let entries as [AnyHashable: Any]:
            return "{"
                + entries.map { ("\($0.key)", key($0.value)) }.sorted { $0.0 < $1.0 }.map { "\($0):\($1)" }
                .joined(separator: ",") + "}"
        case let some?: return "\(some)"
        }
    }

    /// What is wrong with a value under the attribute's minimum, maximum and regular expression, nil if nothing.
    static func outOfBounds(_ value: Any, _ attribute: AttributeDescription) -> String? {
        let measured: Double?
        switch value {
        case let text as String: measured = Double(text.count)
        case let data as Data: measured = attribute.type == .transformable ? nil : Double(data.count)
        case let date as Date: measured = date.timeIntervalSinceReferenceDate
        case let number as NSNumber where attribute.type.isNumeric: measured = number.doubleValue
        case let decimal as Decimal: measured = NSDecimalNumber(decimal: decimal).doubleValue
        default: measured = nil
        }
        if let measured, let minimum = attribute.minimumValue, measured < minimum {
            return "is \(measured), below \(minimum)"
        }
        if let measured, let maximum = attribute.maximumValue, measured > maximum {
            return "is \(measured), above \(maximum)"
        }
        if let pattern = attribute.regularExpression, let text = value as? String,
            text.range(of: "^(?:\(pattern))$", options: .regularExpression) == nil
        {
            return "\"\(text)\" does not match \(pattern)"
        }
        return nil
    }
}
