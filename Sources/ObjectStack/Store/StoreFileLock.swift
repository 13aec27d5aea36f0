import Foundation

/// An advisory lock (`flock(2)`) on a store's main file, which tells processes using this library about each
/// other: every store that opens a file holds it shared for as long as it is open, and a migration holds it
/// exclusive from before it reads the old store until the new one has replaced it.
///
/// For example:
/// ```swift
/// guard let lock = try StoreFileLock.exclusive(url) else { return }  // no file
/// defer { lock.release() }
/// try type.replaceStore(at: url, withStoreAt: temporaryURL)
/// ```
/// Why a lock of our own: LMDB's lock file lists reader slots only while a read transaction runs, and SQLite
/// takes no lock at all on an idle connection, so neither says whether another process has the store open.
/// `flock` locks belong to an open file description, are dropped by the kernel when a process dies (no stale
/// lock after a crash), and do not interact with the `fcntl` locks SQLite and LMDB take themselves.
///
/// One process holds one description per file: stores of one process share it (counted), and a shared
/// request while this process holds the file exclusive (the migration reading its old store) joins it. A
/// shared lock taken on a file that a migration then replaced would lock the unlinked old file, so the lock
/// checks after locking that the path still names the file it locked, and starts again if not.
///
/// On a file system without `flock` the lock counts only the stores of this process.
///
/// Closing a descriptor drops every `fcntl` lock the process holds on that file, SQLite's included, so the
/// descriptor is closed only when the last store of this process using the file has closed its connection.
/// - Note: Thread-safe.
public final class StoreFileLock: @unchecked Sendable {
    /// One locked file description per file in this process.
    private struct Entry {
        let descriptor: Int32
        let isExclusive: Bool
        var holders: Int
    }

    private static let entries = LockedValue<[String: Entry]>([:])
    /// How long a shared request waits for another process's migration to finish before giving up.
    private static let sharedWait: Duration = .seconds(2)

    /// The locked file's canonical path.
    public let path: String
    private let released = LockedValue(false)

    private init(path: String) {
        self.path = path
    }

    deinit { release() }

    /// Takes the lock shared, as every open store does; nil when there is no file at `url` yet (take it again
    /// once the store has created it).
    /// - Throws: `StoreError(.locked)` when another process is migrating the store (holds it exclusive) for
    ///   longer than a short wait.
    public static func shared(_ url: URL) throws -> StoreFileLock? {
        let path = canonicalPath(url)
        let deadline = ContinuousClock.now + sharedWait
        while true {
            switch try attempt(path, exclusive: false, url: url) {
            case .locked(let lock): return lock
            case .noFile: return nil
            case .replaced: continue
            case .busy:
                guard ContinuousClock.now < deadline else {
                    throw StoreError(
                        code: .locked,
                        message: "another process is migrating the store (it holds the store's file lock exclusively); "
                            + "open it again when the migration is done", url: url)
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Takes the lock exclusive, as a migration does before it reads the old store and swaps files; nil when
    /// there is no file at `url`.
    /// - Throws: `StoreError(.locked)` at once when a store of this or another process has the file open.
    public static func exclusive(_ url: URL) throws -> StoreFileLock? {
        let path = canonicalPath(url)
        // A shared lock this process has just released can outlive the release for a moment: a child process
        // forked by another thread holds the lock's file description until its exec closes it. So "busy" is
        // only believed after it lasts.
        let deadline = ContinuousClock.now + .milliseconds(500)
        while true {
            switch try attempt(path, exclusive: true, url: url) {
            case .locked(let lock): return lock
            case .noFile: return nil
            case .replaced: continue
            case .busy where ContinuousClock.now < deadline:
                usleep(10_000)
                continue
            case .busy:
                throw StoreError(
                    code: .locked,
                    message: "another process has the store open; it cannot be migrated or moved until that process "
                        + "closes it", url: url)
            }
        }
    }

    /// Runs `body` only if nothing but this call (and, during a migration, the migration's own lock) uses the
    /// file at `url`: how a refused open removes the companion files it created without pulling them from
    /// under another user. Returns whether `body` ran; false also when there is no file.
    @discardableResult
    public static func withSoleUse(of url: URL, _ body: () throws -> Void) rethrows -> Bool {
        let path = canonicalPath(url)
        let entry = entries.withLock { $0[path] }
        if let entry {
            // Only the migration's exclusive lock, no store of this process, may hold the file.
            guard entry.isExclusive, entry.holders == 1 else { return false }
            try body()
            return true
        }
        guard let lock = try? exclusive(url) else { return false }
        defer { lock.release() }
        try body()
        return true
    }

    /// Whether this process holds the lock on the file at `url` exclusive (a migration is under way here).
    public static func isHeldExclusively(_ url: URL) -> Bool {
        entries.withLock { $0[canonicalPath(url)]?.isExclusive ?? false }
    }

    /// Gives the lock up; the file's description is closed when no holder in this process is left.
    public func release() {
        guard
            !released.withLock({
                let was = $0
                $0 = true
                return was
            })
        else { return }
        Self.entries.withLock { entries in
            guard var entry = entries[path] else { return }
            entry.holders -= 1
            if entry.holders > 0 {
                entries[path] = entry
            } else {
                entries[path] = nil
                Foundation.close(entry.descriptor)
            }
        }
    }

    // MARK: - Locking

    private enum Attempt {
        case locked(StoreFileLock)
        case noFile
        case busy
        /// The path names another file than the one locked (a migration swapped it): try again.
        case replaced
    }

    private static func attempt(_ path: String, exclusive: Bool, url: URL) throws -> Attempt {
        try entries.withLock { entries -> Attempt in
            if var entry = entries[path] {
                // A store of this process already holds the file; exclusive means no store of it may.
                if exclusive {
                    throw StoreError(
                        code: .locked,
                        message: entry.isExclusive
                            ? "the store is already being migrated in this process"
                            : "\(entry.holders) store(s) in this process have the store open; close them first",
                        url: url)
                }
                entry.holders += 1
                entries[path] = entry
                return .locked(StoreFileLock(path: path))
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                // No file yet, or one this process cannot read: the store's own open reports the latter.
                return .noFile
            }
            var result = flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)
            while result != 0 && errno == EINTR {
                result = flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)
            }
            if result != 0 && errno == EWOULDBLOCK {
                Foundation.close(descriptor)
                return .busy
            }
            // Any other failure is a file system without `flock` (some network ones): the store still opens,
            // and the lock then only counts the stores of this process.
            // A migration may have renamed a new file over the path between open and flock.
            var locked = stat()
            var current = stat()
            guard fstat(descriptor, &locked) == 0, stat(path, &current) == 0,
                locked.st_dev == current.st_dev, locked.st_ino == current.st_ino
            else {
                Foundation.close(descriptor)
                return .replaced
            }
            entries[path] = Entry(descriptor: descriptor, isExclusive: exclusive, holders: 1)
            return .locked(StoreFileLock(path: path))
        }
    }

    /// The file's path with the folder's symbolic links resolved, so two spellings of one file share a lock.
    static func canonicalPath(_ url: URL) -> String {
        let standardized = url.standardizedFileURL
        let directory = standardized.deletingLastPathComponent().resolvingSymlinksInPath()
        return directory.appendingPathComponent(standardized.lastPathComponent).path
    }
}
