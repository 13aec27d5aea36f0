import CLMDB
import Foundation
import ObjectStack
import Synchronization

/// One open `MDB_env` for one file, shared by every `LMDBStore` on that file in this process.
///
/// LMDB forbids opening an environment twice in one process (closing either copy drops the other's file
/// locks), so `LMDBEnvironmentRegistry` hands out one per file. Store instances share it and keep their own
/// transactions: readers use read-only transactions (MVCC, they never wait for the writer), each save one
/// write transaction.
/// - Note: Thread-safe.
final class LMDBEnvironment: Sendable {
    /// The file's path, as the registry keys it.
    let path: String
    let url: URL
    let gate: LMDBMapGate
    /// Read-only transactions that were reset, kept for `mdb_txn_renew` (far cheaper than a new begin).
    private let idleReaders = LockedValue<[OpaquePointer]>([])
    /// One more reset reader, taken and put back with one atomic exchange each: a lookup by ID is a read of its
    /// own, and the pool's lock, twice per read, was a tenth of its cost over raw LMDB's renew and reset.
    private let idleReader = Atomic<UInt>(0)
    /// Sub-database handles by name; opening them is serialised by the same lock, as LMDB requires.
    let databases = LockedValue<[String: MDB_dbi]>([:])
    /// Primary keys this process reserved in the file and has not handed out yet, per entity hierarchy (root
    /// entity name): see `LMDBStore+Keys`.
    let keyRanges = LockedValue<[String: LMDBKeyRange]>([:])
    /// How many reader slots of dead processes `mdb_reader_check` cleared at open.
    let clearedStaleReaders: Int32

    private static let maximumMapSize = 1 << 40
    private static let idleReaderLimit = 8

    /// Opens the environment of the file at `path`, syncing its commits as `durability` says.
    init(path: String, url: URL, initialMapSize: Int, durability: Durability = .full) throws {
        self.path = path
        self.url = url
        var handle: OpaquePointer?
        try LMDBFailure.check(mdb_env_create(&handle), "creating an LMDB environment failed", url: url)
        guard let env = handle else { throw LMDBFailure.error(ENOMEM, "creating an LMDB environment failed", url: url) }
        var rc = mdb_env_set_maxdbs(env, 1024)
        if rc == MDB_SUCCESS { rc = mdb_env_set_maxreaders(env, 510) }
        if rc == MDB_SUCCESS { rc = mdb_env_set_mapsize(env, initialMapSize) }
        // NOSUBDIR: the store is one file plus `-lock`. NOTLS: transactions are not tied to threads (contexts
        // run on dispatch queues, and reset readers are renewed on whichever thread asks). NORDAHEAD: a cold
        // open reads only the pages it needs.
        // No MDB_WRITEMAP: pages are written with pwrite and the meta page through a descriptor opened O_DSYNC, so
        // the file is never written through the map (which a power-loss recording could not see).
        let flags = UInt32(bitPattern: MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD | Self.syncFlags(durability))
        if rc == MDB_SUCCESS { rc = mdb_env_open(env, path, flags, 0o644) }
        if rc != MDB_SUCCESS {
            mdb_env_close(env)
            throw LMDBFailure.error(rc, "opening the LMDB environment failed", url: url)
        }
        var dead: Int32 = 0
        rc = mdb_reader_check(env, &dead)
        if rc != MDB_SUCCESS {
            mdb_env_close(env)
            throw LMDBFailure.error(rc, "clearing stale readers of the LMDB environment failed", url: url)
        }
        clearedStaleReaders = dead
        gate = LMDBMapGate(env: env, url: url)
    }

    /// Aborts idle readers and closes the environment once no transaction is active.
    func close() {
        gate.close { _ in
            if let reader = OpaquePointer(bitPattern: idleReader.exchange(0, ordering: .acquiring)) {
                mdb_txn_abort(reader)
            }
            idleReaders.withLock { readers in
                for reader in readers { mdb_txn_abort(reader) }
                readers.removeAll()
            }
        }
    }

