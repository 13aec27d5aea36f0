import Foundation
import LabCore

/// The files of a recorded run as they could be on disk after a power cut at any point of its I/O log: the
/// folder's files before the run (the base, taken as synced), then the log's changes, each on disk or not by the
/// file system's rules.
///
/// For example:
/// ```swift
/// let replay = try CrashReplay(log: IOLog(contentsOf: logURL), base: baseFolder)
/// for number in 0..<100 {
///     try replay.materialize(replay.state(number, of: 100, seed: 1), in: scratch)
///     // open the store in `scratch` and check it
/// }
/// ```
/// The rules, POSIX's and no kinder:
/// - a write is on disk once its file was synced after it (`fsync`, `fdatasync` on any of its descriptors), or at
///   once when its descriptor was opened `O_DSYNC` or `O_SYNC` (LMDB's meta page at its default durability);
/// - a size change (`ftruncate`, `fallocate`) likewise;
/// - a name (a file created, renamed, unlinked) once the folder was synced after it; names reach the disk in the
///   order they were made, as a journaling file system commits them;
/// - a sector (512 bytes) is written whole or not at all; a page (4,096 bytes) not synced may be any of its
///   versions since its last sync, independently of other pages.
///
/// Shared-memory files (`-shm`, `-lock`) are left out: both engines rebuild them after a crash. A durable file
/// written through a shared writable map cannot be replayed (the recorder does not see such writes) and is refused.
public struct CrashReplay: Sendable {
    /// One change a logged event made to the files, and when it reached the disk.
    struct Change: Sendable {
        enum Kind: Sendable {
            case write(file: Int, offset: Int64, dataOffset: Int64, length: Int)
            /// `ftruncate`, or an open with `O_TRUNC`.
            case resize(file: Int, length: Int64)
            /// `fallocate` that grows the file to at least `length`.
            case extend(file: Int, length: Int64)
            /// A file created under `name`.
            case link(name: String, file: Int)
            case unlink(name: String)
            case rename(from: String, to: String)
        }

        let kind: Kind
        /// The event that made it.
        let event: Int
        /// The event after which it is on disk (its own, through an `O_DSYNC` descriptor; the sync of its file or
        /// folder otherwise); `Int.max` when nothing synced it.
        var durableAfter = Int.max

        /// Whether it changes names (the folder) rather than a file's bytes or size.
        var isName: Bool {
            switch kind {
            case .link, .unlink, .rename: true
            case .write, .resize, .extend: false
            }
        }
    }

    /// A page of the file system's cache, the unit a power cut keeps or loses.
    static let pageSize: Int64 = 4_096
    /// A disk sector, the unit a write is torn at.
    static let sectorSize: Int64 = 512

    /// The log replayed.
    public let log: IOLog
    /// The files before the run, by name; a file's number is its position.
    let baseFiles: [(name: String, contents: [UInt8])]
    /// How many files the run had, base and created.
    let fileCount: Int
    let changes: [Change]
    /// Every crash point right after something reached the disk (a sync, a write through an `O_DSYNC`
    /// descriptor), with the start and the end of the log.
    public let syncPoints: [Int]
    /// The acknowledgements: the event that wrote each and the highest save it acknowledged.
    let acknowledgements: [(event: Int, save: Int64)]

    /// How many events the log has: a crash point is 0 through this.
    public var eventCount: Int { log.events.count }

    /// Whether a file's name says it is shared memory an engine rebuilds after a crash (SQLite's `-shm`, LMDB's
    /// `-lock`), so its writes do not count.
    public static func isVolatile(_ name: String) -> Bool { name.hasSuffix("-shm") || name.hasSuffix("-lock") }

    /// Reads the changes of `log` over the files in `base` (the folder's files before the run).
    /// - Throws: `IOLogError` for a log that cannot be replayed: a descriptor no open made, a file opened that
    ///   neither the base nor the log created, a durable file written through a shared map.
    public init(log: IOLog, base: URL) throws {
        self.log = log
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        baseFiles = try names.sorted().filter { !Self.isVolatile($0) }.map { name in
            guard let data = FileManager.default.contents(atPath: base.appendingPathComponent(name).path) else {
                throw IOLogError("\(base.path)/\(name): cannot read the base file")
            }
            return (name, [UInt8](data))
        }
        var parser = Parser(log: log, baseNames: baseFiles.map(\.name))
        try parser.run()
        fileCount = parser.fileCount
        changes = parser.changes
        syncPoints = Array(Set(parser.syncPoints + [0, log.events.count])).sorted()
        acknowledgements = parser.acknowledgements
    }

    /// The highest save acknowledged before the power went at `point` (0 when none was).
    public func acknowledged(before point: Int) -> Int64 {
        acknowledgements.lazy.filter { $0.event < point }.map(\.save).max() ?? 0
    }

    /// Reads a log's events into changes and sync points, following descriptors and names as the run did.
    private struct Parser {
        let log: IOLog
        var directory: [String: Int] = [:]
        var fileCount: Int
        var changes: [Change] = []
        var syncPoints: [Int] = []
        var acknowledgements: [(event: Int, save: Int64)] = []
        /// What each open descriptor is.
        private var descriptors: [Int32: Descriptor] = [:]
        /// Changes not on disk yet, by file, and the names not on disk yet.
        private var pendingData: [Int: [Int]] = [:]
        private var pendingNames: [Int] = []

        private enum Descriptor {
            case folder
            case volatile
            case file(Int, name: String, synchronous: Bool)
        }

