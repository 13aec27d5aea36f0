import Foundation
import ObjectStack
import Synchronization
import Testing

@testable import LabWorkloads

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Every version of every real model the lab finds loads under strict reading with no warning, and declares the
/// elements a plain `XMLParser` pass counts: the corpus of `shared/model-corpus` (its manifest names each bundle's
/// repository, commit and license) and the shared models of `shared/models`.
@Suite("Model corpus: every real model loads")
struct ModelCorpusTests {
    /// The corpora beside the repository (or `$STACKLAB_MODEL_CORPUS`).
    static let locations = ModelCorpus.locations(from: URL(fileURLWithPath: #filePath).deletingLastPathComponent())

    /// Each corpus as read, its error kept: a manifest that names a bundle which is not there fails `found()`
    /// instead of dropping the whole corpus from the run unseen.
    static let corpora: [(location: URL, read: Result<ModelCorpus, any Error>)] = locations.map { location in
        (location, Result { try ModelCorpus(root: location) })
    }

    static let entries: [ModelCorpus.Entry] = corpora.flatMap { (try? $0.read.get())?.entries ?? [] }

    /// The corpus with a manifest, when one is laid out beside the repository.
    static let manifestCorpus: ModelCorpus? = try? ModelCorpus.located(
        from: URL(fileURLWithPath: #filePath).deletingLastPathComponent())

    /// Each bundle's versions, loaded strictly once for both tests.
    private static let loaded = Mutex<[String: ModelVersionList]>([:])

    static func versionList(_ entry: ModelCorpus.Entry) throws -> ModelVersionList {
        if let list = loaded.withLock({ $0[entry.name] }) { return list }
        let list = try ManagedObjectModel.versionList(contentsOf: try #require(entry.url), options: .strict)
        loaded.withLock { $0[entry.name] = list }
        return list
    }

    @Test("every bundle a manifest lists is found and loaded, and every bundle beside it is listed")
    func found() throws {
        #expect(Self.entries.count >= 13, "\(Self.locations.map(\.path))")
        let tested = Set(Self.entries.map(\.name))
        for (location, read) in Self.corpora {
            let manifest = location.appendingPathComponent("manifest.json")
            guard FileManager.default.fileExists(atPath: manifest.path) else { continue }
            // Read apart from `ModelCorpus`, so a reader that skipped an entry would not agree with itself.
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any]
            let listed = try #require(object?["bundles"] as? [[String: Any]]).map { bundle in
                "\(bundle["folder"] as? String ?? "?")/\(bundle["bundle"] as? String ?? "?")"
            }
            let corpus = try read.get()
            #expect(corpus.entries.map(\.name) == listed)
            let untested = listed.filter { !tested.contains($0) }
            #expect(untested.isEmpty, "listed in \(manifest.path) but not tested: \(untested)")
            // A bundle on disk that the manifest dropped is missing from the run as surely as a deleted one.
            let unlisted = Set(ModelCorpus.scan(location).map(\.name)).subtracting(listed)
            #expect(unlisted.isEmpty, "in \(location.path) but not in its manifest: \(unlisted.sorted())")
            print("model corpus: \(listed.count) bundles listed in \(manifest.path), all found and tested")
        }
    }

    @Test("every version loads under strict reading with the counts an XMLParser pass finds", arguments: entries)
    func loads(_ entry: ModelCorpus.Entry) throws {
        let url = try #require(entry.url)
        let list = try Self.versionList(entry)
        #expect(list.warnings.isEmpty, "\(list.warnings)")
        for item in list.entries {
            let folder =
                url.pathExtension == "xcdatamodel" ? url : url.appendingPathComponent("\(item.name).xcdatamodel")
            let contents = folder.appendingPathComponent("contents")
            guard let version = item.version else {
                // Skipped only when there is no XML contents to read.
                #expect(
                    !FileManager.default.fileExists(atPath: contents.path), "\(item.name): \(item.skipReason ?? "")")
                continue
            }
            let counted = try XMLCount(contentsOf: contents)
            #expect(version.declaredCounts == counted.counts, "\(item.name)")
            let model = version.model
            #expect(model.entities.count == counted.counts.entities)
            #expect(model.entities.map(\.declaredAttributes.count).reduce(0, +) == counted.counts.attributes)
            #expect(model.entities.map(\.declaredRelationships.count).reduce(0, +) == counted.counts.relationships)
            #expect(model.entities.map(\.fetchedProperties.count).reduce(0, +) == counted.counts.fetchedProperties)
            #expect(
                model.entities.map(\.uniquenessConstraints.count).reduce(0, +) == counted.counts.uniquenessConstraints)
            #expect(model.configurations.count == counted.counts.configurations)
            #expect(model.fetchRequestTemplatesByName.count == counted.counts.fetchRequests)
            // A fetch index names at least one attribute in these files, so each is an index of its entity.
            #expect(
                model.entities.map { $0.indexes.filter { !$0.name.hasPrefix("compound_") }.count }.reduce(0, +)
                    == counted.counts.fetchIndexes)
        }
        #expect(list.entries.filter(\.isCurrent).count == 1)
    }

