/// A save as a store receives it: whole rows to insert and update, rows to delete, join-table links.
public struct StoreSaveRequest: Sendable {
    /// A row to write over an existing one.
    public struct Update: Sendable {
        /// The object.
        public var objectID: ManagedObjectID
        /// The new values, by `storedIndex`.
        public var values: [StoreValue]
        /// The version the saving context read; nil to write whatever the store has (overwrite).
        public var expectedVersion: Int64?
        /// The values the saving context read (the row at `expectedVersion`), when it has them: a store may skip
        /// checking a uniqueness constraint whose values the update leaves as they were at that version.
        public var committedValues: [StoreValue]?
        /// Which stored indices the saving context changed, when it knows (bit `i` for stored index `i`; rows of
        /// up to 64 stored values): every other value of `values` is `committedValues`' own. The checks below then
        /// test bits instead of comparing the two rows, whose second read was a cache miss per row of a large
        /// save. A set bit may still hold the committed value; nil when not known.
        public var changedMask: UInt64?

        /// Creates an update.
        public init(
            objectID: ManagedObjectID, values: [StoreValue], expectedVersion: Int64?,
            committedValues: [StoreValue]? = nil
        ) {
            self.objectID = objectID
            self.values = values
            self.expectedVersion = expectedVersion
            self.committedValues = committedValues
        }

        /// Creates an update whose changed values the saving context knows (`changedMask`).
        public init(
            objectID: ManagedObjectID, values: [StoreValue], expectedVersion: Int64?,
            committedValues: [StoreValue]?, changedMask: UInt64?
        ) {
            self.init(
                objectID: objectID, values: values, expectedVersion: expectedVersion, committedValues: committedValues)
            self.changedMask = changedMask
        }

        /// `changedMask` when it can be trusted: the two rows are of one length, within the mask's 64 bits.
        private var usableMask: UInt64? {
            guard let changedMask, values.count <= 64, committedValues?.count == values.count else { return nil }
            return changedMask
        }

        /// The stored indices whose values differ from the row at `expectedVersion`: what a store that writes
        /// single columns must write. All of them when the committed values are not known.
        public func changedIndices() -> [Int] {
            guard let committedValues, committedValues.count == values.count else { return Array(values.indices) }
            if let changedMask = usableMask {
                return values.indices.filter {
                    changedMask & (1 << UInt64($0)) != 0 && values[$0] != committedValues[$0]
                }
            }
            return values.indices.filter { values[$0] != committedValues[$0] }
        }

        /// Whether the update leaves the values at `indices` as they were in the row at `expectedVersion`: then
        /// the stored row already held them, so they cannot newly clash (once the version is checked).
        public func keepsCommittedValues(at indices: [Int]) -> Bool {
            guard expectedVersion != nil, let committedValues else { return false }
            if let changedMask = usableMask {
                return indices.allSatisfy {
                    $0 < values.count && (changedMask & (1 << UInt64($0)) == 0 || committedValues[$0] == values[$0])
                }
            }
            return indices.allSatisfy {
                $0 < committedValues.count && $0 < values.count && committedValues[$0] == values[$0]
            }
        }
    }

    /// A row to delete.
    public struct Delete: Sendable {
        /// The object.
        public var objectID: ManagedObjectID
        /// The version the saving context read; nil for no check.
        public var expectedVersion: Int64?

        /// Creates a delete.
        public init(objectID: ManagedObjectID, expectedVersion: Int64?) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
        }
    }

    /// A link of a join-table relationship, added or removed.
    public struct Link: Sendable, Hashable {
        /// The relationship that owns the join table (`RelationshipDescription.joinTableOwner`).
        public var relationship: String
        /// The owning side's object.
        public var source: ManagedObjectID
        /// The other side's object.
        public var destination: ManagedObjectID

        /// Creates a link.
        public init(relationship: String, source: ManagedObjectID, destination: ManagedObjectID) {
            self.relationship = relationship
            self.source = source
            self.destination = destination
        }
    }

    /// Members appended to an ordered to-many relationship, in order: a store that keeps positions (Core Data's
    /// `Z_FOK_` columns) places them after the members it holds.
    public struct OrderedAddition: Sendable {
        /// The ordered relationship.
        public var relationship: RelationshipDescription
        /// The object whose relationship it is.
        public var source: ManagedObjectID
        /// The members added, in order.
        public var members: [ManagedObjectID]

        /// Creates an addition.
        public init(relationship: RelationshipDescription, source: ManagedObjectID, members: [ManagedObjectID]) {
            self.relationship = relationship
            self.source = source
            self.members = members
        }
    }

    /// New rows (each ID permanent and reserved through `newObjectIDs`), values by `storedIndex`.
    public var inserts: [(objectID: ManagedObjectID, values: [StoreValue])] = []
    /// Changed rows.
    public var updates: [Update] = []
    /// Deleted rows; the store also removes their join-table links.
    public var deletes: [Delete] = []
    /// Links to add.
    public var insertedLinks: [Link] = []
    /// Links to remove.
    public var deletedLinks: [Link] = []
    /// Members appended to ordered to-many relationships (their rows and links are in the request too). A store
    /// that keeps no positions ignores it: its members are in the order they were added.
    public var orderedAdditions: [OrderedAddition] = []
    /// The persistent history transaction to write with the changes, in the same store transaction; nil for none
    /// (history tracking off). A store that keeps no history ignores it.
    public var history: StoreHistoryRecord?

    /// Creates an empty save request.
    public init() {}

    /// Whether the request changes nothing.
    public var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && insertedLinks.isEmpty && deletedLinks.isEmpty
    }
}
