import Foundation

/// The store files Core Data wrote, in `shared/coredata-stores` beside the repository: each with the model bundle
/// and version that wrote it, listed in the folder's `manifest.json` (nil when the folder is not there).
public struct CoreDataStoreCorpus: Sendable {
    /// One store file of the manifest.
    public struct Store: Sendable, CustomStringConvertible {
        /// The repository folder (`owner+name`).
        public let folder: String
        /// The store file, inside the corpus.
        public let url: URL
        /// Its `-wal`/`-shm` files, as the manifest lists them.
        public let sidecars: [URL]
        /// The model bundle that wrote it; nil for a model built in code.
        public let bundle: URL?
        /// The version (a `.xcdatamodel` folder name) that wrote it; nil for a model built in code.
        public let modelVersion: String?
        /// How many rows its entity tables hold, as the manifest counted them.
        public let entityRows: Int
        /// The framework version that wrote it (`NSPersistenceFrameworkVersion`).
        public let frameworkVersion: Int
        /// What the manifest notes of it (`persistent-history`, `ordered-to-many`…).
        public let features: [String]

        /// The version's name without its extension (`Moody 2`).
        public var versionName: String? { modelVersion.map { ($0 as NSString).deletingPathExtension } }

        public var description: String { "\(folder)/\(url.lastPathComponent)" }

        /// Copies the store and its sidecars into a fresh temporary folder, writable, and returns the copy's URL.
        public func copy() throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cdstore-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let target = folder.appendingPathComponent(url.lastPathComponent)
            for source in [url] + sidecars {
                let destination = folder.appendingPathComponent(source.lastPathComponent)
                try FileManager.default.copyItem(at: source, to: destination)
                // The corpus is read-only; the copy must be writable.
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: destination.path)
            }
            return target
        }
    }

    /// A mapping model the manifest lists.
    public struct MappingModel: Sendable {
        /// The repository folder.
        public let folder: String
        /// The `.xcmappingmodel` bundle.
        public let url: URL
        /// The model bundles of its repository.
        public let bundles: [URL]
    }

    /// The corpus folder.
    public let root: URL
    /// Every store, in manifest order.
    public let stores: [Store]
    /// Every mapping model, in manifest order.
    public let mappingModels: [MappingModel]

    /// The corpus beside the repository, nil when there is none.
    public static let shared: CoreDataStoreCorpus? = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/coredata-stores", isDirectory: true)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("manifest.json").path) {
                return try? CoreDataStoreCorpus(root: candidate)
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    /// Reads the corpus at `root` from its manifest.
    public init(root: URL) throws {
        self.root = root
        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: root.appendingPathComponent("manifest.json")))
        var stores: [Store] = []
        var mappings: [MappingModel] = []
        for repository in (manifest as? [String: Any])?["repositories"] as? [[String: Any]] ?? [] {
            guard let folder = repository["folder"] as? String else { continue }
            let base = root.appendingPathComponent(folder, isDirectory: true)
            let bundles = (repository["modelBundles"] as? [String] ?? []).map { base.appendingPathComponent($0) }
            for store in repository["stores"] as? [[String: Any]] ?? [] {
                guard let path = store["path"] as? String else { continue }
                stores.append(
                    Store(
                        folder: folder, url: base.appendingPathComponent(path),
                        sidecars: (store["sidecars"] as? [String] ?? []).map { base.appendingPathComponent($0) },
                        bundle: (store["modelBundle"] as? String).map { base.appendingPathComponent($0) },
                        modelVersion: store["modelVersion"] as? String,
                        entityRows: store["entityRows"] as? Int ?? 0,
                        frameworkVersion: store["frameworkVersion"] as? Int ?? 0,
                        features: store["features"] as? [String] ?? []))
            }
            for path in repository["mappingModels"] as? [String] ?? [] {
                mappings.append(MappingModel(folder: folder, url: base.appendingPathComponent(path), bundles: bundles))
            }
        }
        self.stores = stores
        self.mappingModels = mappings
    }
}
