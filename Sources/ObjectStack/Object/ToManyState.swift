/// The members of one to-many relationship of an object: what the store (or parent) holds, and the changes.
///
/// Changes are kept as deltas so keeping an inverse consistent never has to read the other side's members
/// first: the committed members are read only when someone asks for the relationship.
struct ToManyState {
    /// The members as last read or saved; nil until read.
    var committed: [ManagedObjectID]?
    /// Members added since, in order.
    var added: [ManagedObjectID] = []
    /// Members removed since.
    var removed: Set<ManagedObjectID> = []

    /// Whether there are unsaved changes.
    var hasChanges: Bool { !added.isEmpty || !removed.isEmpty }

    /// The members now, given the committed ones.
    func current(committed base: [ManagedObjectID]) -> [ManagedObjectID] {
        guard hasChanges else { return base }
        let kept = removed.isEmpty ? base : base.filter { !removed.contains($0) }
        guard !added.isEmpty else { return kept }
        let present = Set(kept)
        return kept + added.filter { !present.contains($0) }
    }

    mutating func add(_ id: ManagedObjectID) {
        if removed.remove(id) != nil, committed?.contains(id) ?? true { return }
        if !added.contains(id) { added.append(id) }
    }

    mutating func remove(_ id: ManagedObjectID) {
        if let index = added.firstIndex(of: id) {
            added.remove(at: index)
            if !(committed?.contains(id) ?? true) { return }
        }
        removed.insert(id)
    }

    /// Replaces IDs that changed from temporary to permanent.
    mutating func replace(using mapping: [ManagedObjectID: ManagedObjectID]) {
        committed = committed?.map { mapping[$0] ?? $0 }
        added = added.map { mapping[$0] ?? $0 }
        if !removed.isEmpty { removed = Set(removed.map { mapping[$0] ?? $0 }) }
    }
}
