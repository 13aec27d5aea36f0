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
    /// - Parameters:
    ///   - url: the `.xcdatamodeld` bundle or `.xcdatamodel` folder.
    ///   - managedObjectClasses: the class of each entity that has its own, by entity name.
    ///   - options: `.strict` refuses what would otherwise be a `ModelFileWarning`.
    /// - Throws: `ModelFileError` naming the file, the element and its line; for a current version the reader
    ///   does not read (see `SkippedModelVersion`), the reason.
    public convenience init(
        contentsOf url: URL, managedObjectClasses: [String: ManagedObject.Type] = [:],
        options: ModelFileOptions = .lenient
    ) throws {
        let bundle = try ModelBundle(url: url)
        let entry = bundle.entries[bundle.currentIndex]
        if let reason = entry.skipReason {
            let readable = bundle.entries.filter { $0.skipReason == nil }.map(\.name)
            throw ModelFileError(
                file: entry.contentsURL.path,
                reason: "the current version \(entry.name) is not readable: \(reason)"
                    + (readable.isEmpty ? "" : "; readable versions: \(readable.joined(separator: ", "))"))
        }
        let (reader, contents) = try Self.read(version: entry.url, classes: managedObjectClasses, options: options)
        do {
            try self.init(
                entities: contents.entities, configurations: contents.configurations,
                fetchRequestTemplates: contents.fetchRequestTemplates)
        } catch {
            throw reader.error(building: error)
        }
    }

    /// Loads every readable version of an Xcode model, in version order: by name, a trailing number compared as a
    /// number, the unnumbered version first (`Moody`, `Moody 2`, … `Moody 10`). That is the usual order of
    /// creation but not a promise of migration order.
    ///
    /// The current version is the one `.xccurrentversion` names. When that file is missing or empty, the
    /// only version is current, and of several the last in version order is. A version the reader does not read
    /// is left out (`versionList(contentsOf:managedObjectClasses:options:)` lists it with the reason).
    /// - Throws: `ModelFileError` for the first readable version that does not load, or when no version is readable.
    public static func versions(
        contentsOf url: URL, managedObjectClasses: [String: ManagedObject.Type] = [:],
        options: ModelFileOptions = .lenient
    ) throws -> [ModelVersion] {
        let list = try versionList(contentsOf: url, managedObjectClasses: managedObjectClasses, options: options)
        guard list.loaded.isEmpty, let first = list.skipped.first else { return list.loaded }
        let target = first.url.pathExtension == "xcdatamodel" ? first.url.appendingPathComponent("contents") : first.url
        throw ModelFileError(file: target.path, reason: "no version is readable: \(first.name): \(first.reason)")
    }

    /// Every version of an Xcode model in version order, each loaded or listed as skipped with the reason (the
    /// pre-Xcode-4 layout, a binary `contents`, a compiled `.mom`).
    ///
    /// For example:
    /// ```swift
    /// let list = try ManagedObjectModel.versionList(contentsOf: url, options: .strict)
    /// let current = list.loaded.first(where: \.isCurrent)
    /// ```
    /// - Throws: `ModelFileError` for a path that is not a model and for the first readable version that does not
    ///   load (under `.strict`, also for the first warning).
    public static func versionList(
        contentsOf url: URL, managedObjectClasses: [String: ManagedObject.Type] = [:],
        options: ModelFileOptions = .lenient
    ) throws -> ModelVersionList {
        let bundle = try ModelBundle(url: url)
        let entries = try bundle.entries.enumerated().map { position, entry -> ModelVersionList.Entry in
            let isCurrent = position == bundle.currentIndex
            if let reason = entry.skipReason {
                return .skipped(
                    SkippedModelVersion(name: entry.name, url: entry.url, isCurrent: isCurrent, reason: reason))
            }
            let (reader, contents) = try read(version: entry.url, classes: managedObjectClasses, options: options)
            let model: ManagedObjectModel
            do {
                model = try ManagedObjectModel(
                    entities: contents.entities, configurations: contents.configurations,
                    fetchRequestTemplates: contents.fetchRequestTemplates)
            } catch {
                throw reader.error(building: error)
            }
            return .loaded(
                ModelVersion(
                    name: entry.name, url: entry.url, isCurrent: isCurrent, model: model,
                    declaredCounts: reader.counts, warnings: reader.warnings,
                    versionIdentifier: contents.versionIdentifier, modelFileMetadata: contents.modelMetadata,
                    configurationMetadata: contents.configurationMetadata, notes: reader.notes))
        }
        return ModelVersionList(url: url, entries: entries)
    }

    private static func read(
        version url: URL, classes: [String: ManagedObject.Type], options: ModelFileOptions
    ) throws -> (ModelContentsReader, ModelContentsReader.Contents) {
        let file = url.appendingPathComponent("contents")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ModelFileError(file: file.path, reason: "the version has no readable contents file")
        }
        let root = try ModelXMLElement.parse(data, file: file.path)
        var reader = ModelContentsReader(file: file.path, classes: classes, options: options)
        let contents = try reader.read(root)
        return (reader, contents)
    }
}
