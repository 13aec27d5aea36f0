import Foundation
import Testing

@testable import LabReliability

/// Reading the recorder's log: every event it writes, and a clear error naming the line of anything else.
@Suite("I/O log")
struct IOLogTests {
    static func read(_ lines: [String], data: Data = Data(repeating: 1, count: 64)) throws -> IOLog {
        try IOLog(
            text: (["stacklab-iolog 1 dir=/r%20x ack=/j"] + lines).joined(separator: "\n"), data: data, source: "t.log")
    }

    @Test("every event the recorder writes reads back")
    func events() throws {
        let log = try Self.read([
            "open fd=3 flags=0x80042 path=/r%20x/a", "pwrite fd=3 off=4096 len=8 at=0", "writev fd=3 off=0 len=4 at=8",
            "lseek fd=3 off=0 whence=0 result=0", "ftruncate fd=3 len=0", "fallocate fd=3 mode=0 off=0 len=9",
            "fsync fd=3", "fdatasync fd=3", "mmap fd=3 off=0 len=4096 prot=1 flags=1 addr=0x7f00",
            "msync fd=3 addr=0x7f00 len=4096 flags=4", "munmap addr=0x7f00 len=4096",
            "rename from=/r%20x/a to=/r%20x/b", "unlink path=/r%20x/b", "close fd=3", "ack len=2 at=12",
        ])
        #expect(log.folder == "/r x")
        #expect(log.events.count == 15)
        #expect(log.events[0] == .open(fd: 3, flags: 0x80042, path: "/r x/a"))
        #expect(log.events[1] == .write(call: "pwrite", fd: 3, offset: 4_096, length: 8, dataOffset: 0))
        #expect(log.events[7] == .sync(fd: 3, dataOnly: true))
        #expect(log.events[11] == .rename(from: "/r x/a", to: "/r x/b"))
        #expect(log.events[14] == .acknowledgement(length: 2, dataOffset: 12))
        #expect(log.summary.hasPrefix("ack 1, close 1, fallocate 1"))
    }

    @Test(
        "a malformed log is refused naming its file and line",
        arguments: [
            (["wrte fd=3 off=0 len=1 at=0"], "t.log:2: unknown event 'wrte'"),
            (["fsync fd=3", "pwrite fd=3 len=1 at=0"], "t.log:3: no off= field"),
            (["pwrite fd=3 off=0 len=65 at=0"], "t.log:2: its 65 bytes at 0 run past the data file's 64"),
            (["fsync fd=-3"], "t.log:2: fd=-3 is not a count"),
            (["fsync 3"], "t.log:2: '3' is not a key=value field"),
            (["", "fsync fd=3"], "t.log:2: an empty line"),
        ])
    func malformed(lines: [String], message: String) throws {
        let error = try #require(throws: IOLogError.self) { try Self.read(lines) }
        #expect(error.description.hasPrefix(message), "\(error)")
    }

    @Test("a file that is not a log, or of another format, is refused at line 1")
    func header() throws {
        let other = try #require(throws: IOLogError.self) { try IOLog(text: "hello\n", data: Data(), source: "t.log") }
        #expect(other.description.hasPrefix("t.log:1: not an I/O log"))
        let newer = try #require(throws: IOLogError.self) {
            try IOLog(text: "stacklab-iolog 9 dir=/r ack=\n", data: Data(), source: "t.log")
        }
        #expect(newer.description == "t.log:1: I/O log format 9; this build reads format 1")
    }
}
