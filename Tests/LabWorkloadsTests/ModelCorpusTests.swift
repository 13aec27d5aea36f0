import Foundation
import LabWorkloads
import ObjectStack
import Synchronization
import Testing

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

    static let entries: [ModelCorpus.Entry] = locations.flatMap { (try? ModelCorpus(root: $0))?.entries ?? [] }

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

    @Test("the shared models are found, so the corpus test never runs on nothing")
    func found() {
        #expect(Self.entries.count >= 13, "\(Self.locations.map(\.path))")
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
