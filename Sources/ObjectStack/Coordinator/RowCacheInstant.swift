#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// When a cached row was read or written, for `stalenessInterval`: a coarse monotonic clock.
///
/// Every read and write stamps its rows, and `ContinuousClock.now` was about a fifteenth of an
/// `existingObject(with:)` on LMDB; the coarse clock reads a value the kernel keeps (a tick, a few
/// milliseconds), which is precise enough for an interval counted in seconds.
struct RowCacheInstant: Comparable, Sendable {
    /// Nanoseconds on the coarse monotonic clock.
    let nanoseconds: Int64

    /// The clock now.
    static var now: RowCacheInstant {
        var time = timespec()
        #if canImport(Glibc)
            clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        #else
            clock_gettime(CLOCK_MONOTONIC, &time)
        #endif
        return RowCacheInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// Whether a row stamped at this instant is older than `maximumAge` seconds now. An age of zero or less
    /// accepts no cached row, as Core Data's `stalenessInterval` of 0 does, though the coarse clock may not
    /// have ticked since.
    func isOlder(than maximumAge: Double) -> Bool {
        guard maximumAge > 0 else { return true }
        return Double(Self.now.nanoseconds - nanoseconds) > maximumAge * 1e9
    }

    static func < (lhs: RowCacheInstant, rhs: RowCacheInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
