import Foundation
import ObjectStack
import Synchronization
import Testing

/// Every version of every real model in shared/models loads, with the counts the models README gives.
@Suite("Model files: the shared real models")
struct ModelFileSharedModelsTests {
    /// One row of the README's "Counts per version" table, copied from it (the reference), not computed.
    struct Row: CustomTestStringConvertible, Sendable {
        let folder, bundle, version, current: String
        let counts: ModelElementCounts

        init(
            _ folder: String, _ bundle: String, _ version: String, _ current: String, _ entities: Int,
            _ attributes: Int, _ relationships: Int, _ fetchedProperties: Int, _ fetchIndexes: Int,
            _ uniqueness: Int, _ configurations: Int, _ fetchRequests: Int, _ abstract: Int, _ subentities: Int
        ) {
            self.folder = folder
            self.bundle = bundle
            self.version = version
            self.current = current
            counts = ModelElementCounts(
                entities: entities, attributes: attributes, relationships: relationships,
                fetchedProperties: fetchedProperties, fetchIndexes: fetchIndexes, uniquenessConstraints: uniqueness,
                configurations: configurations, fetchRequests: fetchRequests, abstractEntities: abstract,
                subentities: subentities)
        }

        var testDescription: String { "\(folder) \(version)" }
    }

    static let table: [Row] = [
        Row(
            "BrowserServicesKit", "BookmarksModel.xcdatamodeld", "BookmarksModel.xcdatamodel", "", 1, 5, 4, 0, 0, 0, 0,
            0, 0, 0),
        Row(
            "BrowserServicesKit", "BookmarksModel.xcdatamodeld", "BookmarksModel 2.xcdatamodel", "", 1, 5, 4, 0, 2, 0,
            0, 0, 0, 0),
        Row(
            "BrowserServicesKit", "BookmarksModel.xcdatamodeld", "BookmarksModel 3.xcdatamodel", "", 1, 6, 4, 0, 3, 0,
            0, 0, 0, 0),
        Row(
            "BrowserServicesKit", "BookmarksModel.xcdatamodeld", "BookmarksModel 4.xcdatamodel", "", 1, 6, 4, 0, 3, 0,
            0, 0, 0, 0),
        Row(
            "BrowserServicesKit", "BookmarksModel.xcdatamodeld", "BookmarksModel 5.xcdatamodel", "", 1, 7, 4, 0, 3, 0,
            0, 0, 0, 0),
        Row(
            "BrowserServicesKit", "BookmarksModel.xcdatamodeld", "BookmarksModel 6.xcdatamodel", "yes", 1, 8, 4, 0, 3,
            0, 0, 0, 0, 0),
        Row(
            "Core-Data-Editor", "simple_no_inverse.xcdatamodeld", "simple_no_inverse.xcdatamodel", "", 3, 1, 1, 0, 0, 0,
            0, 0, 0, 1),
        Row(
            "CoreDataPlus", "SampleModel.xcdatamodeld", "SampleModel.xcdatamodel", "yes", 4, 12, 2, 0, 0, 2, 0, 0, 0, 2),
        Row("CoreDataPlus", "SampleModel.xcdatamodeld", "SampleModel2.xcdatamodel", "", 4, 8, 2, 0, 1, 2, 0, 0, 0, 2),
        Row("CoreDataPlus", "SampleModel.xcdatamodeld", "SampleModel3.xcdatamodel", "", 5, 8, 6, 0, 0, 3, 0, 0, 0, 2),
        Row("CoreStore", "Model.xcdatamodeld", "Model.xcdatamodel", "", 2, 16, 4, 0, 0, 0, 2, 0, 0, 0),
        Row("LoopKit", "Model.xcdatamodeld", "Model.xcdatamodel", "", 6, 50, 0, 0, 12, 8, 0, 0, 0, 0),
        Row("LoopKit", "Model.xcdatamodeld", "Modelv4.xcdatamodel", "yes", 8, 85, 0, 0, 15, 6, 0, 0, 0, 0),
        Row("Maccy", "Storage.xcdatamodeld", "Storage.xcdatamodel", "", 2, 8, 2, 0, 0, 0, 0, 0, 0, 0),
        Row("MagicalRecord", "TestModel.xcdatamodeld", "TestModel.xcdatamodel", "", 12, 29, 9, 0, 0, 0, 0, 0, 1, 1),
        Row("mogenerator", "test.xcdatamodel", "test.xcdatamodel", "bare", 9, 24, 4, 0, 0, 0, 0, 5, 0, 5),
        Row(
            "objcio-core-data-Chapter-1.2", "Moody.xcdatamodeld", "Moody.xcdatamodel", "", 4, 6, 4, 0, 0, 0, 0, 0, 1, 2),
        Row(
            "objcio-core-data-Migrations", "Moody.xcdatamodeld", "Moody.xcdatamodel", "", 4, 14, 4, 0, 0, 1, 0, 0, 1, 2),
        Row(
            "objcio-core-data-Migrations", "Moody.xcdatamodeld", "Moody 2.xcdatamodel", "", 4, 15, 4, 0, 0, 1, 0, 0, 1,
            2),
        Row(
            "objcio-core-data-Migrations", "Moody.xcdatamodeld", "Moody 3.xcdatamodel", "", 4, 15, 6, 0, 0, 1, 0, 0, 1,
            2),
        Row(
            "objcio-core-data-Migrations", "Moody.xcdatamodeld", "Moody 4.xcdatamodel", "", 3, 20, 6, 0, 0, 2, 0, 0, 0,
            0),
        Row(
            "objcio-core-data-Migrations", "Moody.xcdatamodeld", "Moody 5.xcdatamodel", "", 2, 15, 2, 0, 0, 1, 0, 0, 0,
            0),
        Row(
            "objcio-core-data-Migrations", "Moody.xcdatamodeld", "Moody 6.xcdatamodel", "yes", 3, 15, 4, 0, 0, 1, 0, 0,
            0, 0),
        Row("SwiftGen", "Model.xcdatamodeld", "Model.xcdatamodel", "", 3, 14, 6, 0, 0, 0, 0, 0, 0, 1),
        Row("SwiftGen", "Model.xcdatamodeld", "Model 2.xcdatamodel", "yes", 8, 32, 6, 1, 1, 1, 1, 3, 1, 2),
        Row(
            "Sync", "151-ordered-many-to-many.xcdatamodeld", "151-many-to-many.xcdatamodel", "yes", 2, 4, 2, 0, 0, 0, 0,
            0, 0, 0),
        Row("wikipedia-ios", "Wikipedia.xcdatamodeld", "Wikipedia.xcdatamodel", "", 6, 73, 8, 0, 22, 0, 0, 0, 0, 0),
        Row("wikipedia-ios", "Wikipedia.xcdatamodeld", "Wikipedia 2.xcdatamodel", "", 10, 92, 14, 0, 24, 0, 0, 0, 0, 0),
        Row("wikipedia-ios", "Wikipedia.xcdatamodeld", "Wikipedia 3.xcdatamodel", "", 10, 96, 14, 0, 23, 0, 0, 0, 0, 0),
        Row("wikipedia-ios", "Wikipedia.xcdatamodeld", "Wikipedia 4.xcdatamodel", "", 10, 95, 14, 0, 23, 0, 0, 0, 0, 0),
        Row("wikipedia-ios", "Wikipedia.xcdatamodeld", "Wikipedia 5.xcdatamodel", "", 10, 97, 14, 0, 23, 0, 0, 0, 0, 0),
        Row(
            "wikipedia-ios", "Wikipedia.xcdatamodeld", "Wikipedia 6.xcdatamodel", "yes", 10, 99, 14, 0, 23, 0, 0, 0, 0,
            0),
    ]

