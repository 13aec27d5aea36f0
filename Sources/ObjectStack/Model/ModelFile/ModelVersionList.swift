import Foundation

/// Every version of an Xcode model in version order: the ones the reader loaded, and the ones it skipped with
/// the reason.
///
/// For example:
/// ```swift
/// let list = try ManagedObjectModel.versionList(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
/// print(list.loaded.map(\.name), list.skipped.map(\.reason))
/// ```
/// A bundle whose oldest version is in the pre-Xcode-4 layout still loads its other versions; what needs the
/// skipped one (a migration step through it) can say so.
public struct ModelVersionList: Sendable {
    /// One version: loaded, or skipped with the reason.
    public enum Entry: Sendable {
        case loaded(ModelVersion)
        case skipped(SkippedModelVersion)

        /// The version's name.
        public var name: String {
            switch self {
            case .loaded(let version): return version.name
            case .skipped(let version): return version.name
            }
        }

        /// Whether this is the bundle's current version.
        public var isCurrent: Bool {
            switch self {
            case .loaded(let version): return version.isCurrent
            case .skipped(let version): return version.isCurrent
            }
        }

        /// The loaded version, nil when skipped.
        public var version: ModelVersion? {
            if case .loaded(let version) = self { return version }
            return nil
        }

        /// Why the version is skipped, nil when loaded.
        public var skipReason: String? {
            if case .skipped(let version) = self { return version.reason }
            return nil
        }
    }

    /// The model file (`.xcdatamodeld`, `.xcdatamodel`, `.momd` or `.mom`).
    public let url: URL
    /// Every version, in version order.
    public let entries: [Entry]

    /// Creates a list.
    public init(url: URL, entries: [Entry]) {
        self.url = url
        self.entries = entries
    }

    /// The versions loaded, in version order.
    public var loaded: [ModelVersion] { entries.compactMap(\.version) }

    /// The versions skipped, in version order.
    public var skipped: [SkippedModelVersion] {
        entries.compactMap {
            if case .skipped(let version) = $0 { return version }
            return nil
        }
    }

    /// What the loaded versions' files say that loaded, but not exactly as written.
    public var warnings: [ModelFileWarning] { loaded.flatMap(\.warnings) }

    /// The loaded versions' index notes (see `ModelVersion.notes`).
    public var notes: [ModelFileWarning] { loaded.flatMap(\.notes) }
}