    private struct MapResized: Error {}

    // MARK: - Durability

    /// LMDB's flags for a durability: `full` syncs the data, then writes the meta page through an `O_DSYNC`
    /// descriptor; `normal` (`MDB_NOMETASYNC`) leaves the meta page to the next commit's sync; `off` (`MDB_NOSYNC`)
    /// syncs nothing.
    static func syncFlags(_ durability: Durability) -> Int32 {
        switch durability {
        case .full: 0
        case .normal: MDB_NOMETASYNC
        case .off: MDB_NOSYNC
        }
    }

    /// The durability the environment's flags give its commits now.
    var durability: Durability {
        (try? gate.shared { env -> Durability in
            var flags: UInt32 = 0
            mdb_env_get_flags(env, &flags)
            if flags & UInt32(bitPattern: MDB_NOSYNC) != 0 { return .off }
            return flags & UInt32(bitPattern: MDB_NOMETASYNC) != 0 ? .normal : .full
        }) ?? .full
    }

    /// Makes the commits at least as durable as `wanted` (one environment serves every store on the file in this
    /// process, so it keeps the strongest any of them asked for). Callers serialise this (the registry's lock):
    /// LMDB leaves concurrent flag changes undefined.
    func strengthen(to wanted: Durability) throws {
        let order: [Durability] = [.off, .normal, .full]
        guard order.firstIndex(of: wanted)! > order.firstIndex(of: durability)! else { return }
        try gate.shared { env in
            let all = UInt32(bitPattern: MDB_NOSYNC | MDB_NOMETASYNC)
            try LMDBFailure.check(mdb_env_set_flags(env, all, 0), "changing the LMDB sync flags failed", url: url)
            let flags = Self.syncFlags(wanted)
            if flags != 0 {
                try LMDBFailure.check(
                    mdb_env_set_flags(env, UInt32(bitPattern: flags), 1), "changing the LMDB sync flags failed",
                    url: url)
            }
        }
    }

    // MARK: - Transactions

