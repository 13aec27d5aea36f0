import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite
import Testing

@Suite("Pod importer: find-or-create by name and version")
struct PodImporterTests {
    /// A context on a counting SQLite store in a fresh folder.
    func makeContext() throws -> (ManagedObjectContext, FetchCounter, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("importer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let counter = FetchCounter()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make())
        try coordinator.addPersistentStore(
            type: CountingStore.type(over: .sqlite, counter: counter), at: folder.appendingPathComponent("pods.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, counter, folder)
    }

    func allPods(_ context: ManagedObjectContext) throws -> [PodKey: PodSpec] {
        try context.performAndWait {
            var request = FetchRequest<Pod>(entityName: "Pod")
            request.returnsObjectsAsFaults = false
            return Dictionary(
                uniqueKeysWithValues: try context.fetch(request).map { pod in
                    (
                        PodKey(name: pod.name, version: pod.version),
                        PodSpec(
                            name: pod.name, version: pod.version, authors: pod.authors, homepage: pod.homepage,
                            license: pod.license,
                            summary: pod.summary, downloads: pod.downloads, updated: pod.updated)
                    )
                })
        }
    }

    @Test("an import inserts every spec with one store fetch per batch, never one per object")
    func oneFetchPerBatch() throws {
        let (context, counter, folder) = try makeContext()
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalogue = Catalogue.synthetic(count: 1_000, seed: 7)
        let before = counter.count
        let phases = ImportPhases()
        let counts = try context.performAndWait {
            try PodImporter.importSpecs(
                catalogue.specs, batchSize: 100, into: context, save: { try $0.save() }, phases: phases)
        }
        #expect(counts == PodImporter.Counts(inserted: 1_000, updated: 0, unchanged: 0, fetches: 10))
        #expect(phases.milliseconds(.findOrCreate) > 0 && phases.milliseconds(.save) > 0)
        #expect(
            phases.totalMilliseconds == phases.milliseconds(.findOrCreate) + phases.milliseconds(.save),
            "the importer times only its own two phases")
        #expect(counter.count - before == 10, "10 batches of 100: one IN fetch each reaches the store")
        let stored = try allPods(context)
        #expect(stored.count == 1_000)
        #expect(stored == Dictionary(uniqueKeysWithValues: catalogue.specs.map { ($0.key, $0) }))
    }

    @Test("re-importing a revised catalogue updates every pod and duplicates none; the same catalogue changes nothing")
    func reimportUpdates() throws {
        let (context, counter, folder) = try makeContext()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Catalogue.synthetic(count: 500, seed: 3)
        let revised = Catalogue.synthetic(count: 500, seed: 3, revision: 1)
        #expect(Set(first.specs.map(\.key)) == Set(revised.specs.map(\.key)))
        #expect(first.specs.map(\.summary) != revised.specs.map(\.summary))
        try context.performAndWait {
            _ = try PodImporter.importSpecs(first.specs, batchSize: 200, into: context, save: { try $0.save() })
        }
        let before = counter.count
        let counts = try context.performAndWait {
            try PodImporter.importSpecs(revised.specs, batchSize: 200, into: context, save: { try $0.save() })
        }
        #expect(counts == PodImporter.Counts(inserted: 0, updated: 500, unchanged: 0, fetches: 3))
        #expect(counter.count - before == 3)
        let stored = try allPods(context)
        #expect(stored.count == 500, "no duplicates")
        #expect(
            stored == Dictionary(uniqueKeysWithValues: revised.specs.map { ($0.key, $0) }),
            "every value is the revision's")
        let again = try context.performAndWait {
            try PodImporter.importSpecs(revised.specs, batchSize: 500, into: context, save: { try $0.save() })
        }
        #expect(again == PodImporter.Counts(inserted: 0, updated: 0, unchanged: 500, fetches: 1))
    }

    @Test("a batch that names one pod twice creates it once")
    func duplicateInBatch() throws {
        let (context, _, folder) = try makeContext()
        defer { try? FileManager.default.removeItem(at: folder) }
        let spec = PodSpec(
            name: "Alamofire", version: "5.9.0", authors: "Alamofire Software Foundation", summary: "HTTP")
        var newer = spec
        newer.summary = "Elegant HTTP networking"
        let counts = try context.performAndWait {
            try PodImporter.importSpecs([spec, newer], batchSize: 10, into: context, save: { try $0.save() })
        }
        #expect(counts.inserted == 1 && counts.updated == 1)
        #expect(try allPods(context)[spec.key]?.summary == "Elegant HTTP networking")
    }
}
