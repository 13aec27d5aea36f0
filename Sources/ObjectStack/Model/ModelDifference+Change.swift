extension ModelDifference {
    /// One change between two model versions. Entity and property names are the destination's, except for
    /// what was removed (the source's) and the `from:` of a rename.
    public enum Change: Sendable, Hashable, CustomStringConvertible {
        case entityAdded(entity: String)
        case entityRemoved(entity: String)
        case entityRenamed(from: String, to: String)
        /// The entity's parent changed (nil: no parent).
        case entityParentChanged(entity: String, from: String?, to: String?)
        case entityAbstractChanged(entity: String, isAbstract: Bool)
        case attributeAdded(entity: String, attribute: String)
        case attributeRemoved(entity: String, attribute: String)
        case attributeRenamed(entity: String, from: String, to: String)
        case attributeTypeChanged(entity: String, attribute: String, from: AttributeType, to: AttributeType)
        case attributeOptionalityChanged(entity: String, attribute: String, isOptional: Bool)
        /// A stored attribute became transient (its values are dropped) or the reverse (it is filled in).
        case attributeTransienceChanged(entity: String, attribute: String, isTransient: Bool)
        case relationshipAdded(entity: String, relationship: String)
        case relationshipRemoved(entity: String, relationship: String)
        case relationshipRenamed(entity: String, from: String, to: String)
        case relationshipDestinationChanged(entity: String, relationship: String, from: String, to: String)
        case relationshipCardinalityChanged(entity: String, relationship: String, isToMany: Bool)
        case relationshipOrderingChanged(entity: String, relationship: String, isOrdered: Bool)
        case relationshipOptionalityChanged(entity: String, relationship: String, isOptional: Bool)
        /// An index on these attributes (a fetch index, a compound index or an `indexed` attribute).
        case indexAdded(entity: String, attributes: [String])
        case indexRemoved(entity: String, attributes: [String])
        case uniquenessConstraintAdded(entity: String, attributes: [String])
        case uniquenessConstraintRemoved(entity: String, attributes: [String])
        /// Only a version hash modifier changed: the hash differs, the stored shape does not.
        case versionHashModifierChanged(entity: String, property: String?)

        /// The entity the change is about (the destination's name, or the source's when removed).
        public var entityName: String {
            switch self {
            case .entityAdded(let e), .entityRemoved(let e), .entityRenamed(_, let e),
                .entityParentChanged(let e, _, _),
                .entityAbstractChanged(let e, _), .attributeAdded(let e, _), .attributeRemoved(let e, _),
                .attributeRenamed(let e, _, _), .attributeTypeChanged(let e, _, _, _),
                .attributeOptionalityChanged(let e, _, _), .attributeTransienceChanged(let e, _, _),
                .relationshipAdded(let e, _), .relationshipRemoved(let e, _), .relationshipRenamed(let e, _, _),
                .relationshipDestinationChanged(let e, _, _, _), .relationshipCardinalityChanged(let e, _, _),
                .relationshipOrderingChanged(let e, _, _), .relationshipOptionalityChanged(let e, _, _),
                .indexAdded(let e, _), .indexRemoved(let e, _), .uniquenessConstraintAdded(let e, _),
                .uniquenessConstraintRemoved(let e, _), .versionHashModifierChanged(let e, _):
                return e
            }
        }

        /// The change in a sentence, as `stacklab model` prints it.
        public var description: String {
            func list(_ names: [String]) -> String { "(" + names.joined(separator: ", ") + ")" }
            switch self {
            case .entityAdded(let e): return "entity \(e) added"
            case .entityRemoved(let e): return "entity \(e) removed"
            case .entityRenamed(let from, let to): return "entity \(from) renamed to \(to)"
            case .entityParentChanged(let e, let from, let to):
                return "entity \(e): parent \(from ?? "none") -> \(to ?? "none")"
            case .entityAbstractChanged(let e, let isAbstract):
                return "entity \(e) is \(isAbstract ? "now" : "no longer") abstract"
            case .attributeAdded(let e, let a): return "attribute \(e).\(a) added"
            case .attributeRemoved(let e, let a): return "attribute \(e).\(a) removed"
            case .attributeRenamed(let e, let from, let to): return "attribute \(e).\(from) renamed to \(to)"
            case .attributeTypeChanged(let e, let a, let from, let to):
                return "attribute \(e).\(a): type \(from.rawValue) -> \(to.rawValue)"
            case .attributeOptionalityChanged(let e, let a, let isOptional):
                return "attribute \(e).\(a): \(isOptional ? "required -> optional" : "optional -> required")"
            case .attributeTransienceChanged(let e, let a, let isTransient):
                return "attribute \(e).\(a): \(isTransient ? "stored -> transient" : "transient -> stored")"
            case .relationshipAdded(let e, let r): return "relationship \(e).\(r) added"
            case .relationshipRemoved(let e, let r): return "relationship \(e).\(r) removed"
            case .relationshipRenamed(let e, let from, let to): return "relationship \(e).\(from) renamed to \(to)"
            case .relationshipDestinationChanged(let e, let r, let from, let to):
                return "relationship \(e).\(r): destination \(from) -> \(to)"
            case .relationshipCardinalityChanged(let e, let r, let isToMany):
                return "relationship \(e).\(r): \(isToMany ? "to-one -> to-many" : "to-many -> to-one")"
            case .relationshipOrderingChanged(let e, let r, let isOrdered):
                return "relationship \(e).\(r): \(isOrdered ? "unordered -> ordered" : "ordered -> unordered")"
            case .relationshipOptionalityChanged(let e, let r, let isOptional):
                return "relationship \(e).\(r): \(isOptional ? "required -> optional" : "optional -> required")"
            case .indexAdded(let e, let names): return "index on \(e) \(list(names)) added"
            case .indexRemoved(let e, let names): return "index on \(e) \(list(names)) removed"
            case .uniquenessConstraintAdded(let e, let names):
                return "uniqueness constraint on \(e) \(list(names)) added"
            case .uniquenessConstraintRemoved(let e, let names):
                return "uniqueness constraint on \(e) \(list(names)) removed"
            case .versionHashModifierChanged(let e, let p):
                return "version hash modifier of \(p.map { "\(e).\($0)" } ?? "entity \(e)") changed"
            }
        }
    }

    /// A destination entity and the source entity its objects come from, with its properties' sources.
    public struct EntityMapping: Sendable {
        /// The entity in the source model.
        public let source: EntityDescription
        /// The entity in the destination model.
        public let destination: EntityDescription
        /// For each destination property that carries values over (same name, or renamed through its renaming
        /// identifier): the source property's name. Added properties are absent.
        public let sourcePropertyNames: [String: String]
    }
}
