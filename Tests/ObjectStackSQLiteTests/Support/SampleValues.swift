import Foundation
import ObjectStack

/// Values a generic object of any model can be given: every required attribute a value of its type within its
/// bounds, every required to-one an existing object; what a real app's rules need beyond that is left to fail.
enum SampleValues {
    nonisolated(unsafe) private static var serial = 0

    /// A value of an attribute's type, different for each serial.
    static func value(for attribute: AttributeDescription, serial: Int) -> Any? {
        let low = attribute.minimumValue ?? 0
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            // Distinct for each serial (a uniqueness constraint), within the attribute's bounds.
            let value = Int(low) + 100 + serial
            return attribute.maximumValue.map { min(value, Int($0)) } ?? value
        case .double, .float: return low + Double(serial % 7) + 0.5
        case .decimal: return Decimal(string: "\(Int(low) + serial % 7).25")
        case .boolean: return serial % 2 == 0
        case .string:
            let text = "s\(serial)-\(UUID().uuidString.prefix(8))"
            if let maximum = attribute.maximumValue, Double(text.count) > maximum {
                return String(text.prefix(Int(maximum)))
            }
            return text
        case .date: return Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(serial))
        case .binaryData: return Data([1, 2, 3, UInt8(serial % 256)])
        case .uuid: return UUID()
        case .uri: return URL(string: "https://example.org/\(serial)")
        case .transformable: return nil
        }
    }

    /// Whether a test may write a new value into the attribute (stored, not derived, not transformable).
    static func canUpdate(_ attribute: AttributeDescription) -> Bool {
        !attribute.isTransient && attribute.derivationExpression == nil && attribute.type != .transformable
            && attribute.regularExpression == nil
    }

    /// Gives an inserted object every required attribute and to-one.
    static func fill(_ object: ManagedObject, in context: ManagedObjectContext) throws {
        serial += 1
        for attribute in object.entity.attributes where !attribute.isOptional && canUpdate(attribute) {
            try object.setValue(value(for: attribute, serial: serial), forKey: attribute.name)
        }
        for relationship in object.entity.relationships where !relationship.isToMany && !relationship.isOptional {
            var request = FetchRequest<ManagedObject>(entityName: relationship.destinationEntity.name)
            request.fetchLimit = 1
            if let target = try context.fetch(request).first(where: { $0 !== object }) {
                try object.setValue(target, forKey: relationship.name)
            }
        }
    }
}
