/// The objects of a fetch with `fetchBatchSize`: returned as faults, their rows read a batch at a time.
///
/// When one fault fires, the faults of its batch are fulfilled with one store request (one `IN` query on
/// SQLite), so iterating the results costs one request per batch, and objects never touched are never read.
/// It holds IDs, not objects, so a fault that never fires does not keep its batch-mates alive.
final class FaultBatch {
    let objectIDs: [ManagedObjectID]
    let size: Int
    private var positions: [ManagedObjectID: Int] = [:]

    init(objectIDs: [ManagedObjectID], size: Int) {
        self.objectIDs = objectIDs
        self.size = size
        positions.reserveCapacity(objectIDs.count)
        for (position, id) in objectIDs.enumerated() { positions[id] = position }
    }

    /// The IDs in the batch of `objectID`, itself included.
    func batch(of objectID: ManagedObjectID) -> ArraySlice<ManagedObjectID> {
        guard let position = positions[objectID] else { return [objectID] }
        let start = position / size * size
        return objectIDs[start..<min(start + size, objectIDs.count)]
    }
}
