import Foundation

extension MappingModel {
    /// Reads an Xcode mapping model: an `.xcmappingmodel` bundle, or its `xcmapping.xml`.
    ///
    /// For example:
    /// ```swift
    /// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Migration2to3.xcmappingmodel"))
    /// for entityMapping in mapping.entityMappings { print(entityMapping.name, entityMapping.kind) }
    /// ```
    /// - Throws: `ObjectStackError(.invalidMappingModel)` naming the file (and line), the mapping and the property
    ///   at fault: a file that is not a mapping model, an archived model or expression that does not read, a
    ///   mapping naming an entity or property its models do not have.
    public init(contentsOf url: URL) throws {
        var reader = MappingModelFileReader(url: url)
        self = try reader.read()
    }
}
