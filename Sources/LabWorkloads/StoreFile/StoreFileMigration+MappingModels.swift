import Foundation
import ObjectStack

extension StoreFileMigration {
    // MARK: - Steps through mapping models

    /// The step migration that runs the bundle's mapping models: a step one of `mappings` fits (its two versions,
    /// `MappingModel.maps(from:to:)`) migrates through it in place and atomically (`MigrationManager`), with
    /// `policies` for the classes it names, and the step's kind names it; another step is declined, and runs
    /// lightweight.
    ///
    /// For example, with the mapping models a project keeps near its bundle:
    /// ```swift
    /// let found = MappingModelSearch.mappingModels(near: bundleURL)
    /// let migration = try StoreFileMigration(
    ///     store: url, bundle: bundleURL, stepMigration: StoreFileMigration.mappingModelSteps(found.models))
    /// ```
    /// A step whose mapping model names a policy class nothing is registered under fails, naming it, and the store
    /// stays at the version before that step; `checkPolicies(_:policies:)` finds such a step before the walk starts.
    /// - Parameters:
    ///   - mappings: the mapping models to choose from.
    ///   - policies: the Swift policies, under the class names the mapping models name.
    /// - Returns: the step migration to give `init(store:bundle:from:to:hashes:stepMigration:)`.
    public static func mappingModelSteps(
        _ mappings: [MappingModel], policies: EntityMigrationPolicies = EntityMigrationPolicies()
    ) -> StepMigration {
        { store, from, to, options in
            guard let mapping = mappings.first(where: { $0.maps(from: from, to: to) }) else { return nil }
            try MigrationManager.migrateStore(
                at: store, type: .sqlite, from: from.model, to: to.model, mapping: mapping, policies: policies,
                options: options)
            return mapping.name
        }
    }

    /// The walk's steps, each with the mapping model of `mappings` that fits it, nil where none does (the step
    /// then runs lightweight).
    /// - Parameter mappings: the mapping models to choose from.
    /// - Returns: a pair of versions and a mapping model, or nil, per step, in order.
    public func plannedSteps(_ mappings: [MappingModel]) -> [(
        from: ModelVersion, to: ModelVersion, mapping: MappingModel?
    )] {
        (startIndex..<targetIndex).map { index in
            let (from, to) = (versions[index], versions[index + 1])
            return (from, to, mappings.first { $0.maps(from: from, to: to) })
        }
    }

    /// Checks, before anything is written, that every step the walk takes through one of `mappings` has a policy
    /// for each class its entity mappings name.
    ///
    /// A command-line program cannot load an app's Swift policy class, so `stacklab store migrate` runs this with no
    /// policies: a mapping model naming one is refused, and its migration runs through this library with the
    /// policies registered (`mappingModelSteps(_:policies:)`).
    /// - Parameters:
    ///   - mappings: the mapping models the walk chooses from.
    ///   - policies: the Swift policies registered.
    /// - Throws: `ObjectStackError(.migrationPolicyMissing)` naming the step, the mapping model, the entity mapping
    ///   and the class, for the first step with a policy nothing is registered under.
    public func checkPolicies(_ mappings: [MappingModel], policies: EntityMigrationPolicies) throws {
        for step in plannedSteps(mappings) {
            guard let mapping = step.mapping else { continue }
            for entityMapping in mapping.entityMappings {
                do {
                    _ = try policies.policy(for: entityMapping)
                } catch let error as ObjectStackError {
                    throw ObjectStackError(
                        code: error.code,
                        message: "step \(step.from.name) -> \(step.to.name) runs the mapping model \(mapping.name): "
                            + "\(error.message); nothing was migrated", cause: error)
                }
            }
        }
    }
}
