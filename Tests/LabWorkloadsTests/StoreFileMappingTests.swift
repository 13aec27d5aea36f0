import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

@testable import LabWorkloads

/// A store Core Data wrote walks its bundle's history (`StoreFileMigration`, what `stacklab store migrate` runs)
/// through the mapping models its repository ships, each step in Core Data's layout for the new version.
@Suite("Store file history through mapping models", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct StoreFileMappingTests {
    @Test("objc.io's Moody 2 store walks to Moody 6 through its four mapping models and the policy in Swift")
    func walksThroughMappingModels() throws {
        let corpus = try #require(CoreDataStoreCorpus.shared)
        let store = try #require(corpus.stores.first { $0.folder == "objcio+core-data" && $0.versionName == "Moody 2" })
        let bundle = try #require(store.bundle)
        let found = MappingModelSearch.mappingModels(near: bundle)
        #expect(found.models.count == 4 && found.unreadable.isEmpty)
        let url = try store.copy()
        let migration = try StoreFileMigration(
            store: url, bundle: bundle,
            stepMigration: StoreFileMigration.mappingModelSteps(
                found.models, policies: CorpusMigrationPolicies.policies(forFolder: store.folder)))
        let result = try migration.run()
        #expect(
            result.steps.map(\.kind)
                == ["Moody 2-Moody 3", "Moody 3-Moody 4", "Moody 4-Moody 5", "Moody 5-Moody 6"].map {
                    "mapping model \($0)"
                })
        #expect(result.steps.map(\.rows) == [9, 9, 7, 9])
        let file = try CoreDataStoreFile(url: url)
        let versions = try ManagedObjectModel.versions(contentsOf: bundle)
        #expect(try file.matchVersion(in: versions).version.name == "Moody 6")

        // Without the policy the last step fails naming it, and the store stays at Moody 5 with every row.
        let again = try store.copy()
        let unregistered = try StoreFileMigration(
            store: again, bundle: bundle, stepMigration: StoreFileMigration.mappingModelSteps(found.models))
        let error = try #require(throws: ObjectStackError.self) { try unregistered.run() }
        #expect(error.code == .migrationPolicyMissing && error.message.contains("Country5ToCountry6Policy"))
        let stopped = try CoreDataStoreFile(url: again)
        let at = try stopped.matchVersion(in: versions).version
        #expect(at.name == "Moody 5")
        #expect(try stopped.contents(model: at.model).totalRows == 7)
    }
}
