import Foundation

extension ManagedObjectModel {
    // MARK: - Loading Xcode model files

    /// Loads the current version of an Xcode model: a `.xcdatamodeld` bundle (the version its
    /// `.xccurrentversion` names) or a bare `.xcdatamodel`.
    ///
    /// For example:
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"),
    ///                                    managedObjectClasses: ["Book": Book.self])
    /// ```
    /// Entities get `ManagedObject` as their class unless `managedObjectClasses` gives one by entity name: Swift
    /// cannot look a class up by the file's `representedClassName` (which is kept on the entity). A
    /// transformable attribute without `valueTransformerName` uses `NSKeyedUnarchiveFromData`, as Core Data
    /// does; a transformer need not be registered to load the model, only to use the attribute.
    /// - Throws: `ModelFileError` naming the file, the element and its line.
    public convenience init(contentsOf url: URL, managedObjectClasses: [String: ManagedObject.Type] = [:]) throws {
        let bundle = try ModelBundle(url: url)
        let (reader, contents) = try Self.read(
            version: bundle.versions[bundle.currentIndex], classes: managedObjectClasses)
        do {
            try self.init(
                entities: contents.entities, configurations: contents.configurations,
                fetchRequestTemplates: contents.fetchRequestTemplates)
        } catch {
            throw reader.error(building: error)
        }
    }

    /// Loads every version of an Xcode model, in version order: by name, a trailing number compared as a
    /// number, the unnumbered version first (`Moody`, `Moody 2`, … `Moody 10`). That is the usual order of
    /// creation but not a promise of migration order.
    ///
    /// The current version is the one `.xccurrentversion` names. When that file is missing or empty, the
    /// only version is current, and of several the last in version order is.
    /// - Throws: `ModelFileError` for the first version that does not load.
    public static func versions(
        contentsOf url: URL, managedObjectClasses: [String: ManagedObject.Type] = [:]
    ) throws -> [ModelVersion] {
        let bundle = try ModelBundle(url: url)
        return try bundle.versions.enumerated().map { position, versionURL in
            let (reader, contents) = try read(version: versionURL, classes: managedObjectClasses)
            let model: ManagedObjectModel
            do {
                model = try ManagedObjectModel(
                    entities: contents.entities, configurations: contents.configurations,
                    fetchRequestTemplates: contents.fetchRequestTemplates)
            } catch {
                throw reader.error(building: error)
            }
            return ModelVersion(
                name: versionURL.deletingPathExtension().lastPathComponent, url: versionURL,
                isCurrent: position == bundle.currentIndex, model: model, declaredCounts: reader.counts,
                warnings: reader.warnings)
        }
    }

    private static func read(
        version url: URL, classes: [String: ManagedObject.Type]
    ) throws
        -> (ModelContentsReader, ModelContentsReader.Contents)
    {
        let file = url.appendingPathComponent("contents")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ModelFileError(file: file.path, reason: "the version has no readable contents file")
        }
        let root = try ModelXMLElement.parse(data, file: file.path)
        var reader = ModelContentsReader(file: file.path, classes: classes)
        let contents = try reader.read(root)
        return (reader, contents)
    }
}
