import Foundation
import LabCore

/// A log the I/O recorder wrote (the `StackLabIOLog` library, preloaded into a save loop): every open, write, size
/// change, sync, map, rename and unlink the process made under one folder, in the order they took effect, and the
/// moments it acknowledged a save.
///
/// The log is text, one event a line: a word, then `key=value` fields (paths percent-encoded). Its first line is
/// `stacklab-iolog 1 dir=FOLDER ack=FILE`. The bytes written are in a file beside it, `NAME.data`; a write's
/// `at=` is where its bytes start there. Events:
///
/// | line | what happened |
/// |---|---|
/// | `open fd= flags= path=` | a file (or the folder) was opened with these `open(2)` flags |
/// | `write`, `pwrite`, `writev`, `pwritev` `fd= off= len= at=` | `len` bytes landed at file offset `off` |
/// | `lseek fd= off= whence= result=` | the position moved (the writes carry their offsets already) |
/// | `ftruncate fd= len=`, `fallocate fd= mode= off= len=` | the size changed |
/// | `fsync fd=`, `fdatasync fd=` | the file (or, on the folder, its names) reached the disk |
/// | `mmap fd= off= len= prot= flags= addr=`, `msync`, `munmap` | a map of a file, its sync and its end |
/// | `rename from= to=`, `unlink path=`, `close fd=` | names and descriptors |
/// | `ack len= at=` | the process wrote its acknowledgement (a save loop's journal line `n`) |
///
/// For example:
/// ```swift
/// let log = try IOLog(contentsOf: recording.appendingPathComponent("iolog.txt"))
/// print(log.events.count, log.summary)
/// ```
public struct IOLog: Sendable {
    /// One logged call.
    public enum Event: Sendable, Equatable {
        /// A file or the watched folder opened, with its `open(2)` flags.
        case open(fd: Int32, flags: Int32, path: String)
        case close(fd: Int32)
        /// `call` (write, pwrite, writev, pwritev) put `length` bytes at `offset`; they are at `dataOffset` in the
        /// data file.
        case write(call: String, fd: Int32, offset: Int64, length: Int, dataOffset: Int64)
        case seek(fd: Int32, result: Int64)
        case truncate(fd: Int32, length: Int64)
        /// `fallocate`: mode 1 (`FALLOC_FL_KEEP_SIZE`) leaves the size as it is.
        case allocate(fd: Int32, mode: Int32, offset: Int64, length: Int64)
        /// `fsync` (`dataOnly` false) or `fdatasync`.
        case sync(fd: Int32, dataOnly: Bool)
        case map(fd: Int32, protection: Int32, flags: Int32)
        case mapSync(fd: Int32)
        case unmap
        case rename(from: String, to: String)
        case unlink(path: String)
        /// The process acknowledged: its acknowledgement file got these bytes.
        case acknowledgement(length: Int, dataOffset: Int64)
    }

    /// The folder the recorder watched: every path in the log is in it.
    public let folder: String
    /// The events, in the order they took effect.
    public let events: [Event]
    /// The bytes the writes and acknowledgements wrote.
    public let data: Data

    /// The format this reader reads (the recorder's `STACKLAB_IOLOG_FORMAT`).
    public static let format = 1

