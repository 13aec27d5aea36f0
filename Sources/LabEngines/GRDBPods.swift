import Foundation
import GRDB
import LabWorkloads
import ObjectStack

/// Pods through GRDB with `Codable` records, as a Swift developer who picks GRDB writes them: `insert`,
/// `fetchAll`, `fetchOne(key:)`, `update`, and a query interface count.
///
/// The table is the SQLite store's own `ZPOD` (created by the store, same indexes), as for the raw side.
final class GRDBPods: PodEngine {
    /// A pod record: GRDB derives its columns from the coding keys.
    struct Record: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "ZPOD"
        var id: Int64
        var entity: Int64 = 1
        var rowVersion: Int64 = 1
        var name: String
        var version: String
        var authors: String
        var homepage: String?
        var license: String?
        var summary: String?
        var downloads: Int64
        var updated: Double

        enum CodingKeys: String, CodingKey {
            case id = "Z_PK", entity = "Z_ENT", rowVersion = "Z_OPT"
            case name = "ZNAME", version = "ZVERSION", authors = "ZAUTHORS", homepage = "ZHOMEPAGE"
            case license = "ZLICENSE", summary = "ZSUMMARY", downloads = "ZDOWNLOADS", updated = "ZUPDATED"
        }

        enum Columns {
            static let downloads = Column(CodingKeys.downloads)
        }

        init(_ row: PodRow) {
            (id, name, version, authors) = (row.id, row.name, row.version, row.authors)
            (homepage, license, summary, downloads, updated) = (
                row.homepage, row.license, row.summary, row.downloads, row.updated
            )
        }

        var checksum: Int {
            name.utf8.count &+ version.utf8.count &+ authors.utf8.count &+ (homepage?.utf8.count ?? 0)
                &+ (license?.utf8.count ?? 0) &+ (summary?.utf8.count ?? 0) &+ Int(truncatingIfNeeded: downloads)
                &+ Int(updated)
        }
    }

    private let url: URL
    private let durability: Durability
    private var queue: DatabaseQueue
    private var lookupKeys: [Int64] = []
    private var updating: [Record] = []

    /// Opens (creating through the store) the file at `url`, syncing as the store does at `durability`.
    init(url: URL, durability: Durability = .normal) throws {
        self.url = url
        self.durability = durability
        try DirectSQLitePods.createSchema(url)
        queue = try Self.open(url, durability)
    }

    private static func open(_ url: URL, _ durability: Durability) throws -> DatabaseQueue {
        var configuration = Configuration()
        // The store left the file in WAL mode; match its synchronous setting.
        let pragma = "PRAGMA synchronous = \(durability.sqliteSynchronous)"
        configuration.prepareDatabase { db in try db.execute(sql: pragma) }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    func close() { try? queue.close() }

    func reopen() throws {
        try queue.close()
        queue = try Self.open(url, durability)
    }

    func insert(_ rows: [PodRow]) throws {
        try queue.write { db in
            for row in rows { try Record(row).insert(db) }
        }
    }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        let records = try queue.read { db in try Record.fetchAll(db) }
        return (records, records.reduce(0) { $0 &+ $1.checksum })
    }

    func prepareLookups(_ keys: [Int64]) throws { lookupKeys = keys }

    func fetchByID() throws -> Int {
        try queue.read { db in
            var checksum = 0
            for key in lookupKeys {
                guard let record = try Record.fetchOne(db, key: key) else {
                    throw StoreError(code: .objectNotFound, message: "GRDB: no pod with primary key \(key)", url: url)
                }
                checksum &+= record.checksum
            }
            return checksum
        }
    }

    func fetchSorted(limit: Int) throws -> Int {
        try queue.read { db in
            try Record.order(Column(Record.CodingKeys.name), Column(Record.CodingKeys.id)).limit(limit).fetchAll(db)
                .reduce(0) { $0 &+ $1.checksum }
        }
    }

    func prepareUpdate(_ keys: [Int64]) throws {
        updating = try queue.read { db in try Record.fetchAll(db, keys: keys) }
    }

    func update(round: Int) throws {
        try queue.write { db in
            for index in updating.indices {
                updating[index].downloads += 1
                updating[index].updated += 1
                updating[index].rowVersion += 1
                try updating[index].update(db)
            }
        }
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        try queue.read { db in try Record.filter(Record.Columns.downloads > downloads).fetchCount(db) }
    }
}
