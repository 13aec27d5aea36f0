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

/// The built-in model of the lab: one `Pod` entity of 8 attributes, unique by name and version.
public enum PodModel {
    /// Builds the model.
    public static func make() throws -> ManagedObjectModel {
        let pod = EntityDescription(
            name: "Pod", managedObjectClass: Pod.self,
            attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "version", type: .string, isOptional: false),
                AttributeDescription(name: "authors", type: .string, isOptional: false),
                AttributeDescription(name: "homepage", type: .string),
                AttributeDescription(name: "license", type: .string),
                AttributeDescription(name: "summary", type: .string),
                AttributeDescription(name: "downloads", type: .integer64, defaultValue: 0),
                AttributeDescription(name: "updated", type: .double, defaultValue: 0),
            ],
            uniquenessConstraints: [["name", "version"]],
            indexes: [IndexDescription(name: "byName", attributeNames: ["name"])])
        return try ManagedObjectModel(entities: [pod])
    }
}
