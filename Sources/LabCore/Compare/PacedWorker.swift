import Foundation

/// One build's long-lived `run --paced` process: its input, where the driver says go, its output, where it says
/// ready and done (``RunPace``), and its standard error kept in a file, so a full pipe never stalls it.
/// - Note: Not thread-safe; the runner drives it from one thread.
final class PacedWorker {
    let name: String
    let side: PairedBuildRunner.Side
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let folder: URL
    private let log: URL
    private var buffer = Data()
    private var ended = false

    /// Starts `side`'s binary on `scenario`, writing its CSV to `folder`.
    init(name: String, side: PairedBuildRunner.Side, scenario: URL, arguments: [String], folder: URL) throws {
        self.name = name
        self.side = side
        self.folder = folder
        log = folder.appendingPathComponent("stderr.txt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = side.binary
        process.arguments = ["run", scenario.path, "--out", folder.path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(side.environment) { _, own in own }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        do {
            try process.run()
        } catch {
            throw LabError(.invalidResults, "\(name) build \(side.binary.path): cannot start it: \(error)")
        }
    }

    /// The next line of the pacing protocol, without its prefix; nil once the process has closed its output.
    func nextLine() -> String? {
        while !ended {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if line.hasPrefix(RunPace.linePrefix) { return String(line.dropFirst(RunPace.linePrefix.count)) }
                continue
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { ended = true } else { buffer.append(chunk) }
        }
        return nil
    }

    /// Lets the waiting run go.
    func go() {
        try? input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
    }

    /// The last line the build wrote to its standard error, or its exit status.
    func lastWords() -> String {
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        if let line = said.split(separator: "\n").last { return String(line) }
        return process.isRunning ? "still running" : "exit status \(process.terminationStatus)"
    }

    /// Waits for the process to end; returns its CSV.
    func finish() throws -> URL {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return try PairedBuildRunner.csv(of: process, name: name, side: side, folder: folder, lastWords: lastWords)
    }

    /// Ends the process (after a failure elsewhere).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
