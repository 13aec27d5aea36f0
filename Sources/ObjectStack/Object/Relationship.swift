/// A Swift type a typed `@Relationship` property can have: an optional object (to-one), a set (to-many)
/// or an array (ordered to-many) of a `ManagedObject` subclass.
public protocol RelationshipValueConvertible {
    /// The value for the relationship's current members.
    static func make(from objects: [ManagedObject]) -> Self
    /// The members this value holds.
    var members: [ManagedObject] { get }
}

extension Optional: RelationshipValueConvertible where Wrapped: ManagedObject {
    public static func make(from objects: [ManagedObject]) -> Self { objects.first as? Wrapped }
    public var members: [ManagedObject] { self.map { [$0] } ?? [] }
}

extension Set: RelationshipValueConvertible where Element: ManagedObject {
    public static func make(from objects: [ManagedObject]) -> Self { Set(objects.compactMap { $0 as? Element }) }
    public var members: [ManagedObject] { Array(self) }
}

extension Array: RelationshipValueConvertible where Element: ManagedObject {
    public static func make(from objects: [ManagedObject]) -> Self { objects.compactMap { $0 as? Element } }
    public var members: [ManagedObject] { self }
}

/// A typed relationship property of a `ManagedObject` subclass.
///
/// For example:
/// ```swift
/// final class Author: ManagedObject {
///     @Relationship("books") var books: Set<Book>
/// }
/// final class Book: ManagedObject {
///     @Relationship("author") var author: Author?
/// }
/// book.author = author          // author.books now contains book
/// ```
/// - Precondition: the entity has a relationship with that name of matching cardinality.
@propertyWrapper
public struct Relationship<Value: RelationshipValueConvertible> {
    /// The relationship's name.
    public let key: String

    /// Names the relationship this property reads and writes.
    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("@Relationship used outside a ManagedObject") }
        set { preconditionFailure("@Relationship used outside a ManagedObject") }
    }

    /// Reads and writes the relationship through the enclosing object, keeping inverses consistent.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let relationship = object.typedRelationship(object[keyPath: storageKeyPath].key)
            guard let context = object.managedObjectContext else { return Value.make(from: []) }
            let ids =
                relationship.isToMany ? object.toManyIDs(relationship) : object.toOneID(relationship).map { [$0] } ?? []
            return Value.make(from: ids.map { context.object(with: $0) })
        }
        set {
            let relationship = object.typedRelationship(object[keyPath: storageKeyPath].key)
            if relationship.isToMany {
                object.replaceToMany(relationship, with: newValue.members)
            } else {
                object.setToOne(relationship, to: newValue.members.first?.objectID, maintainInverse: true)
            }
        }
    }
}
