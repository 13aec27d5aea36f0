import Foundation
import LabCore
import ObjectStack
import Synchronization

/// The app's handle on the `extension` strategy's extension: a real `stacklab child extension-import` process on
/// the app's store file, its protocol lines (`ExtensionImport`) read as they come.
/// - Note: Thread-safe: the lines are parsed on the pipe's reader and kept behind a mutex.
final class ExtensionProcess: Sendable {
    private struct State {
        var buffer = Data()
        var ready = false
        var done: (objects: Int, milliseconds: Double)?
        var error: String?
        var closed = false
    }

    /// The child: only run, written to and waited on by this handle's owner, one call at a time.
    private let process = Process()
    private let input = Pipe()
    private let state = Mutex(State())
    private let onCommit: @Sendable (UInt64, String) -> Void

    /// Starts the extension on the store of kind `store` at `url`, importing the pages served at `service` in saves
    /// of `batchSize` at `writeRate` pods a second (0: unpaced) at `durability` (nil: the store's default);
    /// `onCommit` hears each commit's time and smallest name.
    /// - Throws: when the process cannot be started.
    init(
        executable: URL, store: StoreKind, url: URL, service: URL, batchSize: Int, writeRate: Double,
        durability: Durability? = nil, onCommit: @escaping @Sendable (UInt64, String) -> Void
    ) throws {
        self.onCommit = onCommit
        process.executableURL = executable
        process.arguments =
            [
                "child", "extension-import", "--store", store.name, "--path", url.path, "--service",
                service.absoluteString, "--batch-size", String(batchSize), "--write-rate", String(writeRate),
            ] + (durability.map { ["--durability", $0.rawValue] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            self?.received(data)
        }
        try process.run()
    }

    /// Parses whole lines as they arrive.
    private func received(_ data: Data) {
        let lines: [String] = state.withLock { state in
            if data.isEmpty { state.closed = true }
            state.buffer.append(data)
            var lines: [String] = []
            while let end = state.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: state.buffer[state.buffer.startIndex..<end], as: UTF8.self))
                state.buffer.removeSubrange(state.buffer.startIndex...end)
            }
            return lines
        }
        for line in lines {
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            switch fields.first {
            case "ready": state.withLock { $0.ready = true }
            case "commit" where fields.count == 3:
                if let nanoseconds = UInt64(fields[1]) { onCommit(nanoseconds, fields[2]) }
            case "done" where fields.count == 3:
                if let objects = Int(fields[1]), let milliseconds = Double(fields[2]) {
                    state.withLock { $0.done = (objects, milliseconds) }
                }
            case "error": state.withLock { $0.error = String(line.dropFirst("error ".count)) }
            default: break
            }
        }
    }

    /// Waits for `ready`: the extension has the store open.
    /// - Throws: `LabError` when it failed or exited first, or took longer than `timeout` seconds.
    func waitUntilReady(timeout: Double = 60) async throws {
        try await wait(timeout: timeout, for: "to open the store") { $0.ready }
    }

    /// Tells the extension to start importing.
    func go() {
        input.fileHandleForWriting.write(Data("go\n".utf8))
    }

    /// Waits for the extension to finish and exit.
    /// - Returns: the pods it imported and its import's time in milliseconds.
    /// - Throws: `LabError` with its error line or exit status when it failed.
    func waitUntilDone(timeout: Double = 600) async throws -> (objects: Int, milliseconds: Double) {
        try await wait(timeout: timeout, for: "to finish its import") { $0.done != nil }
        process.waitUntilExit()
        guard let done = state.withLock({ $0.done }) else {
            throw LabError(.workloadFailed, "the extension process finished without a result")
        }
        return done
    }

    /// Stops the extension if it still runs.
    func stop() {
        if process.isRunning { process.terminate() }
    }

    private func wait(timeout: Double, for what: String, until done: (State) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let (finished, error, closed) = state.withLock { (done($0), $0.error, $0.closed) }
            if finished { return }
            if let error { throw LabError(.workloadFailed, "the extension process failed: \(error)") }
            if closed {
                process.waitUntilExit()
                throw LabError(
                    .workloadFailed,
                    "the extension process exited (status \(process.terminationStatus)) before \(what)")
            }
            guard Date() < deadline else {
                stop()
                throw LabError(.workloadFailed, "the extension process took over \(Int(timeout)) s \(what)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
