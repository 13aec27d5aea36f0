import Foundation

/// The stores the lab runs on: the one store enum of every workload, tool and verb.
public enum StoreKind: String, Sendable, CaseIterable {
    case sqlite
    case lmdb
    case memory

    /// The stores with a file: the ones a launch, a seeded store, a migration or a crash test can use.
    public static let fileStores: [StoreKind] = [.sqlite, .lmdb]

    /// Whether the store lives in a file (and survives its process).
    public var isFile: Bool { self != .memory }

    /// Where a run's store lives: a file in the run's folder, or a fresh shared in-memory backing.
    public func location(in directory: URL) -> URL {
        switch self {
        case .sqlite: return directory.appendingPathComponent("pods.sqlite")
        case .lmdb: return directory.appendingPathComponent("pods.lmdb")
        case .memory: return URL(string: "memory://stacklab-\(UUID().uuidString)")!
        }
    }
}
