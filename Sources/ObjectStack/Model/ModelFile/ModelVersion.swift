import Foundation

/// One version of an Xcode model file, loaded.
///
/// For example:
/// ```swift
/// let versions = try ManagedObjectModel.versions(contentsOf: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// let current = versions.first { $0.isCurrent }!
/// let previous = versions.firstIndex { $0.isCurrent }.flatMap { $0 > 0 ? versions[$0 - 1] : nil }
/// ```
public struct ModelVersion: Sendable {
    /// The version's name: its `.xcdatamodel` folder's name without the extension (`Moody 2`).
    public let name: String
    /// The version's `.xcdatamodel` folder.
    public let url: URL
    /// Whether this is the bundle's current version (see `ManagedObjectModel.versions(contentsOf:)`).
    public let isCurrent: Bool
    /// The model.
    public let model: ManagedObjectModel
    /// The elements the version's XML declares (inherited properties not counted again).
    public let declaredCounts: ModelElementCounts
    /// What loaded, but not exactly as written (strict reading refuses these instead).
    public let warnings: [ModelFileWarning]
    /// Indexes loaded in part (an element naming a relationship or an expression, an R-tree element): a fetch's
    /// speed differs from Core Data's, never its result, so strict reading loads them too.
    public let notes: [ModelFileWarning]
    /// The `<model>` element's `userDefinedModelVersionIdentifier` (Core Data's `versionIdentifiers`), when set.
    public let versionIdentifier: String?
    /// The `<model>` element's other attributes, kept as written: tool versions, `sourceLanguage`,
    /// `usedWithCloudKit`, `usedWithSwiftData`.
    public let modelFileMetadata: ModelFileMetadata
    /// Each configuration's attributes (`usedWithCloudKit`), by configuration name.
    public let configurationMetadata: [String: ModelFileMetadata]

    /// Creates a version.
    public init(
        name: String, url: URL, isCurrent: Bool, model: ManagedObjectModel, declaredCounts: ModelElementCounts,
        warnings: [ModelFileWarning] = [], versionIdentifier: String? = nil,
        modelFileMetadata: ModelFileMetadata = ModelFileMetadata(),
        configurationMetadata: [String: ModelFileMetadata] = [:], notes: [ModelFileWarning] = []
    ) {
        self.name = name
        self.url = url
        self.isCurrent = isCurrent
        self.model = model
        self.declaredCounts = declaredCounts
        self.warnings = warnings
        self.versionIdentifier = versionIdentifier
        self.modelFileMetadata = modelFileMetadata
        self.configurationMetadata = configurationMetadata
        self.notes = notes
    }
}