    /// Reads the log at `url` and its data file (`url` + `.data`).
    /// - Throws: `IOLogError` naming the file and line of the first thing it cannot read.
    public init(contentsOf url: URL) throws {
        let text: String
        let data: Data
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw IOLogError("\(url.path): cannot read the I/O log: \(FileReadFailure(error))")
        }
        let dataURL = URL(fileURLWithPath: url.path + ".data")
        do {
            data = try Data(contentsOf: dataURL, options: .alwaysMapped)
        } catch {
            throw IOLogError("\(dataURL.path): cannot read the I/O log's data: \(FileReadFailure(error))")
        }
        try self.init(text: text, data: data, source: url.path)
    }

    /// Reads a log's text and data; `source` names it in errors.
    /// - Throws: `IOLogError` naming `source` and the line of the first thing it cannot read.
    public init(text: String, data: Data, source: String) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard let header = lines.first else { throw IOLogError("\(source): empty, not an I/O log") }
        let headerWords = header.split(separator: " ")
        guard headerWords.count >= 3, headerWords[0] == "stacklab-iolog" else {
            throw IOLogError(
                "\(source):1: not an I/O log (its first line is not 'stacklab-iolog \(Self.format) dir=…')")
        }
        guard headerWords[1] == "\(Self.format)" else {
            throw IOLogError("\(source):1: I/O log format \(headerWords[1]); this build reads format \(Self.format)")
        }
        let headerLine = try Line(headerWords.dropFirst(2), source: source, number: 1)
        folder = try headerLine.path("dir")
        var events: [Event] = []
        events.reserveCapacity(lines.count)
        for (index, text) in lines.enumerated().dropFirst() {
            let words = text.split(separator: " ")
            guard let word = words.first else { throw IOLogError("\(source):\(index + 1): an empty line") }
            let line = try Line(words.dropFirst(), source: source, number: index + 1)
            let event: Event
            switch word {
            case "open":
                event = .open(fd: try line.int32("fd"), flags: try line.int32("flags"), path: try line.path("path"))
            case "close": event = .close(fd: try line.int32("fd"))
            case "write", "pwrite", "writev", "pwritev":
                event = .write(
                    call: String(word), fd: try line.int32("fd"), offset: try line.int64("off"),
                    length: try line.length("len", data: data, at: line.int64("at")), dataOffset: try line.int64("at"))
            case "lseek": event = .seek(fd: try line.int32("fd"), result: try line.int64("result"))
            case "ftruncate": event = .truncate(fd: try line.int32("fd"), length: try line.int64("len"))
            case "fallocate":
                event = .allocate(
                    fd: try line.int32("fd"), mode: try line.int32("mode"), offset: try line.int64("off"),
                    length: try line.int64("len"))
            case "fsync", "fdatasync": event = .sync(fd: try line.int32("fd"), dataOnly: word == "fdatasync")
            case "mmap":
                event = .map(
                    fd: try line.int32("fd"), protection: try line.int32("prot"), flags: try line.int32("flags"))
            case "msync": event = .mapSync(fd: try line.int32("fd"))
            case "munmap": event = .unmap
            case "rename": event = .rename(from: try line.path("from"), to: try line.path("to"))
            case "unlink": event = .unlink(path: try line.path("path"))
            case "ack":
                event = .acknowledgement(
                    length: try line.length("len", data: data, at: line.int64("at")), dataOffset: try line.int64("at"))
            default:
                throw IOLogError("\(source):\(index + 1): unknown event '\(word)'")
            }
            events.append(event)
        }
        self.events = events
        self.data = data
    }

    /// The bytes a write or acknowledgement wrote.
    public func bytes(at offset: Int64, count: Int) -> Data {
        let start = data.startIndex + Int(offset)
        return data[start..<start + count]
    }

    /// How many calls of each kind the log holds, for a report: `writev 1200, pwrite 640, fdatasync 600, …`.
    public var summary: String {
        var counts: [String: Int] = [:]
        for event in events {
            let name: String
            switch event {
            case .open: name = "open"
            case .close: name = "close"
            case .write(let call, _, _, _, _): name = call
            case .seek: name = "lseek"
            case .truncate: name = "ftruncate"
            case .allocate: name = "fallocate"
            case .sync(_, let dataOnly): name = dataOnly ? "fdatasync" : "fsync"
            case .map: name = "mmap"
            case .mapSync: name = "msync"
            case .unmap: name = "munmap"
            case .rename: name = "rename"
            case .unlink: name = "unlink"
            case .acknowledgement: name = "ack"
            }
            counts[name, default: 0] += 1
        }
        return counts.sorted { $0.value > $1.value || $0.value == $1.value && $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// One line's `key=value` fields, read by name; each read names the line when it fails.
    private struct Line {
        var fields: [Substring: Substring] = [:]
        let source: String
        let number: Int

        init(_ words: ArraySlice<Substring>, source: String, number: Int) throws {
            self.source = source
            self.number = number
            for word in words {
                guard let equals = word.firstIndex(of: "=") else {
                    throw IOLogError("\(source):\(number): '\(word)' is not a key=value field")
                }
                fields[word[..<equals]] = word[word.index(after: equals)...]
            }
        }

        private func field(_ key: String) throws -> Substring {
            guard let value = fields[Substring(key)] else { throw IOLogError("\(source):\(number): no \(key)= field") }
            return value
        }

        func int64(_ key: String) throws -> Int64 {
            let text = try field(key)
            let value = text.hasPrefix("0x") ? Int64(text.dropFirst(2), radix: 16) : Int64(text)
            guard let value, value >= 0 else {
                throw IOLogError("\(source):\(number): \(key)=\(text) is not a count, an offset or a descriptor")
            }
            return value
        }

        func int32(_ key: String) throws -> Int32 {
            let value = try int64(key)
            guard let small = Int32(exactly: value) else {
                throw IOLogError("\(source):\(number): \(key)=\(value) is out of range")
            }
            return small
        }

        /// A byte count whose bytes must lie in the data file.
        func length(_ key: String, data: Data, at offset: @autoclosure () throws -> Int64) throws -> Int {
            let length = try int64(key)
            let start = try offset()
            guard start + length <= Int64(data.count) else {
                throw IOLogError(
                    "\(source):\(number): its \(length) bytes at \(start) run past the data file's \(data.count)")
            }
            return Int(length)
        }

        func path(_ key: String) throws -> String {
            let text = try field(key)
            guard let path = String(text).removingPercentEncoding else {
                throw IOLogError("\(source):\(number): \(key)=\(text) is not a percent-encoded path")
            }
            return path
        }
    }
}

/// An I/O log that cannot be read or replayed: what and where (`FILE:LINE: …`), in one line.
public struct IOLogError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
