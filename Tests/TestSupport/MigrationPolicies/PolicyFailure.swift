/// A test policy's own failure: what the app's policy would have stopped on (`fatalError` there).
public struct PolicyFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
