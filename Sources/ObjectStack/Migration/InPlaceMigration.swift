import Foundation

/// A lightweight migration a store type may make inside its own file, in one transaction, instead of copying
/// every row into a new file (Core Data alters a SQLite store's tables with SQL where the change allows it).
///
/// `StoreMigrator` offers it to the store type's `StoreFileOperations.migrateInPlace` while it holds the
/// store's exclusive lock; the type returns false for a change it does not make in place, and the rows are
/// then copied. A type that returns true has made the whole change, or none of it.
public struct InPlaceMigration: Sendable {
    /// The store file.
    public let url: URL
    /// What differs between the model that wrote the store and the model it must now hold.
    public let difference: ModelDifference
    /// The configuration the store holds, or nil for every entity.
    public let configurationName: String?
    /// Store options, as for opening the store.
    public let options: [String: String]
    /// Called as the migration advances, like a copying migration's progress.
    public let progress: (@Sendable (MigrationProgress) -> Void)?
}
