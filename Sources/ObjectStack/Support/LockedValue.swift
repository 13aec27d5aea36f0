import Foundation

/// A value and the lock that guards it: the value is only reachable inside `withLock`.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux `Mutex` takes a
/// priority-inheriting futex in the kernel when contended, which ThreadSanitizer cannot see, so every
/// contended section would be reported as a race and real races would drown in the noise.
/// - Note: Thread-safe.
public final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written while `lock` is held.
    private let lock = NSLock()
    // The lock already makes each access exclusive (and a nested `withLock` would deadlock first): the runtime's
    // check on top of it cost as much as the lock in lookups by ID.
    @exclusivity(unchecked) private var value: Value

    /// Creates the box with an initial value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
