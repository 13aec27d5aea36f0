import ObjectStack

extension ManagedObject {
    /// Sets a generated value (nil leaves the attribute nil): a store value as it is, a transformable value as the
    /// Foundation value its transformer archives.
    /// - Throws: what `setValue(_:forKey:)` throws (a transformer refusing the value, a type mismatch).
    func setGeneratedValue(_ value: AttributeValueGenerator.Value?, forKey key: String) throws {
        switch value {
        case .store(let stored)?: try setValue(stored, forKey: key)
        case .transformable(let transformable)?: try setValue(transformable.object, forKey: key)
        case nil: try setValue(nil, forKey: key)
        }
    }
}
