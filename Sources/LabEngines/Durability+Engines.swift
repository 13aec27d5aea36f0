import CLMDB
import ObjectStack

/// A durability as the raw engines take it, so the raw side of a cell syncs as the store does at that setting.
extension Durability {
    /// SQLite's `PRAGMA synchronous` value (the SQLite store's mapping).
    var sqliteSynchronous: String {
        switch self {
        case .full: "FULL"
        case .normal: "NORMAL"
        case .off: "OFF"
        }
    }

    /// The `mdb_env_open` flag (the LMDB store's mapping): none for a synced commit.
    var lmdbFlags: Int32 {
        switch self {
        case .full: 0
        case .normal: MDB_NOMETASYNC
        case .off: MDB_NOSYNC
        }
    }
}
