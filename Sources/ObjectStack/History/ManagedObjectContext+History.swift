extension ManagedObjectContext {
    // MARK: - Persistent history

    /// Reads or deletes persistent history: Core Data's `execute(_:)` with an `NSPersistentHistoryChangeRequest`.
    ///
    /// For example:
    /// ```swift
    /// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken))
    /// for transaction in result.transactions {
    ///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    /// }
    /// ```
    /// - Note: Call it on the context's queue. It reads the store, not the context: unsaved changes have no history.
    /// - Complexity: O(transactions read + their changes).
    /// - Throws: `ObjectStackError`: `.persistentHistoryTokenExpired` when the token's transactions were deleted,
    ///   `.invalidArgument` for a token of a store this context's coordinator does not have or a fetch request on
    ///   another entity, `.unknownKeyPath` for a predicate naming a key history does not have, `.storeFailed`.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        assertOnQueue("execute(_:) (persistent history)")
        do {
            return try coordinator.execute(request)
        } catch let error as StoreError {
            throw ObjectStackError(
                code: .storeFailed, message: "persistent history request failed: \(error.message)", cause: error)
        }
    }
}
