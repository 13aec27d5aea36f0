import Foundation

extension ManagedObject {
    // MARK: - Composite attributes

    /// A composite attribute's value: its elements by name (a nested composite as a dictionary of its own), nil
    /// when no element has a value.
    func compositeValue(_ composite: CompositeAttributeDescription, prefix: String = "") -> [String: Any]? {
        let path = prefix + composite.name
        var value: [String: Any] = [:]
        for element in composite.elements {
            guard let attribute = entity.attributesByName[path + "." + element.name] else { continue }
            if let item = self.value(forKey: attribute.name) { value[element.name] = item }
        }
        for inner in composite.composites {
            if let nested = compositeValue(inner, prefix: path + ".") { value[inner.name] = nested }
        }
        return value.isEmpty ? nil : value
    }

    /// Sets a composite attribute's elements from a dictionary (nil, or `NSNull`, clears them all); an element the
    /// dictionary leaves out is cleared.
    /// - Throws: `ObjectStackError` `.unknownKey` for a key the composite has no element for, `.typeMismatch` for a
    ///   value that is not a dictionary or an element value of the wrong type, naming the element.
    func setCompositeValue(_ value: Any?, _ composite: CompositeAttributeDescription, prefix: String = "") throws {
        let path = prefix + composite.name
        var entries: [String: Any] = [:]
        switch value {
        case nil, is NSNull: break
        case let dictionary as [String: Any]: entries = dictionary
        case let dictionary as NSDictionary:
            for (key, item) in dictionary { if let key = key as? String { entries[key] = item } }
        default:
            throw ObjectStackError.typeMismatch(
                "\(entity.name).\(path) is a composite attribute: its value is a dictionary of its elements, not "
                    + "\(Swift.type(of: value!))")
        }
        let known = Set(composite.elements.map(\.name) + composite.composites.map(\.name))
        if let unknown = entries.keys.sorted().first(where: { !known.contains($0) }) {
            throw ObjectStackError(
                code: .unknownKey,
                message: "composite \(entity.name).\(path) has no element '\(unknown)' (elements: "
                    + known.sorted().joined(separator: ", ") + ")")
        }
        for element in composite.elements {
            let item = entries[element.name]
            try setValue(item is NSNull ? nil : item, forKey: path + "." + element.name)
        }
        for inner in composite.composites { try setCompositeValue(entries[inner.name], inner, prefix: path + ".") }
    }

    /// Why the object's composite attributes fail validation, one message per element: a required composite
    /// without a value, a required element missing from a composite that has one.
    func compositeFailures() -> [(key: String, message: String)] {
        var failures: [(key: String, message: String)] = []
        for composite in entity.compositeAttributesByName.values.sorted(by: { $0.name < $1.name })
        where !composite.isTransient {
            let stored = entity.attributes.filter { $0.compositeElement?.composite == composite.name }
            let hasValue = stored.contains { !attributeIsNull($0) }
            guard hasValue || !composite.isOptional else { continue }
            if !hasValue {
                failures.append((composite.name, "\(entity.name).\(composite.name) is required but has no value"))
                continue
            }
            for attribute in stored where attribute.compositeElement?.isRequired == true && attributeIsNull(attribute) {
                failures.append(
                    (
                        attribute.name,
                        "\(entity.name).\(attribute.name) is a required element of composite \(composite.name) but has "
                            + "no value"
                    ))
            }
        }
        return failures
    }
}
