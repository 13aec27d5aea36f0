/// One reason an object failed validation at save.
public struct ValidationFailure: Sendable, CustomStringConvertible {
    /// Why the object is invalid.
    public enum Reason: Sendable, Hashable {
        /// A required attribute or to-one relationship is nil.
        case missingValue
        /// A to-many relationship holds fewer objects than its `minCount`.
        case tooFewObjects(count: Int, minimum: Int)
        /// A to-many relationship holds more objects than its `maxCount`.
        case tooManyObjects(count: Int, maximum: Int)
        /// The object is deleted but a relationship with the deny rule is not empty.
        case deleteDenied(count: Int)
        /// A value is not of the attribute's type.
        case typeMismatch
        /// A number, or the length of a string or data, is outside the attribute's minimum and maximum.
        case outOfRange
        /// A string does not match the attribute's regular expression.
        case patternMismatch
        /// An object's own `validateForInsert/Update/Delete()` threw; the message is its error.
        case custom
    }

    /// The object that failed.
    public let objectID: ManagedObjectID
    /// The object's entity.
    public let entityName: String
    /// The property at fault, or nil for a whole-object failure.
    public let key: String?
    /// Why.
    public let reason: Reason
    /// A sentence naming the entity, the property and the rule.
    public let message: String

    /// Creates a validation failure.
    public init(objectID: ManagedObjectID, entityName: String, key: String?, reason: Reason, message: String) {
        self.objectID = objectID
        self.entityName = entityName
        self.key = key
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