    /// Loaded bundles by path, so the rows of one bundle load it once.
    private static let loaded = Mutex<[String: [ModelVersion]]>([:])

    private static func versions(of row: Row) throws -> [ModelVersion] {
        let url = SharedModels.url(row.folder, row.bundle)
        if let cached = loaded.withLock({ $0[url.path] }) { return cached }
        let versions = try ManagedObjectModel.versions(contentsOf: url)
        loaded.withLock { $0[url.path] = versions }
        return versions
    }

    @Test("the table covers every model folder of the shared set")
    func tableCoversEveryFolder() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: SharedModels.directory.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
        #expect(Set(folders) == Set(Self.table.map(\.folder)))
    }

    @Test(
        "every bundle lists the table's versions, in version order",
        arguments: Set(table.map { "\($0.folder)/\($0.bundle)" }).sorted())
    func versionsInOrder(bundle: String) throws {
        let rows = Self.table.filter { "\($0.folder)/\($0.bundle)" == bundle }
        let versions = try Self.versions(of: rows[0])
        #expect(versions.map { $0.name + ".xcdatamodel" } == rows.map(\.version))
        #expect(versions.filter(\.isCurrent).count == 1)
    }

    @Test("each version loads with the README's counts", arguments: table)
    func counts(row: Row) throws {
        let versions = try Self.versions(of: row)
        let version = try #require(versions.first { $0.name + ".xcdatamodel" == row.version })
        #expect(version.declaredCounts == row.counts)

        // The built model agrees wherever it can tell the elements apart.
        let model = version.model
        #expect(model.entities.count == row.counts.entities)
        #expect(model.entities.map(\.declaredAttributes.count).reduce(0, +) == row.counts.attributes)
        #expect(model.entities.map(\.declaredRelationships.count).reduce(0, +) == row.counts.relationships)
        #expect(model.entities.map(\.fetchedProperties.count).reduce(0, +) == row.counts.fetchedProperties)
        #expect(model.entities.map(\.uniquenessConstraints.count).reduce(0, +) == row.counts.uniquenessConstraints)
        #expect(model.configurations.count == row.counts.configurations)
        #expect(model.fetchRequestTemplatesByName.count == row.counts.fetchRequests)
        #expect(model.entities.filter(\.isAbstract).count == row.counts.abstractEntities)
        #expect(model.entities.filter { $0.superentity != nil }.count == row.counts.subentities)
    }

    @Test("the current version is the one .xccurrentversion names, else the only one", arguments: table)
    func currentVersion(row: Row) throws {
        let versions = try Self.versions(of: row)
        let version = try #require(versions.first { $0.name + ".xcdatamodel" == row.version })
        let marker = SharedModels.url(row.folder, row.bundle).appendingPathComponent(".xccurrentversion")
        switch row.current {
        case "yes", "bare": #expect(version.isCurrent)
        default:
            // The README leaves "current" blank without a .xccurrentversion; a lone version is still current.
            let onlyVersionWithoutMarker = versions.count == 1 && !FileManager.default.fileExists(atPath: marker.path)
            #expect(version.isCurrent == onlyVersionWithoutMarker)
        }
    }

    @Test("ManagedObjectModel(contentsOf:) loads the current version")
    func contentsOfLoadsCurrent() throws {
        // CoreDataPlus names its first version current; the newest has five entities, the current four.
        let model = try ManagedObjectModel(contentsOf: SharedModels.url("CoreDataPlus", "SampleModel.xcdatamodeld"))
        let versions = try ManagedObjectModel.versions(
            contentsOf: SharedModels.url("CoreDataPlus", "SampleModel.xcdatamodeld"))
        #expect(versions.map(\.name) == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(model.entities.count == 4)
        #expect(model.entityVersionHashesByName == versions[0].model.entityVersionHashesByName)
        #expect(model.entityVersionHashesByName != versions[2].model.entityVersionHashesByName)
        // Sync: the version's name is not the bundle's.
        let sync = try ManagedObjectModel.versions(
            contentsOf: SharedModels.url("Sync", "151-ordered-many-to-many.xcdatamodeld"))
        #expect(sync.map(\.name) == ["151-many-to-many"] && sync[0].isCurrent)
    }
}
