import Foundation
import ObjectStack
import Testing

@testable import StackLab

/// The model-driven generator on the shared real models: every one populates on every store with its
/// constraints holding, the same seed gives the same store, and a model it cannot populate is refused first.
@Suite("Model population")
struct ModelPopulationTests {
    /// Every bundle of the shared set: folder and bundle name.
    static let sharedModels: [(folder: String, bundle: String)] = [
        ("BrowserServicesKit", "BookmarksModel.xcdatamodeld"), ("Core-Data-Editor", "simple_no_inverse.xcdatamodeld"),
        ("CoreDataPlus", "SampleModel.xcdatamodeld"), ("CoreStore", "Model.xcdatamodeld"), ("LoopKit", "Model.xcdatamodeld"),
        ("Maccy", "Storage.xcdatamodeld"), ("MagicalRecord", "TestModel.xcdatamodeld"), ("mogenerator", "test.xcdatamodel"),
        ("objcio-core-data-Chapter-1.2", "Moody.xcdatamodeld"), ("objcio-core-data-Migrations", "Moody.xcdatamodeld"),
        ("SwiftGen", "Model.xcdatamodeld"), ("Sync", "151-ordered-many-to-many.xcdatamodeld"),
        ("wikipedia-ios", "Wikipedia.xcdatamodeld"),
    ]

    static var sharedModelFolders: [String] { sharedModels.map(\.folder) }

    static func url(_ folder: String) -> URL {
        SharedModelFiles.url(folder, sharedModels.first { $0.folder == folder }!.bundle)
    }

    /// A fresh store of `kind` for `model`, in a new temporary folder.
    static func store(_ kind: StoreKind, _ model: ManagedObjectModel) throws -> (PersistentStoreCoordinator, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-population-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = kind == .memory
            ? URL(string: "memory://population-\(UUID().uuidString)")! : folder.appendingPathComponent("store.\(kind.rawValue)")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: kind.storeType, at: url)
        return (coordinator, folder)
    }

    @Test("every shared model populates on every store with its constraints holding",
        arguments: sharedModelFolders, StoreKind.allCases)
    func populatesSharedModel(folder: String, kind: StoreKind) throws {
        let model = try ManagedObjectModel(contentsOf: Self.url(folder))
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 6), seed: 11)
        let (coordinator, directory) = try Self.store(kind, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ModelPopulator.write(plan, into: coordinator)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        #expect(result.objects > 0)
        for entity in model.entities {
            #expect(audit.objectsByEntity[entity.name] == (entity.isAbstract ? 0 : plan.entities.first { $0.entity === entity }?.count),
                "\(entity.name)")
        }
    }
}
