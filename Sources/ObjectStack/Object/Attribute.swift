import Foundation

/// A typed property of a `ManagedObject` subclass backed by the attribute it names.
///
/// For example:
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("title") var title: String
///     @Attribute("subtitle") var subtitle: String?
///     @Attribute("pages") var pages: Int
/// }
/// ```
/// Reading fires the object's fault; writing records the change like `setValue(_:forKey:)`. A nil stored
/// value read through a non-optional property never traps: numbers and booleans read 0 / false (as Core
/// Data's scalar properties do), strings and data empty, dates the reference date, UUIDs the nil UUID and
/// URLs `about:blank` (see `AttributeValueConvertible.valueForNil`); declare the property optional, or use
/// `value(forKey:)`, to tell an unset value apart. A required attribute left unset still fails the save.
/// - Precondition: the entity has an attribute with that name whose type fits `Value`.
///
/// The wrapper holds one word, the address of its name's literal (`AttributeName`), not the name itself: eight
/// typed properties took 128 of a fetched object's 256 bytes when each held a `String`.
@propertyWrapper
public struct Attribute<Value: AttributeValueConvertible> {
    @usableFromInline let name: AttributeName

    /// The attribute's name.
    public var key: String { name.string }

    /// Names the attribute this property reads and writes.
    @inlinable
    public init(_ key: StaticString) {
        name = AttributeName(key)
    }

    /// Names the attribute with a string that is not a literal: the name is copied once into a process-wide
    /// table, and every object made looks it up there.
    @available(*, deprecated, message: "name the attribute with a string literal, as @Attribute(\"title\")")
    @_disfavoredOverload
    public init(_ key: String) {
        name = AttributeName(interning: key)
    }

    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("@Attribute used outside a ManagedObject") }
        set { preconditionFailure("@Attribute used outside a ManagedObject") }
    }

    /// Reads and writes the value through the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        // Inlinable, so the client module specialises it for its `Object` and `Value` instead of looking up
        // generic metadata on every read (that was a third of reading a fetched object's values).
        @inlinable @inline(__always) get {
            let name = object[keyPath: storageKeyPath].name
            // Folded away in a specialised getter: a string property reads its string as is, and a number, Boolean
            // or date property its value, neither through a `StoreValue`.
            if Value.self == String.self || Value.self == String?.self {
                switch object.typedStringValue(name) {
                case .string(let string):
                    return Value.self == String.self
                        ? unsafeBitCast(string, to: Value.self) : unsafeBitCast(Optional(string), to: Value.self)
                case .null:
                    if let fallback = Value.valueForNil { return fallback }
                case .other:
                    break
                }
            }
            if TypedScalarRead.converts(to: Value.self) {
                let read = object.typedScalarValue(name)
                if let value = read.value(as: Value.self) { return value }
                // A nil number reads as the type's nil value here, not by looking the attribute up again below.
                if case .null = read, let fallback = Value.valueForNil { return fallback }
            }
            let stored = object.typedAttributeValue(name)
            if let value = Value(storeValue: stored) { return value }
            if stored.isNull, let fallback = Value.valueForNil { return fallback }
            preconditionFailure(
                "\(object.entity.name).\(object[keyPath: storageKeyPath].key) holds \(stored), which does not read as \(Value.self)"
            )
        }
        // Inlinable for the same reason as the getter: unspecialised, the setter looked up the key path's
        // generic metadata on every write (a third of setting a new object's values).
        @inlinable @inline(__always) set {
            object.setTypedAttribute(object[keyPath: storageKeyPath].name, newValue.storeValue, describing: newValue)
        }
    }
}

extension ManagedObject {
    /// The attribute a typed property names; a missing one is a programming error.
    @usableFromInline
    func typedAttribute(_ key: String) -> AttributeDescription {
        if ManagedObjectContext.concurrencyDebug { managedObjectContext?.assertOnQueue("@Attribute(\"\(key)\")") }
        guard let attribute = entity.attribute(forKey: key) else {
            preconditionFailure("entity \(entity.name) has no attribute named '\(key)'")
        }
        return attribute
    }

