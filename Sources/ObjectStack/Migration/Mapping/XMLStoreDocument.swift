import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A file in Core Data's XML store format, read as its objects: what an Xcode mapping model's `xcmapping.xml` is.
///
/// The format: a `<database>` with a `<databaseInfo>` (version, UUID, metadata) and one `<object type="T" id="z…">`
/// per object, holding an `<attribute name="…" type="string|binary|bool|int16…">value</attribute>` per attribute
/// (binary values in base 64) and a `<relationship name="…" idrefs="z… z…">` per relationship. The objects belong
/// to Xcode's own model, so the file is read as XML rather than opened as a store.
struct XMLStoreDocument {
    /// One object of the file.
    struct Object {
        /// Its entity (`XDDEVENTITYMAPPING`…), upper case as the file writes it.
        let type: String
        /// Its identifier in the file (`z104`).
        let id: String
        /// Its attributes' text by name (base 64 for binary data, `1`/`0` for booleans).
        var attributes: [String: String] = [:]
        /// The identifiers each relationship holds, in the file's order.
        var relationships: [String: [String]] = [:]
        /// The line the object starts on.
        let line: Int

        /// The attribute's text, nil when absent or empty.
        func string(_ name: String) -> String? {
            guard let text = attributes[name], !text.isEmpty else { return nil }
            return text
        }

        /// A binary attribute's bytes, nil when absent or not base 64 (`string(_:)` tells the two apart).
        func data(_ name: String) -> Data? {
            string(name).flatMap { Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }
        }

        /// A boolean attribute (`1`, `YES`, `true`).
        func bool(_ name: String) -> Bool? {
            guard let text = string(name) else { return nil }
            return ["1", "yes", "true"].contains(text.lowercased())
        }

        /// An integer attribute.
        func integer(_ name: String) -> Int? { string(name).flatMap { Int($0) } }
    }

    /// The objects, in file order.
    let objects: [Object]

    /// The object with identifier `id`.
    func object(_ id: String) -> Object? { objectsByID[id] }

    private let objectsByID: [String: Object]

    /// Reads the document.
    /// - Throws: `XMLStoreDocument.Failure` with the line where the XML or the format is wrong.
    init(data: Data) throws {
        let builder = Builder()
        let parser: XMLParser
        do {
            // The checks the model-file reader makes before libxml2 sees the bytes, which it may crash on otherwise.
            parser = try ModelXMLElement.checkedParser(data, delegate: builder)
        } catch {
            throw Failure(line: error.line, reason: error.reason)
        }
        let succeeded = parser.parse()
        if let failure = builder.failure { throw failure }
        // FoundationXML on Linux can report success for a document that stops inside an element.
        if let open = builder.open.last {
            throw Failure(line: max(parser.lineNumber, 1), reason: "malformed XML: the file ends inside <\(open)>")
        }
        guard succeeded, builder.sawDatabase else {
            let reason =
                parser.parserError.map { "malformed XML: \($0.localizedDescription)" } ?? "no <database> element"
            throw Failure(line: max(parser.lineNumber, 1), reason: reason)
        }
        objects = builder.objects
        var byID: [String: Object] = [:]
        for object in builder.objects {
            guard byID[object.id] == nil else {
                throw Failure(line: object.line, reason: "two objects have the identifier \(object.id)")
            }
            byID[object.id] = object
        }
        objectsByID = byID
    }

    /// What is wrong with the document, and on which line.
    struct Failure: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "line \(line): \(reason)" }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var objects: [Object] = []
        var sawDatabase = false
        var failure: Failure?
        /// The elements started and not yet ended, outermost first.
        var open: [String] = []
        private var current: Object?
        private var attribute: String?
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            open.append(name)
            switch name {
            case "database":
                sawDatabase = true
            case "object":
                guard let type = attributes["type"], let id = attributes["id"] else {
                    return fail(parser, "an <object> without its type and id")
                }
                current = Object(type: type.uppercased(), id: id, line: parser.lineNumber)
            case "attribute" where current != nil:
                guard let key = attributes["name"] else { return fail(parser, "an <attribute> without a name") }
                attribute = key
                text = ""
            case "relationship" where current != nil:
                guard let key = attributes["name"] else { return fail(parser, "a <relationship> without a name") }
                current?.relationships[key] = (attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if attribute != nil { text += string }
        }

        func parser(
            _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if open.last == name { open.removeLast() }
            switch name {
            case "attribute":
                if let key = attribute {
                    current?.attributes[key] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                attribute = nil
            case "object":
                if let current { objects.append(current) }
                current = nil
            default:
                break
            }
        }

        private func fail(_ parser: XMLParser, _ reason: String) {
            guard failure == nil else { return }
            failure = Failure(line: parser.lineNumber, reason: reason)
            parser.abortParsing()
        }
    }
}
