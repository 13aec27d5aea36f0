/// What a `BatchInsertRequest` returns: Core Data's `NSBatchInsertResult`.
public final class BatchInsertResult: PersistentStoreResult {
    /// What `result` holds.
    public let resultType: BatchInsertRequestResultType
    /// `true` (`.statusOnly`), the number of rows written (`.count`), or their `[ManagedObjectID]` (`.objectIDs`).
    public let result: Any?

    init(resultType: BatchInsertRequestResultType, changes: BatchChanges) {
        self.resultType = resultType
        switch resultType {
        case .statusOnly: result = true
        case .count: result = changes.writtenCount
        case .objectIDs: result = changes.writtenIDs
        }
        super.init(changes: resultType == .objectIDs ? changes : nil)
    }

    /// The IDs of the rows written, one per row in the order of the objects that wrote them (`.objectIDs` only).
    public var objectIDs: [ManagedObjectID]? { result as? [ManagedObjectID] }
    /// The number of rows written (`.count` only).
    public var count: Int? { result as? Int }
}
