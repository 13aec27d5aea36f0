import Foundation

/// The error ObjectStack throws for the object graph: model, validation, conflicts, predicates, values.
///
/// Stores throw `StoreError`; a store error that reaches a context is wrapped here with code
/// `.storeFailed` and the store error as `cause`.
///
/// For example:
/// ```swift
/// do { try context.save() } catch let error as ObjectStackError where error.code == .validationFailed {
///     for failure in error.validationFailures { print(failure.message) }
/// }
/// ```
public struct ObjectStackError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case invalidModel, validationFailed, mergeConflict, constraintConflict, malformedPredicate
            case unknownKeyPath, unknownEntity, unknownKey, typeMismatch, objectNotFound, invalidArgument
            case transformerMissing, storeFailed, modelMismatch, persistentHistoryTokenExpired
            case queryGenerationUnavailable, invalidMappingModel, migrationPolicyMissing
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        public var description: String { value.rawValue }

        /// A model that does not hold together.
        public static let invalidModel = Code(.invalidModel)
        /// One or more objects failed validation at save: see `validationFailures`.
        public static let validationFailed = Code(.validationFailed)
        /// Objects changed in the store since they were read: see `mergeConflicts`.
        public static let mergeConflict = Code(.mergeConflict)
        /// A uniqueness constraint was violated: see `constraintConflicts`.
        public static let constraintConflict = Code(.constraintConflict)
        /// A predicate format string did not parse: see `cause` (a `PredicateSyntaxError`).
        public static let malformedPredicate = Code(.malformedPredicate)
        /// A predicate, sort key or property to fetch names a key path the entity does not have.
        public static let unknownKeyPath = Code(.unknownKeyPath)
        /// A fetch or insert names an entity the model does not have.
        public static let unknownEntity = Code(.unknownEntity)
        /// `setValue(_:forKey:)` names a property the entity does not have.
        public static let unknownKey = Code(.unknownKey)
        /// A value of the wrong type for an attribute, or a predicate comparing unlike types.
        public static let typeMismatch = Code(.typeMismatch)
        /// `existingObject(with:)` for an object that is not in the store.
        public static let objectNotFound = Code(.objectNotFound)
        /// An argument that cannot be used, such as a negative fetch limit.
        public static let invalidArgument = Code(.invalidArgument)
        /// A transformable attribute names a transformer that is not registered.
        public static let transformerMissing = Code(.transformerMissing)
        /// A store failed: `cause` is the `StoreError`.
        public static let storeFailed = Code(.storeFailed)
        /// A store was written with another model.
        public static let modelMismatch = Code(.modelMismatch)
        /// A history request names a token whose transactions were deleted (Core Data's
        /// `NSPersistentHistoryTokenExpiredError`): fetch from the start instead, or from a date.
        public static let persistentHistoryTokenExpired = Code(.persistentHistoryTokenExpired)
        /// A query generation token whose generation no context holds any more (or whose store reader ended).
        public static let queryGenerationUnavailable = Code(.queryGenerationUnavailable)
        /// A mapping model that cannot be read, fits no pair of model versions, or has a value expression that
        /// does not bind (the message names the mapping, the property and the expression).
        public static let invalidMappingModel = Code(.invalidMappingModel)
        /// An entity mapping names a migration policy class no Swift policy is registered under.
        public static let migrationPolicyMissing = Code(.migrationPolicyMissing)
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, naming the entity, property, key path or value at fault.
    public let message: String
    /// The underlying error, if any.
    public let cause: (any Error)?
    /// For `.validationFailed`: every failure found, not just the first.
    public var validationFailures: [ValidationFailure] = []
    /// For `.mergeConflict`: each object that changed in the store since it was read.
    public var mergeConflicts: [MergeConflict] = []
    /// For `.constraintConflict`: each set of clashing values.
    public var constraintConflicts: [ConstraintConflict] = []
    /// For a batch request refused for its input: the position of the object at fault among those given.
    public var objectIndex: Int?
    /// For a batch request refused for its input: the key at fault.
    public var key: String?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }

    static func invalidModel(_ message: String) -> ObjectStackError {
        ObjectStackError(code: .invalidModel, message: message)
    }

    static func unknownKeyPath(_ keyPath: String, entity: String, detail: String? = nil) -> ObjectStackError {
        let extra = detail.map { ": \($0)" } ?? ""
        return ObjectStackError(code: .unknownKeyPath, message: "entity \(entity) has no key path '\(keyPath)'\(extra)")
    }

    static func typeMismatch(_ message: String) -> ObjectStackError {
        ObjectStackError(code: .typeMismatch, message: message)
    }
}
