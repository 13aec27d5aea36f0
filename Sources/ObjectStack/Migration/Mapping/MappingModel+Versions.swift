import Foundation

extension MappingModel {
    // MARK: - Matching model versions

    /// The two versions of a bundle the mapping model maps between: those its recorded model paths name (their last
    /// two components, `Moody.xcdatamodeld/Moody 2.xcdatamodel`) whose entity and property names are those of the
    /// copies it keeps, or, when the paths name none that fit (a bundle or version renamed since), the only versions
    /// whose names fit.
    ///
    /// For example:
    /// ```swift
    /// let versions = try ManagedObjectModel.versions(contentsOf: URL(fileURLWithPath: "Moody.xcdatamodeld"))
    /// let (source, destination) = try mapping.versions(in: versions)   // Moody 2, Moody 3
    /// ```
    /// A mapping model read from a file is matched on both; one built in code, which records neither paths nor
    /// copies, on the entities it names alone.
    /// - Throws: `ObjectStackError(.invalidMappingModel)` naming both sides (the paths it records and how the
    ///   closest versions differ) when no pair of versions fits.
    public func versions(in versions: [ModelVersion]) throws -> (source: ModelVersion, destination: ModelVersion) {
        let source = try version(
            in: versions, path: sourceModelPath, outline: sourceOutline,
            entities: entityMappings.compactMap(\.sourceEntityName))
        let destination = try version(
            in: versions, path: destinationModelPath, outline: destinationOutline,
            entities: entityMappings.compactMap(\.destinationEntityName))
        switch (source, destination) {
        case (.found(let source), .found(let destination)):
            return (source, destination)
        default:
            let bundle = versions.first.map { $0.url.deletingLastPathComponent().lastPathComponent } ?? "no versions"
            throw ObjectStackError(
                code: .invalidMappingModel,
                message: "the mapping model \(name) fits no pair of versions of \(bundle) ("
                    + versions.map(\.name).joined(separator: ", ") + "): source: \(source.reason); destination: "
                    + destination.reason)
        }
    }

    /// Whether the mapping model maps from `source` to `destination`: both fit as `versions(in:)` matches them.
    public func maps(from source: ModelVersion, to destination: ModelVersion) -> Bool {
        guard let pair = try? versions(in: [source, destination]) else { return false }
        return pair.source.url == source.url && pair.destination.url == destination.url
    }

    private enum VersionMatch {
        case found(ModelVersion)
        case missing(String)

        var reason: String {
            switch self {
            case .found(let version): return "fits \(version.name)"
            case .missing(let reason): return reason
            }
        }
    }

    private func version(in versions: [ModelVersion], path: String?, outline: ModelOutline?, entities: [String])
        -> VersionMatch
    {
        let tail = path.map { Self.lastTwoComponents(of: $0) }
        func fits(_ version: ModelVersion) -> String? {
            if let outline {
                return outline.difference(
                    from: ModelOutline(model: version.model), this: "the mapping model's copy", other: version.name
                ).map { "\(version.name) differs from the copy: \($0)" }
            }
            let missing = entities.filter { version.model.entitiesByName[$0] == nil }
            return missing.isEmpty ? nil : "\(version.name) has no entity \(missing.joined(separator: ", "))"
        }
        let named = versions.filter { version in
            tail.map { $0 == Self.lastTwoComponents(of: version.url.path) } ?? false
        }
        if let match = named.first(where: { fits($0) == nil }) { return .found(match) }
        let fitting = versions.filter { fits($0) == nil }
        if fitting.count == 1 { return .found(fitting[0]) }
        let recorded = path.map { "'\($0)'" } ?? "no path"
        if fitting.count > 1 {
            return .missing(
                "\(recorded) names none of the versions, and \(fitting.map(\.name).joined(separator: " and ")) fit "
                    + "its copy equally")
        }
        if let version = named.first, let reason = fits(version) { return .missing("\(recorded): \(reason)") }
        let closest = versions.compactMap { fits($0) }.first ?? "the bundle has no versions"
        return .missing("\(recorded) names none of the versions, and none fits its copy (\(closest))")
    }

    /// `Bundle.xcdatamodeld/Version.xcdatamodel` of a path.
    private static func lastTwoComponents(of path: String) -> String {
        path.split(separator: "/").suffix(2).joined(separator: "/")
    }
}
