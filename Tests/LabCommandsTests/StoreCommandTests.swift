import Foundation
import TestSupport
import Testing

/// `stacklab store describe` and `stacklab store upgrade`, through the built executable.
@Suite("stacklab store")
struct StoreCommandTests {
    static let stores = CoreDataStoreCorpus.shared?.stores ?? []

    /// Every file of a folder with its bytes: what "never changes the file" compares.
    static func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test(
        "describe --json gives the version that wrote the store and the counts SQL gives, and changes nothing",
        .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"),
        arguments: stores.filter { $0.bundle != nil })
    func describeJSON(_ store: CoreDataStoreCorpus.Store) throws {
        let url = try store.copy()
        let folder = url.deletingLastPathComponent()
        let before = try Self.snapshot(folder)
        let run = try StackLabBinary.run(["store", "describe", url.path, "--model", store.bundle!.path, "--json"])
        #expect(run.status == 0, "\(run.output)")
        #expect(try Self.snapshot(folder) == before, "the store's folder changed")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect(json["version"] as? String == store.versionName)
        let sql = try SQLiteFile(url)
        let expected = sql.rowsByEntityCode()
        let entities = try #require(json["entities"] as? [String: [String: Any]])
        for (name, entry) in entities {
            let code = try #require(entry["code"] as? Int, "\(name)")
            #expect(entry["rows"] as? Int == expected[Int64(code)] ?? 0, "\(name)")
        }
        #expect(json["totalRows"] as? Int == expected.values.reduce(0, +))
        #expect(json["totalRows"] as? Int == store.entityRows)
        // Every non-nil key of a to-one column (the INTEGER columns Core Data indexes as <TABLE>_<COLUMN>_INDEX) and
        // every row of a join table (Z_<n>…) is a resolved reference, a link, or dangling.
        var references = 0
        for index in sql.rows("SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_INDEX'") {
            let (table, name) = (index[0], index[1])
            guard !table.hasPrefix("Z_"), !table.hasPrefix("A"), name != "\(table)_Z_ENT_INDEX" else { continue }
            let column = String(name.dropFirst(table.count + 1).dropLast("_INDEX".count))
            let declared = sql.texts("SELECT type FROM pragma_table_info('\(table)') WHERE name = '\(column)'")
            guard declared == ["INTEGER"] else { continue }
            references += Int(sql.texts("SELECT COUNT(*) FROM \(table) WHERE \(column) IS NOT NULL")[0]) ?? 0
        }
        let links = sql.texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*'").map {
            Int(sql.texts("SELECT COUNT(*) FROM \($0)")[0]) ?? 0
        }.reduce(0, +)
        let toOne = try #require(json["toOneReferences"] as? Int)
        let manyToMany = try #require(json["manyToManyLinks"] as? Int)
        let dangling = try #require(json["danglingReferences"] as? Int)
        #expect(toOne + manyToMany + dangling == references + links)
        #expect(dangling == 0, "Core Data left no dangling reference in these stores")
        #expect(references == 0 || toOne > 0)
    }

    @Test("describe of a file that is not a store says so in one line, with exit status 2")
    func describeNotAStore() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("describe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let missing = folder.appendingPathComponent("missing.sqlite")
        let run = try StackLabBinary.run(["store", "describe", missing.path])
        #expect(run.status == 2)
        #expect(run.output.contains(missing.path), "\(run.output)")
        #expect(run.output.split(separator: "\n").count == 1, "\(run.output)")
    }
}
