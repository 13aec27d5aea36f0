import Foundation
import ObjectStack
import Testing

@testable import LabWorkloads

/// Every attribute type gets generated data on the import path as in the populator: transformable attributes of
/// every kind a secure-coding transformer takes (also under uniqueness constraints, alone or with other
/// attributes), derived attributes computed by the stack, composite attributes (not loaded) passed over.
@Suite("Model data: every attribute type")
struct ModelDataTypesTests {
    /// Rooms unique by a list of aliases (a transformable alone in its constraint, the import's old failure), each
    /// with messages unique by tags and serial together; every kind of transformable value.
    static let roomsModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Room" representedClassName="Room" syncable="YES">
                <attribute name="aliases" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                <attribute name="settings" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="NSDictionary"/>
                <attribute name="topic" attributeType="Transformable" customClassName="NSString"/>
                <attribute name="opened" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="NSDate"/>
                <attribute name="scores" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[Int]"/>
                <attribute name="tint" attributeType="Transformable" valueTransformerName="RoomTintTransformer" customClassName="UIColor"/>
                <attribute name="avatar" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="Data"/>
                <attribute name="members" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="NSNumber"/>
                <relationship name="messages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Message" inverseName="room" inverseEntity="Message"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="aliases"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Message" representedClassName="Message" syncable="YES">
                <attribute name="body" attributeType="String"/>
                <attribute name="serial" attributeType="Integer 64" minValueString="1" maxValueString="3"/>
                <attribute name="tags" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                <relationship name="room" maxCount="1" deletionRule="Nullify" destinationEntity="Room" inverseName="messages" inverseEntity="Room"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="tags"/>
                        <constraint value="serial"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
        </model>
        """

    /// Imports every page of `pages` into `coordinator` with one importer, saving once.
    static func importAll(_ pages: ModelObjectPages, into coordinator: PersistentStoreCoordinator) throws
        -> ModelImporter.Counts
    {
        try ModelDataServiceTests.importAll(pages, into: coordinator)
    }

    @Test(
        "transformable values of every kind, unique alone or with another attribute, import as they populate",
        arguments: StoreKind.all)
    func transformables(kind: StoreKind) throws {
        let url = try ModelPopulationTests.bareModel(Self.roomsModel)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ManagedObjectModel(contentsOf: url)
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 30, nilShare: 0), seed: 3)
        #expect(plan.notes == [])
        let pages = try ModelObjectPages(plan: plan, pageSize: 11)

        let (direct, directFolder) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: directFolder) }
        _ = try ModelPopulator.write(plan, into: direct)
        let (imported, importedFolder) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: importedFolder) }
        let first = try Self.importAll(pages, into: imported)
        #expect(first.inserted == plan.objectCount)

        let audit = try PopulationAudit(coordinator: imported)
        #expect(audit.problems == [])
        #expect(audit.objectsByEntity["Room"] == 30)
        #expect(
            ModelDataServiceTests.sortedValues(audit.contents, dropping: ["messages=", "room="])
                == ModelDataServiceTests.sortedValues(
                    try PopulationAudit(coordinator: direct).contents, dropping: ["messages=", "room="]))

        // Imported again: every room is found by its list of aliases, every message by its tags and serial.
        let again = try Self.importAll(pages, into: imported)
        #expect(again.inserted == 0)
        #expect(again.found == plan.objectCount)
        #expect(try PopulationAudit(coordinator: imported).objectsByEntity == audit.objectsByEntity)

        // Each attribute holds the Foundation value its class names, read back through its transformer.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = imported
        try context.performAndWait { () throws in
            let rooms = try context.fetch(FetchRequest<ManagedObject>(entityName: "Room"))
            #expect(rooms.count == 30)
            let aliases = rooms.compactMap { $0.value(forKey: "aliases") as? [String] }
            #expect(aliases.count == 30)
            #expect(Set(aliases).count == 30)
            for room in rooms {
                let settings = room.value(forKey: "settings") as? [String: Any]
                #expect(settings?["name"] is String)
                #expect(room.value(forKey: "topic") is String)
                #expect(room.value(forKey: "opened") is Date)
                #expect(((room.value(forKey: "scores") as? [Any])?.count ?? 0) >= 1)
                // A class the lab does not have (UIColor) gets the first kind its transformer takes: a list of words.
                #expect(room.value(forKey: "tint") is [String])
                #expect(room.value(forKey: "avatar") is Data)
                #expect(room.value(forKey: "members") is NSNumber || room.value(forKey: "members") is Int)
            }
            let messages = try context.fetch(FetchRequest<ManagedObject>(entityName: "Message"))
            let keys = messages.map { "\($0.value(forKey: "tags") as? [String] ?? [])|\($0.value(forKey: "serial")!)" }
            #expect(Set(keys).count == messages.count)
        }
    }

    @Test("the secure-coding transformer takes property lists at any depth and refuses anything else with an error")
    func secureCodingTransformer() throws {
        let transformer = SecureCodingValueTransformer()
        let value: [String: Any] = [
            "name": "amber", "count": 3, "ratio": 0.5, "flag": true, "when": Date(timeIntervalSinceReferenceDate: 9),
            "bytes": Data([1, 2]), "nested": [["a", "b"], ["c": 1]] as [Any],
        ]
        let back = try transformer.reverseTransformedValue(try transformer.transformedValue(value)) as? [String: Any]
        #expect(back?["name"] as? String == "amber")
        #expect((back?["count"] as? NSNumber)?.intValue == 3)
        #expect(back?["when"] as? Date == Date(timeIntervalSinceReferenceDate: 9))
        #expect(back?["bytes"] as? Data == Data([1, 2]))
        #expect(((back?["nested"] as? [Any])?.first as? [String]) == ["a", "b"])
        struct Colour { var red = 1.0 }
        let refusal = #expect(throws: LabError.self) { try transformer.transformedValue([Colour()]) }
        #expect(refusal?.message.contains("not Array<Colour>") == true)
        #expect(throws: (any Error).self) { try transformer.reverseTransformedValue(Data("not a list".utf8)) }
    }

    @Test("a transformer the program registered decides the kind of value: the first of the kinds it gives back")
    func registeredTransformerDecides() throws {
        struct DatesOnly: AttributeValueTransformer {
            func transformedValue(_ value: Any) throws -> Data {
                guard let date = value as? Date else { throw LabError(.unsupported, "dates only") }
                return withUnsafeBytes(of: date.timeIntervalSinceReferenceDate) { Data($0) }
            }
            func reverseTransformedValue(_ data: Data) throws -> Any {
                Date(timeIntervalSinceReferenceDate: data.withUnsafeBytes { $0.loadUnaligned(as: Double.self) })
            }
        }
        struct Nothing: AttributeValueTransformer {
            func transformedValue(_ value: Any) throws -> Data { throw LabError(.unsupported, "nothing") }
            func reverseTransformedValue(_ data: Data) throws -> Any { data }
        }
        ValueTransformerRegistry.register(DatesOnly(), forName: "ModelDataTypesTestsDates")
        ValueTransformerRegistry.register(Nothing(), forName: "ModelDataTypesTestsNothing")
        let xml = ModelPopulationTests.constrainedModel.replacingOccurrences(
            of: "<attribute name=\"name\" attributeType=\"String\"/>",
            with: """
                <attribute name="name" attributeType="String"/>
                <attribute name="seen" attributeType="Transformable" valueTransformerName="ModelDataTypesTestsDates" customClassName="[String]"/>
                <attribute name="ignored" optional="YES" attributeType="Transformable" valueTransformerName="ModelDataTypesTestsNothing"/>
                """)
        let url = try ModelPopulationTests.bareModel(xml)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ManagedObjectModel(contentsOf: url)
        let seen = model.entitiesByName["Device"]!.attributesByName["seen"]!
        #expect(try TransformableShape.resolve(seen).get() == .date)
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 5), seed: 1)
        #expect(plan.notes.count == 1)
        #expect(plan.notes.first?.hasPrefix("Device.ignored is left nil: its registered transformer") == true)
        let (coordinator, folder) = try ModelPopulationTests.store(.sqlite, model)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.importAll(try ModelObjectPages(plan: plan, pageSize: 4), into: coordinator)
        #expect(try PopulationAudit(coordinator: coordinator).problems == [])
    }

    @Test(
        "derived attributes are computed by the stack on import, not generated", arguments: [StoreKind.sqlite, .lmdb])
    func derived(kind: StoreKind) throws {
        let model = try ManagedObjectModel(contentsOf: ModelPopulationTests.url("SwiftGen"))
        let child = model.entitiesByName["ChildEntity"]!
        #expect(child.attributesByName["derivedCount"]?.derivationExpression == "oneToMany.@count")
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 12), seed: 4)
        #expect(!plan.entities.contains { $0.attributes.contains { $0.derivationExpression != nil } })
        let (coordinator, folder) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.importAll(try ModelObjectPages(plan: plan, pageSize: 5), into: coordinator)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            let children = try context.fetch(FetchRequest<ManagedObject>(entityName: "ChildEntity"))
            #expect(children.count == 12)
            for object in children {
                let count = object.relatedObjects(child.relationshipsByName["oneToMany"]!).count
                #expect((object.value(forKey: "derivedCount") as? NSNumber)?.intValue == count)
                if let text = object.value(forKey: "optionalString") as? String {
                    #expect(object.value(forKey: "canonicalOptionalString") as? String == text.lowercased())
                }
            }
        }
    }

    @Test("a composite attribute loads; its entity populates and imports with every composite given a value")
    func composite() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Quake" representedClassName="Quake" syncable="YES">
                    <attribute name="code" attributeType="String"/>
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="code"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
                <composite name="Magnitude">
                    <attribute name="richter" attributeType="Double" defaultValueString="0.0"/>
                    <attribute name="depth" optional="YES" attributeType="Double"/>
                </composite>
            </model>
            """
        let url = try ModelPopulationTests.bareModel(xml)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let version = try #require(try ManagedObjectModel.versions(contentsOf: url).first)
        #expect(version.warnings.isEmpty, "\(version.warnings)")
        #expect(version.model.entitiesByName["Quake"]?.compositeAttributesByName["magnitude"] != nil)
        let plan = try PopulationPlan(model: version.model, spec: PopulationSpec(rootCount: 7), seed: 1)
        let (coordinator, folder) = try ModelPopulationTests.store(.memory, version.model)
        defer { try? FileManager.default.removeItem(at: folder) }
        let counts = try Self.importAll(try ModelObjectPages(plan: plan, pageSize: 3), into: coordinator)
        #expect(counts.inserted == 7)
        #expect(try PopulationAudit(coordinator: coordinator).problems == [])
        // The required element `richter` has a value in every object, so every composite has one.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for quake in try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) {
                #expect((quake.value(forKey: "magnitude") as? [String: Any])?["richter"] != nil)
            }
        }
    }
}
