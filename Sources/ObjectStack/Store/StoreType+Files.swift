import Foundation

extension StoreType {
    // MARK: - Store files

    /// The metadata of the store at `url`, read without opening it for writing; nil when there is no store.
    ///
    /// Core Data's `metadataForPersistentStore(ofType:at:)`: the entity version hashes tell whether the store
    /// needs migrating to a model.
    /// - Throws: `StoreError` when the file is not a store of this type or cannot be read, or `.unsupported`
    ///   for a type whose stores are not files.
    public func metadataForStore(at url: URL) throws -> StoreMetadata? {
        try operations(for: url).readMetadata(url)
    }

    /// Deletes the store at `url` with every file that belongs to it; nothing happens when there is none.
    /// - Throws: `StoreError(.ioFailure)` when a file exists but cannot be removed.
    public func destroyStore(at url: URL) throws {
        for file in try operations(for: url).files(at: url) where FileManager.default.fileExists(atPath: file.path) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw StoreError(
                    code: .ioFailure, message: "cannot remove \(file.path): \(error.localizedDescription)",
                    url: url)
            }
        }
    }

    /// Puts the store at `source` in place of the store at `destination`, atomically.
    ///
    /// Both stores are first made self-contained (SQLite: no WAL left beside the file), then one `rename(2)`
    /// swaps the main file and the folder is synced: a crash at any point leaves either the old store or the
    /// new one at `destination`, each whole. The source's companion files are removed afterwards.
    /// - Throws: `StoreError` when a store is still open in this or another process (`.locked`) or a file
    ///   operation fails.
    public func replaceStore(at destination: URL, withStoreAt source: URL) throws {
        let operations = try operations(for: destination)
        // A store open in another process must not have its file replaced: `StoreMigrator` holds the lock
        // already; a direct call takes it here.
        let lock = StoreFileLock.isHeldExclusively(destination) ? nil : try StoreFileLock.exclusive(destination)
        defer { lock?.release() }
        try operations.makeSelfContained(source)
        if FileManager.default.fileExists(atPath: destination.path) { try operations.makeSelfContained(destination) }
        // Stale companions of the old store would be read as belonging to the new file (a WAL would be replayed
        // into it), so they go before the swap; the old main file is self-contained without them.
        for companion in operations.files(at: destination).dropFirst()
        where FileManager.default.fileExists(atPath: companion.path) {
            try? FileManager.default.removeItem(at: companion)
        }
        guard rename(source.path, destination.path) == 0 else {
            throw StoreError(
                code: .ioFailure,
                message: "cannot move \(source.path) into place: \(String(cString: strerror(errno)))", url: destination)
        }
        syncFolder(of: destination)
        for companion in operations.files(at: source).dropFirst()
        where FileManager.default.fileExists(atPath: companion.path) {
            try? FileManager.default.removeItem(at: companion)
        }
    }

    private func operations(for url: URL) throws -> StoreFileOperations {
        guard let fileOperations, url.isFileURL else {
            throw StoreError(
                code: .unsupported, message: "\(name) stores are not files; they cannot be read, moved or migrated",
                url: url)
        }
        return fileOperations
    }

}

/// Makes a rename in a folder durable.
private func syncFolder(of url: URL) {
    let descriptor = open(url.deletingLastPathComponent().path, O_RDONLY)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    close(descriptor)
}
