import Foundation
import ObjectStack

extension PodModel {
    // MARK: - A mapping model between versions

    /// A mapping model from version 1 to `version`, built in code: every pod copied attribute by attribute
    /// (`$source.name`…), `summary` becoming `tagline` at version 3, and `stars` computed as the downloads modulo 5.
    /// The migration it runs is the one a Core Data app ships an `.xcmappingmodel` for: the lab's crash test kills
    /// it partway.
    /// - Throws: `ObjectStackError` for a version outside 2...3.
    public static func mappingModel(to version: Int) throws -> MappingModel {
        guard (2...3).contains(version) else {
            throw ObjectStackError(
                code: .invalidArgument, message: "the pod model's mapping models go to version 2 or 3, not \(version)")
        }
        var attributes = try ["name", "version", "authors", "homepage", "license", "downloads", "updated"].map {
            PropertyMapping(name: $0, valueExpression: try PropertyExpression(format: "$source.\($0)"))
        }
        attributes.append(
            PropertyMapping(
                name: version >= 3 ? "tagline" : "summary",
                valueExpression: try PropertyExpression(format: "$source.summary")))
        attributes.append(
            PropertyMapping(
                name: "stars", valueExpression: try PropertyExpression(format: "modulus:by:($source.downloads, 5)")))
        return MappingModel(entityMappings: [
            EntityMapping(
                name: "PodToPod", kind: .copy, sourceEntityName: "Pod", destinationEntityName: "Pod",
                attributeMappings: attributes)
        ])
    }
}
