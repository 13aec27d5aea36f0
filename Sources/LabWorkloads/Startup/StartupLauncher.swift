import Foundation
import LabCore

/// Starts one launch as a fresh child process (`stacklab child launch …`) on a private copy of a seeded store,
/// watches it like the launch watchdog of a phone — killing it if the first frame has not come within the
/// deadline — and returns what the child measured.
public struct StartupLauncher: Sendable {
    /// One launch to make.
    public struct Launch: Sendable {
        public var store: StoreKind
        /// The seeded store; the launch runs on a copy, so a migration does not change it for the next one.
        public var seededStore: URL
        public var mode: LaunchChild.Mode
        /// The pod model version of the app (newer than the store's: the launch migrates).
        public var appModelVersion: Int
        /// How long the first frame may take before the watchdog kills the launch.
        public var deadline: Duration
        /// How the store reaches the app's model when it is older (lightweight, or the custom staged migration).
        public var migration: StartupMigration
        /// The app on a scenario's store file (`seededStore` is then that file, copied with its `-wal`, `-shm` and
        /// external data); nil for the pod app.
        public var storeFileApp: StoreFileApp?

        /// A launch of a copy of `seededStore` by an app of model `appModelVersion`.
        public init(
            store: StoreKind, seededStore: URL, mode: LaunchChild.Mode, appModelVersion: Int, deadline: Duration,
            migration: StartupMigration = .lightweight
        ) {
            self.store = store
            self.seededStore = seededStore
            self.mode = mode
            self.appModelVersion = appModelVersion
            self.deadline = deadline
            self.migration = migration
        }

        /// A launch of a copy of the store file at `storeFile` by `app`.
        public init(storeFile: URL, app: StoreFileApp, mode: LaunchChild.Mode, deadline: Duration) {
            self.init(
                store: .sqlite, seededStore: storeFile, mode: mode, appModelVersion: 0, deadline: deadline,
                migration: app.migration)
            storeFileApp = app
        }
    }

    /// The `stacklab` executable that plays the app.
    public let executable: URL

    /// A launcher starting `executable` (by default the `stacklab` beside the running program).
    public init(executable: URL = StartupLauncher.defaultExecutable) {
        self.executable = executable
    }

    /// `stacklab` in the folder of the running executable: the program itself when it is stacklab, the one
    /// built beside the test bundle in tests.
    public static var defaultExecutable: URL {
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return running.deletingLastPathComponent().appendingPathComponent("stacklab")
    }

    /// Makes the launch; errors of the child (it crashed, the store did not load) are in the report.
    /// - Throws: when the store copy or the child process cannot be made at all.
    public func run(_ launch: Launch, workDirectory: URL) throws -> LaunchReport {
        let folder = workDirectory.appendingPathComponent("stacklab-launch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(launch.seededStore.lastPathComponent)
        if launch.storeFileApp != nil {
            // Never the original: a store file is the user's, and the launch may migrate it.
            try ScenarioStoreFile.copy(launch.seededStore, to: copy)
        } else {
            try FileManager.default.copyItem(at: launch.seededStore, to: copy)
        }
        // On disk before the launch's clock starts, as an app's store is (the writeback is not the launch's).
        try StoreCopyFlush.flush(folder)

        let child = Process()
        child.executableURL = executable
        child.arguments = [
            "child", "launch", "--store", launch.store.name, "--path", copy.path, "--mode", launch.mode.rawValue,
        ]
        if let app = launch.storeFileApp {
            child.arguments? += app.arguments
        } else {
            child.arguments? += [
                "--model-version", String(launch.appModelVersion), "--migration", launch.migration.rawValue,
            ]
        }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        let lines = LaunchLines()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                lines.close()
            } else {
                lines.append(data)
            }
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment[LaunchClock.startVariable] = String(LaunchClock.nowNanoseconds())
        child.environment = environment
        try child.run()

        var report: LaunchReport
        if lines.waitForFirstFrame(timeout: launch.deadline) {
            // The app is up: give the rest of the launch (a background migration, say) its time.
            _ = lines.waitForResult(timeout: .seconds(600))
            child.waitUntilExit()
            report = lines.result ?? LaunchReport()
            if lines.result == nil {
                report.error = "the launch ended without a result (exit \(child.terminationStatus))"
            }
        } else if let result = lines.result {
            // It finished (probably failed) before drawing a frame.
            child.waitUntilExit()
            report = result
        } else {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            report = LaunchReport()
            report.killedByWatchdog = child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL
            if !report.killedByWatchdog {
                report.error = "the launch exited (status \(child.terminationStatus)) before its first frame"
            }
            report.migrated = lines.sawProgress
            report.migrationFraction = lines.lastProgress
        }
        return report
    }
}

/// The child's protocol lines as they arrive, with waits for the two that matter.
final class LaunchLines: @unchecked Sendable {
    // @unchecked: all state is guarded by `condition`.
    private let condition = NSCondition()
    private var buffer = Data()
    private var firstFrame = false
    private var closed = false
    private var resultLine: LaunchReport?
    private var progressSeen = false
    private var progress: Double?

    /// The child's `result` report, once it came.
    var result: LaunchReport? { locked { resultLine } }
    /// Whether the child reported migration progress.
    var sawProgress: Bool { locked { progressSeen } }
    /// The last migration progress the child reported.
    var lastProgress: Double? { locked { progress } }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    func append(_ data: Data) {
        condition.lock()
        defer { condition.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...newline)
            if line == "first-frame" {
                firstFrame = true
            } else if line.hasPrefix("progress ") {
                progressSeen = true
                progress = Double(line.dropFirst("progress ".count))
            } else if line.hasPrefix("result ") {
                resultLine = try? JSONDecoder().decode(
                    LaunchReport.self, from: Data(line.dropFirst("result ".count).utf8))
            }
        }
        condition.broadcast()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for `first-frame`; false when the deadline passes first or the child ends without one.
    func waitForFirstFrame(timeout: Duration) -> Bool {
        wait(timeout) { $0.firstFrame || $0.closed || $0.resultLine != nil }
        return locked { firstFrame }
    }

    /// Waits for the `result` line (or the end of the output).
    func waitForResult(timeout: Duration) -> Bool {
        wait(timeout) { $0.resultLine != nil || $0.closed }
    }

    @discardableResult
    private func wait(_ timeout: Duration, until done: (LaunchLines) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(
            Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !done(self) {
            if !condition.wait(until: deadline) { return done(self) }
        }
        return true
    }
}
