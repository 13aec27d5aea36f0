import Synchronization

/// A process-wide counter for unique numbers (temporary object IDs, context names).
final class AtomicCounter: Sendable {
    private let value = Atomic<Int64>(0)

    /// The next number, starting at 1.
    func next() -> Int64 {
        value.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
