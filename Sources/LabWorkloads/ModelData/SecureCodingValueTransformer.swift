import Foundation
import ObjectStack

/// The generator's stand-in for Core Data's secure-coding transformer (`NSSecureUnarchiveFromData`, the default of
/// a transformable attribute since iOS 12) and for the transformers a model file names that the program has not
/// registered: it takes what that transformer allows — arrays, dictionaries (by string), strings, numbers,
/// booleans, dates and data, nested as deep as they like — and refuses anything else with an error, never a crash.
///
/// It stores a binary property list, the format keyed archives are built on: `NSKeyedArchiver` itself costs ten
/// times as much in Linux's Foundation (about 1 ms a value) and traps on a value that does not adopt secure coding,
/// so the lab would measure Foundation, not the stack. For example:
/// ```swift
/// SecureCodingValueTransformer.registerMissing(for: model)   // NSSecureUnarchiveFromData, ColorsTransformer…
/// try mood.setValue(["amber", "birch"], forKey: "colors")
/// ```
/// A model file names transformer classes of its app (`ColorsTransformer`, `WMFSecureUnarchiveFromDataTransformer`…)
/// that do not exist here, and most of them are `NSSecureUnarchiveFromDataTransformer` subclasses;
/// `registerMissing(for:)` fills in only names nobody registered, so a program's own transformer is used when
/// there is one.
public struct SecureCodingValueTransformer: AttributeValueTransformer {
    /// Creates the transformer.
    public init() {}

    /// The value as a binary property list.
    /// - Throws: `LabError.unsupported` for a value that is not a property list, naming its type.
    public func transformedValue(_ value: Any) throws -> Data {
        guard let list = Self.propertyList(value) else {
            throw LabError(
                .unsupported,
                "the secure-coding transformer takes arrays, dictionaries, strings, numbers, dates and data, not "
                    + "\(type(of: value))")
        }
        return try PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0)
    }

    /// The value a binary property list holds.
    /// - Throws: what `PropertyListSerialization` throws for data that is not a property list.
    public func reverseTransformedValue(_ data: Data) throws -> Any {
        try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    /// Registers this transformer under every transformer name of the model's stored transformable attributes
    /// that has none registered (the default `NSKeyedUnarchiveFromData` of an attribute that names none included,
    /// although ObjectStack reads Core Data's keyed archives under it: the lab's generated values skip the cost of
    /// Linux's `NSKeyedArchiver`); returns the names it registered.
    @discardableResult
    public static func registerMissing(for model: ManagedObjectModel) -> [String] {
        var registered: [String] = []
        for entity in model.entities {
            for attribute in entity.declaredAttributes where attribute.type == .transformable && !attribute.isTransient
            {
                guard let name = attribute.valueTransformerName, !ValueTransformerRegistry.isRegistered(name) else {
                    continue
                }
                ValueTransformerRegistry.register(SecureCodingValueTransformer(), forName: name)
                registered.append(name)
            }
        }
        return registered
    }

    /// `value` as a property list `PropertyListSerialization` writes, nil when some part of it is not one.
    static func propertyList(_ value: Any) -> Any? {
        switch value {
        case let text as String: return text
        case let flag as Bool: return flag
        case let number as Int: return number
        case let number as Int64: return number
        case let number as Int32: return Int64(number)
        case let number as Int16: return Int64(number)
        case let number as Double: return number
        case let number as Float: return Double(number)
        case let number as NSNumber: return number
        case let date as Date: return date
        case let data as Data: return data
        case let elements as [Any]:
            var list: [Any] = []
            list.reserveCapacity(elements.count)
            for element in elements {
                guard let item = propertyList(element) else { return nil }
                list.append(item)
            }
            return list
        case let entries as [String: Any]:
            var list: [String: Any] = [:]
            for (key, element) in entries {
                guard let item = propertyList(element) else { return nil }
                list[key] = item
            }
            return list
        case let entries as [AnyHashable: Any]:
            var list: [String: Any] = [:]
            for (key, element) in entries {
                guard let key = key.base as? String, let item = propertyList(element) else { return nil }
                list[key] = item
            }
            return list
        default:
            return nil
        }
    }
}
