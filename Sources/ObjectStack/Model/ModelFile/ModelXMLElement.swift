import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of a model file's XML, with the line it starts on, for the reader to walk and to name in errors.
struct ModelXMLElement: Sendable {
    let name: String
    let attributes: [String: String]
    var children: [ModelXMLElement] = []
    /// 1-based line of the start tag.
    let line: Int

    /// The element as an error names it: its tag and the attribute that identifies it, if any.
    var label: String {
        for key in ["name", "property", "value"] {
            if let value = attributes[key] { return "\(name) \(key)=\"\(value)\"" }
        }
        return name
    }

    /// Parses XML data into its root element.
    /// - Throws: `ModelFileError` with the line `XMLParser` stopped at.
    static func parse(_ data: Data, file: String) throws -> ModelXMLElement {
        let builder = ModelXMLTreeBuilder()
        let parser: XMLParser
        do {
            parser = try checkedParser(data, delegate: builder)
        } catch {
            throw ModelFileError(
                file: file, line: error.line, element: nil,
                reason: error.reason + (error.isProcessingInstruction ? "; a model file has none" : ""))
        }
        let succeeded = parser.parse()
        if let failure = builder.failure {
            throw ModelFileError(
                file: file, line: failure.line, element: failure.element,
                reason: "malformed XML: \(Self.describe(failure.error))", cause: failure.error)
        }
        if let mismatch = builder.mismatch {
            throw ModelFileError(
                file: file, line: mismatch.line, element: mismatch.open.label,
                reason:
                    "malformed XML: </\(mismatch.closing)> closes <\(mismatch.open.name)> opened on line \(mismatch.open.line)"
            )
        }
        guard succeeded, let root = builder.root else {
            let error = parser.parserError
            let reason = error.map { "malformed XML: \(Self.describe($0))" } ?? "malformed XML: no root element"
            throw ModelFileError(
                file: file, line: max(parser.lineNumber, 1), element: builder.currentElementName,
                reason: reason, cause: error)
        }
        return root
    }

    /// Bytes refused before `XMLParser` sees them: where, and why.
    struct PrecheckFailure: Error {
        let line: Int
        let reason: String
        /// Whether the bytes hold a processing instruction (rather than text that is not UTF-8).
        let isProcessingInstruction: Bool
    }

    /// A parser for the bytes with `delegate`, namespaces and external entities off, once they have passed the
    /// checks libxml2 needs first (`encodingProblem(in:)`, `processingInstructionLine(in:)`): how Xcode's XML files,
    /// model files and mapping models alike, are read.
    static func checkedParser(_ data: Data, delegate: any XMLParserDelegate) throws(PrecheckFailure) -> XMLParser {
        let bytes = [UInt8](data)
        if let problem = encodingProblem(in: bytes) {
            throw PrecheckFailure(
                line: problem.line, reason: "malformed XML: " + problem.reason, isProcessingInstruction: false)
        }
        if let line = processingInstructionLine(in: bytes) {
            throw PrecheckFailure(
                line: line,
                reason: "malformed XML: a processing instruction (<?…?>) other than the XML declaration",
                isProcessingInstruction: true)
        }
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        return parser
    }

    /// Why the bytes are not the UTF-8 text Xcode writes model files in, and where; nil when they are.
    ///
    /// Checked before XMLParser sees them: libxml2's push parser (2.9.14, under FoundationXML on Linux) crashes on
    /// a declaration naming another encoding spelling followed by invalid bytes (`encoding="UTF_8"\xEB…`, found
    /// by fuzzing), so only UTF-8, declared as such or not at all, reaches it.
    static func encodingProblem(in bytes: [UInt8]) -> (line: Int, reason: String)? {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            var offset = 0
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): offset += String(scalar).utf8.count
                case .emptyInput, .error: break decoding
                }
            }
            let line = bytes.prefix(offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            return (line, "not UTF-8 text (an invalid byte at offset \(offset)); model files are UTF-8")
        }
        guard text.hasPrefix("<?xml") else { return nil }
        guard let end = text.range(of: "?>") else { return (1, "the XML declaration is not closed with ?>") }
        let declaration = text[..<end.lowerBound]
        for quote in ["\"", "'"] {
            guard let start = declaration.range(of: "encoding=" + quote) else { continue }
            let rest = declaration[start.upperBound...]
            let name = rest.prefix { String($0) != quote }
            guard ["utf-8", "utf8"].contains(name.lowercased()) else {
                return (1, "encoding \"\(name)\" in the XML declaration; model files are UTF-8")
            }
        }
        return nil
    }

    /// The line of the first processing instruction that is not the leading XML declaration, outside comments
    /// and CDATA; nil when there is none.
    ///
    /// Model files have none, and FoundationXML on Linux crashes (strlen of a null pointer) on one without
    /// data, such as `<?xm?>` — found by fuzzing — so they are refused before XMLParser sees them.
    static func processingInstructionLine(in bytes: [UInt8]) -> Int? {
        // Byte by byte, with no allocation per position: a mapping model's file holds megabytes of archived
        // models, and this scan runs before every parse of one.
        func starts(_ pattern: StaticString, at index: Int) -> Bool {
            let count = pattern.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            let start = pattern.utf8Start
            for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
            return true
        }
        func skip(past end: StaticString, from index: Int) -> Int {
            var index = index
            while index < bytes.count && !starts(end, at: index) { index += 1 }
            return index + end.utf8CodeUnitCount
        }
        // The declaration, if any, comes first (after a byte-order mark).
        var index = starts("\u{FEFF}", at: 0) ? 3 : 0
        if starts("<?xml", at: index), index + 5 < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index + 5]) {
            index = skip(past: "?>", from: index)
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if starts("<!--", at: index) {
                index = skip(past: "-->", from: index + 4)
            } else if starts("<![CDATA[", at: index) {
                index = skip(past: "]]>", from: index + 9)
            } else if starts("<?", at: index) {
                return bytes[..<index].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            } else {
                index += 1
            }
        }
        return nil
    }

    /// XMLParser's errors carry no message on Linux: name the error code instead.
    private static func describe(_ error: any Error) -> String {
        let code = (error as NSError).code
        guard let known = XMLParser.ErrorCode(rawValue: code) else { return "parser error \(code)" }
        return "\(known) (code \(code))"
    }
}

/// The `XMLParser` delegate that builds the element tree.
private final class ModelXMLTreeBuilder: NSObject, XMLParserDelegate {
    var stack: [ModelXMLElement] = []
    var root: ModelXMLElement?

    var currentElementName: String? { stack.last?.label }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        stack.append(ModelXMLElement(name: elementName, attributes: attributes, line: parser.lineNumber))
    }

    /// The first error libxml2 reports, where it happened (it may recover and report success).
    var failure: (error: any Error, line: Int, element: String?)?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard failure == nil else { return }
        failure = (parseError, max(parser.lineNumber, 1), currentElementName)
        parser.abortParsing()
    }

    /// An end tag that does not close the open element (libxml2 recovers from it; a model file must not).
    var mismatch: (closing: String, open: ModelXMLElement, line: Int)?

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let element = stack.popLast() else { return }
        guard element.name == elementName else {
            mismatch = (elementName, element, parser.lineNumber)
            parser.abortParsing()
            return
        }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
