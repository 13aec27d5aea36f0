import LabCore
import LabWorkloads

/// swift-direct's pods made into objects as any fetch that hands back uniqued objects must at least make them:
/// the `swift-objects` implementation, the floor under ObjectStack's `fetch-all`.
///
/// Each row `DirectSQLitePods` or `DirectLMDBPods` reads becomes one class instance holding its values, entered
/// in a table keyed by its primary key (the uniquing that makes a second fetch hand back the same object) and
/// in the result's array. Nothing else an object graph keeps is made: no object ID instance, no snapshot or row
/// cache, no context, no fault state. So its time over `swift-direct`'s is about the least an object layer adds
/// (made in a second pass over the rows: a pass fused with the decoding could be a little cheaper). Every other
/// operation is swift-direct's own (the workload runs only `fetch-all`).
final class UniquedPods: PodEngine {
    /// One fetched pod as an object: its values, as the row was decoded.
    final class Pod {
        let row: PodRow
        init(_ row: PodRow) { self.row = row }
    }

    /// A primary key as the table's key, hashed as cheaply as ObjectStack hashes its IDs (a multiply and a
    /// finalizer, with runs of 16 neighbouring keys kept together), not through SipHash: the floor takes the
    /// cheapest table a layer would build.
    struct Key: Hashable {
        let key: Int64

        func hash(into hasher: inout Hasher) { hasher.combine(key) }

        func _rawHashValue(seed: Int) -> Int {
            var mixed = (UInt64(bitPattern: key) >> 4) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt(bitPattern: seed))
            mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
            return Int(bitPattern: UInt(mixed ^ (mixed >> 31))) << 4 | Int(key & 15)
        }
    }

    /// What `fetchAll()` hands back: the objects in fetch order and the table that uniques them.
    struct Fetched {
        let objects: [Pod]
        let registered: [Key: Pod]
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
        var registered: [Key: Pod] = [:]
        registered.reserveCapacity(rows.count)
        // Each row is moved into its object (popLast hands it over without copying its strings), so the floor
        // counts no retains an object layer decoding straight into its objects would not make.
        while let row = rows.popLast() {
            // The key is read from the object: reading it from `row` after the move would keep a copy of the row.
            let object = Pod(row)
            registered[Key(key: object.row.id)] = object
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
