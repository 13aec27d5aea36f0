import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

@testable import LabWorkloads

/// Issue 56's done-when, on the stores Core Data wrote: every older store walks its bundle's history to the newest
/// version (`StoreFileMigration`, what `stacklab store migrate` runs), a step the repository ships a mapping model for
/// runs it, a lightweight step keeps every row and value, and a step given Core Data's hashes of its target carries
/// exactly them.
@Suite("Store files walk their bundle's history", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct StoreFileHistoryTests {
    /// A corpus store with its bundle's versions.
    struct Case: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        let store: CoreDataStoreCorpus.Store
        let bundle: URL
        let versions: [ModelVersion]
        /// The store's version, as the manifest names it.
        let index: Int
        var testDescription: String { "\(store) (\(versions[index].name) of \(versions.count))" }
        var description: String { testDescription }
    }

    /// Stores Core Data wrote at versions k and k+1 of one bundle.
    struct Pair: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        let earlier: Case, later: Case
        var testDescription: String { "\(earlier) -> \(later)" }
        var description: String { testDescription }
    }

    /// Every store the manifest says a bundle's version wrote, with that bundle's versions (read once per bundle).
    static let cases: [Case] = {
        var loaded: [URL: [ModelVersion]] = [:]
        return (CoreDataStoreCorpus.shared?.stores ?? []).compactMap { store in
            guard let bundle = store.bundle, let name = store.versionName else { return nil }
            if loaded[bundle] == nil { loaded[bundle] = try? ManagedObjectModel.versions(contentsOf: bundle) }
            guard let versions = loaded[bundle], let index = versions.firstIndex(where: { $0.name == name }) else {
                return nil
            }
            return Case(store: store, bundle: bundle, versions: versions, index: index)
        }
    }()

    /// The stores of an older version than their bundle's newest.
    static let older = cases.filter { $0.index < $0.versions.count - 1 }

    /// Pairs of stores Core Data wrote at versions k and k+1 of one bundle.
    static let consecutive: [Pair] = older.compactMap { earlier in
        cases.first { $0.bundle == earlier.bundle && $0.index == earlier.index + 1 }.map {
            Pair(earlier: earlier, later: $0)
        }
    }

    @Test("the corpus has older stores in every repository with a version history, and pairs k, k+1")
    func corpusShape() {
        #expect(Self.older.count >= 18, "\(Self.older.map(\.testDescription))")
        #expect(Self.consecutive.count >= 12, "\(Self.consecutive)")
    }

    @Test(
        "an older store walks to its newest version: mapping models where shipped, lightweight steps keep all",
        arguments: older)
    func walksToNewest(_ entry: Case) throws {
        let url = try entry.store.copy()
        let found = MappingModelSearch.mappingModels(near: entry.bundle)
        #expect(found.unreadable.isEmpty)
        let steps = StoreFileMigration.mappingModelSteps(
            found.models, policies: CorpusMigrationPolicies.policies(forFolder: entry.store.folder))
        var kinds: [String] = []
        // Step by step, each from the version matched in the file, so each step's rows and values can be compared.
        for index in entry.index..<(entry.versions.count - 1) {
            let (from, to) = (entry.versions[index], entry.versions[index + 1])
            let before = try StoreSnapshot(url, model: from.model)
            let migration = try StoreFileMigration(store: url, bundle: entry.bundle, to: to.name, stepMigration: steps)
            #expect(migration.versions[migration.startIndex].name == from.name, "the file is matched at its version")
            let result = try migration.run()
            let step = try #require(result.steps.first)
            #expect(result.steps.count == 1 && result.target == to.name)
            kinds.append(step.kind)
            let after = try StoreSnapshot(url, model: to.model)
            #expect(step.rows == after.totalRows)
            if let mapping = found.models.first(where: { $0.maps(from: from, to: to) }) {
                #expect(step.kind == "mapping model \(mapping.name)")
                continue
            }
            #expect(step.kind == "lightweight" || step.kind == "unchanged", "\(from.name) -> \(to.name)")
            // A lightweight step keeps every row of every entity it keeps, and every value of every attribute it
            // keeps (renamed by renaming identifier, of the same type and optionality).
            for entity in to.model.entities {
                guard let source = from.model.entitiesByName[entity.renamingIdentifier ?? entity.name] else {
                    continue
                }
                #expect(
                    after.rows[entity.name] == before.rows[source.name],
                    "\(from.name) -> \(to.name): \(source.name) -> \(entity.name)")
                for attribute in entity.attributes where !attribute.isTransient {
                    guard let old = source.attributesByName[attribute.renamingIdentifier ?? attribute.name],
                        !old.isTransient, old.type == attribute.type, old.isOptional == attribute.isOptional
                    else { continue }
                    #expect(
                        after.values[entity.name]?[attribute.name] == before.values[source.name]?[old.name],
                        "\(from.name) -> \(to.name): \(entity.name).\(attribute.name)")
                }
            }
        }
        let file = try CoreDataStoreFile(url: url)
        let newest = try #require(entry.versions.last)
        #expect(try file.matchVersion(in: entry.versions).version.name == newest.name)
        // Every step the repository ships a mapping model for ran it.
        let shipped = (entry.index..<(entry.versions.count - 1)).filter { index in
            found.models.contains { $0.maps(from: entry.versions[index], to: entry.versions[index + 1]) }
        }
        #expect(shipped.map { kinds[$0 - entry.index].hasPrefix("mapping model ") } == shipped.map { _ in true })
    }

    @Test("wibosco's version 1 store reaches version 4 with each post's color, renamed hexColor by a mapping model")
    func renameKeepsValues() throws {
        let entry = try #require(
            Self.older.first {
                $0.store.folder == "wibosco+CoreDataMigration-Example" && $0.index == 0
            })
        let url = try entry.store.copy()
        let before = try StoreSnapshot(url, model: entry.versions[0].model, keyedBy: "postID", in: "Post")
        let found = MappingModelSearch.mappingModels(near: entry.bundle)
        let result = try StoreFileMigration(
            store: url, bundle: entry.bundle,
            stepMigration: StoreFileMigration.mappingModelSteps(
                found.models, policies: CorpusMigrationPolicies.policies(forFolder: entry.store.folder))
        ).run()
        #expect(
            result.steps.map(\.kind) == [
                "mapping model Migration1to2", "mapping model Migration2to3", "lightweight",
            ])
        #expect(result.steps.map(\.rows) == [1001, 2002, 2002])
        let model = try #require(entry.versions.last).model
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(added) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let posts = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
            #expect(posts.count == 1001)
            var checked = 0
            for post in posts {
                let id = try #require(post.value(forKey: "postID") as? String)
                let color = post.value(forKey: "color") as? ManagedObject
                // Version 1's color went to version 2's hexColor (Migration1to2), then to a Color's hex.
                #expect(color?.value(forKey: "hex") as? String == before.keyed[id]?["color"])
                #expect("\(post.value(forKey: "date") ?? "nil")" == before.keyed[id]?["date"])
                #expect(post.value(forKey: "hide") as? Bool == false)
                checked += 1
            }
            #expect(checked == 1001)
            let one = try #require(
                posts.first { $0.value(forKey: "postID") as? String == "005C99F0-7144-4809-B63C-210D97466610" })
            #expect((one.value(forKey: "color") as? ManagedObject)?.value(forKey: "hex") as? String == "C74536")
        }
    }

    @Test(
        "k to k+1 with the hashes of Core Data's k+1 store carries exactly its hashes, digest and checksum",
        arguments: consecutive)
    func carriesCoreDatasHashes(_ pair: Pair) throws {
        let (earlier, later) = (pair.earlier, pair.later)
        let url = try earlier.store.copy()
        let reference = try later.store.copy()
        let found = MappingModelSearch.mappingModels(near: earlier.bundle)
        let migration = try StoreFileMigration(
            store: url, bundle: earlier.bundle, to: later.versions[later.index].name, hashes: reference,
            stepMigration: StoreFileMigration.mappingModelSteps(
                found.models, policies: CorpusMigrationPolicies.policies(forFolder: earlier.store.folder)))
        let result = try migration.run()
        #expect(result.hashesSource == reference.lastPathComponent)
        let keys = ["NSStoreModelVersionHashes", "NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey"]
        let migrated = try Self.metadata(url)
        let expected = try Self.metadata(reference)
        let hashes = try #require(expected["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(!hashes.isEmpty)
        #expect(migrated["NSStoreModelVersionHashes"] as? [String: Data] == hashes)
        // Older frameworks wrote no digest or checksum; then the migration writes the ones Core Data computes
        // from those hashes (CoreDataStoreFileTests checks the algorithms on the stores that carry them).
        let computed = try CoreDataVersionHashes(storeAt: reference)
        #expect(migrated[keys[1]] as? String == expected[keys[1]] as? String ?? computed.digest)
        #expect(migrated[keys[2]] as? String == expected[keys[2]] as? String ?? computed.checksum)
        if expected[keys[1]] != nil { #expect(expected[keys[1]] as? String == computed.digest) }
        #expect(migrated["ObjectStackWriter"] == nil)
        let file = try CoreDataStoreFile(url: url)
        #expect(!file.isWrittenByObjectStack && file.coreDataVersionHashes == hashes)
    }

    /// The store's metadata plist (`Z_METADATA.Z_PLIST`).
    static func metadata(_ url: URL) throws -> [String: Any] {
        let plist = try #require(try SQLiteFile(url).blobs("SELECT Z_PLIST FROM Z_METADATA").first ?? nil)
        return try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
    }
}

