import CLMDB
import Foundation
import ObjectStack

extension LMDBStore: StoreGenerationPinning {
    // MARK: - Query generations

    /// A read-only transaction begun now and kept open: LMDB's MVCC keeps every page it sees until it ends.
    public func pinGeneration() throws -> any StoreGenerationReader {
        try checkOpen()
        let pinned = try environment.gate.shared { env -> LMDBPinnedTransaction in
            var handle: OpaquePointer?
            try LMDBFailure.check(
                mdb_txn_begin(env, nil, UInt32(bitPattern: MDB_RDONLY), &handle), "pinning a generation failed",
                url: url)
            return LMDBPinnedTransaction(handle!)
        }
        environment.gate.pin(pinned)
        return LMDBGenerationReader(store: self, pinned: pinned)
    }
}

/// A read transaction a query generation holds. The map gate ends it before the map moves (LMDB requires that no
/// transaction of the process is active then), after which reading the generation throws.
/// - Note: Thread-safe: the handle is used and ended under its lock.
final class LMDBPinnedTransaction: Sendable {
    // The handle is an OpaquePointer (not Sendable), so it lives in a LockedValue and is only touched under its lock.
    let handle: LockedValue<OpaquePointerBox?>

    struct OpaquePointerBox: @unchecked Sendable {
        // @unchecked: the pointer is only dereferenced by LMDB while the owning LockedValue's lock is held.
        let pointer: OpaquePointer
    }

    init(_ txn: OpaquePointer) {
        handle = LockedValue(OpaquePointerBox(pointer: txn))
    }

    /// Aborts the transaction (once); later reads throw.
    func end() {
        handle.withLock { box in
            if let box { mdb_txn_abort(box.pointer) }
            box = nil
        }
    }
}

extension LMDBMapGate {
    /// Keeps a pinned transaction, to end it before the map moves or the environment closes.
    func pin(_ pinned: LMDBPinnedTransaction) {
        pinnedTransactions.withLock { $0[ObjectIdentifier(pinned)] = pinned }
    }

    /// Forgets a pinned transaction its reader ended.
    func unpin(_ pinned: LMDBPinnedTransaction) {
        _ = pinnedTransactions.withLock { $0.removeValue(forKey: ObjectIdentifier(pinned)) }
    }

    /// Ends every pinned transaction; called with the gate held exclusively.
    func endPinnedTransactions() {
        let pinned = pinnedTransactions.withLock { all in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for transaction in pinned { transaction.end() }
    }
}

/// Reads one generation of an LMDB store through its pinned read transaction.
final class LMDBGenerationReader: StoreGenerationReader {
    private let store: LMDBStore
    private let pinned: LMDBPinnedTransaction

    init(store: LMDBStore, pinned: LMDBPinnedTransaction) {
        self.store = store
        self.pinned = pinned
    }

    deinit {
        store.environment.gate.unpin(pinned)
        pinned.end()
    }

    private func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        try store.checkOpen()
        return try store.environment.gate.shared { _ in
            try pinned.handle.withLock { box in
                guard let box else {
                    throw StoreError(
                        code: .closed,
                        message: "the pinned generation ended: this process grew the LMDB map or closed the store",
                        url: store.url)
                }
                return try body(LMDBTransaction(txn: box.pointer, url: store.url))
            }
        }
    }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try read { txn in
            try LMDBFetch(request: request, resolver: LMDBResolver(txn: txn, schema: store.schema, codec: store.codec))
                .run().0
        }
    }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        try read { txn in try objectIDs.map { try store.row(of: $0, in: txn) } }
    }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try read { txn in
            let resolver = LMDBResolver(txn: txn, schema: store.schema, codec: store.codec)
            return try objectIDs.map { try resolver.related($0, through: relationship) }
        }
    }
}
