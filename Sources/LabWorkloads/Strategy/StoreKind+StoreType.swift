import LabCore
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

extension StoreKind {
    /// The ObjectStack store type (the lab core names stores without linking them).
    public var storeType: StoreType {
        switch self {
        case .sqlite: return .sqlite
        case .lmdb: return .lmdb
        case .memory: return .inMemory
        }
    }
}
