import Foundation

/// Turns the value of a transformable attribute into data for the store, and back.
///
/// For example:
/// ```swift
/// struct TagsTransformer: AttributeValueTransformer {
///     func transformedValue(_ value: Any) throws -> Data { try JSONEncoder().encode(value as! [String]) }
///     func reverseTransformedValue(_ data: Data) throws -> Any { try JSONDecoder().decode([String].self, from: data) }
/// }
/// ValueTransformerRegistry.register(TagsTransformer(), forName: "TagsTransformer")
/// ```
public protocol AttributeValueTransformer: Sendable {
    /// The data stored for a value.
    func transformedValue(_ value: Any) throws -> Data
    /// The value stored data stands for.
    func reverseTransformedValue(_ data: Data) throws -> Any
}

/// The process-wide table of value transformers, by the name a transformable attribute gives.
///
/// Foundation's `ValueTransformer` does not exist on Linux; this plays its part for transformable attributes.
/// Core Data's own keyed-archive transformers (`NSKeyedUnarchiveFromData`, `NSSecureUnarchiveFromData`, the
/// default of an attribute that names none) are there without registering: `KeyedArchiveValueTransformer`, so a
/// store Core Data wrote reads and stays readable. A transformer registered under one of their names replaces it.
/// - Note: Thread-safe.
public enum ValueTransformerRegistry {
    private static let transformers = LockedValue<[String: any AttributeValueTransformer]>([:])

    /// Registers (or replaces) the transformer for `name`.
    public static func register(_ transformer: any AttributeValueTransformer, forName name: String) {
        transformers.withLock { $0[name] = transformer }
    }

    /// The transformer registered for `name`, or Core Data's keyed-archive transformer for one of its names; nil
    /// otherwise.
    public static func transformer(named name: String) -> (any AttributeValueTransformer)? {
        transformers.withLock({ $0[name] }) ?? builtInTransformer(named: name)
    }

    /// Core Data's keyed-archive transformer for one of its names (`KeyedArchiveValueTransformer.names`), whatever
    /// is registered; nil for any other name.
    public static func builtInTransformer(named name: String) -> (any AttributeValueTransformer)? {
        KeyedArchiveValueTransformer.names.contains(name) ? KeyedArchiveValueTransformer() : nil
    }

    /// Whether a transformer was registered for `name` (Core Data's built-in names count only once registered).
    public static func isRegistered(_ name: String) -> Bool {
        transformers.withLock { $0[name] != nil }
    }
}
