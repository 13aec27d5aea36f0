import Foundation

/// The persistent history of an in-memory backing: encoded transactions in order, kept as long as the backing
/// (while a store on its `memory://NAME` URL is open), and shared by every store on it.
struct InMemoryHistory {
    /// Each transaction's number and encoded record, in order.
    var transactions: [(sequence: Int64, bytes: [UInt8])] = []
    /// The last number handed out.
    var lastSequence: Int64 = 0
    /// The highest number a purge deleted.
    var purgedThrough: Int64 = 0

    mutating func append(_ record: StoreHistoryRecord) {
        lastSequence += 1
        transactions.append((lastSequence, record.encoded()))
    }
}

extension InMemoryStore: StoreHistoryStoring {
    // MARK: - Persistent history

    public func historyTransactions(after sequence: Int64?, since date: Date?) throws -> StoreHistoryRead {
        try checkOpen()
        let history = backing.state.withLock { $0.history }
        let after = sequence ?? 0
        let start = history.transactions.partitioningIndex { $0.sequence > after }
        var found = Array(history.transactions[start...])
        if let date {
            found = found.filter { entry in
                entry.bytes.withUnsafeBytes { StoreHistoryRecord.timestamp(ofEncoded: $0).map { $0 > date } ?? false }
            }
        }
        return StoreHistoryRead(transactions: found, purgedThrough: history.purgedThrough)
    }

    public func deleteHistory(through sequence: Int64?, before date: Date?) throws -> Int {
        try checkOpen()
        return backing.state.withLock { state in
            let before = state.history.transactions.count
            state.history.transactions.removeAll { entry in
                if let date {
                    return entry.bytes.withUnsafeBytes {
                        StoreHistoryRecord.timestamp(ofEncoded: $0).map { $0 < date } ?? true
                    }
                }
                return entry.sequence <= (sequence ?? .max)
            }
            let deleted = before - state.history.transactions.count
            if deleted > 0 {
                let firstKept = state.history.transactions.first?.sequence ?? (state.history.lastSequence + 1)
                state.history.purgedThrough = max(state.history.purgedThrough, firstKept - 1)
            }
            return deleted
        }
    }

    public func lastHistorySequence() throws -> Int64? {
        try checkOpen()
        let last = backing.state.withLock { $0.history.lastSequence }
        return last > 0 ? last : nil
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for an array in which those elements come last.
    /// - Complexity: O(log n).
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension InMemoryStore: StoreChangeObserving {
    /// The backing's count of committed writes (shared by every store on its `memory://NAME` URL).
    public func changeStamp() throws -> UInt64 {
        backing.writeCount.withLock { $0 }
    }
}
