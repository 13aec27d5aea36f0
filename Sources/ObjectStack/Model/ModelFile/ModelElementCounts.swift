/// How many of each element a model version's XML declares, counted as the shared models README counts
/// them: properties a sub-entity inherits are not counted again, and only `<fetchRequest>` templates that
/// are direct children of `<model>` count as fetch requests.
public struct ModelElementCounts: Sendable, Hashable, Codable {
    /// `<entity>` elements.
    public var entities = 0
    /// `<attribute>` elements.
    public var attributes = 0
    /// `<relationship>` elements.
    public var relationships = 0
    /// `<fetchedProperty>` elements.
    public var fetchedProperties = 0
    /// `<fetchIndex>` elements (legacy `compoundIndexes` and `indexed="YES"` are not counted).
    public var fetchIndexes = 0
    /// `<uniquenessConstraint>` elements: one per constraint, which may name several attributes.
    public var uniquenessConstraints = 0
    /// `<configuration>` elements.
    public var configurations = 0
    /// Fetch request templates: `<fetchRequest>` elements directly under `<model>`.
    public var fetchRequests = 0
    /// Entities with `isAbstract="YES"`.
    public var abstractEntities = 0
    /// Entities with a `parentEntity`.
    public var subentities = 0

    /// Creates counts (all zero unless given).
    public init(
        entities: Int = 0, attributes: Int = 0, relationships: Int = 0, fetchedProperties: Int = 0,
        fetchIndexes: Int = 0, uniquenessConstraints: Int = 0, configurations: Int = 0, fetchRequests: Int = 0,
        abstractEntities: Int = 0, subentities: Int = 0
    ) {
        self.entities = entities
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        self.fetchIndexes = fetchIndexes
        self.uniquenessConstraints = uniquenessConstraints
        self.configurations = configurations
        self.fetchRequests = fetchRequests
        self.abstractEntities = abstractEntities
        self.subentities = subentities
    }
}
