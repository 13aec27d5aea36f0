import CSQLite
import Foundation
import ObjectStack

/// Binary data of an attribute that allows external storage, as Core Data keeps it: the column holds a tagged
/// value, `0x01` followed by the bytes (kept in the row), or `0x02` followed by a 36-character UUID and a NUL,
/// naming a file in the hidden folder `.<store name>_SUPPORT/_EXTERNAL_DATA/` beside the store.
///
/// ObjectStack reads both, and writes every value in the row (`0x01`), which Core Data reads as it reads its own
/// small values; which values Core Data moves out of the row is its own decision, undocumented.
struct ExternalBinaryData: Sendable {
    /// The tag of a value kept in the row.
    static let inlineTag: UInt8 = 0x01
    /// The tag of a value kept in a file.
    static let fileTag: UInt8 = 0x02

    /// The folder of the store's external files.
    let folder: URL

    init(storeURL: URL) {
        let name = storeURL.deletingPathExtension().lastPathComponent
        folder = storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA")
    }

    /// Whether an attribute's column is tagged.
    static func applies(to attribute: AttributeDescription) -> Bool {
        attribute.type == .binaryData && attribute.modelFileMetadata.allowsExternalBinaryDataStorage
    }

    /// The bytes a column holds, for the store to write: the value tagged as kept in the row.
    static func stored(_ value: StoreValue) -> StoreValue {
        guard case .data(let bytes) = value else { return value }
        var tagged = Data([inlineTag])
        tagged.append(bytes)
        return .data(tagged)
    }

    /// Where a tagged value's bytes are, read from a column's bytes.
    enum Location: Equatable {
        case inline(Data)
        case file(String)
        /// Bytes without a tag (written before the attribute allowed external storage).
        case untagged(Data)
    }

    static func location(of bytes: Data) -> Location {
        guard let tag = bytes.first else { return .untagged(bytes) }
        switch tag {
        case inlineTag: return .inline(bytes.dropFirst())
        case fileTag where bytes.count >= 37:
            let name = String(decoding: bytes.dropFirst().prefix(36), as: UTF8.self)
            return .file(name)
        default: return .untagged(bytes)
        }
    }

    /// The file a value kept outside the row is in.
    func file(named name: String) -> URL { folder.appendingPathComponent(name) }

    /// The value of a column: the bytes in the row, or the file's; nil (`.null`) for a file that is missing.
    func value(_ statement: SQLiteStatement, _ column: Int32) -> StoreValue {
        if sqlite3_column_type(statement.handle, column) == SQLITE_NULL { return .null }
        switch Self.location(of: statement.blob(column)) {
        case .inline(let bytes), .untagged(let bytes): return .data(Data(bytes))
        case .file(let name): return (try? Data(contentsOf: file(named: name))).map(StoreValue.data) ?? .null
        }
    }
}
