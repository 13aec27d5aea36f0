import ArgumentParser
import Lab

/// A `--store` option that takes a file store (sqlite or lmdb): a `StoreKind` the verb can keep after a
/// process ends.
struct FileStore: ExpressibleByArgument, Sendable {
    static let sqlite = FileStore(kind: .sqlite)

    let kind: StoreKind

    private init(kind: StoreKind) {
        self.kind = kind
    }

    init?(argument: String) {
        guard let kind = StoreKind(rawValue: argument), kind.isFile else { return nil }
        self.kind = kind
    }

    static var allValueStrings: [String] { StoreKind.fileStores.map(\.rawValue) }
}
