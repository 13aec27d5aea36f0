import Foundation

/// The identity of a managed object: its entity, its store and its primary key.
///
/// A new object has a temporary ID until it is saved (or `obtainPermanentIDs(for:)` is called); then it
/// gets a permanent one. IDs are values: two IDs for the same row are equal, across contexts and across
/// coordinators on the same store.
///
/// For example:
/// ```swift
/// let uri = object.objectID.uriRepresentation()          // x-coredata://<store>/Book/p12
/// let same = coordinator.managedObjectID(forURIRepresentation: uri)
/// ```
/// - Note: Immutable and thread-safe: pass IDs, not objects, between contexts.
public final class ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
    // Three words (40 bytes with the object header, the smallest allocation that holds them): a fetch makes an ID
    // per row, and the 64-byte ID with its identifier string and cached SipHash was a tenth of a fetched object.
    /// The object's entity (its concrete entity, never an abstract parent).
    public let entity: EntityDescription
    /// The store, shared by every ID of it; the temporary identity for a temporary ID.
    let store: StoreIdentity
    /// The primary key for a permanent ID; for a temporary ID, a process-unique number.
    public let key: Int64

    /// Creates a permanent ID for a row of a store.
    public init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.entity = entity
        self.store = StoreIdentity.interned(storeIdentifier)
        self.key = primaryKey
    }

    private init(temporaryFor entity: EntityDescription, number: Int64) {
        self.entity = entity
        self.store = StoreIdentity.temporary
        self.key = number
    }

    private static let temporaryCounter = AtomicCounter()

    /// A new temporary ID, unique in this process.
    static func temporary(for entity: EntityDescription) -> ManagedObjectID {
        ManagedObjectID(temporaryFor: entity, number: temporaryCounter.next())
    }

    /// The identifier of the store that holds the object; empty for a temporary ID.
    public var storeIdentifier: String { store.identifier }

    /// Whether the ID is temporary (the object has not been saved or given a permanent ID yet).
    public var isTemporaryID: Bool { store.isTemporary }

    /// The ID's hash: the entity name's hash (computed once per entity) mixed with the key by a bijection, so
    /// the IDs of one entity never collide. A SipHash per ID showed in fetch profiles.
    @inline(__always)
    var hashCache: Int {
        let keyBits = UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
        let kind: UInt64 = isTemporaryID ? 0x5851_F42D_4C95_7F2D : 0
        return HashFinalizer.mix(UInt64(bitPattern: Int64(entity.nameHash)) ^ keyBits ^ kind)
    }

    /// The entity's name.
    public var entityName: String { entity.name }

    /// The primary key of a permanent ID, nil for a temporary one.
    public var primaryKey: Int64? { isTemporaryID ? nil : key }

    /// A URI that names the object, for storing a reference outside the stack.
    ///
    /// `x-coredata://STORE/Entity/pKEY` for a permanent ID, as Core Data writes them (STORE is the store's UUID,
    /// KEY its `Z_PK`); `x-coredata:///Entity/tKEY` for a temporary one (which only its own process can resolve, and
    /// only until the object is saved).
    public func uriRepresentation() -> URL {
        let name = entity.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? entity.name
        let text =
            isTemporaryID
            ? "x-coredata:///\(name)/t\(key)"
            : "x-coredata://\(storeIdentifier)/\(name)/p\(key)"
        // Both forms are valid URLs by construction (the store identifier is a UUID string).
        return URL(string: text)!
    }

    public var description: String {
        isTemporaryID ? "<\(entity.name) t\(key)>" : "<\(entity.name) p\(key)>"
    }

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        // Identities are interned: the same store (or both temporary) is the same identity.
        lhs === rhs
            || (lhs.key == rhs.key && lhs.store === rhs.store
                && (lhs.entity === rhs.entity || lhs.entity.name == rhs.entity.name))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashCache)
    }

    /// The hash tables' entry point: the buckets of the ID's table key (`ObjectKey`), so a table of IDs keeps runs of
    /// keys together as the context's and the coordinator's tables do.
    public func _rawHashValue(seed: Int) -> Int { ObjectKey(self)._rawHashValue(seed: seed) }
}

extension ManagedObjectID: PredicateArgumentConvertible {
    /// An object ID in a predicate compares against to-one relationships and `SELF`.
    public var predicateArgument: StoreValue { .objectID(self) }
}
