import Foundation

/// How the instances of one source entity become instances of a destination entity (Core Data's
/// `NSEntityMapping`).
///
/// For example, a mapping that copies `Post`s through a custom policy:
/// ```swift
/// var posts = EntityMapping(name: "PostToPost", kind: .custom, sourceEntityName: "Post", destinationEntityName: "Post")
/// posts.attributeMappings = [PropertyMapping(name: "postID", valueExpression: try PropertyExpression(format: "$source.postID"))]
/// posts.entityMigrationPolicyClassName = "Post2ToPost3MigrationPolicy"
/// ```
/// The migration manager fetches the source entity's instances (not its sub-entities', which have mappings of
/// their own), those `filterPredicate` matches when it is set, and hands each to the mapping's policy.
public struct EntityMapping: Sendable, Hashable {
    /// The mapping's name, which value expressions and policies use (Xcode names it `SourceToDestination`, or by
    /// the destination alone when there is no source).
    public var name: String
    /// What the mapping does.
    public var kind: EntityMappingKind
    /// The source entity, nil for an entity only the destination has.
    public var sourceEntityName: String?
    /// The destination entity, nil for an entity that is not migrated.
    public var destinationEntityName: String?
    /// Which source instances the mapping applies to; nil for all of them.
    public var filterPredicate: FetchPredicate?
    /// How each destination attribute gets its value.
    public var attributeMappings: [PropertyMapping]
    /// How each destination relationship gets its value.
    public var relationshipMappings: [PropertyMapping]
    /// The class name of the migration policy (Core Data's `entityMigrationPolicyClassName`), nil for the default
    /// one; a Swift policy registered under it (with or without its module) runs the mapping.
    public var entityMigrationPolicyClassName: String?
    /// Whatever the mapping model's author stored with the mapping.
    public var userInfo: [String: String]

    /// Creates an entity mapping.
    public init(
        name: String, kind: EntityMappingKind, sourceEntityName: String?, destinationEntityName: String?,
        filterPredicate: FetchPredicate? = nil, attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [], entityMigrationPolicyClassName: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.filterPredicate = filterPredicate
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.entityMigrationPolicyClassName = entityMigrationPolicyClassName
        self.userInfo = userInfo
    }

    /// The source expression Core Data compiles the mapping to, in NSExpression's format: a fetch of the source
    /// entity's instances that match the filter predicate, in the migration's source context. Nil without a source.
    public var sourceExpression: String? {
        guard let sourceEntityName else { return nil }
        let predicate = filterPredicate?.description ?? "TRUEPREDICATE"
        return "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", "
            + "\(Self.quoted(sourceEntityName)), \(Self.quoted(predicate))), $manager.sourceContext, NO)"
    }

    /// The name Xcode gives a mapping: `SourceToDestination`, or the one entity it names.
    public static func defaultName(source: String?, destination: String?) -> String {
        switch (source, destination) {
        case (let source?, let destination?): return source + "To" + destination
        case (nil, let destination?): return destination
        case (let source?, nil): return source
        case (nil, nil): return "EntityMapping"
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
