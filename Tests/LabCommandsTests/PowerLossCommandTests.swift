import Foundation
import TestSupport
import Testing

/// `stacklab crash-test --power-loss` on the command line: the table and its CSV, recordings kept and checked again,
/// and bad input (a durability that is not one, a malformed log) in one line with exit status 2.
@Suite("crash-test --power-loss", .serialized)
struct PowerLossCommandTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("power-loss-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a run prints the table, writes its CSV and keeps recordings that check again alike")
    func runAndReplay() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("power-loss.csv")
        let kept = folder.appendingPathComponent("kept")
        let run = try StackLabBinary.run([
            "crash-test", "--power-loss", "--store", "lmdb", "--durability", "normal", "--durability", "off",
            "--states", "8", "--saves", "10", "--seed", "4", "--keep", kept.path, "--out", csv.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("| store | durability | crash states | failed to open |"))
        #expect(run.output.contains("| lmdb | normal | 8 | 0 | 0 |"), "\(run.output)")
        let rows = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(
            rows.first
                == "store,durability,saves,seed,timestamp,crash_states,failed_open,failed_integrity,lost_acknowledged,most_lost,torn"
        )
        #expect(rows.count == 3 && rows[1].hasPrefix("lmdb,normal,10,4,") && rows[2].hasPrefix("lmdb,off,10,4,"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: kept.path).sorted() == ["lmdb-normal", "lmdb-off"])

        let again = folder.appendingPathComponent("again.csv")
        let replay = try StackLabBinary.run([
            "crash-test", "--power-loss", "--replay", kept.path, "--states", "8", "--seed", "4", "--out", again.path,
        ])
        #expect(replay.status == 0, "\(replay.output)")
        let counts = { (url: URL) in
            try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().map {
                $0.split(separator: ",", omittingEmptySubsequences: false).enumerated().filter { $0.offset != 4 }
                    .map(\.element)
            }
        }
        #expect(try counts(again) == counts(csv), "the same recordings and seed give the same states and verdicts")
    }

    @Test("a durability that is not one, a power-loss option without --power-loss, or two modes, is a usage error")
    func usage() throws {
        let bad = try StackLabBinary.run(["crash-test", "--power-loss", "--durability", "sometimes"])
        #expect(bad.status == 2)
        #expect(
            bad.output.hasPrefix(
                "Error: The value 'sometimes' is invalid for '--durability <durability>'. Please provide one of 'full', "
                    + "'normal' or 'off'."), "\(bad.output)")
        let both = try StackLabBinary.run(["crash-test", "--power-loss", "--history"])
        #expect(
            both.status == 2 && both.output.hasPrefix("Error: --power-loss, --two-writers and --history are separate"))
        let stray = try StackLabBinary.run(["crash-test", "--out", "x.csv"])
        #expect(stray.status == 2 && stray.output.hasPrefix("Error: --keep, --replay and --out go with --power-loss"))
    }

    @Test("a folder with no recording, or a recording whose log is malformed, is named in one line with exit status 2")
    func badRecordings() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = try StackLabBinary.run(["crash-test", "--power-loss", "--replay", folder.path])
        #expect(empty.status == 2)
        #expect(empty.output == "stacklab crash-test: \(folder.path): no power-loss recording here\n")

        let recorded = try StackLabBinary.run([
            "crash-test", "--power-loss", "--store", "sqlite", "--durability", "full", "--states", "2", "--saves", "3",
            "--keep", folder.path,
        ])
        #expect(recorded.status == 0, "\(recorded.output)")
        let log = folder.appendingPathComponent("sqlite-full/iolog.txt")
        var lines = try String(contentsOf: log, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        lines[3] = "pwrite fd=9 off=zero len=1 at=0"
        try lines.joined(separator: "\n").write(to: log, atomically: true, encoding: .utf8)
        let malformed = try StackLabBinary.run(["crash-test", "--power-loss", "--replay", folder.path])
        #expect(malformed.status == 2)
        #expect(
            malformed.output
                == "stacklab crash-test: \(log.path):4: off=zero is not a count, an offset or a descriptor\n")
    }
}
