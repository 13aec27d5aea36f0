/// Where an attribute's value lives in a managed object: its property index (changes, transient values) and
/// its position in a stored row. A plain value, so a typed read looks it up without retaining the attribute.
struct AttributeSlot: Sendable {
    /// The attribute's `index` among the entity's properties.
    let index: Int
    /// The attribute's position in a stored row; -1 for a transient attribute.
    let storedIndex: Int
    /// The attribute's type, which a typed write converts to.
    let type: AttributeType

    init(_ attribute: AttributeDescription) {
        index = attribute.index
        storedIndex = attribute.isTransient ? -1 : (attribute.storedIndex ?? -1)
        type = attribute.type
    }
}
