import Foundation

/// A version of an Xcode model the reader does not read, with why: the pre-Xcode-4 layout (binary `elements` and
/// `layout` archives), a binary `contents`, a version that is a file, or a compiled `.mom`.
///
/// For example:
/// ```swift
/// let list = try ManagedObjectModel.versionList(contentsOf: url)
/// for version in list.skipped { print("\(version.name): skipped, \(version.reason)") }
/// ```
public struct SkippedModelVersion: Sendable, Hashable {
    /// The version's name: its folder's (or file's) name without the extension.
    public let name: String
    /// The version's folder (or file).
    public let url: URL
    /// Whether `.xccurrentversion` names this version.
    public let isCurrent: Bool
    /// Why the reader does not read it.
    public let reason: String

    /// Creates a skipped version.
    public init(name: String, url: URL, isCurrent: Bool, reason: String) {
        self.name = name
        self.url = url
        self.isCurrent = isCurrent
        self.reason = reason
    }
}
