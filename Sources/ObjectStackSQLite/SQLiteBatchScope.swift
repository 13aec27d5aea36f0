import Foundation
import Synchronization

/// The connection a batch request's transaction holds, visible to the one thread that runs the request.
///
/// A batch request runs inside `withConnection` (the store's lock held) and reads through the store's own fetch,
/// row and relationship reads, which take `withConnection` again: on the thread that holds the batch, they use its
/// connection (inside its transaction) instead of waiting for the lock that thread holds. Every other thread still
/// waits for the lock.
/// - Note: Thread-safe as used: only the owner thread reads or writes `connection`.
final class SQLiteBatchScope: @unchecked Sendable {
    // @unchecked: `connection` is written by the thread that sets `owner` to itself, before setting it and after
    // clearing it, and read only by a thread that finds `owner` equal to itself — the same thread.
    private let owner = Atomic<UInt>(0)
    private var connection: SQLiteConnection?

    /// The batch connection when the calling thread runs a batch request on this store, else nil.
    @inline(__always)
    var current: SQLiteConnection? {
        // A relaxed load suffices: only this thread ever stores its own identity here.
        owner.load(ordering: .relaxed) == Self.thread ? connection : nil
    }

    /// Runs `body` with `connection` visible to this thread's nested store calls.
    func run<T>(on connection: SQLiteConnection, _ body: () throws -> T) rethrows -> T {
        self.connection = connection
        owner.store(Self.thread, ordering: .relaxed)
        defer {
            owner.store(0, ordering: .relaxed)
            self.connection = nil
        }
        return try body()
    }

    /// The calling thread's identity.
    private static var thread: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }
}
