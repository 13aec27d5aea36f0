import Foundation
import LabWorkloads
import ObjectStack

/// Keeps a pod store open, with no transaction running, until standard input closes: the other process the
/// migration tests need (`stacklab child hold-store`).
public struct StoreHolder: Sendable {
    public var store: StoreKind
    public var url: URL
    public var modelVersion: Int

    /// A holder of the pod store of `modelVersion` at `url`.
    public init(store: StoreKind, url: URL, modelVersion: Int) {
        self.store = store
        self.url = url
        self.modelVersion = modelVersion
    }

    /// Opens the store, writes `open` to standard output, waits for standard input to close, closes the store.
    /// - Throws: the store's error when it cannot be opened or closed.
    public func run() throws {
        let coordinator = try LabStack.openCoordinator(
            store: store, at: url, model: try PodModel.make(version: modelVersion))
        FileHandle.standardOutput.write(Data("open\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        for opened in coordinator.persistentStores { try coordinator.remove(opened) }
    }
}
