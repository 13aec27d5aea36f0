import Foundation
import ObjectStack
import ObjectStackSQLite

/// The stores the conformance suite runs on. A store issue adds its case here and nothing else.
enum StoreKind: String, CaseIterable, CustomTestStringConvertibleShim, Sendable {
    case inMemory
    case sqlite

    var type: StoreType {
        switch self {
        case .inMemory: return .inMemory
        case .sqlite: return .sqlite
        }
    }

    /// A fresh location for a new store of this kind.
    func newLocation() -> URL {
        switch self {
        case .inMemory: return URL(string: "memory://conformance-\(UUID().uuidString)")!
        case .sqlite: return Self.sqliteDirectory.appendingPathComponent("\(UUID().uuidString).sqlite")
        }
    }

    /// One temporary directory per test run for SQLite store files.
    private static let sqliteDirectory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectstack-conformance-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()
}

/// Swift Testing prints arguments with `description`; this keeps the test names short ("inMemory").
protocol CustomTestStringConvertibleShim: CustomStringConvertible, RawRepresentable where RawValue == String {}
extension CustomTestStringConvertibleShim {
    var description: String { rawValue }
}
