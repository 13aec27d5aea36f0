import CLMDB
import Foundation
import ObjectStack

/// Checks a store file before LMDB maps it, so bad input gives an error instead of a crash or a changed file.
///
/// LMDB maps the whole file: a truncated file would fault (SIGBUS) on the first read past its end, and
/// opening any file creates its `-lock` file. So the meta pages are read and checked here first: the magic
/// number, the data format version, the page size and that the file is as long as its last page says.
enum LMDBFileCheck {
    private static let pageHeaderSize = 16
    private static let magic: UInt32 = 0xBEEF_C0DE
    private static let dataVersion: UInt32 = 1

    /// Throws a `StoreError` naming what is wrong with the file at `path`; a missing file is fine (a new store).
    static func validate(path: String, url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            let folder = (path as NSString).deletingLastPathComponent
            var folderIsDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &folderIsDirectory),
                folderIsDirectory.boolValue
            else {
                throw StoreError(
                    code: .ioFailure, message: "the folder \(folder) for the store does not exist", url: url)
            }
            return
        }
        if isDirectory.boolValue {
            throw StoreError(code: .notAStore, message: "\(path) is a directory, not an LMDB store file", url: url)
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let code = errno
            throw StoreError(
                code: code == EACCES ? .readOnly : .ioFailure,
                message: "the store file \(path) cannot be read", url: url, nativeCode: code,
                detail: String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StoreError(
                code: .ioFailure, message: "the store file \(path) cannot be read", url: url, nativeCode: errno)
        }
        let size = Int(status.st_size)
        // LMDB writes its meta pages when it creates a file, so an empty file was never a store.
        if size == 0 {
            throw StoreError(
                code: .notAStore,
                message: "the file \(path) is empty (0 bytes), not an LMDB store; remove it to create a new store here",
                url: url)
        }
        func read(_ count: Int, at offset: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : nil
        }
        let metaSize = 136
        guard let first = read(pageHeaderSize + metaSize, at: 0) else {
            throw StoreError(
                code: .notAStore,
                message: "\(path) is not an LMDB environment: \(size) bytes, too short for an LMDB meta page", url: url)
        }
        let meta0 = Meta(first, at: pageHeaderSize)
        guard meta0.magic == magic else {
            throw StoreError(
                code: .notAStore,
                message: "\(path) is not an LMDB environment (no LMDB magic number at its start)", url: url,
                nativeCode: MDB_INVALID)
        }
        guard meta0.version == dataVersion else {
            throw StoreError(
                code: .notAStore,
                message: "\(path) has LMDB data format \(meta0.version); this build reads format \(dataVersion)",
                url: url, nativeCode: MDB_VERSION_MISMATCH)
        }
        let pageSize = Int(meta0.pageSize)
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw StoreError(
                code: .corrupt, message: "\(path) is corrupt: its meta page gives page size \(pageSize)",
                url: url, nativeCode: MDB_CORRUPTED)
        }
        guard size >= 2 * pageSize, let second = read(pageHeaderSize + metaSize, at: pageSize) else {
            throw StoreError(
                code: .corrupt,
                message: "\(path) is truncated: \(size) bytes, shorter than its two meta pages (\(2 * pageSize) bytes)",
                url: url, nativeCode: MDB_CORRUPTED)
        }
        let meta1 = Meta(second, at: pageHeaderSize)
        let candidates = [meta0, meta1].filter { $0.magic == magic && $0.version == dataVersion }
        guard let current = candidates.max(by: { $0.transactionID < $1.transactionID }) else {
            throw StoreError(
                code: .corrupt, message: "\(path) is corrupt: neither meta page is valid", url: url,
                nativeCode: MDB_CORRUPTED)
        }
        let needed = (Int(clamping: current.lastPage) &+ 1).multipliedReportingOverflow(by: pageSize)
        // The size is taken again after the meta pages are read: a writer in another process writes a commit's
        // pages before the meta page that names them, so a size read before that meta page could be short of it
        // (a live store reported as truncated when it was opened during another process's commit).
        var sizeAfterMeta = size
        if fstat(descriptor, &status) == 0 { sizeAfterMeta = max(size, Int(status.st_size)) }
        guard !needed.overflow, needed.partialValue <= sizeAfterMeta else {
            throw StoreError(
                code: .corrupt,
                message:
                    "\(path) is truncated: \(sizeAfterMeta) bytes, but its last page ends at byte \(needed.partialValue)",
                url: url, nativeCode: MDB_CORRUPTED)
        }
        let invalidPage = UInt64.max
        for root in [current.freeRoot, current.mainRoot] where root != invalidPage && root > current.lastPage {
            throw StoreError(
                code: .corrupt,
                message: "\(path) is corrupt: a root page (\(root)) lies past its last page (\(current.lastPage))",
                url: url, nativeCode: MDB_CORRUPTED)
        }
    }

    /// The fields of an LMDB meta page (`MDB_meta`, 64-bit layout) the check reads.
    private struct Meta {
        let magic: UInt32
        let version: UInt32
        let pageSize: UInt32
        let freeRoot: UInt64
        let mainRoot: UInt64
        let lastPage: UInt64
        let transactionID: UInt64

        init(_ bytes: [UInt8], at start: Int) {
            func u32(_ offset: Int) -> UInt32 {
                bytes.withUnsafeBytes {
                    UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: start + offset, as: UInt32.self))
                }
            }
            func u64(_ offset: Int) -> UInt64 {
                bytes.withUnsafeBytes {
                    UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: start + offset, as: UInt64.self))
                }
            }
            // mm_magic 0, mm_version 4, mm_address 8, mm_mapsize 16, mm_dbs[2] 24 (48 bytes each; the free
            // database's md_pad holds the page size, md_root is at +40), mm_last_pg 120, mm_txnid 128.
            magic = u32(0)
            version = u32(4)
            pageSize = u32(24)
            freeRoot = u64(24 + 40)
            mainRoot = u64(72 + 40)
            lastPage = u64(120)
            transactionID = u64(128)
        }
    }
}
