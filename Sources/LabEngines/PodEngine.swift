import Foundation
import LabWorkloads

/// One way of storing pods that the engine-overhead workload times: ObjectStack on a store, the store's
/// engine through its C API, or GRDB. Every method but the timed ones runs outside the clock.
///
/// The workload calls `insert` on a fresh file, or `insert` to seed and then, per sample, `reopen` (untimed:
/// no cache survives into the measurement) before the timed call.
/// - Note: Not thread-safe; the workload uses one engine from one thread.
protocol PodEngine: AnyObject {
    /// Readies `rows` for the next `insert`, outside the clock (the C engines copy them into C strings, as a C
    /// program would hold its rows before it inserts them).
    func prepareInsert(_ rows: [PodRow])
    /// Inserts every row in one transaction (one save). Timed for `insert`.
    func insert(_ rows: [PodRow]) throws
    /// Drops every cache: the next read starts from the file as a newly opened stack would.
    func reopen() throws
    /// Reads every pod with every value (materialised: ObjectStack objects, GRDB records, Swift structs) and
    /// returns them, kept alive by the caller while it measures their memory, with the sum of their checksums.
    func fetchAll() throws -> (held: Any, checksum: Int)
    /// Readies point lookups of `keys` (primary keys, 1…N): untimed.
    func prepareLookups(_ keys: [Int64]) throws
    /// Reads each prepared key by primary key / object ID with every value, one read transaction; returns the
    /// checksum. Timed for `fetch-by-id`.
    func fetchByID() throws -> Int
    /// Reads the first `limit` pods by name (ties by primary key) with every value: a list's first screen.
    /// Returns the checksum. Timed for `fetch-sorted`.
    func fetchSorted(limit: Int) throws -> Int
    /// Loads the pods with `keys` for changing: untimed.
    func prepareUpdate(_ keys: [Int64]) throws
    /// Changes two values of every loaded pod and saves them in one transaction. Timed for `update`.
    func update(round: Int) throws
    /// Counts the pods with more than `downloads` downloads. Timed for `count`.
    func count(downloadsAbove downloads: Int64) throws -> Int
    /// Closes the files.
    func close()
}

extension PodEngine {
    /// Nothing to ready: a Swift engine inserts the rows as they are.
    func prepareInsert(_ rows: [PodRow]) {}
}
