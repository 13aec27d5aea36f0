import Synchronization

/// A store identifier shared by every object ID of that store: one word in each ID instead of a 16-byte string.
///
/// Identities are interned for the life of the process (a process sees a handful of stores), so two IDs name the
/// same store exactly when they hold the same identity, and a lookup that meets the last identity asked for (a
/// store making the IDs of a fetch's rows) compares one string and takes no lock.
final class StoreIdentity: Sendable {
    /// The store's identifier; empty for temporary IDs.
    let identifier: String
    /// Whether this is the identity of temporary IDs (no store yet).
    let isTemporary: Bool
    /// The identity's number in the process: 0 for temporary IDs, then from 1 in the order stores are first seen.
    /// Tables keyed by object ID (`ObjectKey`) compare it.
    let number: UInt32

    private init(identifier: String, isTemporary: Bool, number: UInt32) {
        self.identifier = identifier
        self.isTemporary = isTemporary
        self.number = number
    }

    /// The identity of temporary IDs.
    static let temporary = StoreIdentity(identifier: "", isTemporary: true, number: 0)

    // A LockedValue, not a Synchronization.Mutex: ThreadSanitizer does not see the Mutex's futex and reports races.
    private static let table = LockedValue<[String: StoreIdentity]>([:])
    /// The identity looked up last (never released: the table holds every identity for good).
    private static let last = Atomic<UInt>(0)

    /// The identity of a store identifier.
    static func interned(_ identifier: String) -> StoreIdentity {
        let bits = last.load(ordering: .acquiring)
        if bits != 0 {
            let recent = Unmanaged<StoreIdentity>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            if recent.identifier == identifier { return recent }
        }
        let identity = table.withLock { table in
            if let known = table[identifier] { return known }
            let made = StoreIdentity(identifier: identifier, isTemporary: false, number: UInt32(table.count + 1))
            table[identifier] = made
            return made
        }
        last.store(UInt(bitPattern: Unmanaged.passUnretained(identity).toOpaque()), ordering: .releasing)
        return identity
    }
}
