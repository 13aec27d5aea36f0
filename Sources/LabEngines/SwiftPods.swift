import Foundation
import LabWorkloads

/// Pods in plain Swift collections: the in-memory store's floor in the engine-overhead workload, as the C API
/// is the file stores'.
///
/// The same work per pod as the in-memory store does, without an object graph: a dictionary of rows by
/// primary key, a set claiming each `(name, version)` (a duplicate fails the insert) and an array of
/// `(name, key)` kept sorted, the `byName` index. Nothing is cached between reads, so `reopen` does nothing.
/// - Note: Not thread-safe; the workload uses one engine from one thread.
final class SwiftPods: PodEngine {
    private var rows: [Int64: PodRow] = [:]
    private var unique: Set<[String]> = []
    private var byName: [(name: String, key: Int64)] = []
    private var lookupKeys: [Int64] = []
    private var updating: [Int64] = []

    func insert(_ pods: [PodRow]) throws {
        rows.reserveCapacity(rows.count + pods.count)
        for pod in pods {
            guard unique.insert([pod.name, pod.version]).inserted else {
                throw LabError(.workloadFailed, "plain Swift: pod \(pod.name) \(pod.version) is already stored")
            }
            rows[pod.id] = pod
            byName.append((pod.name, pod.id))
        }
        byName.sort { ($0.name, $0.key) < ($1.name, $1.key) }
    }

    func reopen() throws {}

    func fetchAll() throws -> (held: Any, checksum: Int) {
        let pods = Array(rows.values)
        return (pods, pods.reduce(0) { $0 &+ $1.checksum })
    }

    func prepareLookups(_ keys: [Int64]) throws { lookupKeys = keys }

    func fetchByID() throws -> Int {
        try lookupKeys.reduce(0) { checksum, key in
            guard let pod = rows[key] else { throw LabError(.workloadFailed, "plain Swift: no pod \(key)") }
            return checksum &+ pod.checksum
        }
    }

    func fetchSorted(limit: Int) throws -> Int {
        byName.prefix(limit).reduce(0) { $0 &+ (rows[$1.key]?.checksum ?? 0) }
    }

    func prepareUpdate(_ keys: [Int64]) throws { updating = keys }

    func update(round: Int) throws {
        for key in updating {
            rows[key]?.downloads += 1
            rows[key]?.updated += 1
        }
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        rows.values.reduce(0) { $0 + ($1.downloads > downloads ? 1 : 0) }
    }

    func close() {
        rows = [:]
        unique = []
        byName = []
    }
}
