import Foundation
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// The stores a scenario runs on.
public enum StoreKind: String, Sendable, CaseIterable {
    case sqlite
    case lmdb
    case memory

    /// The ObjectStack store type.
    public var storeType: StoreType {
        switch self {
        case .sqlite: return .sqlite
        case .lmdb: return .lmdb
        case .memory: return .inMemory
        }
    }

    /// Where a run's store lives: a file in the run's folder, or a fresh shared in-memory backing.
    func location(in directory: URL) -> URL {
        switch self {
        case .sqlite: return directory.appendingPathComponent("pods.sqlite")
        case .lmdb: return directory.appendingPathComponent("pods.lmdb")
        case .memory: return URL(string: "memory://stacklab-\(UUID().uuidString)")!
        }
    }
}
