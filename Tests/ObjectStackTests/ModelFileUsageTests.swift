import Foundation
import ObjectStack
import Testing

/// A model loaded from a real file works: objects insert, save, fetch, relate and inherit as declared.
@Suite("Model files: a loaded model at work")
struct ModelFileUsageTests {
    final class MoodObject: ManagedObject {
        @Attribute("date") var date: Date?
    }

    /// A private-queue context on a fresh in-memory store of `model`.
    static func context(_ model: ManagedObjectModel, url: URL? = nil) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            type: .inMemory, at: url ?? URL(string: "memory://modelfile-\(UUID().uuidString)")!)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static var moody: URL { SharedModels.url("objcio-core-data-Chapter-1.2", "Moody.xcdatamodeld") }

    @Test("insert, save, fetch with predicates, relationships and inheritance (objc.io Moody)")
    func moodyWorks() throws {
        let model = try ManagedObjectModel(contentsOf: Self.moody, managedObjectClasses: ["Mood": MoodObject.self])
        let context = try Self.context(model)
        try context.performAndWait {
            let europe = try context.insertNewObject(forEntityName: "Continent")
            try europe.setValue(150, forKey: "numericISO3166Code")
            try europe.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "updatedAt")
            var countries: [ManagedObject] = []
            for code in [250, 276] {
                let country = try context.insertNewObject(forEntityName: "Country")
                try country.setValue(code, forKey: "numericISO3166Code")
                try country.setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "updatedAt")
                try country.setValue(europe, forKey: "continent")
                countries.append(country)
            }
            // Country.moods is a required to-many: each country needs a mood to save.
            var moodsByCountry: [MoodObject] = []
            for country in countries {
                let mood = try #require(try context.insertNewObject(forEntityName: "Mood") as? MoodObject)
                mood.date = Date(timeIntervalSinceReferenceDate: 2)
                try mood.setValue(country, forKey: "country")
                moodsByCountry.append(mood)
            }
            try context.save()

            // The inverse was kept: the continent lists both countries.
            #expect((europe.value(forKey: "countries") as? Set<ManagedObject>) == Set(countries))

            // A fetch of the abstract Region returns its sub-entities' objects.
            var regions = FetchRequest<ManagedObject>(entityName: "Region")
            regions.predicate = try FetchPredicate(format: "numericISO3166Code > %d", 200)
            regions.sortDescriptors = [SortKey("numericISO3166Code")]
            let found = try context.fetch(regions)
            #expect(found.map { $0.entity.name } == ["Country", "Country"])
            #expect(found.compactMap { ($0.value(forKey: "numericISO3166Code") as? NSNumber)?.intValue } == [250, 276])

            var moods = FetchRequest<ManagedObject>(entityName: "Mood")
            moods.predicate = try FetchPredicate(
                format: "country.numericISO3166Code == 276 AND country.continent.numericISO3166Code == 150")
            #expect(try context.fetch(moods).map(\.objectID) == [moodsByCountry[1].objectID])

            // Continent.countries has the Deny rule: deleting a continent with countries fails validation.
            context.delete(europe)
            let denied = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(denied.code == .validationFailed)
            #expect(denied.validationFailures.map(\.reason) == [.deleteDenied(count: 2)])
            context.rollback()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Continent")) == 1)
        }
    }

    @Test("an attribute without optional=\"YES\" is required")
    func missingOptionalMeansRequired() throws {
        let model = try ManagedObjectModel(contentsOf: Self.moody)
        let mood = try #require(model.entitiesByName["Mood"])
        #expect(mood.attributesByName["date"]?.isOptional == false)
        #expect(mood.attributesByName["latitude"]?.isOptional == true)
        #expect(mood.relationshipsByName["country"]?.isOptional == false)
        let context = try Self.context(model)
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "Mood")
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(Set(error.validationFailures.compactMap(\.key)) == ["date", "country"])
        }
    }

    @Test("an unregistered value transformer: the model loads, using the attribute names the transformer")
    func unregisteredTransformer() throws {
        // Moody's colors name ColorsTransformer. The lab's data generator registers a transformer for that name
        // in this process, so a copy names one nobody registers.
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let moody = try files.copy(of: Self.moody)
        let contents = moody.appendingPathComponent("Moody.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        try xml.replacingOccurrences(of: "\"ColorsTransformer\"", with: "\"ColorsTransformerNobodyRegisters\"")
            .write(to: contents, atomically: true, encoding: .utf8)
        let model = try ManagedObjectModel(contentsOf: moody)
        #expect(
            model.entitiesByName["Mood"]?.attributesByName["colors"]?.valueTransformerName
                == "ColorsTransformerNobodyRegisters")
        let context = try Self.context(model)
        try context.performAndWait {
            let mood = try context.insertNewObject(forEntityName: "Mood")
            let error = try #require(throws: ObjectStackError.self) { try mood.setValue(["red"], forKey: "colors") }
            #expect(error.code == .transformerMissing)
            #expect(
                error.message.contains("'ColorsTransformerNobodyRegisters'") && error.message.contains("Mood.colors"))
            // nil needs no transformer.
            try mood.setValue(nil, forKey: "colors")
            #expect(try mood.checkedValue(forKey: "colors") == nil)
        }
    }

    /// A model with a transformable attribute, naming `transformer`.
    static func transformableModel(
        _ files: TemporaryModelFile, transformer: String, required: Bool = false
    ) throws
        -> ManagedObjectModel
    {
        try ManagedObjectModel(
            contentsOf: files.model(
                TemporaryModelFile.xml(
                    """
                    <entity name="Note">
                        <attribute name="title" optional="YES" attributeType="String"/>
                        <attribute name="tags" \(required ? "" : "optional=\"YES\" ")attributeType="Transformable" valueTransformerName="\(transformer)"/>
                    </entity>
                    """), name: transformer))
    }

    @Test("reading stored data through an unregistered transformer throws; saving a required one names it")
    func unregisteredTransformerOnRead() throws {
        ValueTransformerRegistry.register(TagsTransformer(), forName: "ModelFileTestsTags")
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = URL(string: "memory://modelfile-\(UUID().uuidString)")!
        // Two models that differ only in the transformer's name share a store: one writes, one reads.
        let writer = try Self.context(Self.transformableModel(files, transformer: "ModelFileTestsTags"), url: url)
        try writer.performAndWait {
            let note = try writer.insertNewObject(forEntityName: "Note")
            try note.setValue(["a", "b"], forKey: "tags")
            try writer.save()
            #expect(try note.checkedValue(forKey: "tags") as? [String] == ["a", "b"])
        }
        let reader = try Self.context(
            Self.transformableModel(files, transformer: "ModelFileTestsUnregistered"), url: url)
        try reader.performAndWait {
            let note = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
            let error = try #require(throws: ObjectStackError.self) { try note.checkedValue(forKey: "tags") }
            #expect(error.code == .transformerMissing && error.message.contains("'ModelFileTestsUnregistered'"))
            // value(forKey:) cannot throw: it reads nil instead of trapping, and the data stays stored.
            #expect(note.value(forKey: "tags") == nil)
            #expect(note.changedValues().isEmpty && note.value(forKey: "title") == nil)
        }
        let required = try Self.context(
            Self.transformableModel(files, transformer: "ModelFileTestsMissing", required: true))
        try required.performAndWait {
            _ = try required.insertNewObject(forEntityName: "Note")
            let error = try #require(throws: ObjectStackError.self) { try required.save() }
            #expect(
                error.validationFailures.first?.message.contains(
                    "value transformer 'ModelFileTestsMissing' is not registered") == true)
        }
    }

    @Test("minimum, maximum and regular expression from the file are checked at save (Maccy, mogenerator)")
    func valueValidation() throws {
        let maccy = try ManagedObjectModel(contentsOf: SharedModels.url("Maccy", "Storage.xcdatamodeld"))
        let context = try Self.context(maccy)
        try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "HistoryItem")
            try item.setValue(Date(), forKey: "firstCopiedAt")
            try item.setValue(Date(), forKey: "lastCopiedAt")
            try item.setValue("Q", forKey: "pin")
            try item.setValue(String(repeating: "x", count: 204), forKey: "title")
            try item.setValue([try context.insertNewObject(forEntityName: "HistoryItemContent")], forKey: "contents")
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(Set(error.validationFailures.map(\.reason)) == [.patternMismatch, .outOfRange])
            try item.setValue("b", forKey: "pin")  // the file's set leaves out p and q
            try item.setValue(String(repeating: "x", count: 203), forKey: "title")
            try context.save()
        }
        let mogenerator = try ManagedObjectModel(contentsOf: SharedModels.url("mogenerator", "test.xcdatamodel"))
        let humans = try Self.context(mogenerator)
        try humans.performAndWait {
            let human = try humans.insertNewObject(forEntityName: "Human")
            try human.setValue(-1, forKey: "age")
            let error = try #require(throws: ObjectStackError.self) { try humans.save() }
            #expect(error.validationFailures.map(\.key) == ["age"])
            #expect(error.validationFailures.first?.message.contains("below its minimum of 0") == true)
        }
    }

    @Test("fetch request templates substitute their variables (mogenerator)")
    func fetchRequestTemplates() throws {
        let model = try ManagedObjectModel(contentsOf: SharedModels.url("mogenerator", "test.xcdatamodel"))
        #expect(
            model.fetchRequestTemplatesByName.keys.sorted()
                == ["allHumans", "byHumanName", "byParent", "byParentName", "oneByHumanName"])
        let context = try Self.context(model)
        try context.performAndWait {
            let parent = try context.insertNewObject(forEntityName: "Parent")
            try parent.setValue("Ada", forKey: "parentName")
            try parent.setValue("Ada", forKey: "humanName")
            let child = try context.insertNewObject(forEntityName: "Child")
            try child.setValue("Byron", forKey: "humanName")
            try child.setValue(parent, forKey: "parent")
            try context.save()

            let byName: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(
                withName: "byHumanName", substitutionVariables: ["humanName": "Byron"])
            #expect(try context.fetch(byName).map(\.objectID) == [child.objectID])
            let byParent: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(
                withName: "byParent", substitutionVariables: ["parent": parent])
            #expect(try context.fetch(byParent).map(\.objectID) == [child.objectID])
            let byParentName: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(
                withName: "byParentName", substitutionVariables: ["parentName": "Nobody"])
            #expect(try context.fetch(byParentName).isEmpty)
            // Every human, sub-entities included.
            let all: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(withName: "allHumans")
            #expect(try context.count(for: all) == 2)

            let missing = try #require(throws: ObjectStackError.self) {
                let _: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(withName: "byHumanName")
            }
            #expect(missing.message.contains("$humanName"))
        }
    }

    @Test("derived attributes (canonical:, @count, now()) and fetched properties (SwiftGen)")
    func derivedAndFetched() throws {
        let model = try ManagedObjectModel(contentsOf: SharedModels.url("SwiftGen", "Model.xcdatamodeld"))
        let main = try #require(model.entitiesByName["MainEntity"])
        let fetched = try #require(main.fetchedProperties.first)
        #expect(fetched.name == "fetchedProperty" && fetched.destinationName == "NewEntity")
        #expect(main.representedClassName == "CustomMainEntity")
        #expect(model.configurations == ["Custom": ["NewEntity"]])
        let context = try Self.context(model)
        try context.performAndWait {
            let child = try context.insertNewObject(forEntityName: "ChildEntity")
            try child.setValue("x", forKey: "string")
            try child.setValue(false, forKey: "boolean")
            try child.setValue("Crème BRÛLÉE", forKey: "optionalString")
            let secondary = try context.insertNewObject(forEntityName: "SecondaryEntity")
            try secondary.setValue("s", forKey: "name")
            try child.setValue([secondary], forKey: "oneToMany")
            _ = try context.insertNewObject(forEntityName: "NewEntity")
            let before = Date().timeIntervalSinceReferenceDate
            try context.save()
            #expect(child.value(forKey: "canonicalOptionalString") as? String == "creme brulee")
            #expect((child.value(forKey: "derivedCount") as? NSNumber)?.intValue == 1)
            let now = try #require((child.value(forKey: "now") as? NSNumber)?.doubleValue)
            #expect(now >= before && now <= Date().timeIntervalSinceReferenceDate)
            // The fetched property's request (its predicate is `true == true`) finds the NewEntity object.
            #expect(try context.count(for: try fetched.fetchRequest(for: child)) == 1)
        }
    }
}

/// Stores a list of strings as JSON.
struct TagsTransformer: AttributeValueTransformer {
    struct NotTags: Error {}
    func transformedValue(_ value: Any) throws -> Data {
        guard let tags = value as? [String] else { throw NotTags() }
        return try JSONEncoder().encode(tags)
    }
    func reverseTransformedValue(_ data: Data) throws -> Any { try JSONDecoder().decode([String].self, from: data) }
}
