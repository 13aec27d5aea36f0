/// A stored row: the values of an object's stored properties and the row's version.
///
/// `values` follows the entity's `storedProperties` (stored attributes, then to-one relationships as
/// `.objectID` or `.null`). The version grows by one on every save of the row; optimistic locking
/// compares it. Snapshots are shared, never changed: the coordinator's row cache and every object
/// read from it hold the same instance.
public final class RowSnapshot: Sendable {
    /// Values by `storedIndex`.
    public let values: [StoreValue]
    /// The row's version: 1 after the insert, one more after each update.
    public let version: Int64

    /// Creates a snapshot.
    public init(values: [StoreValue], version: Int64) {
        self.values = values
        self.version = version
    }
}
