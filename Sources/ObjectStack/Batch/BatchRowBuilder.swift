import Foundation

/// Turns a batch insert's objects (dictionaries, or objects a handler filled) into rows of store values, refusing
/// any object a store could not hold as given: an unknown key, a relationship, a value of the wrong type, a missing
/// required value. The whole input is checked before the store is touched, so a refusal writes nothing.
/// - Note: Not thread-safe; one request's execution uses it.
struct BatchRowBuilder {
    /// The rows' entity.
    let entity: EntityDescription
    /// Whether to record which attributes each object gave (a merging policy's upsert needs it).
    let tracksGivenKeys: Bool
    /// Whether errors name the batch insert and the object's position (false: the caller words them).
    var describesObjects = true
    private let width: Int
    /// A new row before its object's values: every attribute's default, nil for to-ones.
    private let defaults: [StoreValue]
    /// The attribute at each stored index, nil for a to-one.
    private let attributes: [AttributeDescription?]
    /// The stored index of each attribute a batch insert may set, by name.
    private let slots: [String: Int]
    /// The stored indices of attributes a row must have a value of (not optional, no default, not derived).
    private let required: [Int]
    /// Every row's values, row after row.
    private(set) var values: [StoreValue] = []
    /// For each value of `values`, whether its object gave it (when `tracksGivenKeys`).
    private(set) var given: [Bool] = []
    /// The number of rows built.
    private(set) var count = 0

    /// A builder for rows of `entity`, with room for `capacity` of them.
    init(entity: EntityDescription, tracksGivenKeys: Bool, capacity: Int) {
        self.entity = entity
        self.tracksGivenKeys = tracksGivenKeys
        width = entity.storedProperties.count
        var defaults: [StoreValue] = []
        var attributes: [AttributeDescription?] = []
        var slots: [String: Int] = [:]
        var required: [Int] = []
        for (position, property) in entity.storedProperties.enumerated() {
            guard case .attribute(let attribute) = property else {
                defaults.append(.null)
                attributes.append(nil)
                continue
            }
            // A derived attribute's value is computed from other objects at save; a batch insert has none, so it
            // stays nil (as its default) and cannot be given.
            let derived = attribute.derivationExpression != nil
            defaults.append(derived ? .null : attribute.defaultValue)
            attributes.append(attribute)
            if !derived {
                slots[attribute.name] = position
                if !attribute.isOptional, attribute.defaultValue.isNull { required.append(position) }
            }
        }
        self.defaults = defaults
        self.attributes = attributes
        self.slots = slots
        self.required = required
        values.reserveCapacity(capacity * width)
        if tracksGivenKeys { given.reserveCapacity(capacity * width) }
    }

    /// The rows built so far.
    var rows: StoreBatchRows { StoreBatchRows(entity: entity, values: values) }

    // MARK: - Adding objects

    /// Adds the row of one dictionary of attribute values.
    /// - Throws: `ObjectStackError` naming the object's index and the key at fault.
    mutating func append(_ dictionary: [String: Any]) throws {
        let base = values.count
        values.append(contentsOf: defaults)
        if tracksGivenKeys { given.append(contentsOf: repeatElement(false, count: width)) }
        for (key, value) in dictionary {
            guard let slot = slots[key] else { throw refusal(ofKey: key) }
            values[base + slot] = try convert(value, at: slot, key: key)
            if tracksGivenKeys { given[base + slot] = true }
        }
        try checkRequired(from: base)
        count += 1
    }

    /// Adds the row of an object a managed-object handler filled: the attributes it set, defaults for the others.
    /// - Throws: `ObjectStackError` naming the object's index and the key at fault (a relationship it set).
    mutating func append(_ object: ManagedObject) throws {
        let base = values.count
        values.append(contentsOf: defaults)
        if tracksGivenKeys { given.append(contentsOf: repeatElement(false, count: width)) }
        for (position, property) in entity.storedProperties.enumerated() {
            switch property {
            case .attribute(let attribute):
                guard slots[attribute.name] == position, let value = object.changes[attribute.index] else { continue }
                guard let typed = attribute.type.coerce(value) else {
                    throw failure(
                        .typeMismatch, key: attribute.name,
                        "\(entity.name).\(attribute.name) is a \(attribute.type.rawValue) attribute and cannot hold \(value)"
                    )
                }
                values[base + position] = typed
                if tracksGivenKeys { given[base + position] = true }
            case .toOne(let relationship):
                if object.toOneID(relationship) != nil { throw refusal(ofKey: relationship.name) }
            }
        }
        for relationship in entity.relationships where relationship.isToMany {
            if object.toMany[relationship.index]?.added.isEmpty == false { throw refusal(ofKey: relationship.name) }
        }
        try checkRequired(from: base)
        count += 1
    }

