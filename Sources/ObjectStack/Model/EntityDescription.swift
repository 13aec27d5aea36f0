import Foundation

/// An entity: a kind of managed object, with its attributes, relationships, constraints and indexes.
///
/// For example:
/// ```swift
/// let author = EntityDescription(
///     name: "Author",
///     managedObjectClass: Author.self,
///     attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
///     relationships: [RelationshipDescription(name: "books", destination: "Book", inverse: "author", isToMany: true)],
///     uniquenessConstraints: [["name"]])
/// ```
/// A sub-entity names its parent with `parent:`; it inherits the parent's properties, which come first in
/// `properties`, so a property has the same index in every entity of a hierarchy.
/// - Note: Immutable once its model is built; safe to share between threads.
public final class EntityDescription: @unchecked Sendable {
    // What the model's build sets is `@exclusivity(unchecked)`: a built model is immutable, and the runtime's
    // access bookkeeping on every read of these fields showed in profiles of reading objects' values.
    // @unchecked: the resolved members below are set once in `ManagedObjectModel.init`, before the
    // model is published; after that nothing mutates.

    /// The entity's name.
    public let name: String
    /// The class instantiated for objects of this entity.
    public let managedObjectClass: ManagedObject.Type
    /// Whether the entity has no instances of its own (only of its sub-entities).
    public let isAbstract: Bool
    /// The parent entity's name, for a sub-entity.
    public let parentName: String?
    /// The attributes declared by this entity (not the inherited ones).
    public let declaredAttributes: [AttributeDescription]
    /// The relationships declared by this entity (not the inherited ones).
    public let declaredRelationships: [RelationshipDescription]
    /// Sets of attribute names whose values must be unique among the entity's objects.
    public let uniquenessConstraints: [[String]]
    /// Compound indexes declared on the entity.
    public let indexes: [IndexDescription]
    /// The entity's former name, for migration.
    public let renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public let versionHashModifier: String?
    /// Fetched properties: named fetches of another entity, declared in a model file.
    public let fetchedProperties: [FetchedPropertyDescription]
    /// The composite attributes the entity declares; their elements are stored as attributes of their own, named
    /// by key path (`location.x`), among `declaredAttributes`.
    public let compositeAttributes: [CompositeAttributeDescription]
    /// Every composite attribute, inherited ones too, by name.
    @exclusivity(unchecked) public internal(set) var compositeAttributesByName:
        [String: CompositeAttributeDescription] =
            [:]
    /// Core Data's `coreSpotlightDisplayNameExpression`: the expression a model file gives for the name Core
    /// Spotlight shows for an object (its format), kept as written.
    public var coreSpotlightDisplayNameExpression: String? {
        modelFileMetadata.attributes["coreSpotlightDisplayNameExpression"]
    }
    /// The class name a model file gives (`representedClassName`), recorded for display: Swift cannot look
    /// a class up by name, so `managedObjectClass` decides what is instantiated.
    public let representedClassName: String?
    /// What a model file says about the entity that changes no behaviour here (user info, code generation,
    /// sync flag), kept as written; set by the model-file reader.
    @exclusivity(unchecked) public internal(set) var modelFileMetadata = ModelFileMetadata()
    /// The entity's `<userInfo>` entries from its model file.
    public var userInfo: [String: String] { modelFileMetadata.userInfo }

