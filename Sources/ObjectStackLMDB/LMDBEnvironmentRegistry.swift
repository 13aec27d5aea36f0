import CLMDB
import Foundation
import ObjectStack

/// The process-wide table of open LMDB environments: one per file, counted by the stores that use it.
///
/// Opening and closing happen under one lock, so an environment is never open twice for one file, even
/// while the last user of a previous one is closing it.
/// - Note: Thread-safe.
enum LMDBEnvironmentRegistry {
    private struct Entry {
        let environment: LMDBEnvironment
        var users: Int
    }

    private static let entries = LockedValue<[String: Entry]>([:])

    /// The environment for a store file, opened (after checking the file) if no store in this process has it.
    /// - Throws: `StoreError` naming what is wrong with the file; a failed open leaves the file untouched.
    static func acquire(url: URL, initialMapSize: Int) throws -> LMDBEnvironment {
        let path = canonicalPath(url)
        return try entries.withLock { entries in
            if var entry = entries[path] {
                entry.users += 1
                entries[path] = entry
                return entry.environment
            }
            try LMDBFileCheck.validate(path: path, url: url)
            let environment = try LMDBEnvironment(path: path, url: url, initialMapSize: initialMapSize)
            entries[path] = Entry(environment: environment, users: 1)
            return environment
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
                environment.close()
            }
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
