import Foundation
import ObjectStack
import Testing

/// What changes between model versions, and whether a lightweight migration covers it.
@Suite("Model difference")
struct ModelDifferenceTests {
    static func versions(_ folder: String, _ bundle: String) throws -> [ManagedObjectModel] {
        try ManagedObjectModel.versions(contentsOf: SharedModels.url(folder, bundle)).map(\.model)
    }

    @Test("an attribute renamed through elementID and one added (objc.io Moody -> Moody 2)")
    func renameAndAdd() throws {
        let moody = try Self.versions("objcio-core-data-Migrations", "Moody.xcdatamodeld")
        let difference = ModelDifference(from: moody[0], to: moody[1])
        #expect(
            Set(difference.changes) == [
                .attributeAdded(entity: "Mood", attribute: "rating"),
                .attributeRenamed(entity: "Mood", from: "remoteIdentifier", to: "remoteID"),
            ])
        #expect(difference.isLightweightMigratable && !difference.isEmpty)
        #expect(difference.differingEntityNames == ["Mood"])
        let mood = try #require(difference.entityMappings.first { $0.destination.name == "Mood" })
        #expect(mood.sourcePropertyNames["remoteID"] == "remoteIdentifier")
        #expect(mood.sourcePropertyNames["rating"] == nil)
        #expect(mood.sourcePropertyNames["date"] == "date")
    }

    @Test("a hierarchy flattened: parents change, the abstract parent goes, nothing else (Moody 3 -> Moody 4)")
    func hierarchyChange() throws {
        let moody = try Self.versions("objcio-core-data-Migrations", "Moody.xcdatamodeld")
        let difference = ModelDifference(from: moody[2], to: moody[3])
        #expect(
            difference.changes == [
                .entityParentChanged(entity: "Continent", from: "GeographicRegion", to: nil),
                .entityParentChanged(entity: "Country", from: "GeographicRegion", to: nil),
                .entityRemoved(entity: "GeographicRegion"),
            ])
        #expect(difference.isLightweightMigratable)
    }

    @Test("an entity renamed through its renaming identifier (CoreDataPlus)")
    func entityRename() throws {
        let sample = try Self.versions("CoreDataPlus", "SampleModel.xcdatamodeld")
        let difference = ModelDifference(from: sample[0], to: sample[1])
        #expect(difference.changes.contains(.entityRenamed(from: "ExpensiveSportCar", to: "LuxuryCar")))
        #expect(!difference.changes.contains(.entityAdded(entity: "LuxuryCar")))
        #expect(
            difference.entityMappings.first { $0.destination.name == "LuxuryCar" }?.source.name == "ExpensiveSportCar")
        #expect(difference.changes.contains(.indexAdded(entity: "Car", attributes: ["maker", "numberPlate"])))
    }

    @Test("to-one to to-many is lightweight, as in Core Data (BrowserServicesKit 3 -> 4)")
    func toOneToToMany() throws {
        let bookmarks = try Self.versions("BrowserServicesKit", "BookmarksModel.xcdatamodeld")
        let difference = ModelDifference(from: bookmarks[2], to: bookmarks[3])
        #expect(
            difference.changes == [
                .relationshipRenamed(entity: "BookmarkEntity", from: "favoriteFolder", to: "favoriteFolders"),
                .relationshipCardinalityChanged(
                    entity: "BookmarkEntity", relationship: "favoriteFolders", isToMany: true),
            ])
        #expect(difference.isLightweightMigratable)
        // Back again is not.
        let back = ModelDifference(from: bookmarks[3], to: bookmarks[2])
        // The folder's favourites would then be kept through that to-one, which held none of them.
        #expect(
            back.reasonsNotLightweight == [
                "relationship BookmarkEntity.favoriteFolder changes from to-many to to-one",
                "relationship BookmarkEntity.favorites would lose its objects: the new model keeps it through its "
                    + "to-one inverse BookmarkEntity.favoriteFolder, which did not hold them before",
            ])
    }

    @Test("the same model has no difference")
    func noDifference() throws {
        let first = try ManagedObjectModel(contentsOf: SharedModels.url("Maccy", "Storage.xcdatamodeld"))
        let second = try ManagedObjectModel(contentsOf: SharedModels.url("Maccy", "Storage.xcdatamodeld"))
        let difference = ModelDifference(from: first, to: second)
        #expect(difference.isEmpty && difference.changes.isEmpty && difference.isLightweightMigratable)
        #expect(difference.description == "no changes")
        #expect(difference.entityMappings.count == 2)
    }

    static func model(
        _ attributes: [AttributeDescription], relationships: [RelationshipDescription] = [],
        constraints: [[String]] = [], indexes: [IndexDescription] = []
    ) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item", attributes: attributes, relationships: relationships,
                uniquenessConstraints: constraints, indexes: indexes),
            EntityDescription(
                name: "Box",
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "box", isToMany: true)
                ]),
            EntityDescription(name: "Shelf"),
        ])
    }

    /// A fresh description each time: a description belongs to one model.
    static var box: RelationshipDescription {
        RelationshipDescription(name: "box", destination: "Box", inverse: "items")
    }

    @Test("what a lightweight migration cannot infer is listed")
    func notLightweight() throws {
        let base = try Self.model([AttributeDescription(name: "name", type: .string)], relationships: [Self.box])
        let changed = try Self.model(
            [
                AttributeDescription(name: "name", type: .integer64),
                AttributeDescription(name: "count", type: .integer32, isOptional: false),
            ],
            relationships: [
                RelationshipDescription(name: "box", destination: "Box", inverse: "items", isOptional: false)
            ])
        let difference = ModelDifference(from: base, to: changed)
        #expect(!difference.isLightweightMigratable)
        #expect(
            difference.reasonsNotLightweight == [
                "attribute Item.name changes type from string to integer64",
                "attribute Item.count is added as required without a default value",
                "relationship Item.box becomes required: existing objects may have none",
            ])
        #expect(difference.differingEntityNames == ["Item"])
    }

    @Test("optional to required is lightweight only with a default value")
    func optionalToRequired() throws {
        let optional = try Self.model([AttributeDescription(name: "rank", type: .integer16)], relationships: [Self.box])
        let withDefault = try Self.model(
            [AttributeDescription(name: "rank", type: .integer16, isOptional: false, defaultValue: 0)],
            relationships: [Self.box])
        let withoutDefault = try Self.model(
            [AttributeDescription(name: "rank", type: .integer16, isOptional: false)], relationships: [Self.box])
        let good = ModelDifference(from: optional, to: withDefault)
        #expect(good.changes == [.attributeOptionalityChanged(entity: "Item", attribute: "rank", isOptional: false)])
        #expect(good.isLightweightMigratable)
        #expect(
            ModelDifference(from: optional, to: withoutDefault).reasonsNotLightweight
                == ["attribute Item.rank becomes required without a default value"])
        #expect(ModelDifference(from: withoutDefault, to: optional).isLightweightMigratable)
    }

    @Test("indexes and constraints added and removed; a new destination is not lightweight")
    func indexesConstraintsAndDestination() throws {
        let plain = try Self.model([AttributeDescription(name: "code", type: .string)], relationships: [Self.box])
        let indexed = try Self.model(
            [AttributeDescription(name: "code", type: .string)], relationships: [Self.box],
            constraints: [["code"]], indexes: [IndexDescription(name: "byCode", attributeNames: ["code"])])
        let added = ModelDifference(from: plain, to: indexed)
        #expect(
            added.changes == [
                .indexAdded(entity: "Item", attributes: ["code"]),
                .uniquenessConstraintAdded(entity: "Item", attributes: ["code"]),
            ])
        #expect(added.isLightweightMigratable && !added.isEmpty)
        // Version hashes cover indexes and constraints: a store must build or drop them, so it migrates.
        #expect(added.differingEntityNames == ["Item"])
        #expect(
            ModelDifference(from: indexed, to: plain).changes == [
                .indexRemoved(entity: "Item", attributes: ["code"]),
                .uniquenessConstraintRemoved(entity: "Item", attributes: ["code"]),
            ])

        let moved = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item", attributes: [AttributeDescription(name: "code", type: .string)],
                relationships: [RelationshipDescription(name: "box", destination: "Shelf")]),
            EntityDescription(name: "Box"),
            EntityDescription(name: "Shelf"),
        ])
        let difference = ModelDifference(from: plain, to: moved)
        #expect(
            difference.reasonsNotLightweight.contains("relationship Item.box changes destination from Box to Shelf"))
        #expect(difference.changes.contains(.relationshipRemoved(entity: "Box", relationship: "items")))
    }
}
