import Foundation
import ObjectStack
import Testing

/// Broken model files fail with an error naming the file, the element and its line; nothing is dropped silently.
@Suite("Model files: errors")
struct ModelFileErrorTests {
    /// A broken model: entity XML starting on line 3 of `contents`, and what the error must say.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let body: String
        let line: Int
        let element: String
        let reason: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "unsupported attribute type Objectid",
            body: """
                <entity name="A">
                    <attribute name="ref" attributeType="Objectid"/>
                </entity>
                """, line: 4, element: "attribute name=\"ref\"", reason: "'Objectid'"),
        Case(
            name: "unknown delete rule",
            body: """
                <entity name="A">
                    <relationship name="b" optional="YES" maxCount="1" deletionRule="Destroy" destinationEntity="B"/>
                </entity>
                <entity name="B"/>
                """, line: 4, element: "relationship name=\"b\"", reason: "unknown delete rule 'Destroy'"),
        Case(
            name: "missing inverse entity",
            body: """
                <entity name="A">
                    <relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="Gone"/>
                </entity>
                <entity name="B"/>
                """, line: 4, element: "relationship name=\"b\"", reason: "unknown inverse entity Gone"),
        Case(
            name: "inverse relationship missing on the destination",
            body: """
                <entity name="A">
                    <relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="B"/>
                </entity>
                <entity name="B">
                    <attribute name="a" optional="YES" attributeType="String"/>
                </entity>
                """, line: 4, element: "relationship name=\"b\"", reason: "unknown inverse relationship B.a"),
        Case(
            name: "unknown destination entity",
            body: """
                <entity name="A">
                    <relationship name="b" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Nowhere"/>
                </entity>
                """, line: 4, element: "relationship name=\"b\"", reason: "unknown destination entity Nowhere"),
        Case(
            name: "unknown parent entity",
            body: """
                <entity name="A" parentEntity="Ghost"/>
                """, line: 3, element: "entity name=\"A\"", reason: "unknown parent entity Ghost"),
        Case(
            name: "default value of the wrong type",
            body: """
                <entity name="A">
                    <attribute name="count" attributeType="Integer 16" defaultValueString="lots"/>
                </entity>
                """, line: 4, element: "attribute name=\"count\"", reason: "default value 'lots' of A.count"),
        Case(
            name: "integer default out of range",
            body: """
                <entity name="A">
                    <attribute name="count" attributeType="Integer 16" defaultValueString="70000"/>
                </entity>
                """, line: 4, element: "attribute name=\"count\"", reason: "not a valid integer16"),
        Case(
            name: "YES/NO flag with another value",
            body: """
                <entity name="A">
                    <attribute name="x" optional="maybe" attributeType="String"/>
                </entity>
                """, line: 4, element: "attribute name=\"x\"", reason: "optional=\"maybe\""),
        Case(
            name: "uniqueness constraint on an unknown attribute",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="y"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                """, line: 7, element: "constraint value=\"y\"", reason: "names y, which is not an attribute of A"),
        Case(
            name: "fetch index on an unknown property",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                    <fetchIndex name="byY">
                        <fetchIndexElement property="y" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
                """, line: 6, element: "fetchIndexElement property=\"y\"",
            reason: "names y, which is not a property of A"),
        Case(
            name: "derivation that does not bind",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                    <attribute name="total" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="missing.@count"/>
                </entity>
                """, line: 5, element: "attribute name=\"total\"", reason: "derived attribute A.total"),
        Case(
            name: "fetch request template whose predicate does not parse",
            body: """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String"/>
                </entity>
                <fetchRequest name="broken" entity="A" predicateString="x == == 3"/>
                """, line: 6, element: "fetchRequest name=\"broken\"",
            reason: "fetch request broken has a predicate that does not parse"),
        Case(
            name: "configuration naming an unknown entity",
            body: """
                <entity name="A"/>
                <configuration name="Cloud">
                    <memberEntity name="B"/>
                </configuration>
                """, line: 5, element: "memberEntity name=\"B\"", reason: "configuration Cloud names unknown entity B"),
        Case(
            name: "transformable attribute with a default value",
            body: """
                <entity name="A">
                    <attribute name="blob" optional="YES" attributeType="Transformable" defaultValueString="x"/>
                </entity>
                """, line: 4, element: "attribute name=\"blob\"", reason: "does not support"),
        Case(
            name: "entity declared twice",
            body: """
                <entity name="A"/>
                <entity name="A"/>
                """, line: 4, element: "entity name=\"A\"", reason: "entity A is declared twice"),
    ]

    @Test("a broken model names the file, the element and the line", arguments: cases)
    func brokenModel(_ broken: Case) throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(TemporaryModelFile.xml(broken.body))
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: url) }
        #expect(error.file == files.contents(of: url))
        #expect(error.line == broken.line)
        #expect(error.element == broken.element)
        #expect(error.reason.contains(broken.reason), "\(error.reason)")
        #expect(error.description.hasPrefix("\(files.contents(of: url)):\(broken.line): <\(broken.element)>: "))
        // versions(contentsOf:) fails the same way.
        #expect(throws: ModelFileError.self) { try ManagedObjectModel.versions(contentsOf: url) }
    }

    @Test("malformed XML names the line where parsing stopped")
    func malformedXML() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let url = try files.model(
            TemporaryModelFile.xml(
                """
                <entity name="A">
                    <attribute name="x" optional="YES" attributeType="String">
                </entity>
                """))
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: url) }
        #expect(error.file == files.contents(of: url))
        #expect(error.line == 5)
        #expect(error.element == "attribute name=\"x\"")
        #expect(error.reason.hasPrefix("malformed XML"), "\(error)")
    }

    @Test("a processing instruction is refused with its line, not handed to XMLParser (which crashes on '<?xm?>')")
    func processingInstruction() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let bare = try files.model("<?xm?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\"/>")
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: bare) }
        #expect(error.line == 1 && error.reason.contains("processing instruction"), "\(error)")
        let inside = try files.model(TemporaryModelFile.xml("<entity name=\"A\"/>\n<?stylesheet href=\"x\"?>"))
        #expect((try? ManagedObjectModel(contentsOf: inside)) == nil)
        // One inside a comment is text, not an instruction.
        let commented = try files.model(TemporaryModelFile.xml("<!-- <?xm?> --><entity name=\"A\"/>"))
        #expect(try ManagedObjectModel(contentsOf: commented).entitiesByName["A"] != nil)
    }

    @Test(
        "bytes that are not UTF-8, or another declared encoding, are refused before XMLParser (libxml2 crashes on some)"
    )
    func encoding() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let crasher = try files.model(
            Data("<?xml version=\"1.0\" encoding=\"UTF_8\"".utf8) + Data([0xEB]) + Data("e".utf8))
        let invalid = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: crasher) }
        #expect(invalid.reason.contains("not UTF-8") && invalid.line == 1, "\(invalid)")
        let latin = try files.model("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<model/>")
        let declared = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: latin) }
        #expect(declared.reason.contains("ISO-8859-1"), "\(declared)")
        let open = try files.model("<?xml version=\"1.0\"")
        #expect(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: open) }
        let plain = try files.model(TemporaryModelFile.xml("<entity name=\"A\"/>"))
        #expect(try ManagedObjectModel(contentsOf: plain).entitiesByName["A"] != nil)
    }

    @Test("a file that is not a model says so")
    func notAModel() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let plist = try files.model(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict/></plist>
            """)
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: plist) }
        #expect(error.line == 2 && error.element == "plist" && error.reason.contains("not a Core Data model"))

        let missing = files.folder.appendingPathComponent("Nothing.xcdatamodeld")
        let noFile = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: missing) }
        #expect(noFile.file == missing.path && noFile.reason.contains("no model file"))

        let emptyBundle = files.folder.appendingPathComponent("Empty.xcdatamodeld")
        try FileManager.default.createDirectory(at: emptyBundle, withIntermediateDirectories: true)
        let empty = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: emptyBundle) }
        #expect(empty.reason.contains("no .xcdatamodel version"))

        let noContents = emptyBundle.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: noContents, withIntermediateDirectories: true)
        let unreadable = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: emptyBundle) }
        #expect(unreadable.file == noContents.appendingPathComponent("contents").path)
    }

    @Test(".xccurrentversion naming a version the bundle lacks is an error")
    func currentVersionNamesMissingVersion() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let bundle = try files.copy(of: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"))
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        try Data(Self.currentVersionPlist("Moody 9.xcdatamodel").utf8).write(to: marker)
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(error.file == marker.path)
        #expect(error.reason.contains("Moody 9.xcdatamodel") && error.reason.contains("Moody 6.xcdatamodel"))

        try Data("<plist><dict><key>".utf8).write(to: marker)
        let malformed = try #require(throws: ModelFileError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(malformed.file == marker.path && malformed.reason.contains("not a property list"))
    }

    @Test(".xccurrentversion missing, empty or naming an older version")
    func currentVersionVariants() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let bundle = try files.copy(of: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"))
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        func current() throws -> String? {
            try ManagedObjectModel.versions(contentsOf: bundle).first(where: \.isCurrent)?.name
        }

        try Data(Self.currentVersionPlist("Moody 3.xcdatamodel").utf8).write(to: marker)
        #expect(try current() == "Moody 3")
        // Moody 3 has four entities and six relationships; Moody 6 three and four.
        let older = try ManagedObjectModel(contentsOf: bundle)
        #expect(older.entities.count == 4 && older.entities.map(\.declaredRelationships.count).reduce(0, +) == 6)

        try Data().write(to: marker)
        #expect(try current() == "Moody 6")
        try Data(Self.currentVersionPlist("").utf8).write(to: marker)
        #expect(try current() == "Moody 6")
        try FileManager.default.removeItem(at: marker)
        #expect(try current() == "Moody 6")
        #expect(try ManagedObjectModel(contentsOf: bundle).entities.count == 3)
    }

    static func currentVersionPlist(_ name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(name)</string>
        </dict>
        </plist>
        """
    }
}
