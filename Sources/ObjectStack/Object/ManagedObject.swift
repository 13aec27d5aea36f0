import Foundation

/// An object of the graph: an instance of an entity, owned by a context.
///
/// Use it through key-value access, or subclass it with property wrappers that name their keys:
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("title") var title: String
///     @Relationship("author") var author: Author?
/// }
/// let book = Book(context: context)
/// book.title = "Dune"
/// try book.setValue(412, forKey: "pages")
/// ```
/// A fetched object is a fault until a property is read; reading fires it from the coordinator's row cache
/// (or the store on a miss).
/// - warning: Not thread-safe: use an object only on its context's queue (inside `perform`), and pass
///   `objectID`s between contexts.
open class ManagedObject: Hashable, CustomStringConvertible {
    // The mutable state is `@exclusivity(unchecked)`: an object is used on its context's queue only, and the
    // runtime's access bookkeeping for these fields was an eighth of reading fetched objects' values.
    /// The object's entity.
    public let entity: EntityDescription
    /// The object's identity; temporary until the object is saved or given a permanent ID.
    public internal(set) var objectID: ManagedObjectID {
        get {
            if let id = objectIDStorage { return id }
            let id = ManagedObjectID.temporary(for: entity)
            objectIDStorage = id
            return id
        }
        set { objectIDStorage = newValue }
    }
    /// The ID, made on first use: a fetched object is given its permanent ID at once, and making a temporary one
    /// first (an allocation and a hash for every fetched object) was wasted.
    @exclusivity(unchecked) private var objectIDStorage: ManagedObjectID?
    /// The context that owns the object, nil after it is deleted and saved or its context is gone.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        @inline(__always) get { contextStorage }
        @inline(__always) set { contextStorage = newValue }
    }
    /// Neither retained nor weak, as in Core Data: the context clears it on every object it lets go of (when it
    /// unregisters one, on reset, and in its deinit), so it never outlives the context. A weak reference cost
    /// two atomic operations on the context's side table per registered object, a fiftieth of a fetch.
    @exclusivity(unchecked) unowned(unsafe) var contextStorage: ManagedObjectContext?

    /// Whether the object's values have not been read yet.
    public internal(set) var isFault: Bool {
        @inline(__always) get { state.contains(.fault) }
        @inline(__always) set { state.set(.fault, newValue) }
    }
    /// The committed row (nil for a new object or a fault).
    @exclusivity(unchecked) var snapshot: RowSnapshot? {
        // Changes started over the row that is replaced no longer hold the new one's values in their empty slots.
        didSet { if changes.isOverCommitted { changes.forgetCommitted() } }
    }
    /// Unsaved values of attributes and to-one relationships, by property index.
    @exclusivity(unchecked) var changes = PropertyValues()
    /// The fault, inserted, announced, deleted and inaccessible flags in one byte, declared right after `changes`
    /// so it takes a byte of that value's padding: five `Bool`s in two places took 16 bytes, and a fetched `Pod`
    /// (eight attributes) went from 208 bytes of heap to 192.
    @exclusivity(unchecked) private var state: StateFlags = []
    /// Transient values, to-many relationships and fault batches, made on first use (most objects have none):
    /// three fields of their own took 16 bytes more of every object, and a fetched `Pod` a 192-byte block, not 176.
    @exclusivity(unchecked) private(set) var sideState: ObjectSideState?
    /// The side state, made if the object has none yet.
    private var madeSideState: ObjectSideState {
        if let sideState { return sideState }
        let made = ObjectSideState()
        sideState = made
        return made
    }
    /// Values of transient attributes, by property index.
    var transientValues: [Int: StoreValue] {
        get { sideState?.transientValues ?? [:] }
        set {
            // Clearing an object that has none allocates nothing (a reset clears every registered object).
            if sideState == nil, newValue.isEmpty { return }
            madeSideState.transientValues = newValue
        }
        _modify { yield &madeSideState.transientValues }
    }
    /// To-many relationships read or changed so far, by property index.
    var toMany: [Int: ToManyState] {
        get { sideState?.toMany ?? [:] }
        set {
            if sideState == nil, newValue.isEmpty { return }
            madeSideState.toMany = newValue
        }
        _modify { yield &madeSideState.toMany }
    }
    /// Set while a context inserts the object and until it is saved.
    var insertedFlag: Bool {
        @inline(__always) get { state.contains(.inserted) }
        @inline(__always) set { state.set(.inserted, newValue) }
    }
    /// Set once `objectsDidChange` has announced the object as inserted: later changes before the save are
    /// announced as updates (observers placed it by its first values).
    var insertAnnounced: Bool {
        @inline(__always) get { state.contains(.insertAnnounced) }
        @inline(__always) set { state.set(.insertAnnounced, newValue) }
    }
    /// Set while a context deletes the object and until it is saved.
    var deletedFlag: Bool {
        @inline(__always) get { state.contains(.deleted) }
        @inline(__always) set { state.set(.deleted, newValue) }
    }
    /// Set when a fault could not be fulfilled because the row is gone from the store.
    var isInaccessible: Bool {
        @inline(__always) get { state.contains(.inaccessible) }
        @inline(__always) set { state.set(.inaccessible, newValue) }
    }
    /// For a fault from a fetch: the row the fetch read, and the row cache's generation before the fetch.
    /// Firing uses the row while the generation has not moved, instead of looking it up in the cache.
    @exclusivity(unchecked) var fetchedRow: RowSnapshot?
    @exclusivity(unchecked) var fetchedGeneration: UInt64 = 0
    /// For a fault from a fetch with a batch size: the fetch's batches, so firing loads the whole batch.
    var faultBatch: FaultBatch? {
        get { sideState?.faultBatch }
        set {
            if sideState == nil, newValue == nil { return }
            madeSideState.faultBatch = newValue
        }
    }

    /// Creates an object of `entity` and inserts it into `context` (if given).
    ///
    /// Subclasses inherit this initializer; the stack also uses it to create fetched objects (with a nil
    /// context), so a subclass's own stored properties need initial values.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        precondition(!entity.isAbstract, "cannot create an object of abstract entity \(entity.name)")
        self.entity = entity
        if let context { context.insert(self) }
    }

    /// Creates an object of the entity whose class is this class, inserted into `context`.
    ///
    /// For example: `let book = Book(context: context)`.
    public convenience init(context: ManagedObjectContext) {
        guard let entity = context.model.entity(for: Self.self) else {
            preconditionFailure("no entity of the context's model has class \(Self.self)")
        }
        self.init(entity: entity, insertInto: context)
    }

    // MARK: - State

    /// Whether the object is inserted and not yet saved.
    public var isInserted: Bool { insertedFlag }
    /// Whether the object is deleted and not yet saved.
    public var isDeleted: Bool { deletedFlag }
    /// Whether a saved object has unsaved changes.
    public var isUpdated: Bool { !insertedFlag && !deletedFlag && hasPersistentChanges }
    /// Whether the object has unsaved changes of any kind (inserted, deleted or updated).
    public var hasChanges: Bool { insertedFlag || deletedFlag || hasPersistentChanges }

    var hasPersistentChanges: Bool {
        !changes.isEmpty || toMany.values.contains { $0.hasChanges }
    }

    /// Called once when the object is first inserted into a context: set initial values here.
    open func awakeFromInsert() {}
    /// Called when a fetched object's values are first read.
    open func awakeFromFetch() {}
    /// Called before the object is saved; changes made here are saved too.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Validates an inserted object at save; throw to reject it (the message becomes a validation failure).
    open func validateForInsert() throws {}
    /// Validates an updated object at save.
    open func validateForUpdate() throws {}
    /// Validates a deleted object at save.
    open func validateForDelete() throws {}

    // MARK: - Hashable

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The hash tables' entry point: the object's address, mixed with the table's seed by a cheap finalizer
    /// (a SipHash per insertion into a context's sets was a twentieth of inserting objects).
    public func _rawHashValue(seed: Int) -> Int {
        HashFinalizer.mix(UInt64(UInt(bitPattern: ObjectIdentifier(self))) ^ UInt64(UInt(bitPattern: seed)))
    }

    open var description: String {
        let state =
            isFault ? "fault" : (isInserted ? "inserted" : (isDeleted ? "deleted" : (hasChanges ? "updated" : "saved")))
        return "<\(entity.name) \(objectID) \(state)>"
    }
}

extension ManagedObject: PredicateArgumentConvertible {
    /// An object in a predicate stands for its ID.
    public var predicateArgument: StoreValue { .objectID(objectID) }
}
