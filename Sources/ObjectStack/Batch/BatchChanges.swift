/// What a batch request changed in its store: what the coordinator's row cache and the request's result need.
struct BatchChanges {
    /// The rows the request updated (its own updates, an upsert's, a nullified relationship's), as they are now.
    var updated: [(id: ManagedObjectID, row: RowSnapshot)] = []
    /// The rows the request deleted (those the delete rules cascaded to included).
    var deleted: [ManagedObjectID] = []
    /// The rows the request inserted, when its result asks for IDs.
    var insertedIDs: [ManagedObjectID] = []
    /// The rows the request counts as written, in its result's order, when its result asks for IDs: a batch
    /// insert's inserted and upserted rows, a batch update's updated rows, a batch delete's deleted rows.
    var writtenIDs: [ManagedObjectID] = []
    /// How many rows the request counts as written.
    var writtenCount = 0

    /// The IDs of `updated`, as a merge reads them.
    var updatedIDs: [ManagedObjectID] { updated.map(\.id) }
    /// `deleted`, as a merge reads them.
    var deletedIDs: [ManagedObjectID] { deleted }
}
