import Foundation
import ObjectStack
import ObjectStackSQLite

/// What `stacklab store upgrade` does: a store of ObjectStack's first SQLite layout rewritten in Core Data's, with
/// the version of the model file that wrote it.
public enum StoreFileUpgrade {
    /// Upgrades the store at `store`, written with `version` of the model file at `model` (its current version when
    /// nil); returns the rows copied.
    /// - Throws: `ModelFileError` for a model that does not load or a version it does not have, `StoreError` for a
    ///   store that is not in the first layout or was written with another model.
    public static func run(store: URL, model: URL, version: String?) throws -> Int {
        let versions = try ManagedObjectModel.versions(contentsOf: model)
        let chosen = version.map { name in versions.first { $0.name == name } } ?? versions.first(where: \.isCurrent)
        guard let chosen else {
            throw ModelFileError(
                file: model.path,
                reason: "no version \(version ?? "") (versions: \(versions.map(\.name).joined(separator: ", ")))")
        }
        return try LegacyStoreUpgrade(store: store, model: chosen.model).run()
    }
}