/// What a store holds, read through the stack: rows per entity (its own, not its sub-entities'), and per entity
/// and attribute the sorted values as text.
struct StoreSnapshot {
    var rows: [String: Int] = [:]
    var values: [String: [String: [String]]] = [:]
    /// With `keyedBy:`: per object of one entity, by that attribute, its attribute values as text.
    var keyed: [String: [String: String]] = [:]

    var totalRows: Int { rows.values.reduce(0, +) }

    init(_ url: URL, model: ManagedObjectModel, keyedBy key: String? = nil, in keyedEntity: String? = nil) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(added) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        var snapshot = self
        try context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                let objects = try context.fetch(request)
                snapshot.rows[entity.name] = objects.count
                let attributes = entity.attributes.filter { !$0.isTransient }
                for attribute in attributes {
                    snapshot.values[entity.name, default: [:]][attribute.name] =
                        objects.map { "\($0.value(forKey: attribute.name) ?? "nil")" }.sorted()
                }
                guard let key, entity.name == keyedEntity else { continue }
                for object in objects {
                    guard let id = object.value(forKey: key) as? String else { continue }
                    snapshot.keyed[id] = Dictionary(
                        uniqueKeysWithValues: attributes.map { ($0.name, "\(object.value(forKey: $0.name) ?? "nil")") })
                }
            }
        }
        self = snapshot
    }
}
