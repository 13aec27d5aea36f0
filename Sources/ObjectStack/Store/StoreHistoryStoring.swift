import Foundation

/// A store that keeps persistent history: each save and batch request, with history tracking on, also writes a
/// transaction record (`StoreHistoryRecord`) in the same store transaction as its rows.
///
/// Transactions are numbered from 1 inside the write transaction that writes them, from the store file itself, so
/// two processes writing one file never give two transactions one number, and a number is never given again after
/// its transaction is deleted.
public protocol StoreHistoryStoring: PersistentStore {
    /// Whether the store writes history: it was opened with `StoreDescription.persistentHistoryTrackingOption`.
    var tracksHistory: Bool { get }

    /// The encoded transactions numbered above `sequence` (all when nil) and, when `date` is given, written after
    /// it, in order, with the highest number a purge has deleted (0 when none).
    func historyTransactions(after sequence: Int64?, since date: Date?) throws -> StoreHistoryRead

    /// Deletes the transactions numbered up to and including `sequence`, or (when `date` is given instead) those
    /// written before `date`; everything when both are nil.
    /// - Returns: how many transactions were deleted.
    func deleteHistory(through sequence: Int64?, before date: Date?) throws -> Int

    /// The number of the last transaction written, nil when there is none (or the store keeps no history).
    func lastHistorySequence() throws -> Int64?
}

/// Transactions a store read from its history, still encoded.
public struct StoreHistoryRead: Sendable {
    /// Each transaction's number and its `StoreHistoryRecord.encoded()` bytes, in order.
    public var transactions: [(sequence: Int64, bytes: [UInt8])]
    /// The highest transaction number a purge has deleted, 0 when nothing was ever deleted.
    public var purgedThrough: Int64

    /// Creates a read.
    public init(transactions: [(sequence: Int64, bytes: [UInt8])], purgedThrough: Int64) {
        self.transactions = transactions
        self.purgedThrough = purgedThrough
    }
}

extension StoreOpenRequest {
    /// Whether the store should write persistent history (the `persistentHistoryTracking` option is `"true"`).
    public var tracksHistory: Bool { options[StoreDescription.persistentHistoryTrackingOption] == "true" }
}
