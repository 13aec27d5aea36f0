/// A number per entity name, the same for every model instance in the process: object IDs are equal across
/// models when their entities' names are, so tables keyed by ID (`ObjectKey`) compare these numbers, not names.
enum EntityNameNumbers {
    // A LockedValue, not a Synchronization.Mutex: ThreadSanitizer does not see the Mutex's futex and reports races.
    private static let numbers = LockedValue<[String: UInt32]>([:])

    /// The number of `name`, given out (from 1) the first time the name is seen.
    static func number(for name: String) -> UInt32 {
        numbers.withLock { numbers in
            if let known = numbers[name] { return known }
            let number = UInt32(numbers.count + 1)
            numbers[name] = number
            return number
        }
    }
}