    /// The parent entity, for a sub-entity.
    @exclusivity(unchecked) public internal(set) var superentity: EntityDescription?
    /// The direct sub-entities.
    @exclusivity(unchecked) public internal(set) var subentities: [EntityDescription] = []
    /// Every attribute, inherited ones first.
    @exclusivity(unchecked) public internal(set) var attributes: [AttributeDescription] = []
    /// Every relationship, inherited ones first.
    @exclusivity(unchecked) public internal(set) var relationships: [RelationshipDescription] = []
    /// Attributes by name, inherited ones included.
    @exclusivity(unchecked) public internal(set) var attributesByName: [String: AttributeDescription] = [:]
    /// Every attribute's name bits with where its value lives, for `@Attribute`'s reads and
    /// `attribute(forKey:)`.
    @exclusivity(unchecked) var attributeSlots: [(bits: NameBits, slot: AttributeSlot)] = []
    /// Slots of typed properties by the address of their names, filled as they are first read.
    let typedSlots = TypedSlotCache()
    /// The attributes a save requires a value of: stored and not optional. Worked out once, like the lists
    /// below, so a save of many objects does not test every attribute of every object.
    @exclusivity(unchecked) var requiredAttributes: [AttributeDescription] = []
    /// The attributes with a minimum, maximum or regular expression a save validates.
    @exclusivity(unchecked) var constrainedAttributes: [AttributeDescription] = []
    /// The derived attributes a save computes.
    @exclusivity(unchecked) var derivedAttributes: [AttributeDescription] = []
    /// The attributes an inserted object starts with a default value of (not derived, default not null).
    @exclusivity(unchecked) var defaultedAttributes: [AttributeDescription] = []
    /// Relationships by name, inherited ones included.
    @exclusivity(unchecked) public internal(set) var relationshipsByName: [String: RelationshipDescription] = [:]
    /// Every property by `index`: the parent's first, then the declared attributes and relationships.
    @exclusivity(unchecked) public internal(set) var properties: [Property] = []
    /// The properties a stored row holds, by `storedIndex`: stored attributes and to-one relationships.
    @exclusivity(unchecked) public internal(set) var storedProperties: [StoredProperty] = []
    /// A hash of everything that decides the entity's stored shape; stores compare it to detect migration.
    @exclusivity(unchecked) public internal(set) var versionHash = ""
    /// A hash of what Core Data's version hash covers — the entity's name, abstractness, parent, properties
    /// (name, optionality, transience, type; a relationship's destination, inverse and counts), uniqueness
    /// constraints and version hash modifiers — but not its indexes: whether a store another framework wrote (Core
    /// Data) holds this entity is decided on it, as Core Data decides (`StoreMetadata.structuralVersionHashes`).
    @exclusivity(unchecked) public internal(set) var structuralVersionHash = ""
    /// Unique constraints and inherited ones, resolved to attributes.
    @exclusivity(unchecked) public internal(set) var resolvedUniquenessConstraints: [[AttributeDescription]] = []
    /// The uniqueness constraints that apply to the entity — its own first, then its ancestors' — each with the
    /// entity that declares it (a clash is looked for among that entity's rows).
    @exclusivity(unchecked) public internal(set) var applicableUniquenessConstraints:
        [(declaring: EntityDescription, attributes: [AttributeDescription])] = []
    /// The stored indices of each applicable uniqueness constraint's attributes, in the order of
    /// `applicableUniquenessConstraints`: a save reads a row's constrained values by them, and working them out
    /// per row and save was measurable in saves of 100,000 rows.
    @exclusivity(unchecked) public internal(set) var applicableUniquenessStoredIndices: [[Int]] = []
    /// The hash of `name`, computed once: object IDs hash by entity name (equal across models), and
    /// hashing the string for every ID is measurable.
    let nameHash: Int
    /// The name's number (`EntityNameNumbers`), which tables keyed by object ID compare.
    let nameNumber: UInt32

    /// The entity's position in its model's `entities`.
    public internal(set) var modelIndex: Int {
        get { modelIndexStorage }
        set { modelIndexStorage = newValue }
    }
    // Behind an accessor: the stores, in other modules, read the index on every row, and a read of the stored
    // property from another module paid the runtime's exclusivity check, which `@exclusivity(unchecked)` turns off
    // only inside this one.
    @exclusivity(unchecked) private var modelIndexStorage = -1

    /// Creates an entity description.
    public convenience init(
        name: String,
        managedObjectClass: ManagedObject.Type = ManagedObject.self,
        parent: String? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [],
        indexes: [IndexDescription] = [],
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        fetchedProperties: [FetchedPropertyDescription] = [],
        representedClassName: String? = nil
    ) {
        self.init(
            name: name, managedObjectClass: managedObjectClass, parent: parent, isAbstract: isAbstract,
            attributes: attributes, compositeAttributes: [], relationships: relationships,
            uniquenessConstraints: uniquenessConstraints, indexes: indexes, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier, fetchedProperties: fetchedProperties,
            representedClassName: representedClassName)
    }

