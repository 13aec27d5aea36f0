import Foundation
import ObjectStack
import Testing

/// What the reader makes of each quirk the shared models README lists.
@Suite("Model files: features and quirks of real files")
struct ModelFileFeatureTests {
    @Test("'No Action' with a space, and a relationship without an inverse (Core-Data-Editor)")
    func noActionAndNoInverse() throws {
        let model = try ManagedObjectModel(
            contentsOf: SharedModels.url("Core-Data-Editor", "simple_no_inverse.xcdatamodeld"))
        let employee = try #require(model.entitiesByName["Employee"])
        let friend = try #require(employee.relationshipsByName["friend"])
        #expect(friend.deleteRule == .noAction)
        #expect(friend.inverse == nil && !friend.isToMany)
        #expect(employee.superentity?.name == "Person")
    }

    @Test("delete rules, ordered and many-to-many relationships, self-references (BrowserServicesKit)")
    func relationshipShapes() throws {
        let model = try ManagedObjectModel(
            contentsOf: SharedModels.url("BrowserServicesKit", "BookmarksModel.xcdatamodeld"))
        let entity = try #require(model.entitiesByName["BookmarkEntity"])
        let children = try #require(entity.relationshipsByName["children"])
        #expect(children.isToMany && children.isOrdered && children.deleteRule == .cascade)
        #expect(children.inverse?.name == "parent" && children.destinationEntity === entity)
        let favorites = try #require(entity.relationshipsByName["favorites"])
        #expect(favorites.inverse?.name == "favoriteFolders" && favorites.inverse?.isToMany == true)
    }

    @Test("elementID is the renaming identifier (LoopKit, objc.io)")
    func elementIDRenames() throws {
        let model = try ManagedObjectModel(contentsOf: SharedModels.url("LoopKit", "Model.xcdatamodeld"))
        let carbs = try #require(model.entitiesByName["CachedCarbObject"])
        #expect(carbs.attributesByName["anchorKey"]?.renamingIdentifier == "modificationCounter")
        let moody = try ManagedObjectModel(
            contentsOf: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"))
        #expect(moody.entitiesByName["Mood"]?.attributesByName["remoteID"]?.renamingIdentifier == "remoteIdentifier")
    }

    @Test("legacy compoundIndexes become indexes and indexed=\"YES\" indexes the attribute (objc.io Moody 6)")
    func legacyIndexes() throws {
        let model = try ManagedObjectModel(
            contentsOf: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"))
        let mood = try #require(model.entitiesByName["Mood"])
        #expect(mood.indexes.map(\.attributeNames) == [["markedForRemoteDeletion", "markedForDeletionDate", "date"]])
        #expect(mood.attributesByName["remoteID"]?.isIndexed == true)
        #expect(mood.attributesByName["date"]?.isIndexed == false)
        let country = try #require(model.entitiesByName["Country"])
        #expect(country.uniquenessConstraints == [["numericISO3166Code", "uniquenessDummy"]])
    }

    @Test("a fetch index naming a relationship keeps its attributes and says so (wikipedia-ios)")
    func fetchIndexOnRelationship() throws {
        let versions = try ManagedObjectModel.versions(
            contentsOf: SharedModels.url("wikipedia-ios", "Wikipedia.xcdatamodeld"))
        let current = try #require(versions.last)
        #expect(current.isCurrent && current.name == "Wikipedia 6")
        let entry = try #require(current.model.entitiesByName["ReadingListEntry"])
        let index = try #require(entry.indexes.first { $0.name == "byListAndDeletedLocallyIndex" })
        #expect(index.attributeNames == ["isDeletedLocally"])
        #expect(
            current.notes.map(\.element).sorted()
                == ["fetchIndexElement property=\"list\"", "fetchIndexElement property=\"readingLists\""])
        #expect(current.notes.allSatisfy { $0.file.hasSuffix("Wikipedia 6.xcdatamodel/contents") && $0.line > 0 })
    }

    @Test("attribute types, defaults and a transformable without a transformer name (SwiftGen, mogenerator)")
    func typesAndDefaults() throws {
        let model = try ManagedObjectModel(contentsOf: SharedModels.url("SwiftGen", "Model.xcdatamodeld"))
        let main = try #require(model.entitiesByName["MainEntity"])
        let types = Dictionary(uniqueKeysWithValues: main.declaredAttributes.map { ($0.name, $0.type) })
        #expect(types["int16"] == .integer16 && types["int32"] == .integer32 && types["int64"] == .integer64)
        #expect(types["decimal"] == .decimal && types["double"] == .double && types["float"] == .float)
        #expect(types["boolean"] == .boolean && types["date"] == .date && types["binaryData"] == .binaryData)
        #expect(types["uuid"] == .uuid && types["uri"] == .uri && types["transformable"] == .transformable)
        #expect(main.attributesByName["decimal"]?.defaultValue == .decimal(0))
        #expect(main.attributesByName["int16"]?.defaultValue == .integer(0))
        #expect(main.attributesByName["transient"]?.isTransient == true)
        #expect(main.attributesByName["transformable"]?.valueTransformerName == "NSKeyedUnarchiveFromData")

        let wikipedia = try ManagedObjectModel(contentsOf: SharedModels.url("wikipedia-ios", "Wikipedia.xcdatamodeld"))
        let dated = wikipedia.entities.flatMap(\.declaredAttributes).filter {
            if case .date = $0.defaultValue { return true }
            return false
        }
        // defaultDateTimeInterval="582233760" (seconds since 2001).
        #expect(
            !dated.isEmpty
                && dated.allSatisfy { $0.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 582_233_760)) })
    }

    final class Human: ManagedObject {}

    @Test("a class map gives entities their classes; representedClassName is recorded")
    func classMap() throws {
        let model = try ManagedObjectModel(
            contentsOf: SharedModels.url("mogenerator", "test.xcdatamodel"),
            managedObjectClasses: ["Human": Human.self])
        #expect(model.entitiesByName["Human"]?.managedObjectClass == Human.self)
        #expect(model.entitiesByName["Parent"]?.managedObjectClass == ManagedObject.self)
        #expect(model.entitiesByName["Human"]?.representedClassName == "HumanMO")
    }

    @Test("version order compares a trailing number as a number")
    func versionOrder() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let bundle = files.folder.appendingPathComponent("Order.xcdatamodeld")
        for name in ["Order 10", "Order 2", "Order", "Order 9"] {
            let version = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(TemporaryModelFile.xml("<entity name=\"E\"/>").utf8).write(
                to: version.appendingPathComponent("contents"))
        }
        let versions = try ManagedObjectModel.versions(contentsOf: bundle)
        #expect(versions.map(\.name) == ["Order", "Order 2", "Order 9", "Order 10"])
        #expect(versions.map(\.isCurrent) == [false, false, false, true])
    }
}
