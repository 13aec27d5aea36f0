/// Something in a model file that loads, but not exactly as written, with where it is and what was done.
///
/// The one case today: a fetch index element naming a relationship. Stores index every to-one reference on
/// their own and a to-many has no column to index, so the index keeps its attribute elements only.
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
