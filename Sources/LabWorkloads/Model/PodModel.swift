import LabCore
import ObjectStack

/// A pod spec as the lab imports it: the entity every workload runs on.
public final class Pod: ManagedObject {
    @Attribute("name") public var name: String
    @Attribute("version") public var version: String
    @Attribute("authors") public var authors: String
    @Attribute("homepage") public var homepage: String?
    @Attribute("license") public var license: String?
    @Attribute("summary") public var summary: String?
    @Attribute("downloads") public var downloads: Int64
    @Attribute("updated") public var updated: Double
}

/// The built-in model of the lab: one `Pod` entity of 8 attributes, unique by name and version, in three
/// versions for startup and migration runs.
///
/// - Version 1: the base (`make()`).
/// - Version 2: adds `stars` (integer 32, default 0): an add-attribute migration from version 1.
/// - Version 3: renames `summary` to `tagline` through its renaming identifier: a rename migration from 2.
public enum PodModel {
    /// Its name in scenario files: `model: builtin:pods`.
    public static let builtinName = "pods"

    /// The versions there are.
    public static let versions = 1...3

    /// Builds version 1.
    public static func make() throws -> ManagedObjectModel {
        try make(version: 1)
    }

    /// Builds one version of the model.
    /// - Throws: `ObjectStackError` for a version outside `versions`.
    public static func make(version: Int) throws -> ManagedObjectModel {
        guard versions.contains(version) else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "the pod model has versions \(versions.lowerBound) to \(versions.upperBound), not \(version)")
        }
        var attributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "version", type: .string, isOptional: false),
            AttributeDescription(name: "authors", type: .string, isOptional: false),
            AttributeDescription(name: "homepage", type: .string),
            AttributeDescription(name: "license", type: .string),
            version >= 3
                ? AttributeDescription(name: "tagline", type: .string, renamingIdentifier: "summary")
                : AttributeDescription(name: "summary", type: .string),
            AttributeDescription(name: "downloads", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "updated", type: .double, defaultValue: 0),
        ]
        if version >= 2 { attributes.append(AttributeDescription(name: "stars", type: .integer32, defaultValue: 0)) }
        let pod = EntityDescription(
            // Version 3 has no `summary`, which `Pod.summary` reads: its objects are plain managed objects.
            name: "Pod", managedObjectClass: version >= 3 ? ManagedObject.self : Pod.self,
            attributes: attributes,
            uniquenessConstraints: [["name", "version"]],
            indexes: [IndexDescription(name: "byName", attributeNames: ["name"])])
        return try ManagedObjectModel(entities: [pod])
    }

    /// Every version up to `version`, oldest first: the source models a migration to `version` may start from.
    public static func models(through version: Int) throws -> [ManagedObjectModel] {
        try (versions.lowerBound...max(versions.lowerBound, version)).map { try make(version: $0) }
    }
}