    /// Creates an entity description with composite attributes, whose elements become attributes of their own
    /// (`location.x`) after the entity's `attributes`.
    public init(
        name: String,
        managedObjectClass: ManagedObject.Type = ManagedObject.self,
        parent: String? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription] = [],
        compositeAttributes: [CompositeAttributeDescription],
        relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [],
        indexes: [IndexDescription] = [],
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        fetchedProperties: [FetchedPropertyDescription] = [],
        representedClassName: String? = nil
    ) {
        self.name = name
        self.nameHash = name.hashValue
        self.nameNumber = EntityNameNumbers.number(for: name)
        self.managedObjectClass = managedObjectClass
        self.parentName = parent
        self.isAbstract = isAbstract
        self.declaredAttributes = attributes + compositeAttributes.flatMap { $0.storageAttributes() }
        self.compositeAttributes = compositeAttributes
        self.declaredRelationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.fetchedProperties = fetchedProperties
        self.representedClassName = representedClassName
    }

    /// The top of the entity's inheritance hierarchy (itself when it has no parent).
    public var rootEntity: EntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// Whether `self` is `entity` or one of its descendants.
    public func isKind(of entity: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The entity and all its descendants, parents before children.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// The attribute a typed property names, found without hashing the name when the property's key is
    /// stored like the model's name (a short literal key is its own bytes): `@Attribute` reads look the
    /// attribute up on every read, and hashing the key was a tenth of reading a fetched object.
    @inline(__always)
    func attribute(forKey key: String) -> AttributeDescription? {
        let bits = NameBits(key)
        for entry in attributeSlots where entry.bits == bits {
            if case .attribute(let attribute) = properties[entry.slot.index] { return attribute }
        }
        return attributesByName[key]
    }

    /// Where the value of the attribute named `key` lives, found without touching its description (a retain
    /// and release per `@Attribute` read).
    func attributeSlot(forKey key: String) -> AttributeSlot? {
        let bits = NameBits(key)
        for entry in attributeSlots where entry.bits == bits { return entry.slot }
        return attributesByName[key].map(AttributeSlot.init)
    }

    /// Where the value of the attribute a typed property names lives: a word compared per typed property of the
    /// entity, once the name has been met (the first read looks it up by its string).
    @inline(__always)
    func attributeSlot(for name: AttributeName) -> AttributeSlot? {
        if let slot = typedSlots.slot(for: name) { return slot }
        guard let slot = attributeSlot(forKey: name.string) else { return nil }
        typedSlots.add(name, slot)
        return slot
    }

    /// The attribute or relationship with the given name.
    public func property(named name: String) -> Property? {
        if let attribute = attributesByName[name] { return .attribute(attribute) }
        if let relationship = relationshipsByName[name] { return .relationship(relationship) }
        return nil
    }

    /// The number of properties.
    public var propertyCount: Int { properties.count }

    /// The position in a stored row of the property at `index`, nil for transient and to-many properties.
    public func storedIndex(ofProperty index: Int) -> Int? {
        switch properties[index] {
        case .attribute(let attribute): return attribute.storedIndex
        case .relationship(let relationship): return relationship.storedIndex
        }
    }
}

/// An attribute or a relationship of an entity.
public enum Property: Sendable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .relationship(let r): return r.name
        }
    }

    /// The property's index in its entity's properties.
    public var index: Int {
        switch self {
        case .attribute(let a): return a.index
        case .relationship(let r): return r.index
        }
    }
}

/// A property held in a stored row: a stored attribute or a to-one relationship.
public enum StoredProperty: Sendable {
    case attribute(AttributeDescription)
    case toOne(RelationshipDescription)

    /// The property's index in its entity's properties.
    public var index: Int {
        switch self {
        case .attribute(let a): return a.index
        case .toOne(let r): return r.index
        }
    }

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .toOne(let r): return r.name
        }
    }
}

/// An index over one or more attributes of an entity, for stores that can use it.
public struct IndexDescription: Sendable, Hashable {
    /// The index's name.
    public let name: String
    /// The indexed attributes, in order.
    public let attributeNames: [String]

    /// Creates an index description.
    public init(name: String, attributeNames: [String]) {
        self.name = name
        self.attributeNames = attributeNames
    }
}