    @Test(
        "the corpus holds at least 40 bundles, each with its repository, commit and license text",
        .enabled(if: manifestCorpus != nil, "no shared/model-corpus beside the repository"))
    func manifest() throws {
        let corpus = try #require(Self.manifestCorpus)
        #expect(corpus.entries.count >= 40)
        let permissive: Set<String> = ["MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "Zlib", "MPL-2.0"]
        for entry in corpus.entries {
            #expect(entry.repository?.contains("/") == true && entry.commit?.count == 40, "\(entry.name)")
            #expect(permissive.contains(entry.license ?? ""), "\(entry.name): \(entry.license ?? "no license")")
            let license = corpus.root.appendingPathComponent(try #require(entry.licenseFile))
            #expect(FileManager.default.fileExists(atPath: license.path), "\(license.path)")
        }
        // Variety: versioned bundles, inheritance, constraints, fetched properties, templates, configurations.
        let versions = try corpus.entries.map { try Self.versionList($0).loaded }
        #expect(versions.contains { $0.count >= 10 })
        let counts = versions.joined().map(\.declaredCounts)
        #expect(counts.contains { $0.subentities > 0 } && counts.contains { $0.uniquenessConstraints > 0 })
        #expect(counts.contains { $0.fetchedProperties > 0 } && counts.contains { $0.fetchRequests > 0 })
        #expect(counts.contains { $0.configurations > 0 })
    }
}

/// The elements of a model file counted by a plain `XMLParser` pass, without the model-file reader: entities,
/// their attributes, relationships, fetched properties, fetch indexes and uniqueness constraints, configurations and
/// the fetch request templates under `<model>`.
final class XMLCount: NSObject, XMLParserDelegate {
    private(set) var counts = ModelElementCounts()
    private var path: [String] = []

    init(contentsOf url: URL) throws {
        super.init()
        let parser = XMLParser(data: try Data(contentsOf: url))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let parent = path.last
        switch (parent, name) {
        case ("model", "entity"):
            counts.entities += 1
            if attributes["isAbstract"] == "YES" { counts.abstractEntities += 1 }
            if attributes["parentEntity"] != nil { counts.subentities += 1 }
        case ("entity", "attribute"): counts.attributes += 1
        case ("entity", "relationship"): counts.relationships += 1
        case ("entity", "fetchedProperty"): counts.fetchedProperties += 1
        case ("entity", "fetchIndex"): counts.fetchIndexes += 1
        case ("uniquenessConstraints", "uniquenessConstraint"): counts.uniquenessConstraints += 1
        case ("model", "configuration"): counts.configurations += 1
        case ("model", "fetchRequest"): counts.fetchRequests += 1
        default: break
        }
        path.append(name)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        path.removeLast()
    }
}

extension ModelCorpus.Entry: CustomTestStringConvertible {
    public var testDescription: String { name }
}
