import Foundation
import Testing

@testable import LabReliability

/// An I/O log written by hand, over a base folder of files: what the recorder would log for a few calls.
struct HandLog {
    /// The folder the log says was recorded (never touched: the replay reads only the log and the base).
    static let recorded = "/recorded"
    var lines = ["stacklab-iolog 1 dir=\(recorded) ack=/journal.txt"]
    var data = Data()
    /// The base: the files before the run.
    let base: URL

    /// A base folder holding `files` (name and bytes).
    init(files: [String: Data]) throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("hand-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        for (name, bytes) in files { try bytes.write(to: base.appendingPathComponent(name)) }
    }

    /// How many events the log has.
    var events: Int { lines.count - 1 }

    mutating func open(_ fd: Int, _ name: String, flags: Int32 = O_RDWR) {
        let path = name.isEmpty ? Self.recorded : "\(Self.recorded)/\(name)"
        lines.append("open fd=\(fd) flags=0x\(String(flags, radix: 16)) path=\(path)")
    }

    mutating func write(_ fd: Int, at offset: Int, _ byte: Character, count: Int) {
        lines.append("pwrite fd=\(fd) off=\(offset) len=\(count) at=\(data.count)")
        data.append(Data(repeating: byte.asciiValue!, count: count))
    }

    mutating func sync(_ fd: Int) { lines.append("fdatasync fd=\(fd)") }

    mutating func acknowledge(_ save: Int) {
        let text = Data("\(save)\n".utf8)
        lines.append("ack len=\(text.count) at=\(data.count)")
        data.append(text)
    }

    mutating func line(_ text: String) { lines.append(text) }

    func log() throws -> IOLog { try IOLog(text: lines.joined(separator: "\n") + "\n", data: data, source: "hand.log") }

    func replay() throws -> CrashReplay { try CrashReplay(log: log(), base: base) }

    /// The files of `state`, by name.
    func files(of state: CrashState, in replay: CrashReplay) throws -> [String: [UInt8]] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hand-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try replay.materialize(state, in: folder)
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        return files
    }
}

/// Crash states built from a log: synced writes always there, the rest by page and in order, sectors whole, names
/// by the folder's sync, and shared writable maps refused.
@Suite("Crash replay")
struct CrashReplayTests {
    static let a = UInt8(ascii: "A")

    /// Sampled states at the end of the log, one per seed.
    static func sampled(_ replay: CrashReplay, _ count: Int, torn: Bool = false) -> [CrashState] {
        (0..<count).map {
            CrashState(number: $0, point: replay.eventCount, kind: .sampled, torn: torn, seed: UInt64($0) * 7919)
        }
    }

    @Test("a synced write is in every state after its sync; one not synced is in some and not in others")
    func syncedAndNot() throws {
        var log = try HandLog(files: ["f": Data(repeating: Self.a, count: 16_384)])
        log.open(3, "f")
        log.write(3, at: 0, "B", count: 8_192)
        log.sync(3)
        log.write(3, at: 8_192, "C", count: 8_192)
        let replay = try log.replay()
        var withC = 0
        for state in Self.sampled(replay, 64) {
            let file = try #require(try log.files(of: state, in: replay)["f"])
            #expect(file[0..<8_192].allSatisfy { $0 == UInt8(ascii: "B") }, "\(state) lost a synced write")
            if file[8_192..<16_384].contains(UInt8(ascii: "C")) { withC += 1 }
        }
        #expect(withC > 0 && withC < 64, "the unsynced write is sometimes there, sometimes not (\(withC) of 64)")
        for number in 0..<40 {
            let state = replay.state(number, of: 40, seed: 3)
            guard state.point >= 3 else { continue }
            #expect(try log.files(of: state, in: replay)["f"]![0] == UInt8(ascii: "B"), "\(state)")
        }
    }

    @Test("a torn write keeps whole 512-byte sectors, some new and some old")
    func tornSectors() throws {
        var log = try HandLog(files: ["f": Data(repeating: Self.a, count: 8_192)])
        log.open(3, "f")
        log.write(3, at: 0, "C", count: 8_192)
        let replay = try log.replay()
        for seed in 0..<32 {
            let state = CrashState(
                number: seed, point: replay.eventCount, kind: .prefix, torn: true, seed: UInt64(seed))
            let file = try #require(try log.files(of: state, in: replay)["f"])
            let sectors = stride(from: 0, to: 8_192, by: 512).map { Set(file[$0..<$0 + 512]) }
            #expect(sectors.allSatisfy { $0.count == 1 }, "a sector is whole")
            #expect(Set(sectors.map { $0.first! }) == [Self.a, UInt8(ascii: "C")], "some sectors new, some old")
        }
    }