        init(log: IOLog, baseNames: [String]) {
            self.log = log
            for (number, name) in baseNames.enumerated() { directory[name] = number }
            fileCount = baseNames.count
        }

        /// A path's name in the folder ("" for the folder itself).
        private func name(_ path: String, event: Int) throws -> String {
            if path == log.folder { return "" }
            guard path.hasPrefix(log.folder + "/") else {
                throw IOLogError("event \(event + 1): \(path) is outside the recorded folder \(log.folder)")
            }
            return String(path.dropFirst(log.folder.count + 1))
        }

        private func descriptor(_ fd: Int32, event: Int) throws -> Descriptor {
            guard let descriptor = descriptors[fd] else {
                throw IOLogError("event \(event + 1): descriptor \(fd) was not opened by any logged open")
            }
            return descriptor
        }

        private mutating func add(_ kind: Change.Kind, event: Int, file: Int?) {
            changes.append(Change(kind: kind, event: event))
            if let file {
                pendingData[file, default: []].append(changes.count - 1)
            } else {
                pendingNames.append(changes.count - 1)
            }
        }

        mutating func run() throws {
            for (event, entry) in log.events.enumerated() {
                switch entry {
                case .open(let fd, let flags, let path):
                    let name = try name(path, event: event)
                    if name.isEmpty {
                        descriptors[fd] = .folder
                    } else if CrashReplay.isVolatile(name) {
                        descriptors[fd] = .volatile
                    } else {
                        let file: Int
                        if let existing = directory[name] {
                            file = existing
                            if flags & O_TRUNC != 0 { add(.resize(file: file, length: 0), event: event, file: file) }
                        } else if flags & O_CREAT != 0 {
                            file = fileCount
                            fileCount += 1
                            directory[name] = file
                            add(.link(name: name, file: file), event: event, file: nil)
                        } else {
                            throw IOLogError(
                                "event \(event + 1): opens \(name), which neither the base nor the log created")
                        }
                        // O_SYNC is O_DSYNC and more on Linux: either makes each write durable when it returns.
                        descriptors[fd] = .file(file, name: name, synchronous: flags & O_DSYNC != 0)
                    }
                case .close(let fd):
                    descriptors[fd] = nil
                case .write(_, let fd, let offset, let length, let dataOffset):
                    guard case .file(let file, _, let synchronous) = try descriptor(fd, event: event) else { continue }
                    let kind = Change.Kind.write(file: file, offset: offset, dataOffset: dataOffset, length: length)
                    if synchronous {
                        changes.append(Change(kind: kind, event: event, durableAfter: event))
                        syncPoints.append(event + 1)
                    } else {
                        add(kind, event: event, file: file)
                    }
                case .truncate(let fd, let length):
                    guard case .file(let file, _, _) = try descriptor(fd, event: event) else { continue }
                    add(.resize(file: file, length: length), event: event, file: file)
                case .allocate(let fd, let mode, let offset, let length):
                    guard case .file(let file, let name, _) = try descriptor(fd, event: event) else { continue }
                    // FALLOC_FL_KEEP_SIZE (1) reserves blocks and changes nothing a reader sees.
                    if mode == 1 { continue }
                    guard mode == 0 else {
                        throw IOLogError("event \(event + 1): fallocate mode \(mode) on \(name) cannot be replayed")
                    }
                    add(.extend(file: file, length: offset + length), event: event, file: file)
                case .sync(let fd, _):
                    switch try descriptor(fd, event: event) {
                    case .folder:
                        for change in pendingNames { changes[change].durableAfter = event }
                        pendingNames = []
                    case .file(let file, _, _):
                        for change in pendingData[file] ?? [] { changes[change].durableAfter = event }
                        pendingData[file] = nil
                    case .volatile: continue
                    }
                    syncPoints.append(event + 1)
                case .map(let fd, let protection, let flags):
                    guard case .file(_, let name, _) = try descriptor(fd, event: event) else { continue }
                    if protection & PROT_WRITE != 0 && flags & MAP_SHARED != 0 {
                        throw IOLogError(
                            "event \(event + 1): \(name) is mapped shared and writable; writes through a map are not "
                                + "logged, so its crash states cannot be built (LMDB: open without MDB_WRITEMAP)")
                    }
                case .mapSync(let fd):
                    guard case .file(_, let name, _) = try descriptor(fd, event: event) else { continue }
                    throw IOLogError("event \(event + 1): msync of a map of \(name): its writes are not logged")
                case .seek, .unmap:
                    continue
                case .rename(let from, let to):
                    let source = try name(from, event: event)
                    let target = try name(to, event: event)
                    if CrashReplay.isVolatile(source) && CrashReplay.isVolatile(target) { continue }
                    guard let file = directory.removeValue(forKey: source) else {
                        throw IOLogError("event \(event + 1): renames \(source), which is not there")
                    }
                    directory[target] = file
                    add(.rename(from: source, to: target), event: event, file: nil)
                case .unlink(let path):
                    let name = try name(path, event: event)
                    if CrashReplay.isVolatile(name) { continue }
                    directory[name] = nil
                    add(.unlink(name: name), event: event, file: nil)
                case .acknowledgement(let length, let dataOffset):
                    let text = String(decoding: log.bytes(at: dataOffset, count: length), as: UTF8.self)
                    let saves = text.split(whereSeparator: \.isNewline).compactMap { Int64($0) }
                    guard let save = saves.max() else {
                        throw IOLogError("event \(event + 1): the acknowledgement '\(text)' names no save")
                    }
                    acknowledgements.append((event, save))
                }
            }
        }
    }
}
