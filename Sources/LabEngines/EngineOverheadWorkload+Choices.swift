import LabWorkloads

extension EngineOverheadWorkload {
    /// The implementations a cell can name.
    enum Implementation: String, CaseIterable {
        case objectStack = "objectstack"
        /// The engine's C API called from C (`CRawEngines`): the floor with no Swift in the timed work. For the
        /// in-memory store, which has no C engine, plain Swift collections (`SwiftPods`).
        case raw
        /// The same work as `raw`, written in Swift calling the same C API directly, with no object layer
        /// (`DirectSQLitePods`, `DirectLMDBPods`): Swift's own cost over C, apart from the stack's. SQLite and LMDB.
        case swiftDirect = "swift-direct"
        /// swift-direct's `fetch-all` with each row made an object and uniqued in a table by primary key
        /// (`UniquedPods`): the least any object layer adds, the floor under ObjectStack's fetch. SQLite and LMDB,
        /// `fetch-all` only.
        case swiftObjects = "swift-objects"
        case grdb
        /// fetch-by-id as `existingObject(with:)` must do it: each lookup in a read transaction of its own (SQLite:
        /// one cached statement stepped in its implicit transaction; LMDB: one read transaction renewed and reset), in C
        /// as `raw`.
        case rawPerLookup = "raw-per-lookup"
    }

    /// The operations a cell can name, each timed by a function of its own on `EngineOverheadCell`.
    enum Operation: String, CaseIterable {
        case insert
        case fetchAll = "fetch-all"
        case fetchByID = "fetch-by-id"
        case fetchSorted = "fetch-sorted"
        case update
        case count
        case merge
        case childSave = "child-save"
        case `import`
        case batchInsert = "batch-insert"

        /// The function that times the operation on a cell: the table from operation to its measurement.
        var measure: (EngineOverheadCell) throws -> EngineOverheadCell.Samples {
            switch self {
            case .insert: return { try $0.insert() }
            case .batchInsert: return { try $0.batchInsert() }
            case .fetchAll: return { try $0.fetchAll() }
            case .fetchByID: return { try $0.fetchByID() }
            case .fetchSorted: return { try $0.fetchSorted() }
            case .update: return { try $0.update() }
            case .count: return { try $0.count() }
            case .merge: return { try $0.merge() }
            case .childSave: return { try $0.childSave() }
            case .import: return { try $0.importInBatches() }
            }
        }
    }
}
