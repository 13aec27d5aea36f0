import Foundation
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// The stores the conformance suite runs on. A store issue adds its case here and nothing else.
public enum StoreKind: String, CaseIterable, CustomTestStringConvertibleShim, Sendable {
    case inMemory
    case sqlite
    case lmdb

    public var type: StoreType {
        switch self {
        case .inMemory: return .inMemory
        case .sqlite: return .sqlite
        case .lmdb: return .lmdb
        }
    }

    /// A fresh location for a new store of this kind.
    public func newLocation() -> URL {
        switch self {
        case .inMemory: return URL(string: "memory://conformance-\(UUID().uuidString)")!
        case .sqlite: return Self.runDirectory.appendingPathComponent("\(UUID().uuidString).sqlite")
        case .lmdb: return Self.runDirectory.appendingPathComponent("\(UUID().uuidString).lmdb")
        }
    }

    /// One temporary folder per test run for file stores (a store is a file plus its `-lock` file).
    public static let runDirectory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "stacklab-conformance-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Removed when the test process exits, so runs leave no store files behind.
        atexit { try? FileManager.default.removeItem(at: StoreKind.runDirectory) }
        return directory
    }()
}

/// Swift Testing prints arguments with `description`; this keeps the test names short ("inMemory").
public protocol CustomTestStringConvertibleShim: CustomStringConvertible, RawRepresentable where RawValue == String {}
extension CustomTestStringConvertibleShim {
    public var description: String { rawValue }
}
