import Foundation

/// What a file-backed store type does with its files besides opening them: what migration needs.
///
/// A store type supplies these so that `StoreType.metadataForStore(at:)`, `destroyStore(at:)` and
/// `replaceStore(at:withStoreAt:)` work on its files without the caller knowing their layout.
/// - Note: The closures are called from whichever thread migrates; they must be thread-safe.
public struct StoreFileOperations: Sendable {
    /// The file extension a new store of the type gets (`"sqlite"`), without the dot.
    public let fileExtension: String
    /// The files beside the main one that belong to a store (`["-wal", "-shm"]`), as suffixes of its path.
    public let companionSuffixes: [String]
    /// Reads a store's metadata without writing to it; nil when there is no store (no file, or an empty one).
    public let readMetadata: @Sendable (URL) throws -> StoreMetadata?
    /// Makes the store's main file hold all of it, so the file can be renamed: SQLite checkpoints its WAL and
    /// leaves WAL mode. Throws when a store of this process still has the file open.
    public let makeSelfContained: @Sendable (URL) throws -> Void
    /// Makes a lightweight migration inside the store's file when the change allows it (returns false when it
    /// does not, and nothing changed); nil for a type that always copies rows into a new file.
    public let migrateInPlace: (@Sendable (InPlaceMigration) throws -> Bool)?

    /// Creates the operations of a store type.
    public init(
        fileExtension: String, companionSuffixes: [String],
        readMetadata: @escaping @Sendable (URL) throws -> StoreMetadata?,
        makeSelfContained: @escaping @Sendable (URL) throws -> Void,
        migrateInPlace: (@Sendable (InPlaceMigration) throws -> Bool)? = nil
    ) {
        self.fileExtension = fileExtension
        self.companionSuffixes = companionSuffixes
        self.readMetadata = readMetadata
        self.makeSelfContained = makeSelfContained
        self.migrateInPlace = migrateInPlace
    }

    /// The main file and its companions, main file first.
    func files(at url: URL) -> [URL] {
        [url] + companionSuffixes.map { URL(fileURLWithPath: url.path + $0) }
    }
}
