import Foundation
import ObjectStack

/// A model file loaded for the lab, with one of its versions chosen: what a scenario's `model:` and `version:`
/// name, and what `stacklab model PATH --version V` loads.
///
/// For example:
/// ```swift
/// let selection = try ModelFileSelection(path: "Models/Moody.xcdatamodeld", relativeTo: scenarioFolder, version: "Moody 5")
/// print(selection.version.name, selection.model.entities.count)
/// ```
public struct ModelFileSelection: Sendable {
    /// The model file (`.xcdatamodeld` or bare `.xcdatamodel`).
    public let url: URL
    /// Every readable version, in version order.
    public let versions: [ModelVersion]
    /// Every version, the skipped ones (pre-Xcode-4 layout, compiled) included with their reasons.
    public let list: ModelVersionList
    /// The position of the chosen version in `versions`.
    public let versionIndex: Int

    /// The chosen version.
    public var version: ModelVersion { versions[versionIndex] }
    /// The chosen version's model.
    public var model: ManagedObjectModel { version.model }
    /// The position of the chosen version in `list.entries` (which holds the skipped versions too).
    public var entryIndex: Int {
        list.entries.firstIndex { $0.version?.url == version.url } ?? versionIndex
    }

    /// Loads the model file at `path` (relative to `base` unless absolute) and chooses `version` by name (with or
    /// without `.xcdatamodel`), the current version when nil.
    /// - Parameters:
    ///   - path: the model file, a `.xcdatamodeld` or `.xcdatamodel`.
    ///   - base: the folder a relative `path` starts from (a scenario file's); nil for the current folder.
    ///   - version: the version's name; nil for the current version.
    ///   - options: `.strict` refuses a file the reader would load with warnings.
    /// - Throws: `LabError.invalidScenario` saying what is wrong and where: no file at the path, a file the
    ///   model-file reader refuses (its file, line and reason), a version the file does not have (listing those
    ///   it has), or a version the reader skips (saying why, and which versions it reads).
    public init(path: String, relativeTo base: URL?, version: String? = nil, options: ModelFileOptions = .lenient)
        throws
    {
        let url =
            path.hasPrefix("/") || base == nil
            ? URL(fileURLWithPath: path) : base!.appendingPathComponent(path)
        self.url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.url.path, isDirectory: &isDirectory) else {
            throw LabError(
                .invalidScenario,
                "no model file at \(self.url.path)"
                    + (base != nil && !path.hasPrefix("/") ? " (\(path), relative to \(base!.path))" : ""))
        }
        do {
            list = try ManagedObjectModel.versionList(contentsOf: self.url, options: options)
        } catch let error as ModelFileError {
            throw LabError(.invalidScenario, "the model file \(self.url.path) does not load: \(error)")
        }
        versions = list.loaded
        let readable = versions.map { "'\($0.name)'" }.joined(separator: ", ")
        guard !versions.isEmpty else {
            throw LabError(
                .invalidScenario,
                "the model file \(self.url.path) has no readable version: "
                    + list.skipped.map { "\($0.name): \($0.reason)" }.joined(separator: "; "))
        }
        let wanted = version.map {
            $0.hasSuffix(".xcdatamodel") ? String($0.dropLast(".xcdatamodel".count)) : $0
        }
        let chosen = list.entries.firstIndex { entry in wanted.map { entry.name == $0 } ?? entry.isCurrent }
        if let chosen, let reason = list.entries[chosen].skipReason {
            throw LabError(
                .invalidScenario,
                "version '\(list.entries[chosen].name)' of \(self.url.lastPathComponent)"
                    + (version == nil ? " (its current version)" : "")
                    + " is skipped: \(reason); name a readable version: \(readable)")
        }
        if let version {
            guard let index = versions.firstIndex(where: { $0.name == wanted }) else {
                throw LabError(
                    .invalidScenario,
                    "the model file \(self.url.lastPathComponent) has no version '\(version)'; "
                        + "expected one of \(readable)")
            }
            versionIndex = index
        } else {
            versionIndex = versions.firstIndex(where: \.isCurrent) ?? versions.count - 1
        }
    }
}
