import Foundation
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// The store types the suites run on, and fresh places for their stores. ObjectStack's tests speak ObjectStack's
/// own vocabulary (`StoreType`); the lab's is `StoreKind`, which these tests never need. A store issue adds its
/// type to `allCases` and nothing else.
extension StoreType {
    /// Every store type, in the order the suites list them: `@Test(arguments: StoreType.allCases)`.
    public static let allCases: [StoreType] = [.inMemory, .sqlite, .lmdb]

    /// The file stores: those a migration, a hostile file or a full disk can reach.
    public static let fileTypes: [StoreType] = allCases.filter { $0.fileOperations != nil }

    /// The type's name in lower case, for file names (`store.sqlite`).
    public var fileExtension: String { name.lowercased() }

    /// A fresh location for a new store of this type.
    public func newLocation() -> URL {
        guard fileOperations != nil else { return URL(string: "memory://conformance-\(UUID().uuidString)")! }
        return Self.runDirectory.appendingPathComponent("\(UUID().uuidString).\(fileExtension)")
    }

    /// One temporary folder per test run for file stores (a store is a file plus its `-lock` file).
    public static let runDirectory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "stacklab-conformance-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Removed when the test process exits, so runs leave no store files behind.
        atexit { try? FileManager.default.removeItem(at: StoreType.runDirectory) }
        return directory
    }()
}
