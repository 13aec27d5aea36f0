import LabCore
import LabWorkloads

/// swift-direct's pods made into objects as any fetch that hands back uniqued objects must at least make them:
/// the `swift-objects` implementation, the floor under ObjectStack's `fetch-all`.
///
/// Each row `DirectSQLitePods` or `DirectLMDBPods` reads becomes one class instance holding its values, entered
/// in a table keyed by its primary key (the uniquing that makes a second fetch hand back the same object) and
/// in the result's array. Nothing else an object graph keeps is made: no object ID instance, no snapshot or row
/// cache, no context, no fault state. So its time over `swift-direct`'s is the least an object layer adds, and
/// a target for ObjectStack below `swift-objects`' ratio to `raw` cannot be met by any design that returns
/// objects. Every other operation is swift-direct's own (the workload runs only `fetch-all`).
final class UniquedPods: PodEngine {
    /// One fetched pod as an object: its values, as the row was decoded.
    final class Pod {
        let row: PodRow
        init(_ row: PodRow) { self.row = row }
    }

    /// What `fetchAll()` hands back: the objects in fetch order and the table that uniques them.
    struct Fetched {
        let objects: [Pod]
        let registered: [Int64: Pod]
    }

    private let direct: any PodEngine

    /// The floor over `direct`, a swift-direct engine.
    init(over direct: any PodEngine) { self.direct = direct }

    func prepareInsert(_ rows: [PodRow]) { direct.prepareInsert(rows) }
    func insert(_ rows: [PodRow]) throws { try direct.insert(rows) }
    func reopen() throws { try direct.reopen() }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        var (held, checksum) = try direct.fetchAll()
        guard var rows = held as? [PodRow] else {
            throw LabError(.workloadFailed, "swift-objects: the engine under it read no Swift rows (\(type(of: held)))")
        }
        // The rows are moved out below; the array must have no other owner, or the first move copies all of them.
        held = ()
        var objects: [Pod] = []
        objects.reserveCapacity(rows.count)
        var registered: [Int64: Pod] = [:]
        registered.reserveCapacity(rows.count)
        // Each row is moved into its object (popLast hands it over without copying its strings), so the floor
        // counts no retains an object layer decoding straight into its objects would not make.
        while let row = rows.popLast() {
            let object = Pod(row)
            registered[row.id] = object
            objects.append(object)
        }
        objects.reverse()
        return (Fetched(objects: objects, registered: registered), checksum)
    }

    func prepareLookups(_ keys: [Int64]) throws { try direct.prepareLookups(keys) }
    func fetchByID() throws -> Int { try direct.fetchByID() }
    func fetchSorted(limit: Int) throws -> Int { try direct.fetchSorted(limit: limit) }
    func prepareUpdate(_ keys: [Int64]) throws { try direct.prepareUpdate(keys) }
    func update(round: Int) throws { try direct.update(round: round) }
    func count(downloadsAbove downloads: Int64) throws -> Int { try direct.count(downloadsAbove: downloads) }
    func close() { direct.close() }
}
