/// What an entity mapping does (Core Data's `NSEntityMappingType`, without the prefix and `Type`).
///
/// Xcode writes every entity mapping of a mapping model as `Undefined`; when one is read, its kind follows from
/// it: `.custom` when it names a migration policy, `.add` when it has no source entity (instances only a policy
/// creates), `.remove` when it has no destination entity, `.copy` otherwise, as the compiled mapping model of
/// alemar11/CoreDataPlus (`V2toV3.cdm`) records them, an entity whose properties changed included.
public enum EntityMappingKind: String, Sendable, Hashable, CaseIterable {
    /// No kind given.
    case undefined
    /// Instances migrate through the named migration policy.
    case custom
    /// A new entity: the destination has instances only a policy creates.
    case add
    /// A removed entity: its instances are not migrated.
    case remove
    /// Instances are copied, their properties set by the property mappings.
    case copy
    /// Instances are transformed into another entity's, their properties set by the property mappings.
    case transform
}
