import Foundation
import TestSupport
import Testing

/// `stacklab store migrate` through the built executable: the project's mapping models where they fit, a policy
/// class it cannot load refused before anything is written, `--mapping` and `--hashes`.
@Suite("stacklab store migrate", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct StoreMigrateCommandTests {
    static func moody(_ version: String) throws -> (store: URL, bundle: URL) {
        let store = try #require(
            CoreDataStoreCorpus.shared?.stores.first { $0.folder == "objcio+core-data" && $0.versionName == version })
        return (try store.copy(), try #require(store.bundle))
    }

    @Test("a step whose mapping model names a policy class is refused before anything is written, naming both")
    func refusesUnregisteredPolicy() throws {
        let (url, bundle) = try Self.moody("Moody 2")
        let folder = url.deletingLastPathComponent()
        let before = try StoreCommandTests.snapshot(folder)
        let run = try StackLabBinary.run(["store", "migrate", url.path, "--model", bundle.path])
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("step Moody 5 -> Moody 6 runs the mapping model Moody 5-Moody 6"), "\(run.output)")
        #expect(run.output.contains("Country5ToCountry6Policy"))
        #expect(run.output.contains("StoreFileMigration.mappingModelSteps(_:policies:)"))
        #expect(try StoreCommandTests.snapshot(folder) == before, "the store's folder changed")
    }

    @Test("each step the project ships a mapping model for runs it, and the output names it with rows and time")
    func namesEachStep() throws {
        let (url, bundle) = try Self.moody("Moody 2")
        let run = try StackLabBinary.run(["store", "migrate", url.path, "--model", bundle.path, "--to", "Moody 5"])
        #expect(run.status == 0, "\(run.output)")
        let steps = run.output.split(separator: "\n").filter { $0.hasPrefix("  ") }.map(String.init)
        #expect(steps.count == 3, "\(run.output)")
        for (index, step) in steps.enumerated() {
            let (from, to) = ("Moody \(index + 2)", "Moody \(index + 3)")
            #expect(step.hasPrefix("  \(from) -> \(to): mapping model \(from)-\(to), "), "\(step)")
            #expect(step.hasSuffix(" ms") && step.contains(" rows, "), "\(step)")
        }
        #expect(run.output.contains("store now at Moody 5"))
    }

    @Test("--mapping names where the mapping models are: an empty folder, or one mapping model whose step runs it")
    func mappingFolder() throws {
        let store = try #require(
            CoreDataStoreCorpus.shared?.stores.first { $0.url.lastPathComponent == "Bookmarks_V1.sqlite" })
        let url = try store.copy()
        let bundle = try #require(store.bundle)
        let empty = url.deletingLastPathComponent().appendingPathComponent("no-mappings", isDirectory: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let run = try StackLabBinary.run(
            ["store", "migrate", url.path, "--model", bundle.path, "--mapping", empty.path])
        #expect(run.status == 0, "\(run.output)")
        let kinds = run.output.split(separator: "\n").filter { $0.hasPrefix("  ") }.map {
            $0.split(separator: ":")[1].split(separator: ",")[0].trimmingCharacters(in: .whitespaces)
        }
        #expect(kinds.count == 5 && kinds.allSatisfy { $0 == "lightweight" || $0 == "unchanged" }, "\(run.output)")

        // One mapping model named by its bundle: its step runs it, from a store whose folder has none near.
        let (moody, moodyBundle) = try Self.moody("Moody 3")
        let mapping = try #require(
            CoreDataStoreCorpus.shared?.mappingModels.first {
                $0.url.lastPathComponent == "Moody 3-Moody 4.xcmappingmodel"
            })
        let named = try StackLabBinary.run(
            [
                "store", "migrate", moody.path, "--model", moodyBundle.path, "--to", "Moody 4", "--mapping",
                mapping.url.path,
            ])
        #expect(named.status == 0, "\(named.output)")
        #expect(
            named.output.contains("  Moody 3 -> Moody 4: mapping model Moody 3-Moody 4, 9 rows, "), "\(named.output)")
    }

    @Test("--hashes from the store Core Data wrote at the target: the migrated store carries its hashes")
    func hashesFromAStore() throws {
        let (url, bundle) = try Self.moody("Moody 3")
        let (reference, _) = try Self.moody("Moody 4")
        let run = try StackLabBinary.run(
            ["store", "migrate", url.path, "--model", bundle.path, "--to", "Moody 4", "--hashes", reference.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(
            run.output.contains("Core Data's version hashes of Moody 4 from Moody 4.moody, with digest and checksum"))
        func metadata(_ url: URL) throws -> [String: Any] {
            let plist = try #require(try SQLiteFile(url).blobs("SELECT Z_PLIST FROM Z_METADATA").first ?? nil)
            return try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        }
        let (migrated, expected) = (try metadata(url), try metadata(reference))
        let key = "NSStoreModelVersionHashes"
        #expect(migrated[key] as? [String: Data] == expected[key] as? [String: Data])
        #expect((expected[key] as? [String: Data])?.isEmpty == false)
    }
}
