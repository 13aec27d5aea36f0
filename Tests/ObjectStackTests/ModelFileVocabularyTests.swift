import Foundation
import ObjectStack
import Testing

/// Xcode's vocabulary: what changes behaviour is honoured, what does not is kept, what the reader does not know is
/// a warning with its line (strict reading: an error), and a version the reader cannot read is skipped, not fatal.
@Suite("Model files: vocabulary, warnings and skipped versions")
struct ModelFileVocabularyTests {
    /// A model the reader loads with one warning: entity XML starting on line 3, and what the warning says.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let body: String
        let line: Int
        let element: String
        let message: String
        var testDescription: String { name }
    }

    static let warningCases: [Case] = [
        Case(
            name: "unknown XML attribute",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String" encryptedAtRest="YES"/>
                </entity>
                """, line: 4, element: "attribute name=\"x\"", message: "unknown attribute encryptedAtRest=\"YES\""),
        Case(
            name: "unknown element",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                    <queryGeneration name="g"/>
                </entity>
                """, line: 5, element: "queryGeneration name=\"g\"", message: "unknown element <queryGeneration>"),
        Case(
            name: "one-sided inverse (Xcode's 'Misconfigured Inverse')",
            body: """
                <entity name="A">
                    <relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="B"/>
                </entity>
                <entity name="B">
                    <relationship name="a" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="A"/>
                </entity>
                """, line: 4, element: "relationship name=\"b\"", message: "whose inverse is not set, not b"),
        Case(
            name: "transient attribute of type Undefined",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                    <attribute name="loose" optional="YES" transient="YES" attributeType="Undefined"/>
                </entity>
                """, line: 5, element: "attribute name=\"loose\"", message: "type Undefined"),
    ]

    /// Indexes loaded in part: a note, which strict reading does not refuse (speed differs, results do not).
    static let noteCases: [Case] = [
        Case(
            name: "R-tree fetch index",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="Double"/>
                    <fetchIndex name="spatial">
                        <fetchIndexElement property="x" type="RTree" order="ascending"/>
                    </fetchIndex>
                </entity>
                """, line: 6, element: "fetchIndexElement property=\"x\"", message: "R-tree"),
        Case(
            name: "expression fetch index element",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                    <fetchIndex name="byLength">
                        <fetchIndexElement expression="length:(x)" expressionType="Integer 64" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
                """, line: 6, element: "fetchIndexElement", message: "expression element (length:(x))"),
    ]

    @Test("an index loaded in part is a note, not a warning: strict reading loads it", arguments: noteCases)
    func note(_ example: Case) throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(TemporaryModelFile.xml(example.body))
        let version = try #require(try ManagedObjectModel.versions(contentsOf: url, options: .strict).first)
        #expect(version.warnings.isEmpty && version.notes.count == 1, "\(version.notes)")
        let note = try #require(version.notes.first)
        #expect(note.line == example.line && note.element == example.element)
        #expect(note.message.contains(example.message), "\(note.message)")
    }

    @Test(
        "an unknown or partly loaded part is a warning with its line; strict reading refuses it",
        arguments: warningCases)
    func warning(_ example: Case) throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(TemporaryModelFile.xml(example.body))
        let version = try #require(try ManagedObjectModel.versions(contentsOf: url).first)
        #expect(version.warnings.count == 1, "\(version.warnings)")
        let warning = try #require(version.warnings.first)
        #expect(warning.file == files.contents(of: url))
        #expect(warning.line == example.line)
        #expect(warning.element == example.element)
        #expect(warning.message.contains(example.message), "\(warning.message)")

        let refused = try #require(throws: ModelFileError.self) {
            try ManagedObjectModel(contentsOf: url, options: .strict)
        }
        #expect(refused.file == files.contents(of: url) && refused.line == example.line)
        #expect(refused.element == example.element && refused.reason.contains(example.message), "\(refused)")
        #expect(throws: ModelFileError.self) { try ManagedObjectModel.versionList(contentsOf: url, options: .strict) }
    }

    @Test("an attribute not loaded (Undefined) leaves the others; an unknown XML attribute is kept")
    func whatWarningsLeave() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let undefined = try files.model(
            TemporaryModelFile.xml(
                try #require(Self.warningCases.first { $0.name == "transient attribute of type Undefined" }).body),
            name: "Undefined")
        let a = try #require(try ManagedObjectModel(contentsOf: undefined).entitiesByName["A"])
        #expect(a.attributes.map(\.name) == ["x"])
        let unknown = try files.model(TemporaryModelFile.xml(Self.warningCases[0].body), name: "Unknown")
        let x = try #require(try ManagedObjectModel(contentsOf: unknown).entitiesByName["A"]?.attributesByName["x"])
        #expect(x.modelFileMetadata.attributes["encryptedAtRest"] == "YES")
    }

    @Test("a composite attribute loads under strict reading: its elements, nested ones too, stored by key path")
    func compositeLoads() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(
            TemporaryModelFile.xml(
                """
                <entity name="Quake" coreSpotlightDisplayNameExpression="place">
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                    <attribute name="place" optional="YES" attributeType="String"/>
                </entity>
                <composite name="Magnitude">
                    <attribute name="richter" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <attribute name="scale" optional="YES" attributeType="Composite" composite="Scale"/>
                </composite>
                <composite name="Scale">
                    <attribute name="name" optional="YES" attributeType="String"/>
                </composite>
                """), name: "Composite")
        let quake = try #require(try ManagedObjectModel(contentsOf: url, options: .strict).entitiesByName["Quake"])
        let magnitude = try #require(quake.compositeAttributes.first)
        #expect(magnitude.name == "magnitude" && magnitude.isOptional)
        #expect(magnitude.elementPaths == ["richter", "scale.name"])
        #expect(quake.attributes.map(\.name) == ["place", "magnitude.richter", "magnitude.scale.name"])
        let richter = try #require(quake.attributesByName["magnitude.richter"])
        #expect(richter.compositeElement == CompositeElement(composite: "magnitude", path: "richter", isRequired: true))
        #expect(richter.isOptional && richter.defaultValue == .double(0))
        #expect(quake.coreSpotlightDisplayNameExpression == "place")
        let missing = try files.model(
            TemporaryModelFile.xml(
                """
                <entity name="Quake">
                    <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Nowhere"/>
                </entity>
                """), name: "Missing")
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: missing) }
        #expect(error.reason.contains("Nowhere") && error.line == 4, "\(error)")
    }

    // MARK: - Every attribute Xcode writes

    /// One model using every XML attribute and element the reader knows, as Xcode writes them (the names from the
    /// survey of real models; values made up).
    static let everything = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" usedWithCloudKit="YES" usedWithSwiftData="YES" macOSVersion="Automatic" iOSVersion="Automatic" name="" userDefinedModelVersionIdentifier="v7">
            <entity name="Base" representedClassName=".Base" isAbstract="YES" syncable="YES" codeGenerationType="class" elementID="OldBase" versionHashModifier="2">
                <attribute name="created" attributeType="Date" minDateTimeInterval="0" minValueString="1/1/2001" maxDateTimeInterval="86400" maxValueString="1/2/2001" defaultDateTimeInterval="3600" defaultValueString="2001-01-01 01:00:00 +0000" usesScalarValueType="NO" preserveAfterDeletion="YES"/>
                <userInfo>
                    <entry key="owner" value="sync"/>
                </userInfo>
            </entity>
            <entity name="Note" representedClassName="Note" parentEntity="Base" syncable="YES" codeGenerationType="category">
                <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="[A-Z].*" indexed="YES" spotlightIndexingEnabled="YES" storedInTruthFile="YES" allowsCloudEncryption="YES" elementID="heading" versionHashModifier="1" syncable="YES">
                    <userInfo>
                        <entry key="display" value="Title"/>
                    </userInfo>
                </attribute>
                <attribute name="rank" optional="YES" attributeType="Integer 32" minValueString="0" maxValueString="5" defaultValueString="3" usesScalarValueType="YES"/>
                <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="colour" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="UIColor"/>
                <attribute name="words" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="tags.@count" usesScalarValueType="YES"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
                <relationship name="tags" optional="YES" toMany="YES" minCount="0" maxCount="10" deletionRule="Nullify" ordered="YES" destinationEntity="Tag" inverseName="notes" inverseEntity="Tag" elementID="labels" spotlightIndexingEnabled="YES" storedInTruthFile="NO" indexed="YES" syncable="YES">
                    <userInfo>
                        <entry key="sync" value="pull"/>
                    </userInfo>
                </relationship>
                <fetchedProperty name="sameRank" optional="YES" syncable="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Note" predicateString="rank == $FETCH_SOURCE.rank"/>
                    <userInfo>
                        <entry key="kind" value="lookup"/>
                    </userInfo>
                </fetchedProperty>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="descending"/>
                </fetchIndex>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="rank"/>
                        <index value="title"/>
                    </compoundIndex>
                </compoundIndexes>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="label" optional="YES" attributeType="String"/>
                <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="tags" inverseEntity="Note"/>
            </entity>
            <fetchRequest name="topNotes" entity="Note" predicateString="rank &gt;= $MIN" fetchLimit="2" fetchBatchSize="20" resultType="0" includeSubentities="YES" includePropertyValues="NO" includesPendingChanges="NO" returnObjectsAsFaults="NO" returnDistinctResults="NO"/>
            <configuration name="Cloud" usedWithCloudKit="YES">
                <memberEntity name="Note"/>
                <memberEntity name="Tag"/>
            </configuration>
            <configuration name="Local"/>
            <elements>
                <element name="Note" positionX="-63" positionY="-18" width="128" height="104"/>
            </elements>
        </model>
        """

    @Test("every attribute and element Xcode writes loads under strict reading, with no warning")
    func everythingLoadsStrictly() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(Self.everything)
        let version = try #require(try ManagedObjectModel.versions(contentsOf: url, options: .strict).first)
        #expect(version.warnings.isEmpty, "\(version.warnings)")
        #expect(version.versionIdentifier == "v7")
        #expect(version.modelFileMetadata.attributes["sourceLanguage"] == "Swift")
        #expect(
            version.modelFileMetadata.flag("usedWithSwiftData") && version.modelFileMetadata.flag("usedWithCloudKit"))
        #expect(version.configurationMetadata["Cloud"]?.flag("usedWithCloudKit") == true)
        #expect(version.configurationMetadata["Local"] == nil)
        #expect(
            version.declaredCounts
                == ModelElementCounts(
                    entities: 3, attributes: 10, relationships: 2, fetchedProperties: 1, fetchIndexes: 1,
                    uniquenessConstraints: 1, configurations: 2, fetchRequests: 1, abstractEntities: 1, subentities: 1))
    }

    @Test("what changes no behaviour is kept on the model objects, under Core Data's names")
    func keptMetadata() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let model = try ManagedObjectModel(contentsOf: try files.model(Self.everything), options: .strict)
        let base = try #require(model.entitiesByName["Base"])
        let note = try #require(model.entitiesByName["Note"])
        #expect(base.userInfo == ["owner": "sync"] && base.modelFileMetadata.codeGenerationType == "class")
        #expect(base.modelFileMetadata.isSyncable && note.modelFileMetadata.codeGenerationType == "category")
        #expect(base.renamingIdentifier == "OldBase" && base.versionHashModifier == "2")

        let title = try #require(note.attributesByName["title"])
        #expect(title.userInfo == ["display": "Title"])
        #expect(title.modelFileMetadata.isIndexedBySpotlight && title.modelFileMetadata.isStoredInExternalRecord)
        #expect(title.modelFileMetadata.allowsCloudEncryption && title.isIndexed)
        #expect(title.renamingIdentifier == "heading" && title.minimumValue == 1 && title.maximumValue == 80)
        let created = try #require(note.attributesByName["created"])
        #expect(created.modelFileMetadata.preservesValueInHistoryOnDeletion)
        #expect(created.modelFileMetadata.attributes["minValueString"] == "1/1/2001")
        #expect(created.minimumValue == 0 && created.maximumValue == 86_400)
        #expect(created.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 3_600)))
        #expect(note.attributesByName["photo"]?.modelFileMetadata.allowsExternalBinaryDataStorage == true)
        #expect(note.attributesByName["colour"]?.modelFileMetadata.attributeValueClassName == "UIColor")
        #expect(note.attributesByName["rank"]?.modelFileMetadata.usesScalarValueType == true)
        #expect(note.attributesByName["words"]?.derivationExpression == "tags.@count")

        let tags = try #require(note.relationshipsByName["tags"])
        #expect(tags.userInfo == ["sync": "pull"] && tags.modelFileMetadata.isIndexedBySpotlight)
        #expect(!tags.modelFileMetadata.isStoredInExternalRecord && tags.renamingIdentifier == "labels")
        #expect(tags.isOrdered && tags.maxCount == 10)
        #expect(note.fetchedProperties.first?.modelFileMetadata.userInfo == ["kind": "lookup"])
        #expect(note.indexes.map(\.attributeNames) == [["title"], ["rank", "title"]])

        let template = try #require(model.fetchRequestTemplatesByName["topNotes"])
        #expect(template.fetchLimit == 2 && template.fetchBatchSize == 20 && !template.includesPropertyValues)
        #expect(!template.includesPendingChanges && !template.returnsObjectsAsFaults)
    }

    @Test("a date attribute's range is validated at save, as the numeric ranges are")
    func dateRange() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let model = try ManagedObjectModel(contentsOf: try files.model(Self.everything))
        let context = try Self.context(model)
        try context.performAndWait {
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("Ada", forKey: "title")
            try note.setValue(Date(timeIntervalSinceReferenceDate: 90_000), forKey: "created")
            let late = try #require(throws: ObjectStackError.self) { try context.save() }
            #expect(late.validationFailures.map(\.reason) == [.outOfRange], "\(late)")
            #expect(late.validationFailures.first?.key == "created")
            try note.setValue(Date(timeIntervalSinceReferenceDate: -1), forKey: "created")
            #expect(throws: ObjectStackError.self) { try context.save() }
            try note.setValue(Date(timeIntervalSinceReferenceDate: 80_000), forKey: "created")
            try context.save()
        }
    }

    @Test("a fetch request template keeps its limit and batch size, and applies them when instantiated")
    func templateLimit() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let model = try ManagedObjectModel(contentsOf: try files.model(Self.everything))
        let context = try Self.context(model)
        try context.performAndWait {
            for (number, title) in ["Ada", "Bea", "Cy", "Di"].enumerated() {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(title, forKey: "title")
                try note.setValue(number + 2, forKey: "rank")
            }
            try context.save()
            let request: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(
                withName: "topNotes", substitutionVariables: ["MIN": 3])
            #expect(request.fetchLimit == 2 && request.fetchBatchSize == 20)
            // Three notes rank 3 or more; the limit returns two.
            #expect(try context.fetch(request).count == 2)
            var unlimited = request
            unlimited.fetchLimit = 0
            #expect(try context.fetch(unlimited).count == 3)
        }
    }

    static func context(_ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            type: .inMemory, at: URL(string: "memory://vocabulary-\(UUID().uuidString)")!)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    // MARK: - Skipped versions

    @Test("a bundle loads its readable versions and lists the others as skipped, with the reason")
    func partialBundle() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let bundle = try files.partialBundle()
        let list = try ManagedObjectModel.versionList(contentsOf: bundle, options: .strict)
        #expect(list.entries.map(\.name) == ["Notes", "Notes 2", "Notes 3", "Notes 4", "Notes 5"])
        #expect(list.loaded.map(\.name) == ["Notes 2", "Notes 4"])
        let reasons = Dictionary(uniqueKeysWithValues: list.skipped.map { ($0.name, $0.reason) })
        #expect(reasons["Notes"]?.contains("pre-Xcode-4 layout") == true)
        #expect(reasons["Notes 3"]?.contains("binary property list") == true)
        #expect(reasons["Notes 5"]?.contains("compiled model") == true)
        #expect(list.entries.filter(\.isCurrent).map(\.name) == ["Notes 4"])

        #expect(try ManagedObjectModel.versions(contentsOf: bundle).map(\.name) == ["Notes 2", "Notes 4"])
        let current = try ManagedObjectModel(contentsOf: bundle)
        #expect(current.entitiesByName["Note"]?.attributesByName["title"] != nil)

        // A skipped current version is an error naming it, its reason and the readable versions.
        try Data(TemporaryModelFile.currentVersion("Notes.xcdatamodel").utf8).write(
            to: bundle.appendingPathComponent(".xccurrentversion"))
        let refused = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(refused.reason.contains("pre-Xcode-4") && refused.reason.contains("Notes 2, Notes 4"), "\(refused)")
        #expect(try ManagedObjectModel.versions(contentsOf: bundle).count == 2)
    }

    @Test("a compiled .momd lists every version as skipped; a bundle with none readable is refused")
    func compiledOnly() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let momd = files.folder.appendingPathComponent("Notes.momd", isDirectory: true)
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try Data("bplist00".utf8).write(to: momd.appendingPathComponent("Notes.mom"))
        try Data("bplist00".utf8).write(to: momd.appendingPathComponent("Notes 2.mom"))
        let list = try ManagedObjectModel.versionList(contentsOf: momd)
        #expect(list.loaded.isEmpty && list.skipped.map(\.name) == ["Notes", "Notes 2"])
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel.versions(contentsOf: momd) }
        #expect(error.reason.contains("no version is readable") && error.reason.contains("compiled"), "\(error)")
        #expect(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: momd) }
    }
}
