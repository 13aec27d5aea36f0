/// A store that can say how it answers a fetch: the plan it chooses, with the index entries and rows read.
///
/// The LMDB and in-memory stores conform; `ManagedObjectContext.explain(_:)` reaches them.
public protocol StoreQueryExplaining: StoreReader {
    /// Runs the fetch as `execute(_:)` would and returns the plan it used, with what it read.
    func explain(_ request: StoreFetchRequest) throws -> QueryPlan
}
