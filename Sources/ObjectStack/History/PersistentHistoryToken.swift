import Foundation

/// A position in one store's persistent history: Core Data's `NSPersistentHistoryToken`.
///
/// Opaque: it compares equal to a token of the same transaction of the same store and can be archived (it is
/// `Codable`), but its contents are not part of the API. Fetch what came after it with
/// `PersistentHistoryChangeRequest.fetchHistory(after:)`; a remote change notification carries the token of the
/// store's last transaction.
///
/// For example:
/// ```swift
/// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken))
/// lastToken = result.transactions.last?.token ?? lastToken
/// ```
public struct PersistentHistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The identifier of the store whose history this is.
    let storeIdentifier: String
    /// The transaction's number in that store (numbers only grow; a purge never reuses one).
    let sequence: Int64

    init(storeIdentifier: String, sequence: Int64) {
        self.storeIdentifier = storeIdentifier
        self.sequence = sequence
    }

    public var description: String { "PersistentHistoryToken(\(sequence) in \(storeIdentifier))" }
}
