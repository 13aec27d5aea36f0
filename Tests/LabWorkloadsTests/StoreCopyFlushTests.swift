import Foundation
import Testing

@testable import LabWorkloads

/// The flush a launch's store copy gets before the launch: every file of the copy, and a clear error for a path
/// that is not there.
@Suite("Store copy flush")
struct StoreCopyFlushTests {
    @Test("a store folder's files are flushed, nested ones too; a single file is flushed alone")
    func flushesEveryFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-flush-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let nested = root.appendingPathComponent("nested")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let files = [
            root.appendingPathComponent("data.mdb"), root.appendingPathComponent("lock.mdb"),
            nested.appendingPathComponent("store.sqlite"),
        ]
        for file in files { try Data("rows".utf8).write(to: file) }
        let flushed = try StoreCopyFlush.flush(root)
        #expect(flushed.map(\.lastPathComponent) == ["data.mdb", "lock.mdb", "store.sqlite"])
        #expect(try StoreCopyFlush.flush(files[2]) == [files[2]])
    }

    @Test("a path that is not there is an error naming it")
    func missingPath() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-no-such-\(UUID())")
        #expect {
            try StoreCopyFlush.flush(missing)
        } throws: { error in
            (error as? CocoaError)?.filePath == missing.path
        }
    }
}
