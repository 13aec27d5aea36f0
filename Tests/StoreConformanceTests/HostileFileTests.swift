import CSQLite
import Foundation
import ObjectStack
import Testing

/// Every file store opened on a hostile file refuses with a `StoreError` naming the file and the problem,
/// and changes nothing on disk; a stale lock left by a killed process is recovered with the data intact.
@Suite("Hostile files")
struct HostileFileTests {
    static let fileStores: [StoreType] = [.sqlite, .lmdb]

    enum Hostile: String, CaseIterable, CustomTestStringConvertibleShim {
        case truncated, randomBytes, otherEngine, zeroLength, directory, textFile
    }

    /// A store of `kind` with 500 books, closed.
    static func makeStore(_ kind: StoreType) throws -> URL {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for index in 0..<500 {
                let book = Book(context: context)
                book.title = "Book \(index)"
                book.pages = index
            }
            try context.save()
        }
        try stack.coordinator.remove(stack.store)
        return stack.location
    }

    /// Everything at `url` and beside it (lock, WAL, shared-memory files), byte for byte.
    static func snapshot(_ url: URL) -> [String: Data] {
        let folder = url.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: Data] = [:]
        for name in names where name.hasPrefix(url.lastPathComponent) {
            files[name] = (try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data("<unreadable>".utf8)
        }
        return files
    }

    static func prepare(_ hostile: Hostile, for kind: StoreType) throws -> URL {
        let url = kind.newLocation()
        switch hostile {
        case .truncated:
            let store = try makeStore(kind)
            let data = try Data(contentsOf: store)
            try data.prefix(data.count / 2).write(to: url)
        case .randomBytes:
            var random = SeededGenerator(seed: 12)
            try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: url)
        case .otherEngine:
            let other = try makeStore(kind == .sqlite ? .lmdb : .sqlite)
            try FileManager.default.copyItem(at: other, to: url)
        case .zeroLength:
            try Data().write(to: url)
        case .directory:
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        case .textFile:
            try Data(String(repeating: "title,pages\nDune,412\n", count: 300).utf8).write(to: url)
        }
        return url
    }

    @Test(
        "a hostile file is refused with a StoreError naming it, and nothing on disk changes",
        arguments: fileStores, Hostile.allCases)
    func refused(kind: StoreType, hostile: Hostile) throws {
        let url = try Self.prepare(hostile, for: kind)
        let before = Self.snapshot(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try LibraryModel.make())
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: kind, at: url)
        }
        #expect(error.description.contains(url.path), "\(error)")
        #expect([.notAStore, .corrupt].contains(error.code), "\(error)")
        #expect(Self.snapshot(url) == before, "a refused open must not create or change any file")
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test("a new store in a read-only folder is refused as read-only, and nothing is created", arguments: fileStores)
    func readOnlyFolder(kind: StoreType) throws {
        let url: URL
        if getuid() == 0 {
            // Root ignores permission bits; the kernel's /proc/sys takes no new files from anyone.
            url = URL(fileURLWithPath: "/proc/sys/stacklab-\(UUID().uuidString).\(kind.fileExtension)")
        } else {
            let folder = StoreType.runDirectory.appendingPathComponent("read-only-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
            url = folder.appendingPathComponent("store.\(kind.fileExtension)")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try LibraryModel.make())
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: kind, at: url)
        }
        #expect(error.code == .readOnly || error.code == .ioFailure, "\(error)")
        #expect(error.description.contains(url.deletingLastPathComponent().path), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.path + "-lock"))
    }

    @Test("a store whose schema was edited by hand is refused naming what differs, unchanged")
    func handEditedSchema() throws {
        let url = try Self.makeStore(.sqlite)
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        let table = try #require(Self.tables(db).first { $0.localizedCaseInsensitiveContains("book") })
        #expect(
            sqlite3_exec(
                db,
                "ALTER TABLE \"\(table)\" ADD COLUMN hacked TEXT; ALTER TABLE \"\(table)\" DROP COLUMN \"\(try Self.column(db, table, containing: "pages"))\"",
                nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let before = Self.snapshot(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try LibraryModel.make())
        let error = try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.description.contains(url.path) && error.description.contains("pages"), "\(error)")
        #expect(Self.snapshot(url) == before)
    }

    @Test("a stale lock file left by a killed process is recovered and the data is intact", arguments: fileStores)
    func staleLock(kind: StoreType) throws {
        let url = try Self.makeStore(kind)
        let lock = URL(fileURLWithPath: url.path + (kind == .sqlite ? "-shm" : "-lock"))
        var random = SeededGenerator(seed: 99)
        try Data((0..<32_768).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: lock)
        let stack = try TestStack(kind, location: url)
        let context = stack.newContext()
        let count = try context.performAndWait { try context.count("Book") }
        #expect(count == 500)
    }

    static func tables(_ db: OpaquePointer?) -> [String] {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var names: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { names.append(String(cString: sqlite3_column_text(statement, 0))) }
        return names
    }

    static func column(_ db: OpaquePointer?, _ table: String, containing part: String) throws -> String {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('\(table)')", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW {
            let name = String(cString: sqlite3_column_text(statement, 0))
            if name.localizedCaseInsensitiveContains(part) { return name }
        }
        throw StoreError(code: .corrupt, message: "no column like \(part) in \(table)")
    }
}
