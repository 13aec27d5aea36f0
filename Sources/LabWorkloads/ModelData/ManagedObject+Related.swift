import ObjectStack

extension ManagedObject {
    /// The objects `relationship` of this object holds, whichever form `value(forKey:)` gives them in (a to-one's
    /// object, a to-many's set, an ordered to-many's array); call on the object's context's queue.
    func relatedObjects(_ relationship: RelationshipDescription) -> [ManagedObject] {
        switch value(forKey: relationship.name) {
        case let objects as Set<ManagedObject>: return Array(objects)
        case let objects as [ManagedObject]: return objects
        case let one as ManagedObject: return [one]
        default: return []
        }
    }
}
