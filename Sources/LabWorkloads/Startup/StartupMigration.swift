import Foundation
import LabCore
import ObjectStack

/// How a startup launch's store reaches the app's model.
///
/// - `none`: the store is of the app's model.
/// - `lightweight`: the app's model adds an attribute (pod model version 2 over a version-1 store): an inferred
///   migration.
/// - `custom`: the same versions through a staged migration whose custom stage back-fills the new attribute on
///   every pod (`stars` from `downloads`), as an app filling a new field does: app code that touches every object.
/// - `history`: on a scenario's `store_file:`, the store walks its model bundle's history to the scenario's version
///   (`StoreFileMigration`), a step at a time, through the project's mapping model where one fits the step.
///
/// On a `store_file:`, `none` opens the store as the scenario's version (it must be at it) and `lightweight` lets the
/// coordinator infer one migration from the store's version to the scenario's, as an app's container does.
public enum StartupMigration: String, Sendable, CaseIterable, Codable {
    case none, lightweight, custom, history

    /// The app's pod model version for a store of `storeVersion`.
    public func appVersion(storeVersion: Int) -> Int {
        self == .none ? storeVersion : storeVersion + 1
    }

    /// The staged migration of the `custom` launch: lightweight up to the version before the app's, then the
    /// back-filling stage; nil for the others.
    public static func customStages(appVersion: Int) throws -> StagedMigrationManager {
        let earlier = try PodModel.models(through: appVersion - 1)
        let stage = CustomMigrationStage(
            migratingFrom: earlier.last!, to: try PodModel.make(version: appVersion),
            label: "back-fill stars")
        stage.didMigrateHandler = { manager, _ in try backFillStars(manager.requireContainer()) }
        return StagedMigrationManager([LightweightMigrationStage(earlier), stage])
    }

    /// Pods rewritten per save (and per context reset), so memory stays flat over a million pods.
    static let backFillBatch = 10_000

    /// Sets every pod's `stars` from its downloads, a batch per save.
    static func backFillStars(_ container: PersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let ids = try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Pod"))
            for start in stride(from: 0, to: ids.count, by: backFillBatch) {
                for id in ids[start..<min(start + backFillBatch, ids.count)] {
                    let pod = context.object(with: id)
                    let downloads = (pod.value(forKey: "downloads") as? Int64) ?? 0
                    try pod.setValue(Int32(min(downloads / 1_000, Int64(Int32.max))), forKey: "stars")
                }
                try context.save()
                context.reset()
            }
        }
    }
}
