/// Something in a model file that loads, but not exactly as written, with where it is and what was done.
///
/// A warning (`ModelVersion.warnings`): an XML attribute or element the reader does not know (kept in
/// `ModelFileMetadata` or skipped), an attribute of a type ObjectStack cannot load (composite, `Undefined`), an
/// inverse that does not reciprocate. `ModelFileOptions.strict` refuses these. A note (`ModelVersion.notes`): an
/// index loaded in part — an element naming a relationship (stores index every to-one reference on their own), an
/// expression, an R-tree element — which changes a fetch's speed, not its result.
public struct ModelFileWarning: Sendable, Hashable, CustomStringConvertible {
    /// The version's `contents` file.
    public let file: String
    /// The element's line (1-based).
    public let line: Int
    /// The element, such as `fetchIndexElement property="list"`.
    public let element: String
    /// What was loaded instead of what is written.
    public let message: String

    /// Creates a warning.
    public init(file: String, line: Int, element: String, message: String) {
        self.file = file
        self.line = line
        self.element = element
        self.message = message
    }

    public var description: String { "\(file):\(line): <\(element)>: \(message)" }
}
