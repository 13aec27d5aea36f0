import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// A migration never swaps files under a store that another process has open: it refuses with
/// `StoreError.locked`, writes nothing (no `.migrating` file), and completes once that process has closed the
/// store. The other process is a real child (`stacklab child hold-store`), holding the store open with no
/// transaction running.
@Suite("Migration of a store open in another process")
struct MigrationOpenElsewhereTests {
    /// The names of the folder's files, and the main store file's bytes.
    private func snapshot(_ folder: URL, _ url: URL) throws -> (names: [String], store: Data) {
        (try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), try Data(contentsOf: url))
    }

    private func podCount(_ store: StoreKind, _ url: URL, version: Int) throws -> Int {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make(version: version))
        let opened = try coordinator.addPersistentStore(type: store.storeType, at: url)
        defer { try? coordinator.remove(opened) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Pod")) }
    }

    @Test(
        "refused while a child process holds the store open, untouched, migrated once the child closed it",
        arguments: StoreKind.fileStores)
    func refusedWhileOpen(store: StoreKind) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("pods.\(store.name)")
        _ = try PodStoreSeeder(store: store, objects: 300, modelVersion: 1, url: url, batchSize: 300).run()

        let child = Process()
        child.executableURL = StackLabBinary.url
        child.arguments = ["child", "hold-store", "--store", store.name, "--path", url.path]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        child.environment = environment
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = output
        try child.run()
        defer { if child.isRunning { child.terminate() } }
        var said = ""
        while !said.contains("open") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        try #require(said.contains("open"), "the child did not open the store: \(said)")

        let before = try snapshot(folder, url)
        let migrator = StoreMigrator(
            type: store.storeType, url: url, destinationModel: try PodModel.make(version: 2),
            sourceModels: try PodModel.models(through: 1))
        let error = try #require(throws: StoreError.self) { try migrator.migrateIfNeeded() }
        #expect(error.code == .locked, "\(error)")
        #expect(error.message.contains("another process"), "\(error)")
        let after = try snapshot(folder, url)
        #expect(after.names == before.names, "no .migrating or other file may be left")
        #expect(after.store == before.store, "the old store is untouched")
        // A container's automatic migration is refused the same way.
        let container = PersistentContainer(name: "Pods", managedObjectModel: try PodModel.make(version: 2))
        var description = StoreDescription(type: store.storeType, url: url)
        description.sourceModels = try PodModel.models(through: 1)
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<StoreError?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error as? StoreError } }
        #expect(failure.withLock { $0?.code } == .locked)
        #expect(try snapshot(folder, url).names == before.names)

        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        #expect(try migrator.migrateIfNeeded())
        #expect(try podCount(store, url, version: 2) == 300)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
    }
}
