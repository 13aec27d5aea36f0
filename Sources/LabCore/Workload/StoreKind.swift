/// A store the lab runs on, as the module that links it declares it: its name (the `store` parameter's value and
/// CSV column), whether it lives in a file, and one line on what it is.
///
/// The lab core knows stores only by these declarations, as it knows metrics and concurrency strategies: which
/// stores exist, how one opens and where its file goes are the business of the workloads' module.
///
/// For example:
/// ```swift
/// extension StoreKind {
///     static let sqlite = StoreKind("sqlite", isFile: true, about: "libsqlite3 in WAL mode")
/// }
/// ```
public struct StoreKind: Sendable, Hashable, CustomStringConvertible {
    /// The store's name: the `store` parameter's value.
    public let name: String
    /// Whether the store lives in a file (and survives its process): the stores a launch, a seeded store, a
    /// migration or a crash test can use.
    public let isFile: Bool
    /// One line on what the store is.
    public let about: String

    /// Declares a store.
    public init(_ name: String, isFile: Bool, about: String = "") {
        self.name = name
        self.isFile = isFile
        self.about = about
    }

    /// Two declarations are the same store when their names are: a name is a `store` cell.
    public static func == (lhs: StoreKind, rhs: StoreKind) -> Bool { lhs.name == rhs.name }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    /// The name.
    public var description: String { name }
}
