import Foundation
import ObjectStack
import Testing

/// Keyed archives read as values, and Core Data's default transformer over them.
@Suite("Keyed archives")
struct KeyedArchiveTests {
    @Test("an archive Foundation wrote reads back: its root's class, and a dictionary's entries through references")
    func readsFoundationArchive() throws {
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: NSDictionary(dictionary: ["title": NSString(string: "Moody"), "count": NSNumber(value: 3)]),
            requiringSecureCoding: true)
        let archive = try KeyedArchive(data: data)
        let root = try archive.root()
        #expect(root.className == "NSDictionary")
        let entries = Dictionary(
            uniqueKeysWithValues: try #require(root.entries).map { ($0.key, archive.resolved($0.value)) })
        #expect(entries["title"] == .string("Moody"))
        #expect(entries["count"] == .integer(3))
    }

    @Test("Core Data's default transformer round-trips nested Foundation values")
    func defaultTransformerRoundTrip() throws {
        // The built-in one: other suites of this process register the lab's transformer under Core Data's names.
        let transformer = try #require(ValueTransformerRegistry.builtInTransformer(named: "NSSecureUnarchiveFromData"))
        let date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        let id = UUID()
        let value: [String: Any] = [
            "name": "birch", "count": 3, "ratio": 0.25, "on": true, "tags": ["a", "b"], "when": date,
            "bytes": Data([1, 2, 3]), "link": URL(string: "https://example.org/x")!, "id": id,
            "nested": ["inner": [5, 6]],
        ]
        let read = try #require(
            try transformer.reverseTransformedValue(try transformer.transformedValue(value)) as? [String: Any])
        #expect(read["name"] as? String == "birch")
        #expect(read["count"] as? Int == 3)
        #expect(read["ratio"] as? Double == 0.25)
        // Foundation on Linux archives a boolean NSNumber as the integer 1 (Apple's keeps the boolean).
        #expect(read["on"] as? Bool == true || read["on"] as? Int == 1)
        #expect(read["tags"] as? [String] == ["a", "b"])
        #expect(read["when"] as? Date == date)
        #expect(read["bytes"] as? Data == Data([1, 2, 3]))
        #expect(read["link"] as? URL == URL(string: "https://example.org/x"))
        #expect(read["id"] as? UUID == id)
        let nested = try #require(read["nested"] as? [String: Any])
        let inner = try #require(nested["inner"] as? [Any])
        #expect(inner.compactMap { $0 as? Int } == [5, 6])
    }

    @Test("an object of a class nobody here knows reads as its keys, with its class name")
    func unknownClass() throws {
        // The archive of an app's own class, as NSKeyedArchiver writes it: a dictionary with $class.
        let plist: [String: Any] = [
            "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": ["root": ["CF$UID": 1]],
            "$objects": [
                "$null", ["$class": ["CF$UID": 3], "text": ["CF$UID": 2]], "cover text",
                ["$classname": "App.Cover", "$classes": ["App.Cover", "NSObject"]],
            ],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let read = try #require(try KeyedArchiveValueTransformer().reverseTransformedValue(data) as? [String: Any])
        #expect(read["$classname"] as? String == "App.Cover")
        #expect(read["text"] as? String == "cover text")
    }

    @Test("data that is not a keyed archive is an error that says so")
    func notAnArchive() throws {
        #expect(throws: KeyedArchive.Error.self) { try KeyedArchive(data: Data("not a plist".utf8)) }
        let plist = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        let error = try #require(throws: KeyedArchive.Error.self) { try KeyedArchive(data: plist) }
        #expect(error.description.contains("$objects"))
        #expect(throws: (any Error).self) { try ManagedObjectModel(archivedModel: plist) }
    }

    @Test("Core Data's transformer names have the built-in transformer; other names only what is registered")
    func builtInNames() throws {
        for name in KeyedArchiveValueTransformer.names {
            #expect(ValueTransformerRegistry.builtInTransformer(named: name) is KeyedArchiveValueTransformer)
            #expect(ValueTransformerRegistry.transformer(named: name) != nil)
        }
        #expect(ValueTransformerRegistry.builtInTransformer(named: "ColorsTransformer") == nil)
        #expect(ValueTransformerRegistry.transformer(named: "NoSuchTransformerAnywhere") == nil)
        #expect(!ValueTransformerRegistry.isRegistered("NoSuchTransformerAnywhere"))
    }
}
