/// Reads a batch update's rows for the evaluator: the row's own attributes, which are all a batch update's
/// expressions may read (they are bound so), so relationships read as empty.
struct BatchRowResolver: PredicateResolver {
    typealias Row = (id: ManagedObjectID, snapshot: RowSnapshot)

    func row(for objectID: ManagedObjectID) -> Row? { nil }

    func objectID(of row: Row) -> ManagedObjectID { row.id }

    func value(of attribute: AttributeDescription, in row: Row) -> StoreValue {
        guard let index = row.id.entity.attributesByName[attribute.name]?.storedIndex else { return .null }
        return row.snapshot.value(at: index)
    }

    func destination(of relationship: RelationshipDescription, in row: Row) -> ManagedObjectID? { nil }

    func destinations(of relationship: RelationshipDescription, in row: Row) -> [ManagedObjectID] { [] }
}
