#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The contexts whose blocks the current thread is running, innermost last.
///
/// `DispatchQueue.sync` runs a block on the calling thread, so a thread inside a child's `performAndWait`
/// that asks its parent to `performAndWait` must be recognised as already running for the child — and a
/// queue-specific key cannot tell (it sees only the innermost queue). A thread-local stack can, which lets
/// nested parent/child calls run inline instead of deadlocking, as Core Data's `performBlockAndWait` does.
enum ContextExecutionStack {
    private final class Frames {
        var identifiers: [ObjectIdentifier] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return key
    }()

    private static var frames: Frames {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Frames>.fromOpaque(pointer).takeUnretainedValue()
        }
        let frames = Frames()
        pthread_setspecific(key, Unmanaged.passRetained(frames as AnyObject).toOpaque())
        return frames
    }

    /// Whether the current thread is running a block for the context.
    static func contains(_ context: ObjectIdentifier) -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        return Unmanaged<Frames>.fromOpaque(pointer).takeUnretainedValue().identifiers.contains(context)
    }

    /// Runs `body` marked as running for the context.
    static func run<T>(for context: ObjectIdentifier, _ body: () throws -> T) rethrows -> T {
        let frames = self.frames
        frames.identifiers.append(context)
        defer { frames.identifiers.removeLast() }
        return try body()
    }
}
