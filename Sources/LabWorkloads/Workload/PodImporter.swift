import LabCore
import ObjectStack

/// Imports pod specs into a context by find-or-create on the unique identifier (name + version), in batches:
/// one `IN` fetch per batch finds the existing objects, never one fetch per object.
public enum PodImporter {
    /// What one import did.
    public struct Counts: Sendable, Equatable {
        public var inserted = 0
        public var updated = 0
        public var unchanged = 0
        public var fetches = 0

        /// Creates counts.
        public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, fetches: Int = 0) {
            self.inserted = inserted
            self.updated = updated
            self.unchanged = unchanged
            self.fetches = fetches
        }

        static func + (lhs: Counts, rhs: Counts) -> Counts {
            Counts(
                inserted: lhs.inserted + rhs.inserted, updated: lhs.updated + rhs.updated,
                unchanged: lhs.unchanged + rhs.unchanged, fetches: lhs.fetches + rhs.fetches)
        }
    }

    /// Finds or creates a pod for each spec of one batch and sets its values. Call it on the context's queue;
    /// the caller saves.
    /// - Complexity: one fetch (`name IN {…}`) and O(n) work for n specs.
    public static func importBatch(_ specs: some Collection<PodSpec>, into context: ManagedObjectContext) throws
        -> Counts
    {
        guard !specs.isEmpty else { return Counts() }
        var request = FetchRequest<Pod>(entityName: "Pod")
        request.predicate = try FetchPredicate(format: "name IN %@", Array(Set(specs.map(\.name))))
        request.returnsObjectsAsFaults = false
        var existing: [PodKey: Pod] = [:]
        for pod in try context.fetch(request) { existing[PodKey(name: pod.name, version: pod.version)] = pod }
        var counts = Counts(fetches: 1)
        for spec in specs {
            if let pod = existing[spec.key] {
                if pod.apply(spec) { counts.updated += 1 } else { counts.unchanged += 1 }
            } else {
                let pod = Pod(context: context)
                pod.apply(spec)
                existing[spec.key] = pod
                counts.inserted += 1
            }
        }
        return counts
    }

    /// Imports specs in batches of `batchSize`, saving each batch with `save` and resetting the context after
    /// it (an importer lets go of what it saved). Call it on the context's queue. With `phases`, each batch's
    /// find-or-create and save (with the reset) add to their phases; `committed` hears each saved batch.
    public static func importSpecs(
        _ specs: [PodSpec], batchSize: Int, into context: ManagedObjectContext,
        save: (ManagedObjectContext) throws -> Void,
        resetAfterSave: Bool = true, phases: ImportPhases? = nil,
        committed: (@Sendable (ArraySlice<PodSpec>) -> Void)? = nil
    ) throws -> Counts {
        var total = Counts()
        for start in stride(from: 0, to: specs.count, by: max(batchSize, 1)) {
            let batch = specs[start..<min(start + batchSize, specs.count)]
            let began = phases?.now() ?? 0
            total = total + (try importBatch(batch, into: context))
            let found = phases?.record(.findOrCreate, since: began)
            try save(context)
            committed?(batch)
            if resetAfterSave { context.reset() }
            if let found { phases?.record(.save, since: found) }
        }
        return total
    }

    /// Imports specs with one `BatchInsertRequest` per `batchSize` specs, as Apple's large-import sample does: the
    /// entity's uniqueness constraint and the context's merge policy make each request an upsert, and no object is
    /// registered in the context. Call it on the context's queue. A batch insert does not tell an insert from an
    /// update, so every spec counts as inserted. With `phases`, each request's time is the save phase's (building
    /// the dictionaries is find-or-create's); `committed` hears each request.
    public static func batchInsertSpecs(
        _ specs: [PodSpec], batchSize: Int, into context: ManagedObjectContext, phases: ImportPhases? = nil,
        committed: (@Sendable (ArraySlice<PodSpec>) -> Void)? = nil
    ) throws -> Counts {
        var total = Counts()
        for start in stride(from: 0, to: specs.count, by: max(batchSize, 1)) {
            let batch = specs[start..<min(start + batchSize, specs.count)]
            let began = phases?.now() ?? 0
            let objects = batch.map(\.batchInsertObject)
            let built = phases?.record(.findOrCreate, since: began)
            _ = try context.execute(BatchInsertRequest(entityName: "Pod", objects: objects))
            committed?(batch)
            if let built { phases?.record(.save, since: built) }
            total.inserted += batch.count
        }
        return total
    }
}
