import Foundation
import ObjectStack
import Testing

/// `ModelDifference` (what `stacklab model` reports) and `StoreMigrator` agree on what a lightweight migration
/// covers: for every pair of models, the migrator migrates a store exactly when the difference says it is
/// lightweight, and refuses with the difference's reasons otherwise.
@Suite("Migration verdict")
struct MigrationVerdictTests {
    static let fileKinds: [StoreType] = [.sqlite, .lmdb]

    /// The shared real model files with more than one version, found beside the repository.
    static var sharedModelBundles: [URL] {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        var directory = URL(fileURLWithPath: "/work/shared/models", isDirectory: true)
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/models", isDirectory: true)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                directory = candidate
                break
            }
            folder.deleteLastPathComponent()
        }
        let projects =
            (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return projects.flatMap { project in
            ((try? FileManager.default.contentsOfDirectory(at: project, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "xcdatamodeld" }
        }.sorted { $0.path < $1.path }
    }

    enum Outcome: Equatable {
        case migrated
        case refused(String)
    }

    /// Runs the migrator on the store at `url` (written with `from`) and says how it went.
    private func migrate(_ kind: StoreType, _ url: URL, from: ManagedObjectModel, to: ManagedObjectModel) throws
        -> Outcome
    {
        do {
            let migrated = try StoreMigrator(type: kind, url: url, destinationModel: to, sourceModels: [from])
                .migrateIfNeeded()
            #expect(migrated || ModelDifference(from: from, to: to).differingEntityNames.isEmpty)
            return .migrated
        } catch let error as StoreError where error.code == .incompatibleModel {
            return .refused(error.message)
        }
    }

    /// Checks that the outcome is the difference's verdict, with its reasons in the refusal.
    private func expectAgreement(
        _ outcome: Outcome, _ difference: ModelDifference, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch outcome {
        case .migrated:
            #expect(
                difference.isLightweightMigratable,
                "\(label): the migrator migrated, but the difference says: \(difference.reasonsNotLightweight)",
                sourceLocation: sourceLocation)
        case .refused(let message):
            #expect(
                !difference.isLightweightMigratable,
                "\(label): the migrator refused (\(message)), but the difference says lightweight",
                sourceLocation: sourceLocation)
            for reason in difference.reasonsNotLightweight {
                #expect(
                    message.contains(reason), "\(label): \(reason) missing from \(message)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "each version step of the shared real models: an empty store migrates exactly when lightweight",
        arguments: fileKinds)
    func sharedModelHistories(kind: StoreType) throws {
        var steps = 0
        var lightweight = 0
        for bundle in Self.sharedModelBundles {
            let versions = try ManagedObjectModel.versions(contentsOf: bundle)
            for (previous, next) in zip(versions, versions.dropFirst()) {
                let url = kind.newLocation()
                let stack = try TestStack(kind, model: previous.model, location: url)
                try stack.coordinator.remove(stack.store)
                let difference = ModelDifference(from: previous.model, to: next.model)
                let outcome = try migrate(kind, url, from: previous.model, to: next.model)
                expectAgreement(outcome, difference, "\(bundle.lastPathComponent): \(previous.name) -> \(next.name)")
                if outcome == .migrated {
                    lightweight += 1
                    // The migrated store opens with the new model.
                    let after = try TestStack(kind, model: next.model, location: url)
                    try after.coordinator.remove(after.store)
                }
                steps += 1
            }
        }
        // The shared set has version histories with both kinds of step (e.g. Moody's hierarchy change).
        #expect(steps >= 10)
        #expect(lightweight > 0 && lightweight < steps)
    }

    /// A version-1 library store with the seed data, closed again.
    private func seededStore(_ kind: StoreType) throws -> URL {
        let stack = try TestStack(kind, model: try MigrationModels.base())
        try MigrationModels.seed(stack.newContext())
        try stack.coordinator.remove(stack.store)
        return stack.location
    }

    /// The changes of the hand-made pairs, each from version 1, by name; built fresh each time (a model owns
    /// its descriptions).
    static func variations() -> [String: MigrationModels.Changes] {
        var all: [String: MigrationModels.Changes] = [:]
        var toMany = MigrationModels.Changes()
        toMany.bookAuthorIsToMany = true
        toMany.bookAuthorName = "authors"
        toMany.bookAuthorRenamingIdentifier = "author"
        all["to-one made to-many"] = toMany
        var parent = MigrationModels.Changes()
        parent.authorParent = "Person"
        parent.authorAttributes = [
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer32),
        ]
        parent.extraEntities = [
            EntityDescription(
                name: "Person",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false)
                ])
        ]
        all["a new parent entity, a property moved up"] = parent
        var merged = MigrationModels.Changes()
        merged.authorParent = "Thing"
        merged.tagParent = "Thing"
        merged.extraEntities = [EntityDescription(name: "Thing", isAbstract: true)]
        all["two hierarchies merged"] = merged
        var requiredWithoutDefault = MigrationModels.Changes()
        requiredWithoutDefault.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string, isOptional: false),
            AttributeDescription(name: "rating", type: .integer32),
        ]
        all["optional made required without a default"] = requiredWithoutDefault
        var typeChange = MigrationModels.Changes()
        typeChange.bookAttributes = [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            AttributeDescription(name: "isbn", type: .integer64),
        ]
        all["a type change"] = typeChange
        var newRequired = MigrationModels.Changes()
        newRequired.authorExtraRelationships = [
            RelationshipDescription(name: "favourite", destination: "Tag", isOptional: false)
        ]
        all["a new required relationship"] = newRequired
        var newOptional = MigrationModels.Changes()
        newOptional.authorExtraRelationships = [RelationshipDescription(name: "favourite", destination: "Tag")]
        newOptional.extraEntities = [
            EntityDescription(
                name: "Publisher",
                relationships: [
                    RelationshipDescription(name: "home", destination: "Tag", isOptional: false)
                ])
        ]
        all["a new optional relationship, a new entity with a required one"] = newOptional
        var newOwner = MigrationModels.Changes()
        newOwner.bookTagsName = "labels"
        all["a many-to-many whose owning side is new"] = newOwner
        var constraint = MigrationModels.Changes()
        constraint.bookConstraints = [["isbn"]]
        constraint.bookIndexes = [IndexDescription(name: "byTitle", attributeNames: ["title"])]
        all["a constraint and an index"] = constraint
        return all
    }

    @Test(
        "hand-made pairs with data: migrated exactly when the difference says lightweight",
        arguments: fileKinds, variations().keys.sorted())
    func handMadePairs(kind: StoreType, variation: String) throws {
        let url = try seededStore(kind)
        let base = try MigrationModels.base()
        let target = try MigrationModels.make(Self.variations()[variation]!)
        let difference = ModelDifference(from: base, to: target)
        let outcome = try migrate(kind, url, from: base, to: target)
        expectAgreement(outcome, difference, variation)
        if case .refused = outcome {
            let old = try TestStack(kind, model: base, location: url)
            #expect(try old.newContext().performAndWait { try old.newContext().count("Book") } == 24)
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
    }

    @Test("a to-one made to-many keeps each object's related object, now as a one-element set", arguments: fileKinds)
    func toOneToToMany(kind: StoreType) throws {
        let url = try seededStore(kind)
        let target = try MigrationModels.make(Self.variations()["to-one made to-many"]!)
        #expect(try migrate(kind, url, from: try MigrationModels.base(), to: target) == .migrated)
        let stack = try TestStack(kind, model: target, location: url)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let books = try context.all(ManagedObject.self, "Book")
            #expect(books.count == 24)
            for book in books {
                let title = book.value(forKey: "title") as? String ?? ""
                let authors = (book.value(forKey: "authors") as? Set<ManagedObject> ?? []).map {
                    $0.value(forKey: "name") as? String ?? ""
                }
                // "Book 4-1" was written by "Author 4".
                let number = title.dropFirst("Book ".count).split(separator: "-").first.map(String.init) ?? ""
                #expect(authors == ["Author \(number)"], "\(title)")
            }
            for author in try context.all(ManagedObject.self, "Author") {
                #expect((author.value(forKey: "books") as? Set<ManagedObject>)?.count == 2)
            }
        }
        try stack.coordinator.remove(stack.store)
    }

    @Test(
        "a new parent entity: the objects keep their keys and values and are fetched through the parent",
        arguments: fileKinds)
    func newParentEntity(kind: StoreType) throws {
        let url = try seededStore(kind)
        let base = try MigrationModels.base()
        let before = try TestStack(kind, model: base, location: url)
        let keys = try before.newContext().performAndWait {
            try Set(before.newContext().all(ManagedObject.self, "Author").compactMap(\.objectID.primaryKey))
        }
        try before.coordinator.remove(before.store)
        let target = try MigrationModels.make(Self.variations()["a new parent entity, a property moved up"]!)
        #expect(try migrate(kind, url, from: base, to: target) == .migrated)
        let stack = try TestStack(kind, model: target, location: url)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let people = try context.all(ManagedObject.self, "Person")
            #expect(people.count == 12 && people.allSatisfy { $0.entity.name == "Author" })
            #expect(Set(people.compactMap(\.objectID.primaryKey)) == keys)
            #expect(
                Set(people.map { $0.value(forKey: "name") as? String ?? "" }) == Set((0..<12).map { "Author \($0)" }))
            let book = try #require(try context.all(ManagedObject.self, "Book", where: "title == %@", "Book 7-1").first)
            #expect((book.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String == "Author 7")
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue("Someone", forKey: "name")
            try context.save()
            #expect(try context.count("Person") == 13)
        }
        try stack.coordinator.remove(stack.store)
    }

    @Test(
        "a many-to-many whose owning side is new keeps its links, read through the side that was there",
        arguments: fileKinds)
    func newOwningSide(kind: StoreType) throws {
        let url = try seededStore(kind)
        let target = try MigrationModels.make(Self.variations()["a many-to-many whose owning side is new"]!)
        // Book.labels sorts before Tag.books, so it owns the join table; Book.tags it replaces is removed.
        #expect(target.entitiesByName["Book"]?.relationshipsByName["labels"]?.joinTableOwner.name == "labels")
        #expect(try migrate(kind, url, from: try MigrationModels.base(), to: target) == .migrated)
        let stack = try TestStack(kind, model: target, location: url)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for tag in try context.all(ManagedObject.self, "Tag") {
                let titles = (tag.value(forKey: "books") as? Set<ManagedObject> ?? []).map {
                    $0.value(forKey: "title") as? String ?? ""
                }
                #expect(Set(titles) == Set((0..<12).map { "Book \($0)-0" }))
            }
            for book in try context.all(ManagedObject.self, "Book") {
                let labels = (book.value(forKey: "labels") as? Set<ManagedObject>)?.count
                #expect(labels == ((book.value(forKey: "title") as? String)?.hasSuffix("-0") == true ? 2 : 0))
            }
        }
        try stack.coordinator.remove(stack.store)
    }
}
