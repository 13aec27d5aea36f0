import CLMDB
import Foundation
import ObjectStack

/// The process-wide table of open LMDB environments: one per file, counted by the stores that use it.
///
/// Opening and closing happen under one lock, so an environment is never open twice for one file, even
/// while the last user of a previous one is closing it.
///
/// Each open environment holds the file's `StoreFileLock` shared, so a migration in another process sees it.
/// An environment no store ever opened successfully on (a metadata read, a refused open) removes the files
/// its opening created (the `-lock` file, and the data file of a new store) when it closes, so a refusal
/// leaves the folder as it was.
/// - Note: Thread-safe.
enum LMDBEnvironmentRegistry {
    private struct Entry {
        let environment: LMDBEnvironment
        let lock: StoreFileLock?
        /// Files that did not exist before this environment opened.
        let createdFiles: [String]
        var users: Int
        /// Whether a store opened on it: then its files stay, as LMDB leaves them.
        var isKept = false
    }

    private static let entries = LockedValue<[String: Entry]>([:])

    /// The environment for a store file, opened (after checking the file) if no store in this process has it.
    /// - Parameter durability: what the store's commits must promise; an environment already open is made at
    ///   least that durable (nil: whatever it has, `full` for a new one).
    /// - Throws: `StoreError` naming what is wrong with the file; a failed open leaves the file untouched.
    static func acquire(url: URL, initialMapSize: Int, durability: Durability? = nil) throws -> LMDBEnvironment {
        let path = canonicalPath(url)
        return try entries.withLock { entries in
            if var entry = entries[path] {
                if let durability { try entry.environment.strengthen(to: durability) }
                entry.users += 1
                entries[path] = entry
                return entry.environment
            }
            try LMDBFileCheck.validate(path: path, url: url)
            let files = [path, path + "-lock"]
            let existing = files.map { FileManager.default.fileExists(atPath: $0) }
            // Locked before the environment opens, so a migration cannot swap the file between the two.
            var lock = try StoreFileLock.shared(url)
            let environment: LMDBEnvironment
            do {
                environment = try LMDBEnvironment(
                    path: path, url: url, initialMapSize: initialMapSize, durability: durability ?? .full)
                if lock == nil { lock = try StoreFileLock.shared(url) }
            } catch {
                lock?.release()
                throw error
            }
            let created = zip(files, existing).filter { !$0.1 }.map(\.0)
            entries[path] = Entry(environment: environment, lock: lock, createdFiles: created, users: 1)
            return environment
        }
    }

    /// Marks the environment as holding a store that opened, so its files stay when it closes.
    static func keep(_ environment: LMDBEnvironment) {
        entries.withLock { entries in
            guard entries[environment.path]?.environment === environment else { return }
            entries[environment.path]?.isKept = true
        }
    }

    /// Gives up one use; the last user closes the environment.
    static func release(_ environment: LMDBEnvironment) {
        entries.withLock { entries in
            guard var entry = entries[environment.path], entry.environment === environment else { return }
            entry.users -= 1
            if entry.users > 0 {
                entries[environment.path] = entry
            } else {
                entries[environment.path] = nil
                LMDBStore.returnUnusedKeys(of: environment)
                environment.close()
                entry.lock?.release()
                if !entry.isKept, !entry.createdFiles.isEmpty {
                    removeCreatedFiles(entry.createdFiles, dataPath: environment.path)
                }
            }
        }
    }

    /// Removes what an environment that held no store created, unless another process (of this library, or any
    /// LMDB user, seen by the lock file's `fcntl` lock) has opened the file in the meantime.
    private static func removeCreatedFiles(_ files: [String], dataPath: String) {
        let dataFile = URL(fileURLWithPath: dataPath)
        StoreFileLock.withSoleUse(of: dataFile) {
            guard !LMDBStore.lockFileIsHeldElsewhere(dataFile) else { return }
            for file in files { try? FileManager.default.removeItem(atPath: file) }
        }
    }

    /// How many stores in this process use the environment of a file (0 when it is closed).
    static func users(of url: URL) -> Int {
        entries.withLock { $0[canonicalPath(url)]?.users ?? 0 }
    }

    /// The file's path with symbolic links resolved, so two spellings of one file share one environment.
    private static func canonicalPath(_ url: URL) -> String {
        let standardized = url.standardizedFileURL
        let directory = standardized.deletingLastPathComponent().resolvingSymlinksInPath()
        return directory.appendingPathComponent(standardized.lastPathComponent).path
    }
}
