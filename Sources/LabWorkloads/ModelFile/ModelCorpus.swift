import Foundation

/// A corpus of real Xcode model bundles: a folder with a `manifest.json` naming each bundle's path, repository,
/// commit and license, for tests, the fuzzer and scripts to enumerate.
///
/// For example:
/// ```swift
/// if let corpus = try ModelCorpus.located() {
///     for entry in corpus.entries { _ = try ManagedObjectModel.versionList(contentsOf: entry.url, options: .strict) }
/// }
/// ```
/// The manifest is `{"bundles": [{"folder", "bundle", "repository", "commit", "license", "licenseFile"}]}`: the
/// bundle is at `folder/bundle`, keeping its path in its repository, with its license text at `licenseFile`. A
/// folder of bundles without a manifest (the shared models' `SOURCE.md` layout) is enumerated by scanning.
public struct ModelCorpus: Sendable {
    /// One bundle of the corpus and where it comes from.
    public struct Entry: Sendable, Codable, Hashable {
        /// The folder under the corpus root (`owner+repository`).
        public let folder: String
        /// The bundle's path under `folder`: its path in its repository.
        public let bundle: String
        /// `owner/name` on GitHub; nil for a scanned folder.
        public let repository: String?
        /// The commit the bundle was copied at.
        public let commit: String?
        /// The license's SPDX identifier.
        public let license: String?
        /// The license text's path under the corpus root.
        public let licenseFile: String?
        /// The bundle on disk, set when the corpus is read.
        public internal(set) var url: URL?

        enum CodingKeys: String, CodingKey {
            case folder, bundle, repository, commit, license, licenseFile
        }

        /// `folder/bundle`, how tests name the entry.
        public var name: String { "\(folder)/\(bundle)" }
    }

    /// The corpus folder.
    public let root: URL
    /// Every bundle, in manifest order (scanned: in path order).
    public let entries: [Entry]

    /// Reads the corpus at `root`: its `manifest.json`, or, without one, every bundle found under it.
    /// - Throws: an error when the manifest does not decode or names a bundle that is not there.
    public init(root: URL) throws {
        self.root = root
        let manifest = root.appendingPathComponent("manifest.json")
        guard FileManager.default.fileExists(atPath: manifest.path) else {
            entries = Self.scan(root)
            return
        }
        struct Manifest: Decodable { let bundles: [Entry] }
        let decoded = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: manifest))
        entries = try decoded.bundles.map { entry in
            var entry = entry
            let url = root.appendingPathComponent(entry.folder).appendingPathComponent(entry.bundle)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw LabError(.invalidScenario, "\(manifest.path) names \(entry.name), which is not there")
            }
            entry.url = url
            return entry
        }
    }

    /// The bundles under `root` when it has no manifest: every `.xcdatamodeld`, and every `.xcdatamodel` outside one.
    static func scan(_ root: URL) -> [Entry] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var found: [Entry] = []
        for case let url as URL in walker where ["xcdatamodeld", "xcdatamodel"].contains(url.pathExtension) {
            walker.skipDescendants()
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            let parts = relative.split(separator: "/", maxSplits: 1).map(String.init)
            var entry = Entry(
                folder: parts.count == 2 ? parts[0] : ".", bundle: parts.last ?? relative, repository: nil, commit: nil,
                license: nil, licenseFile: nil)
            entry.url = url
            found.append(entry)
        }
        return found.sorted { $0.name < $1.name }
    }

    /// Where the lab finds its corpora: `$STACKLAB_MODEL_CORPUS` (folders separated by `:`), else the
    /// `shared/model-corpus` and `shared/models` folders beside `start` (the working directory) or one of its
    /// ancestors, the layout the repository's CI has.
    public static func locations(from start: URL? = nil) -> [URL] {
        if let variable = ProcessInfo.processInfo.environment["STACKLAB_MODEL_CORPUS"], !variable.isEmpty {
            return variable.split(separator: ":").map { URL(fileURLWithPath: String($0), isDirectory: true) }
        }
        var folder = (start ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        while true {
            let found = ["shared/model-corpus", "shared/models"].map {
                folder.appendingPathComponent($0, isDirectory: true)
            }.filter { FileManager.default.fileExists(atPath: $0.path) }
            if !found.isEmpty { return found }
            guard folder.path != "/" else { return [] }
            folder.deleteLastPathComponent()
        }
    }

    /// The first corpus with a manifest among `locations(from:)`, nil when there is none.
    public static func located(from start: URL? = nil) throws -> ModelCorpus? {
        for url in locations(from: start)
        where FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.json").path) {
            return try ModelCorpus(root: url)
        }
        return nil
    }
}

extension ModelCorpus.Entry {
    init(
        folder: String, bundle: String, repository: String?, commit: String?, license: String?, licenseFile: String?
    ) {
        self.folder = folder
        self.bundle = bundle
        self.repository = repository
        self.commit = commit
        self.license = license
        self.licenseFile = licenseFile
    }
}