    @Test("a page's unsynced writes come in order: never a later one without an earlier one")
    func pagesInOrder() throws {
        var log = try HandLog(files: ["f": Data(repeating: Self.a, count: 4_096)])
        log.open(3, "f")
        log.write(3, at: 0, "X", count: 100)
        log.write(3, at: 100, "Y", count: 100)
        let replay = try log.replay()
        var seen: Set<String> = []
        for state in Self.sampled(replay, 80) {
            let file = try #require(try log.files(of: state, in: replay)["f"])
            let x = file[0] == UInt8(ascii: "X")
            let y = file[100] == UInt8(ascii: "Y")
            #expect(x || !y, "\(state) has the second write without the first")
            seen.insert("\(x)\(y)")
        }
        #expect(seen == ["falsefalse", "truefalse", "truetrue"])
    }

    @Test("a write through an O_DSYNC descriptor is there at once; the sync points include it")
    func synchronousDescriptor() throws {
        var log = try HandLog(files: ["f": Data(repeating: Self.a, count: 8_192)])
        log.open(4, "f", flags: O_RDWR | O_DSYNC)
        log.write(4, at: 0, "D", count: 512)
        log.open(3, "f")
        log.write(3, at: 4_096, "E", count: 512)
        let replay = try log.replay()
        #expect(replay.syncPoints.contains(2))
        for state in Self.sampled(replay, 32) {
            #expect(try log.files(of: state, in: replay)["f"]![0] == UInt8(ascii: "D"), "\(state)")
        }
    }

    @Test("a new file's name is there only once the folder is synced; an unlink likewise")
    func names() throws {
        var unsynced = try HandLog(files: ["f": Data("old".utf8)])
        unsynced.open(5, "g", flags: O_RDWR | O_CREAT)
        unsynced.write(5, at: 0, "G", count: 10)
        unsynced.sync(5)
        unsynced.line("unlink path=\(HandLog.recorded)/f")
        let replay = try unsynced.replay()
        let states = try Self.sampled(replay, 40).map { try unsynced.files(of: $0, in: replay) }
        #expect(states.contains { $0["g"] == nil } && states.contains { $0["g"] != nil })
        #expect(states.contains { $0["f"] != nil } && states.contains { $0["f"] == nil })
        #expect(!states.contains { $0["f"] == nil && $0["g"] == nil }, "names reach the disk in order")

        var synced = unsynced
        synced.open(6, "")
        synced.sync(6)
        let syncedReplay = try synced.replay()
        for state in Self.sampled(syncedReplay, 20) {
            let files = try synced.files(of: state, in: syncedReplay)
            #expect(files["g"] == [UInt8](repeating: UInt8(ascii: "G"), count: 10) && files["f"] == nil, "\(state)")
        }
    }

    @Test("a shared writable map of a store file is refused; of a shared-memory file it is not")
    func maps() throws {
        var log = try HandLog(files: ["f": Data("x".utf8)])
        log.open(7, "f-shm", flags: O_RDWR | O_CREAT)
        log.line("mmap fd=7 off=0 len=32768 prot=3 flags=1 addr=0x1000")
        _ = try log.replay()
        log.open(3, "f")
        log.line("mmap fd=3 off=0 len=4096 prot=1 flags=1 addr=0x2000")
        _ = try log.replay()
        log.line("mmap fd=3 off=0 len=4096 prot=3 flags=1 addr=0x3000")
        let error = try #require(throws: IOLogError.self) { try log.replay() }
        #expect(error.description.contains("f is mapped shared and writable"))
    }

    @Test("acknowledgements count from the event that wrote them; the plan starts at sync points and repeats itself")
    func acknowledgementsAndPlan() throws {
        var log = try HandLog(files: ["f": Data(repeating: Self.a, count: 4_096)])
        log.open(3, "f")
        log.write(3, at: 0, "B", count: 10)
        log.sync(3)
        log.acknowledge(1)
        log.write(3, at: 10, "C", count: 10)
        log.sync(3)
        log.acknowledge(2)
        let replay = try log.replay()
        #expect(replay.acknowledged(before: 3) == 0)
        #expect(replay.acknowledged(before: 4) == 1)
        #expect(replay.acknowledged(before: replay.eventCount) == 2)
        #expect(replay.syncPoints == [0, 3, 6, 7])
        let plan = (0..<16).map { replay.state($0, of: 16, seed: 9) }
        #expect(plan.prefix(4).map(\.point) == [0, 3, 6, 7])
        #expect(plan == (0..<16).map { replay.state($0, of: 16, seed: 9) })
        #expect(plan.dropFirst(4).contains { $0.kind == .sampled })
    }
}
