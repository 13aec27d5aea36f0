import Foundation

/// Writes a just-made copy of a store to disk (`fsync` of every file in it, then of its folder), before a launch.
///
/// An app launches on a store written long before, not on one copied a moment ago. Without the flush, the copy's
/// dirty pages were written back during the launch: a lightweight migration's `fdatasync` waited for them, and the
/// first frame of LMDB's 1,000,000-pod launch took 150–200 ms of which about 110 ms was that wait (with writeback
/// kept up, 40 ms).
enum StoreCopyFlush {
    /// Flushes `url` (a file, or a folder and everything in it) and returns the regular files it flushed.
    /// - Throws: `CocoaError` naming the file that could not be opened or flushed.
    @discardableResult
    static func flush(_ url: URL) throws -> [URL] {
        var flushed: [URL] = []
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        if isFolder.boolValue {
            let contents = try FileManager.default.contentsOfDirectory(
                at: url, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey])
            for item in contents.sorted(by: { $0.path < $1.path }) { flushed += try flush(item) }
        } else {
            flushed.append(url)
        }
        // A folder is flushed too, so the names of the files it now holds are on disk with them.
        try sync(url)
        return flushed
    }

    private static func sync(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [
                    NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "cannot open \(url.path) to flush it",
                ])
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    NSFilePathErrorKey: url.path,
                    NSLocalizedDescriptionKey: "fsync of \(url.path) failed: \(String(cString: strerror(errno)))",
                ])
        }
    }
}