    /// The value of the attribute a typed property names, as `attributeValue(_:)` reads it, found through its
    /// slot: a read retains and releases no attribute description.
    @usableFromInline
    final func typedAttributeValue(_ name: AttributeName) -> StoreValue {
        if ManagedObjectContext.concurrencyDebug {
            managedObjectContext?.assertOnQueue("@Attribute(\"\(name.string)\")")
        }
        guard let slot = entity.attributeSlot(for: name) else {
            preconditionFailure("entity \(entity.name) has no attribute named '\(name.string)'")
        }
        // A transient attribute has no stored position; its value lives elsewhere.
        guard slot.storedIndex >= 0 else { return attributeValue(typedAttribute(name.string)) }
        return storedAttributeValue(slot)
    }

    /// The value of the string attribute a typed property names, as `typedAttributeValue(_:)` reads it, without
    /// a `StoreValue` around it; `.other` for an attribute of another kind or a transient one.
    @usableFromInline
    final func typedStringValue(_ name: AttributeName) -> TypedStringRead {
        typedStoredRead(name, other: .other, null: .null, TypedStringRead.init) { $0.string(at: $1) }
    }

    /// The value of the number, Boolean or date attribute a typed property names, as `typedAttributeValue(_:)`
    /// reads it, without a `StoreValue`; `.other` for an attribute of another kind or a transient one.
    @usableFromInline
    final func typedScalarValue(_ name: AttributeName) -> TypedScalarRead {
        typedStoredRead(name, other: .other, null: .null, TypedScalarRead.init) { $0.scalar(at: $1) }
    }

    /// A stored attribute's value read one way: from its unsaved change, else from its row (firing the fault).
    @inline(__always)
    private func typedStoredRead<Read>(
        _ name: AttributeName, other: Read, null: Read, _ change: (borrowing StoreValue) -> Read,
        _ row: (RowSnapshot, Int) -> Read
    ) -> Read {
        if ManagedObjectContext.concurrencyDebug {
            managedObjectContext?.assertOnQueue("@Attribute(\"\(name.string)\")")
        }
        guard let slot = entity.attributeSlot(for: name), slot.storedIndex >= 0 else { return other }
        if let changed = changes[slot.index] { return change(changed) }
        fireFault()
        // As in `storedAttributeValue`: the object holds its row for the whole read.
        guard let snapshot = snapshot.map(Unmanaged.passUnretained) else { return null }
        return snapshot._withUnsafeGuaranteedRef { row($0, slot.storedIndex) }
    }

    /// Sets the attribute a typed property names, converted to the attribute's type; a value that does not fit
    /// is a programming error.
    @usableFromInline
    func setTypedAttribute(_ name: AttributeName, _ storeValue: StoreValue, describing newValue: @autoclosure () -> Any)
    {
        if ManagedObjectContext.concurrencyDebug {
            managedObjectContext?.assertOnQueue("@Attribute(\"\(name.string)\")")
        }
        // A stored attribute is written through its slot, without retaining its description (eight retains and
        // releases for a new object's eight values).
        if let slot = entity.attributeSlot(for: name), slot.storedIndex >= 0,
            let value = slot.type.coerce(storeValue)
        {
            setStored(index: slot.index, storedIndex: slot.storedIndex, value)
            return
        }
        let attribute = typedAttribute(name.string)
        guard let value = attribute.type.coerce(storeValue) else {
            preconditionFailure(
                "\(entity.name).\(attribute.name) is \(attribute.type.rawValue); it cannot hold \(newValue())")
        }
        setAttribute(attribute, value)
    }

    /// The relationship a typed property names; a missing one is a programming error.
    func typedRelationship(_ key: String) -> RelationshipDescription {
        if ManagedObjectContext.concurrencyDebug { managedObjectContext?.assertOnQueue("@Relationship(\"\(key)\")") }
        guard let relationship = entity.relationshipsByName[key] else {
            preconditionFailure("entity \(entity.name) has no relationship named '\(key)'")
        }
        return relationship
    }
}
