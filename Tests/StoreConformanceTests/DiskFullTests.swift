import Foundation
import ObjectStack
import Testing

/// A save into a file system that fills up fails with a clear error and leaves the store as it was before
/// that save: every earlier save is there, nothing of the failed one is.
///
/// Needs to mount a small tmpfs (root, or a user namespace that allows it); where it cannot, it is skipped
/// and says so.
@Suite(
    "Disk full",
    .enabled(if: SmallFileSystem.canMount, "cannot mount a tmpfs here (needs root); disk-full test skipped"))
struct DiskFullTests {
    @Test("saves into a filling file system fail cleanly and lose nothing", arguments: [StoreType.sqlite, .lmdb])
    func fillUp(kind: StoreType) throws {
        let volume = try SmallFileSystem(megabytes: 4)
        defer { volume.unmount() }
        let url = volume.url.appendingPathComponent("store.\(kind.fileExtension)")
        let payload = String(repeating: "p", count: 2_000)
        var savedBatches = 0
        var failure: Error?
        do {
            let stack = try TestStack(kind, location: url)
            let context = stack.newContext()
            context.performAndWait {
                for batch in 0..<1_000 {
                    for index in 0..<100 {
                        let book = Book(context: context)
                        book.title = "\(batch)-\(index)-" + payload
                        book.pages = batch
                    }
                    do {
                        try context.save()
                        savedBatches += 1
                    } catch {
                        failure = error
                        context.rollback()
                        break
                    }
                }
            }
            try stack.coordinator.remove(stack.store)
        }
        let error = try #require(failure, "4 MB must fill up before 1,000 batches of 200 KB")
        let storeError = try #require(
            (error as? StoreError) ?? ((error as? ObjectStackError)?.cause as? StoreError),
            "a full disk is reported as a StoreError, not \(type(of: error)): \(error)")
        #expect([.full, .ioFailure].contains(storeError.code), "\(storeError)")
        #expect("\(error)".localizedCaseInsensitiveContains("full") || "\(error)".contains("space"), "\(error)")
        #expect(savedBatches > 0)

        // Room again: the store opens with every saved batch in full and nothing of the failed one.
        try volume.grow(megabytes: 64)
        let reopened = try TestStack(kind, location: url)
        let context = reopened.newContext()
        try context.performAndWait {
            #expect(try context.count("Book") == savedBatches * 100)
            #expect(try context.count("Book", where: "pages >= \(savedBatches)") == 0)
            let book = Book(context: context)
            book.title = "after the disk was freed"
            try context.save()
        }
    }
}

/// A tmpfs mounted for one test, removed afterwards.
struct SmallFileSystem {
    let url: URL

    static let canMount: Bool = {
        guard getuid() == 0, let volume = try? SmallFileSystem(megabytes: 1) else { return false }
        volume.unmount()
        return true
    }()

    init(megabytes: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", url.path])
    }

    func grow(megabytes: Int) throws {
        try Self.mount(["-o", "remount,size=\(megabytes)m", url.path])
    }

    func unmount() {
        _ = try? Self.run("/bin/umount", [url.path])
        try? FileManager.default.removeItem(at: url)
    }

    private static func mount(_ arguments: [String]) throws {
        let status = try run("/bin/mount", arguments)
        guard status == 0 else {
            throw StoreError(code: .ioFailure, message: "mount \(arguments.joined(separator: " ")) failed (\(status))")
        }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
