/// A pod spec as the web service serves it and the importer reads it: unique by name and version.
public struct PodSpec: Codable, Sendable, Hashable {
    public var name: String
    public var version: String
    public var authors: String
    public var homepage: String?
    public var license: String?
    public var summary: String?
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

    /// The unique identifier the importer finds objects by.
    public var key: PodKey { PodKey(name: name, version: version) }
}

/// A pod's unique identifier: name and version (the `Pod` entity's uniqueness constraint).
public struct PodKey: Hashable, Sendable {
    public var name: String
    public var version: String
}
