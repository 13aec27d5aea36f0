import CLMDB
import Foundation
import ObjectStack

/// An `MDB_env` handle and the lock that guards its memory map.
///
/// Every transaction holds the gate shared; growing the map (`mdb_env_set_mapsize`, which remaps the file) and
/// closing the environment hold it exclusively, because LMDB requires that no transaction of this process is
/// active while the map moves.
/// - Note: Thread-safe. Never acquire the gate while holding it: a shared holder that asks for exclusive access
///   waits for itself.
final class LMDBMapGate: @unchecked Sendable {
    // @unchecked: `env` is only read or written while `lock` (a pthread read-write lock) is held — shared for
    // use, exclusive to replace it — so no thread sees the handle after `close` freed it.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var env: OpaquePointer?
    private let url: URL
    /// Read transactions query generations hold open; ended before the map moves or the environment closes.
    let pinnedTransactions = LockedValue<[ObjectIdentifier: LMDBPinnedTransaction]>([:])

    init(env: OpaquePointer, url: URL) {
        self.env = env
        self.url = url
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        if let env { mdb_env_close(env) }
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the environment while no resize or close can happen.
    /// - Throws: `StoreError.closed` when the environment was closed.
    func shared<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard let env else { throw StoreError(code: .closed, message: "the LMDB environment was closed", url: url) }
        return try body(env)
    }

    /// Runs `body` with the environment while no transaction of this process is active.
    func exclusive<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard let env else { throw StoreError(code: .closed, message: "the LMDB environment was closed", url: url) }
        endPinnedTransactions()
        return try body(env)
    }

    /// Closes the environment once every transaction has ended; later use throws `.closed`.
    func close(before closing: (OpaquePointer) -> Void) {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard let env else { return }
        endPinnedTransactions()
        closing(env)
        mdb_env_close(env)
        self.env = nil
    }
}