    // MARK: - Checking values

    /// A value for the attribute named `key`, of its type: a batch update's value.
    /// - Throws: `ObjectStackError` naming the key, as for a batch insert's object.
    func convertValue(_ value: Any, forKey key: String) throws -> StoreValue {
        guard let slot = slots[key] else { throw refusal(ofKey: key) }
        return try convert(value, at: slot, key: key)
    }

    /// A value for the attribute at stored index `slot`, of its type.
    @inline(__always)
    private func convert(_ value: Any, at slot: Int, key: String) throws -> StoreValue {
        let attribute = attributes[slot]!
        // The common types first, each one cast: the general conversion tries a dozen types in turn.
        switch attribute.type {
        case .string:
            if let text = value as? String { return .string(text) }
        case .integer64:
            if let number = value as? Int { return .integer(Int64(number)) }
            if let number = value as? Int64 { return .integer(number) }
        case .integer32, .integer16:
            if let number = value as? Int, let range = attribute.type.integerRange, range.contains(Int64(number)) {
                return .integer(Int64(number))
            }
        case .double:
            if let number = value as? Double { return .double(number) }
        case .boolean:
            if let flag = value as? Bool { return .boolean(flag) }
        case .date:
            if let date = value as? Date { return .date(date) }
        default:
            break
        }
        return try convertAny(value, attribute, key: key)
    }

    /// The general conversion, as `setValue(_:forKey:)` converts: every numeric type, Foundation values, optionals
    /// and `NSNull` for nil, transformable values through their transformer.
    private func convertAny(_ value: Any, _ attribute: AttributeDescription, key: String) throws -> StoreValue {
        let unwrapped = Self.unwrap(value)
        if attribute.type == .transformable, let unwrapped, !(unwrapped is NSNull) {
            guard let name = attribute.valueTransformerName,
                let transformer = ValueTransformerRegistry.transformer(named: name)
            else {
                throw failure(
                    .transformerMissing, key: key,
                    "value transformer '\(attribute.valueTransformerName ?? "")' of \(entity.name).\(key) is not registered"
                )
            }
            do {
                return .data(try transformer.transformedValue(unwrapped))
            } catch {
                throw failure(
                    .typeMismatch, key: key,
                    "transformer '\(name)' could not transform the value for \(entity.name).\(key): \(error)")
            }
        }
        guard let converted = attribute.type.storeValue(from: unwrapped) else {
            throw failure(
                .typeMismatch, key: key,
                "\(entity.name).\(key) is a \(attribute.type.rawValue) attribute and cannot hold "
                    + "\(type(of: value)) value \(value)")
        }
        return converted
    }

    /// The value inside an optional held as `Any` (nil for an empty one), or the value itself.
    private static func unwrap(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrappedAny
    }

    private func checkRequired(from base: Int) throws {
        for slot in required where values[base + slot].isNull {
            let name = attributes[slot]!.name
            throw failure(
                .validationFailed, key: name,
                "\(entity.name).\(name) is required and has no default, but the object gives no value for it")
        }
    }

    // MARK: - Errors

    /// Why a key cannot be set by a batch insert.
    private func refusal(ofKey key: String) -> ObjectStackError {
        if entity.relationshipsByName[key] != nil {
            return failure(
                .invalidArgument, key: key,
                "'\(key)' is a relationship of \(entity.name); batch inserts wire no relationships")
        }
        if let attribute = entity.attributesByName[key] {
            let why =
                attribute.isTransient
                ? "a transient attribute, which is never stored"
                : "derived from '\(attribute.derivationExpression ?? "")' at save, which a batch insert does not run"
            return failure(.invalidArgument, key: key, "\(entity.name).\(key) is \(why)")
        }
        return failure(.unknownKey, key: key, "entity \(entity.name) has no attribute named '\(key)'")
    }

    private func failure(_ code: ObjectStackError.Code, key: String, _ message: String) -> ObjectStackError {
        guard describesObjects else {
            var error = ObjectStackError(code: code, message: message)
            error.key = key
            return error
        }
        var error = ObjectStackError(
            code: code,
            message: "batch insert into \(entity.name) refused, nothing written: objects[\(count)]: \(message)")
        error.objectIndex = count
        error.key = key
        return error
    }
}

/// An optional of any wrapped type, so a value held as `Any` can be looked inside.
private protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? {
        switch self {
        case .none: return nil
        case .some(let value): return value
        }
    }
}
