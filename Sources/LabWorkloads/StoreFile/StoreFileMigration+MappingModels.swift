import Foundation
import ObjectStack

extension StoreFileMigration {
    // MARK: - Steps through mapping models

    /// The step migration that runs the bundle's mapping models: a step one of `mappings` fits (its two versions,
    /// `MappingModel.maps(from:to:)`) migrates through it in place and atomically (`MigrationManager`), with
    /// `policies` for the classes it names; another step is declined, and runs lightweight.
    ///
    /// For example, with the mapping models a project keeps near its bundle:
    /// ```swift
    /// let found = MappingModelSearch.mappingModels(near: bundleURL)
    /// let migration = try StoreFileMigration(
    ///     store: url, bundle: bundleURL, stepMigration: StoreFileMigration.mappingModelSteps(found.models))
    /// ```
    /// A step whose mapping model names a policy class nothing is registered under fails, naming it, and the store
    /// stays at the version before that step.
    public static func mappingModelSteps(
        _ mappings: [MappingModel], policies: EntityMigrationPolicies = EntityMigrationPolicies()
    ) -> StepMigration {
        { store, from, to, options in
            guard let mapping = mappings.first(where: { $0.maps(from: from, to: to) }) else { return false }
            try MigrationManager.migrateStore(
                at: store, type: .sqlite, from: from.model, to: to.model, mapping: mapping, policies: policies,
                options: options)
            return true
        }
    }
}
