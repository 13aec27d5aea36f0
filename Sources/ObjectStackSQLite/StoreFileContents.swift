import CSQLite
import Foundation
import ObjectStack

/// What a store file holds, counted with SQL: rows per entity, references and links, and what is broken.
///
/// For example:
/// ```swift
/// let contents = try CoreDataStoreFile(url: copy).contents(model: model)
/// print(contents.rowsByEntity["Mood"] ?? 0, contents.danglingReferences)
/// ```
public struct StoreFileContents: Sendable, Hashable {
    /// Rows whose `Z_ENT` is each entity (an entity's own rows, not its sub-entities'), by entity name.
    public var rowsByEntity: [String: Int]
    /// Each entity's code (`Z_ENT`), by its name in the model (`Z_PRIMARYKEY` keeps the name an entity had before a
    /// migration renamed it).
    public var entityCodes: [String: Int64]
    /// To-one references (non-nil key columns) whose destination row exists.
    public var toOneReferences: Int
    /// Rows of the many-to-many join tables whose two objects both exist.
    public var manyToManyLinks: Int
    /// To-one references and join-table links that name a row the store does not have.
    public var danglingReferences: Int
    /// Values of binary attributes kept in files (`_EXTERNAL_DATA`) whose file is missing.
    public var missingExternalFiles: Int

    /// Every entity's rows together.
    public var totalRows: Int { rowsByEntity.values.reduce(0, +) }
}

extension CoreDataStoreFile {
    /// Counts what the store holds, read through `model` (the version that wrote it).
    /// - Throws: `StoreError` when the file cannot be read, or its tables are not the model's.
    public func contents(model: ManagedObjectModel) throws -> StoreFileContents {
        let schema = SQLiteSchema(entities: model.entities, file: file)
        let differences = schema.differences(in: file, strict: false)
        guard differences.isEmpty else {
            throw StoreError(
                code: .incompatibleModel,
                message: "the store's tables are not the model's: " + differences.prefix(5).joined(separator: "; "),
                url: url)
        }
        let companions = ["-wal", "-shm"].map { url.path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        let db = try SQLiteConnection(url: url, readOnly: true)
        defer {
            db.close()
            SQLiteStoreOpener.removeCreated(companions, of: url)
        }
        sqlite3_busy_timeout(db.handle, SQLiteStore.busyTimeoutMilliseconds)
        func count(_ sql: String) throws -> Int { Int(try db.scalarText(sql) ?? "0") ?? 0 }
        var contents = StoreFileContents(
            rowsByEntity: [:], entityCodes: schema.codes, toOneReferences: 0, manyToManyLinks: 0, danglingReferences: 0,
            missingExternalFiles: 0)
        for table in schema.tables.values {
            let name = SQLiteSchema.quote(table.name)
            for row in try db.rows("SELECT Z_ENT, COUNT(*) FROM \(name) GROUP BY Z_ENT") {
                guard let code = Int64(row[0]), let entity = table.entitiesByCode[code] else { continue }
                contents.rowsByEntity[entity.name] = Int(row[1]) ?? 0
            }
            for entity in table.root.selfAndDescendants where !entity.isAbstract {
                contents.rowsByEntity[entity.name] = contents.rowsByEntity[entity.name] ?? 0
            }
            for column in table.columns {
                switch column.content {
                case .foreignKey(let relationship):
                    let key = SQLiteSchema.quote(column.name)
                    let destination = schema.table(for: relationship.destinationEntity)
                    let present = try count("SELECT COUNT(*) FROM \(name) WHERE \(key) IS NOT NULL")
                    let dangling = try count(
                        "SELECT COUNT(*) FROM \(name) t WHERE t.\(key) IS NOT NULL AND NOT EXISTS "
                            + "(SELECT 1 FROM \(SQLiteSchema.quote(destination.name)) d WHERE d.Z_PK = t.\(key))")
                    contents.toOneReferences += present - dangling
                    contents.danglingReferences += dangling
                case .attribute(let attribute) where ExternalBinaryData.applies(to: attribute):
                    let statement = try db.statement(
                        "SELECT \(SQLiteSchema.quote(column.name)) FROM \(name) WHERE substr(\(SQLiteSchema.quote(column.name)), 1, 1) = x'02'"
                    )
                    defer { statement.reset() }
                    let storage = ExternalBinaryData(storeURL: url)
                    while try statement.step() {
                        guard case .file(let file) = ExternalBinaryData.location(of: statement.blob(0)) else {
                            continue
                        }
                        if !FileManager.default.fileExists(atPath: storage.file(named: file).path) {
                            contents.missingExternalFiles += 1
                        }
                    }
                default:
                    break
                }
            }
        }
        for join in schema.joinTables.values {
            let name = SQLiteSchema.quote(join.name)
            let source = SQLiteSchema.quote(schema.table(for: join.owner.entity).name)
            let destination = SQLiteSchema.quote(schema.table(for: join.owner.destinationEntity).name)
            let all = try count("SELECT COUNT(*) FROM \(name)")
            let whole = try count(
                "SELECT COUNT(*) FROM \(name) j WHERE EXISTS (SELECT 1 FROM \(source) s WHERE s.Z_PK = "
                    + "j.\(SQLiteSchema.quote(join.sourceColumn))) AND EXISTS (SELECT 1 FROM \(destination) d "
                    + "WHERE d.Z_PK = j.\(SQLiteSchema.quote(join.destinationColumn)))")
            contents.manyToManyLinks += whole
            contents.danglingReferences += all - whole
        }
        return contents
    }
}
