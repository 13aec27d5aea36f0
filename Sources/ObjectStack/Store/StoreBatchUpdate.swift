import Foundation

/// A batch update as a store may carry it out itself, in one statement: every row a fetch matches gets each
/// attribute set to what its expression computes from the row (SQLite compiles it into `UPDATE … SET`).
///
/// A store that takes it (`StoreBatchTransaction.update(_:)`) moves each updated row's version on, converts each
/// computed value with `PropertyExpression.storedValue(_:as:)` and refuses one that does not fit
/// (`storeFailure(attribute:objectID:value:)`), as the row-by-row path does, so a request gives the same rows and the
/// same errors on every store.
public struct StoreBatchUpdate: Sendable {
    /// One attribute and the expression its new value comes from.
    public struct Assignment: Sendable {
        /// The attribute set.
        public let attribute: AttributeDescription
        /// Its new value, computed from the row's own attributes (a constant is already of the attribute's type).
        public let value: BoundPropertyExpression
        /// The expression as written (NSExpression's format), for errors.
        public let source: String

        /// Creates an assignment.
        public init(attribute: AttributeDescription, value: BoundPropertyExpression, source: String) {
            self.attribute = attribute
            self.value = value
            self.source = source
        }
    }

    /// The rows to update (its result type is not used).
    public let fetch: StoreFetchRequest
    /// The attributes set, by name order.
    public let assignments: [Assignment]
    /// The date `now()` gives: one for every row of the request.
    public let now: Date

    /// Creates a store batch update.
    public init(fetch: StoreFetchRequest, assignments: [Assignment], now: Date) {
        self.fetch = fetch
        self.assignments = assignments
        self.now = now
    }

    /// The error for a computed value an attribute cannot hold (a fraction for an integer, a number out of its
    /// range, nil for a required attribute): what every store throws for it, the whole request written or none.
    /// - Parameters:
    ///   - attribute: the attribute set.
    ///   - objectID: the row whose value it is.
    ///   - value: the computed value, before conversion.
    public func storeFailure(attribute: AttributeDescription, objectID: ManagedObjectID, value: StoreValue)
        -> ObjectStackError
    {
        let source = assignments.first { $0.attribute === attribute }.map { " from '\($0.source)'" } ?? ""
        let entity = objectID.entityName
        var error: ObjectStackError
        if value.isNull {
            error = ObjectStackError(
                code: .validationFailed,
                message: "batch update of \(fetch.entity.name) failed, nothing written: \(entity).\(attribute.name) "
                    + "is required, but \(objectID) computes nil\(source)")
        } else {
            error = ObjectStackError(
                code: .typeMismatch,
                message: "batch update of \(fetch.entity.name) failed, nothing written: \(objectID) computes "
                    + "\(value)\(source) for \(entity).\(attribute.name), which "
                    + "\(ExpressionResultType.typeName(attribute.type)) cannot hold")
        }
        error.key = attribute.name
        return error
    }
}