    /// Runs `body` in a read-only transaction.
    func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        while true {
            do {
                return try gate.shared { env in
                    let txn = try beginReader(env)
                    defer {
                        mdb_txn_reset(txn)
                        let slot = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(txn)))
                        let parked = idleReader.compareExchange(expected: 0, desired: slot, ordering: .releasing)
                        let kept =
                            parked.exchanged
                            || idleReaders.withLock { readers in
                                guard readers.count < Self.idleReaderLimit else { return false }
                                readers.append(txn)
                                return true
                            }
                        if !kept { mdb_txn_abort(txn) }
                    }
                    return try body(LMDBTransaction(txn: txn, url: url))
                }
            } catch is MapResized {
                // Another process grew the map: adopt its size, then begin again.
                try gate.exclusive { env in _ = mdb_env_set_mapsize(env, 0) }
            }
        }
    }

    private func beginReader(_ env: OpaquePointer) throws -> OpaquePointer {
        let parked = OpaquePointer(bitPattern: idleReader.exchange(0, ordering: .acquiring))
        if let idle = parked ?? idleReaders.withLock({ $0.popLast() }) {
            let rc = mdb_txn_renew(idle)
            if rc == MDB_SUCCESS { return idle }
            mdb_txn_abort(idle)
            if rc == MDB_MAP_RESIZED { throw MapResized() }
        }
        var txn: OpaquePointer?
        let rc = mdb_txn_begin(env, nil, UInt32(bitPattern: MDB_RDONLY), &txn)
        if rc == MDB_MAP_RESIZED { throw MapResized() }
        try LMDBFailure.check(rc, "beginning a read transaction failed", url: url)
        return txn!
    }

    /// Runs `body` in a fresh read-only transaction that commits, so sub-database handles it opens stay open.
    ///
    /// Callers serialise this through `databases` (LMDB requires that only one transaction at a time opens
    /// handles).
    func readKeepingHandles<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        while true {
            do {
                return try gate.shared { env in
                    var handle: OpaquePointer?
                    let rc = mdb_txn_begin(env, nil, UInt32(bitPattern: MDB_RDONLY), &handle)
                    if rc == MDB_MAP_RESIZED { throw MapResized() }
                    try LMDBFailure.check(rc, "beginning a read transaction failed", url: url)
                    let txn = handle!
                    let result: T
                    do {
                        result = try body(LMDBTransaction(txn: txn, url: url))
                    } catch {
                        mdb_txn_abort(txn)
                        throw error
                    }
                    try LMDBFailure.check(mdb_txn_commit(txn), "ending a read transaction failed", url: url)
                    return result
                }
            } catch is MapResized {
                // Another process grew the map while this one opened the store: adopt its size, then begin again.
                try gate.exclusive { env in _ = mdb_env_set_mapsize(env, 0) }
            }
        }
    }

    /// Runs `body` in one write transaction and commits it; any error aborts it, so nothing is written.
    ///
    /// When the map fills, the transaction is aborted, the map grows (by at least `growthHint` bytes) and `body`
    /// runs again from the start, so a save never fails for a full map and is never half applied.
    func write<T>(growthHint: Int = 0, _ body: (LMDBTransaction) throws -> T) throws -> T {
        // Growing first when the free part of the map is smaller than the hint spares a big save its first
        // attempt, which would fill the map, abort and run again.
        try makeRoom(growthHint)
        while true {
            do {
                return try gate.shared { env in
                    var handle: OpaquePointer?
                    let rc = mdb_txn_begin(env, nil, 0, &handle)
                    if rc == MDB_MAP_RESIZED { throw MapResized() }
                    try LMDBFailure.check(rc, "beginning a write transaction failed", url: url)
                    let txn = handle!
                    let result: T
                    do {
                        result = try body(LMDBTransaction(txn: txn, url: url))
                    } catch {
                        mdb_txn_abort(txn)
                        throw error
                    }
                    // mdb_txn_commit frees the transaction whether or not it succeeds.
                    let committed = mdb_txn_commit(txn)
                    if committed == MDB_MAP_FULL { throw LMDBMapFull() }
                    try LMDBFailure.check(committed, "committing a write transaction failed", url: url)
                    return result
                }
            } catch is LMDBMapFull {
                try grow(by: growthHint)
            } catch is MapResized {
                try gate.exclusive { env in _ = mdb_env_set_mapsize(env, 0) }
            }
        }
    }

    /// Grows the map when fewer than `bytes` of it are past the last used page.
    private func makeRoom(_ bytes: Int) throws {
        guard bytes > 0 else { return }
        let tooSmall = try gate.shared { env -> Bool in
            var info = MDB_envinfo()
            mdb_env_info(env, &info)
            var stat = MDB_stat()
            mdb_env_stat(env, &stat)
            let used = (Int(info.me_last_pgno) + 1) * Int(stat.ms_psize)
            return info.me_mapsize - used < bytes
        }
        if tooSmall { try grow(by: bytes) }
    }

    /// Grows the map to at least twice its size, and at least `extra` bytes more.
    private func grow(by extra: Int) throws {
        try gate.exclusive { env in
            var info = MDB_envinfo()
            mdb_env_info(env, &info)
            let current = info.me_mapsize
            let megabyte = 1 << 20
            var size = max(current * 2, current + extra)
            size = (size + megabyte - 1) / megabyte * megabyte
            guard size <= Self.maximumMapSize else {
                throw StoreError(
                    code: .full, message: "the LMDB map cannot grow past \(Self.maximumMapSize) bytes",
                    url: url, nativeCode: MDB_MAP_FULL)
            }
            try LMDBFailure.check(mdb_env_set_mapsize(env, size), "growing the LMDB map failed", url: url)
        }
    }

    /// The current size of the memory map in bytes.
    var mapSize: Int {
        (try? gate.shared { env in
            var info = MDB_envinfo()
            mdb_env_info(env, &info)
            return info.me_mapsize
        }) ?? 0
    }
}
