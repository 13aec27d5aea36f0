import Foundation

/// An Xcode model file that cannot be loaded: which file, which element on which line, and why.
///
/// For example:
/// ```swift
/// do { _ = try ManagedObjectModel(contentsOf: url) } catch let error as ModelFileError {
///     print(error)   // ".../Model.xcdatamodel/contents:12: <relationship name="books">: unknown delete rule 'Destroy'"
/// }
/// ```
/// Malformed XML, an element or attribute the reader does not know, a value it cannot read, and a model
/// feature the stack does not support all end here, never in a silently different model.
public struct ModelFileError: Error, Sendable, CustomStringConvertible {
    /// The file at fault: a version's `contents`, a bundle's `.xccurrentversion`, or the bundle itself.
    public let file: String
    /// The line of the element (1-based), when the problem is inside an XML file.
    public let line: Int?
    /// The element at fault with its name, such as `attribute name="title"`, when there is one.
    public let element: String?
    /// What is wrong, naming the entity and property where there is one.
    public let reason: String
    /// The underlying error: an `XMLParser` error, an `ObjectStackError` from building the model, or a
    /// `PredicateSyntaxError`.
    public let cause: (any Error)?

    /// Creates an error.
    public init(file: String, line: Int? = nil, element: String? = nil, reason: String, cause: (any Error)? = nil) {
        self.file = file
        self.line = line
        self.element = element
        self.reason = reason
        self.cause = cause
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let element { text += ": <\(element)>" }
        return text + ": " + reason
    }
}
