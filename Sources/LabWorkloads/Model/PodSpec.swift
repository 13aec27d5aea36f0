/// A pod's values: the one definition of a pod's fields, as the web service serves them, the importer reads them
/// and the engine comparison writes them (`PodRow` adds a primary key). Unique by name and version.
public struct PodSpec: Codable, Sendable, Hashable {
    /// The pod's name; with `version`, its unique identifier.
    public var name: String
    /// The pod's version.
    public var version: String
    /// Who wrote it.
    public var authors: String
    /// Its web page, if any.
    public var homepage: String?
    /// Its license's name, if any.
    public var license: String?
    /// One line on what it does, if any.
    public var summary: String?
    /// How many times it was downloaded.
    public var downloads: Int64
    /// Seconds since 1970 of the spec's last change.
    public var updated: Double

    /// Creates a spec.
    public init(
        name: String, version: String, authors: String, homepage: String? = nil, license: String? = nil,
        summary: String? = nil, downloads: Int64 = 0, updated: Double = 0
    ) {
        self.name = name
        self.version = version
        self.authors = authors
        self.homepage = homepage
        self.license = license
        self.summary = summary
        self.downloads = downloads
        self.updated = updated
    }

    public init(from decoder: any Decoder) throws {
        // downloads and updated may be missing from a catalogue file: they default to 0.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            version: try container.decode(String.self, forKey: .version),
            authors: try container.decode(String.self, forKey: .authors),
            homepage: try container.decodeIfPresent(String.self, forKey: .homepage),
            license: try container.decodeIfPresent(String.self, forKey: .license),
            summary: try container.decodeIfPresent(String.self, forKey: .summary),
            downloads: try container.decodeIfPresent(Int64.self, forKey: .downloads) ?? 0,
            updated: try container.decodeIfPresent(Double.self, forKey: .updated) ?? 0)
    }

    /// The unique identifier the importer finds objects by.
    public var key: PodKey { PodKey(name: name, version: version) }
}
