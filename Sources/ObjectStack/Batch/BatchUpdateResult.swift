/// What a `BatchUpdateRequest` returns: Core Data's `NSBatchUpdateResult`.
public final class BatchUpdateResult: PersistentStoreResult {
    /// What `result` holds.
    public let resultType: BatchUpdateRequestResultType
    /// `true` (`.statusOnly`), the number of rows updated (`.updatedObjectsCount`), or their `[ManagedObjectID]`
    /// (`.updatedObjectIDs`).
    public let result: Any?

    init(resultType: BatchUpdateRequestResultType, changes: BatchChanges) {
        self.resultType = resultType
        switch resultType {
        case .statusOnly: result = true
        case .updatedObjectsCount: result = changes.writtenCount
        case .updatedObjectIDs: result = changes.writtenIDs
        }
        super.init(changes: resultType == .updatedObjectIDs ? changes : nil)
    }

    /// The IDs of the updated rows (`.updatedObjectIDs` only).
    public var objectIDs: [ManagedObjectID]? { result as? [ManagedObjectID] }
    /// The number of updated rows (`.updatedObjectsCount` only).
    public var count: Int? { result as? Int }
}
