import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

/// `stacklab store migrate`, killed with SIGKILL at moments through its walk of a bundle's history, leaves a store
/// Core Data wrote at one of the versions, openable with every row; run again, it finishes the walk.
@Suite("Store history migration crash safety", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct StoreMigrateCrashTests {
    static let delays: [UInt32] = [0, 5_000, 15_000, 40_000, 90_000, 180_000, 400_000]

    /// SampleModel_V1 (written by Core Data) grown by a few thousand people, so a step takes long enough to be
    /// killed inside.
    static func grownStore() throws -> (url: URL, bundle: URL, versions: [ModelVersion], rows: Int) {
        let store = try #require(
            CoreDataStoreCorpus.shared?.stores.first { $0.url.lastPathComponent == "SampleModel_V1.sqlite" })
        let url = try store.copy()
        let bundle = try #require(store.bundle)
        let versions = try ManagedObjectModel.versions(contentsOf: bundle)
        let model = try CoreDataStoreFile(url: url).matchVersion(in: versions).version.model
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for index in 0..<4_000 {
                let person = ManagedObject(entity: model.entitiesByName["Person"]!, insertInto: context)
                try person.setValue("first-\(index)", forKey: "firstName")
                try person.setValue("last-\(index)", forKey: "lastName")
                try person.setValue(UUID(), forKey: "id")
                try person.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "updatedAt")
            }
            try context.save()
        }
        try coordinator.remove(added)
        let rows = try CoreDataStoreFile(url: url).contents(model: model).totalRows
        return (url, bundle, versions, rows)
    }

    @Test("after a kill at any moment the store is at some version with every row; a second run finishes")
    func killed() throws {
        let grown = try Self.grownStore()
        // CoreDataPlus's V2-to-V3 mapping model names a policy class the command cannot load (it refuses that
        // step); with a folder of no mapping models every step is lightweight, and the walk has two to be killed in.
        let noMappings = grown.url.deletingLastPathComponent().appendingPathComponent("no-mappings")
        try FileManager.default.createDirectory(at: noMappings, withIntermediateDirectories: true)
        let arguments = { (url: URL) in
            ["store", "migrate", url.path, "--model", grown.bundle.path, "--mapping", noMappings.path]
        }
        var seen: Set<String> = []
        for delay in Self.delays {
            let url = grown.url.deletingLastPathComponent().appendingPathComponent("kill-\(delay).sqlite")
            try? FileManager.default.removeItem(at: url)
            try FileManager.default.copyItem(at: grown.url, to: url)
            let process = Process()
            process.executableURL = StackLabBinary.url
            process.arguments = arguments(url)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever the moment, the store is a store of one of the versions, with every row.
            let file = try CoreDataStoreFile(url: url)
            let version = try file.matchVersion(in: grown.versions).version
            seen.insert(version.name)
            #expect(try file.contents(model: version.model).totalRows == grown.rows, "killed after \(delay) µs")
            let again = try StackLabBinary.run(arguments(url))
            #expect(again.status == 0, "\(again.output)")
            let finished = try CoreDataStoreFile(url: url)
            let last = try #require(grown.versions.last)
            #expect(try finished.matchVersion(in: grown.versions).version.name == last.name)
            #expect(try finished.contents(model: last.model).totalRows == grown.rows)
            #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        }
        // The kills land at different moments of the walk (the first version, and at least one later one).
        #expect(seen.count >= 2, "\(seen)")
    }
}
