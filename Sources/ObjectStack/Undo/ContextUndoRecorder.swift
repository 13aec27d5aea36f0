/// What a context with an undo manager notes between two `processPendingChanges()`: for each object whose
/// existence changed, whether it existed before; for each property changed, its value before the first change.
///
/// Core Data records a context's changes with the undo manager in `processPendingChanges()`, one registration for
/// the whole cycle; this is the cycle's record, turned into a `ContextUndoStep` there. Values are absolute (the
/// old value itself, not a delta from the committed row), so a step still undoes its changes after a save and
/// leaves the context dirty again. References are kept as objects, not IDs, so they follow the temporary IDs
/// that a save makes permanent.
/// - Note: Not thread-safe: used on its context's queue only.
final class ContextUndoRecorder {
    /// The manager the context registers its steps with.
    let manager: ObjectUndoManager
    /// Objects inserted or deleted this cycle (or brought back or removed by an undo): whether each existed
    /// before its first such change.
    private var existed: [ManagedObject: Bool] = [:]
    /// Properties changed this cycle, by object and property index: the value each had before.
    private var values: [ManagedObject: [Int: UndoValue]] = [:]

    init(manager: ObjectUndoManager) {
        self.manager = manager
    }

    /// Notes that an object is about to come into being or go away, unless noted already this cycle.
    func existenceWillChange(_ object: ManagedObject, existed: Bool) {
        if self.existed[object] == nil { self.existed[object] = existed }
    }

    /// Notes a property's value before its first change this cycle (`value` is read only then).
    func propertyWillChange(_ object: ManagedObject, index: Int, value: () -> UndoValue) {
        if values[object]?[index] != nil { return }
        values[object, default: [:]][index] = value()
    }

    /// The step that undoes the cycle, or nil when nothing changed in the end; the cycle starts over.
    func takeStep(in context: ManagedObjectContext) -> ContextUndoStep? {
        guard !existed.isEmpty || !values.isEmpty else { return nil }
        var step = ContextUndoStep()
        for (object, before) in existed where context.exists(object) != before {
            step.existence.append((object, before))
        }
        for (object, properties) in values {
            // An object that came into being this cycle leaves whole when the step is undone; its values stay
            // with it for a redo.
            if existed[object] == false { continue }
            for (index, old) in properties where !context.holds(old, at: index, of: object) {
                step.values.append((object, index, old))
            }
        }
        existed = [:]
        values = [:]
        return step.isEmpty ? nil : step
    }

    /// Forgets the cycle (rollback, reset).
    func discard() {
        existed = [:]
        values = [:]
    }
}

/// A property's value as a context's undo step keeps it.
enum UndoValue {
    /// An attribute's value (stored or transient).
    case value(StoreValue)
    /// A to-one relationship's object, or nil.
    case object(ManagedObject?)
    /// A to-many relationship's objects.
    case members([ManagedObject])
}

/// One registered undo operation of a context: the objects to bring back or remove, and the values to restore.
struct ContextUndoStep {
    /// Objects whose existence to restore: true to bring the object back, false to remove it.
    var existence: [(object: ManagedObject, exists: Bool)] = []
    /// Property values to restore.
    var values: [(object: ManagedObject, index: Int, value: UndoValue)] = []

    var isEmpty: Bool { existence.isEmpty && values.isEmpty }
}
