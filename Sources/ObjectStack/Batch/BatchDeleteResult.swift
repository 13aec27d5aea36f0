/// What a `BatchDeleteRequest` returns: Core Data's `NSBatchDeleteResult`.
public final class BatchDeleteResult: PersistentStoreResult {
    /// What `result` holds.
    public let resultType: BatchDeleteRequestResultType
    /// `true` (`.statusOnly`), the number of rows deleted (`.count`), or their `[ManagedObjectID]` (`.objectIDs`);
    /// the rows the delete rules cascaded to are included.
    public let result: Any?

    init(resultType: BatchDeleteRequestResultType, changes: BatchChanges) {
        self.resultType = resultType
        switch resultType {
        case .statusOnly: result = true
        case .count: result = changes.writtenCount
        case .objectIDs: result = changes.writtenIDs
        }
        super.init(changes: resultType == .objectIDs ? changes : nil)
    }

    /// The IDs of the deleted rows (`.objectIDs` only).
    public var objectIDs: [ManagedObjectID]? { result as? [ManagedObjectID] }
    /// The number of deleted rows (`.count` only).
    public var count: Int? { result as? Int }
    /// The rows whose relationship to a deleted row the nullify rule cleared, so their version moved on
    /// (`.objectIDs` only; merged as updates from `changes`).
    public var nullifiedObjectIDs: [ManagedObjectID] {
        changes[ManagedObjectContext.NotificationKey.updatedObjects.rawValue] as? [ManagedObjectID] ?? []
    }
}
