import CLMDB
import Foundation
import ObjectStack

/// Turns LMDB return codes into `StoreError`s that say what failed, where, and LMDB's own message.
enum LMDBFailure {
    /// The error for return code `rc` while doing `what` on the store at `url`.
    static func error(_ rc: Int32, _ what: String, url: URL) -> StoreError {
        let detail = String(cString: mdb_strerror(rc))
        let code: StoreError.Code
        switch rc {
        case MDB_MAP_FULL, ENOSPC: code = .full
        case MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_BAD_TXN, MDB_TLS_FULL: code = .corrupt
        case MDB_INVALID, MDB_VERSION_MISMATCH, MDB_INCOMPATIBLE: code = .notAStore
        case EACCES, EROFS, EPERM: code = .readOnly
        case EAGAIN, EBUSY: code = .locked
        default: code = .ioFailure
        }
        return StoreError(code: code, message: what, url: url, nativeCode: rc, detail: detail)
    }

    /// Throws unless `rc` is `MDB_SUCCESS`.
    @inline(__always)
    static func check(_ rc: Int32, _ what: @autoclosure () -> String, url: URL) throws {
        if rc != MDB_SUCCESS { throw error(rc, what(), url: url) }
    }
}

/// Thrown inside a write transaction when the map is full, so the save can grow the map and run again.
struct LMDBMapFull: Error {}
