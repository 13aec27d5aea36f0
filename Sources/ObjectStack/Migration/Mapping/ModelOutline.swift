import Foundation

/// The names of a model's entities and properties and how the entities connect: what a mapping model records of the
/// two model versions it maps between, to be matched against the versions of a bundle.
///
/// For example:
/// ```swift
/// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Moody 2-Moody 3.xcmappingmodel"))
/// let version = try ManagedObjectModel.versions(contentsOf: bundle).first { $0.name == "Moody 2" }!
/// mapping.sourceOutline.difference(from: ModelOutline(model: version.model))   // nil: the names agree
/// ```
/// Xcode keeps a copy of both models in a mapping model (`xcmapping.xml`), in its own editing form; an outline is
/// what that copy says of names, which is what a mapping model's expressions refer to. Types, optionality and
/// validation are not compared: Core Data compares entity version hashes, which a mapping model's source file does
/// not hold.
/// - Note: Immutable; safe to share between threads.
public struct ModelOutline: Sendable, Hashable, CustomStringConvertible {
    /// One entity: its name, parent and the properties it declares.
    public struct Entity: Sendable, Hashable {
        /// The entity's name.
        public let name: String
        /// The parent entity's name, nil for a root.
        public let parentName: String?
        /// Whether the entity is abstract.
        public let isAbstract: Bool
        /// The attributes the entity declares (not the inherited ones), sorted.
        public let attributeNames: [String]
        /// The relationships the entity declares (not the inherited ones), sorted by name.
        public let relationships: [Relationship]

        /// Creates an entity outline.
        public init(
            name: String, parentName: String?, isAbstract: Bool, attributeNames: [String],
            relationships: [Relationship]
        ) {
            self.name = name
            self.parentName = parentName
            self.isAbstract = isAbstract
            self.attributeNames = attributeNames.sorted()
            self.relationships = relationships.sorted { $0.name < $1.name }
        }
    }

    /// One relationship: its name, destination entity and whether it is to-many.
    public struct Relationship: Sendable, Hashable {
        /// The relationship's name.
        public let name: String
        /// The destination entity's name.
        public let destinationName: String
        /// Whether the relationship is to-many.
        public let isToMany: Bool

        /// Creates a relationship outline.
        public init(name: String, destinationName: String, isToMany: Bool) {
            self.name = name
            self.destinationName = destinationName
            self.isToMany = isToMany
        }
    }

    /// The entities, sorted by name.
    public let entities: [Entity]

    /// An outline of `entities`.
    public init(entities: [Entity]) {
        self.entities = entities.sorted { $0.name < $1.name }
    }

    /// The outline of a model.
    public init(model: ManagedObjectModel) {
        self.init(
            entities: model.entities.map { entity in
                Entity(
                    name: entity.name, parentName: entity.parentName, isAbstract: entity.isAbstract,
                    attributeNames: entity.declaredAttributes.map(\.name),
                    relationships: entity.declaredRelationships.map {
                        Relationship(name: $0.name, destinationName: $0.destinationName, isToMany: $0.isToMany)
                    })
            })
    }

    /// The entity named `name`.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// The entity and its ancestors, nearest first (a cycle stops the walk).
    private func lineage(of name: String) -> [Entity] {
        var chain: [Entity] = []
        var next: String? = name
        while let current = next, let entity = entity(named: current), !chain.contains(entity) {
            chain.append(entity)
            next = entity.parentName
        }
        return chain
    }

    /// Every attribute of the entity, inherited ones included, sorted.
    public func attributeNames(of entityName: String) -> [String] {
        lineage(of: entityName).flatMap(\.attributeNames).sorted()
    }

    /// Every relationship of the entity, inherited ones included, sorted by name.
    public func relationships(of entityName: String) -> [Relationship] {
        lineage(of: entityName).flatMap(\.relationships).sorted { $0.name < $1.name }
    }

    /// The entity's relationship named `name`, inherited or declared.
    public func relationship(_ name: String, of entityName: String) -> Relationship? {
        relationships(of: entityName).first { $0.name == name }
    }

    /// The names of the entities below `entityName` in its hierarchy, at any depth.
    public func subentityNames(of entityName: String) -> [String] {
        entities.filter { $0.name != entityName && lineage(of: $0.name).contains { $0.name == entityName } }
            .map(\.name)
    }

    /// The first way the two outlines' names differ, in words (`entity Mood: attribute rating is only in this
    /// one`), nil when they name the same entities with the same properties.
    public func difference(from other: ModelOutline) -> String? {
        difference(from: other, this: "this one", other: "the other")
    }

    /// `difference(from:)` with each side named as given (`the mapping model's copy`, `Moody 2`).
    func difference(from other: ModelOutline, this: String, other otherName: String) -> String? {
        let mine = Set(entities.map(\.name))
        let theirs = Set(other.entities.map(\.name))
        if let name = mine.subtracting(theirs).sorted().first { return "entity \(name) is only in \(this)" }
        if let name = theirs.subtracting(mine).sorted().first { return "entity \(name) is only in \(otherName)" }
        for name in mine.sorted() {
            let attributes = (Set(attributeNames(of: name)), Set(other.attributeNames(of: name)))
            if let extra = attributes.0.subtracting(attributes.1).sorted().first {
                return "entity \(name): attribute \(extra) is only in \(this)"
            }
            if let extra = attributes.1.subtracting(attributes.0).sorted().first {
                return "entity \(name): attribute \(extra) is only in \(otherName)"
            }
            let relationships = (
                Set(relationships(of: name).map(\.name)), Set(other.relationships(of: name).map(\.name))
            )
            if let extra = relationships.0.subtracting(relationships.1).sorted().first {
                return "entity \(name): relationship \(extra) is only in \(this)"
            }
            if let extra = relationships.1.subtracting(relationships.0).sorted().first {
                return "entity \(name): relationship \(extra) is only in \(otherName)"
            }
        }
        return nil
    }

    /// One line per entity: `Name(parent): attributes; relationships`.
    public var description: String {
        entities.map { entity in
            let parent = entity.parentName.map { "(\($0))" } ?? ""
            let relationships = entity.relationships.map { "\($0.name)→\($0.destinationName)\($0.isToMany ? "*" : "")" }
            return "\(entity.name)\(parent): \(entity.attributeNames.joined(separator: ", ")); "
                + relationships.joined(separator: ", ")
        }.joined(separator: "\n")
    }
}
