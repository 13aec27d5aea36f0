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
    /// Every version, in version order.
    public let versions: [ModelVersion]
    /// The position of the chosen version in `versions`.
    public let versionIndex: Int

    /// The chosen version.
    public var version: ModelVersion { versions[versionIndex] }
    /// The chosen version's model.
    public var model: ManagedObjectModel { version.model }

    /// Loads the model file at `path` (relative to `base` unless absolute) and chooses `version` by name (with or
    /// without `.xcdatamodel`), the current version when nil.
    /// - Throws: `LabError.invalidScenario` saying what is wrong and where: no file at the path, a file the
    ///   model-file reader refuses (its file, line and reason), or a version the file does not have (listing those
    ///   it has).
    public init(path: String, relativeTo base: URL?, version: String? = nil) throws {
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
            versions = try ManagedObjectModel.versions(contentsOf: self.url)
        } catch let error as ModelFileError {
            throw LabError(.invalidScenario, "the model file \(self.url.path) does not load: \(error)")
        }
        if let version {
            let wanted = version.hasSuffix(".xcdatamodel") ? String(version.dropLast(".xcdatamodel".count)) : version
            guard let index = versions.firstIndex(where: { $0.name == wanted }) else {
                throw LabError(
                    .invalidScenario,
                    "the model file \(self.url.lastPathComponent) has no version '\(version)'; "
                        + "expected one of \(versions.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
            versionIndex = index
        } else {
            versionIndex = versions.firstIndex(where: \.isCurrent) ?? versions.count - 1
        }
    }
}
