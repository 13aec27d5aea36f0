import Foundation

/// A relationship of an entity: its destination, inverse, cardinality and delete rule.
///
/// For example:
/// ```swift
/// let books = RelationshipDescription(
///     name: "books", destination: "Book", inverse: "author", isToMany: true, deleteRule: .cascade)
/// ```
/// - Note: Immutable once its model is built; safe to share between threads.
public final class RelationshipDescription: @unchecked Sendable {
    // What the model's build sets is `@exclusivity(unchecked)`: a built model is immutable, and the runtime's
    // access bookkeeping on every read of these fields showed in profiles of reading objects' values.
    // @unchecked: the resolved references are set once while the model is built, before it is published.

    /// The relationship's name.
    public let name: String
    /// The destination entity's name.
    public let destinationName: String
    /// The inverse relationship's name on the destination, if any.
    public let inverseName: String?
    /// Whether the relationship holds many objects.
    public let isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public let isOrdered: Bool
    /// What deleting the source does to the destination.
    public let deleteRule: DeleteRule
    /// Whether an empty to-one (or an empty to-many with `minCount` 0) is valid.
    public let isOptional: Bool
    /// The fewest objects a to-many may hold at save (0: no minimum).
    public let minCount: Int
    /// The most objects a to-many may hold at save (0: no maximum).
    public let maxCount: Int
    /// Whether the relationship lives only in memory.
    public let isTransient: Bool
    /// The relationship's former name, for migration.
    public let renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public let versionHashModifier: String?
    /// What a model file says about the relationship that changes no behaviour here, kept as written; set by
    /// the model-file reader.
    @exclusivity(unchecked) public internal(set) var modelFileMetadata = ModelFileMetadata()
    /// The relationship's `<userInfo>` entries from its model file.
    public var userInfo: [String: String] { modelFileMetadata.userInfo }

    /// The position of the relationship in its entity's `properties`.
    @exclusivity(unchecked) public internal(set) var index: Int = -1
    /// For a to-one: the position of the referenced object ID in a stored row.
    @exclusivity(unchecked) public internal(set) var storedIndex: Int?
    /// The destination entity, resolved when the model is built.
    @exclusivity(unchecked) public internal(set) var destinationEntity: EntityDescription!
    /// The entity that declares this relationship.
    @exclusivity(unchecked) public internal(set) var entity: EntityDescription!
    /// The inverse relationship, resolved when the model is built.
    @exclusivity(unchecked) public internal(set) var inverse: RelationshipDescription?

    /// Creates a relationship.
    public init(
        name: String,
        destination: String,
        inverse: String? = nil,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        minCount: Int = 0,
        maxCount: Int = 0,
        isTransient: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil
    ) {
        self.name = name
        self.destinationName = destination
        self.inverseName = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.isTransient = isTransient
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
    }

    /// How a store keeps the relationship.
    ///
    /// A to-one is a reference in the source row; a to-many whose inverse is a to-one is read through
    /// that inverse; any other to-many (many-to-many, or no inverse) is kept as links in a join table.
    public var storage: RelationshipStorage {
        if !isToMany { return .foreignKey }
        if let inverse, !inverse.isToMany { return .inverseForeignKey }
        return .joinTable
    }

    /// For join-table relationships: the relationship whose name keys the links (the same for both sides).
    public var joinTableOwner: RelationshipDescription {
        guard let inverse else { return self }
        let mine = "\(entity.rootEntity.name).\(name)"
        let theirs = "\(inverse.entity.rootEntity.name).\(inverse.name)"
        return mine <= theirs ? self : inverse
    }

    /// The name stores key the relationship by: "DeclaringEntity.name".
    public var storageKey: String { "\(entity.name).\(name)" }

    var versionHashText: String {
        "R:\(name):\(destinationName):\(isToMany):\(isOrdered):\(isOptional):\(isTransient):\(versionHashModifier ?? "")"
    }
}

/// Where a store keeps a relationship; see `RelationshipDescription.storage`.
public enum RelationshipStorage: Sendable, Hashable {
    case foreignKey
    case inverseForeignKey
    case joinTable
}
