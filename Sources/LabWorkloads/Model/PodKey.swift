/// A pod's unique identifier: name and version (the `Pod` entity's uniqueness constraint).
public struct PodKey: Hashable, Sendable {
    /// The pod's name.
    public var name: String
    /// The pod's version.
    public var version: String

    /// Creates a key.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
