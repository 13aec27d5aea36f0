import Foundation
import LabWorkloads
import ObjectStack

/// A save loop's I/O, recorded for power-loss replay: the store's files before the loop (`base/`), the loop's
/// I/O log (`iolog.txt`, `iolog.txt.data`), and what was recorded (`recording.json`).
///
/// For example:
/// ```swift
/// let recording = try PowerLossRecording.record(
///     executable: stacklab, store: .lmdb, durability: .full, saves: 300, seed: 1, in: folder)
/// let replay = try CrashReplay(log: IOLog(contentsOf: recording.log), base: recording.base)
/// ```
/// The store is created, empty, by a first save loop with no saves and no recorder; its files are the base. Then
/// the loop runs `saves` saves with the recorder preloaded (`LD_PRELOAD` of `libStackLabIOLog.so`, built beside
/// the stacklab binary), its journal of acknowledged saves as the recorder's acknowledgement file, and exits.
public struct PowerLossRecording: Sendable {
    /// What was recorded.
    public struct Manifest: Sendable, Codable, Equatable {
        /// The store's name (`sqlite`, `lmdb`).
        public let store: String
        public let durability: String
        public let saves: Int64
        /// The save loop's seed (its batch sizes).
        public let seed: UInt64
        /// The store file's name in the folder.
        public let storeFile: String
    }

    /// The recording's folder.
    public let folder: URL
    public let manifest: Manifest

    /// The store's files before the recorded loop.
    public var base: URL { folder.appendingPathComponent("base") }
    /// The I/O log (its bytes are beside it, `iolog.txt.data`).
    public var log: URL { folder.appendingPathComponent("iolog.txt") }
    /// The folder the loop wrote its store in (what the log's paths name).
    public var live: URL { folder.appendingPathComponent("store") }

    /// The store, as the lab names it.
    public var store: StoreKind {
        get throws {
            guard let kind = StoreKind.named(manifest.store), kind.isFile else {
                throw IOLogError("\(folder.path)/recording.json: '\(manifest.store)' is not a file store")
            }
            return kind
        }
    }

    /// The durability the loop ran at.
    public var durability: Durability {
        get throws {
            guard let durability = Durability(rawValue: manifest.durability) else {
                throw IOLogError(
                    "\(folder.path)/recording.json: durability '\(manifest.durability)' is not full, normal or off")
            }
            return durability
        }
    }

    /// The recording kept in `folder`.
    /// - Throws: `IOLogError` when `folder` holds no readable `recording.json`.
    public init(folder: URL) throws {
        self.folder = folder
        let url = folder.appendingPathComponent("recording.json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw IOLogError("\(url.path): no recording here (no recording.json)")
        }
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            throw IOLogError("\(url.path): not a recording's manifest: \(error)")
        }
    }

    /// The recordings kept in `folder`: itself, or each of its folders that holds one, by name.
    /// - Throws: `IOLogError` when there is none, or one cannot be read.
    public static func all(in folder: URL) throws -> [PowerLossRecording] {
        let manager = FileManager.default
        if manager.fileExists(atPath: folder.appendingPathComponent("recording.json").path) {
            return [try PowerLossRecording(folder: folder)]
        }
        let found = try ((try? manager.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            .map { folder.appendingPathComponent($0) }
            .filter { manager.fileExists(atPath: $0.appendingPathComponent("recording.json").path) }
            .map { try PowerLossRecording(folder: $0) }
        guard !found.isEmpty else { throw IOLogError("\(folder.path): no power-loss recording here") }
        return found
    }

    /// The recorder library beside the stacklab binary `executable`.
    public static func recorder(beside executable: URL) -> URL {
        executable.deletingLastPathComponent().appendingPathComponent("libStackLabIOLog.so")
    }

    /// Records `saves` saves of a save loop on a new `store` at `durability`, into `folder` (created).
    /// - Parameter executable: the stacklab binary; the recorder library must be beside it.
    /// - Throws: `SaveLoopError` when the recorder is missing or a loop fails.
    public static func record(
        executable: URL, store: StoreKind, durability: Durability, saves: Int64, seed: UInt64, in folder: URL
    ) throws -> PowerLossRecording {
        let recorder = recorder(beside: executable)
        guard FileManager.default.fileExists(atPath: recorder.path) else {
            throw SaveLoopError(
                "the I/O recorder \(recorder.path) is not built; build it with `swift build --product StackLabIOLog` "
                    + "(add -c release for a release stacklab)")
        }
        let manifest = Manifest(
            store: store.name, durability: durability.rawValue, saves: saves, seed: seed,
            storeFile: "store.\(store.name)")
        let recording = PowerLossRecording(folder: folder, manifest: manifest)
        let manager = FileManager.default
        try manager.createDirectory(at: recording.live, withIntermediateDirectories: true)
        try manager.createDirectory(at: recording.base, withIntermediateDirectories: true)
        let journal = folder.appendingPathComponent("journal.txt")
        var arguments = [
            "child", "save-loop", "--store", store.name, "--path",
            recording.live.appendingPathComponent(manifest.storeFile).path,
            "--journal", journal.path, "--seed", String(seed), "--durability", durability.rawValue,
        ]
        try runLoop(executable, arguments + ["--limit", "0"], environment: [:])
        for name in try manager.contentsOfDirectory(atPath: recording.live.path) where !CrashReplay.isVolatile(name) {
            try manager.copyItem(
                at: recording.live.appendingPathComponent(name), to: recording.base.appendingPathComponent(name))
        }
        arguments += ["--limit", String(saves)]
        try runLoop(
            executable, arguments,
            environment: [
                "LD_PRELOAD": recorder.path, "STACKLAB_IOLOG": recording.log.path,
                "STACKLAB_IOLOG_DIR": recording.live.path, "STACKLAB_IOLOG_ACK": journal.path,
            ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(to: folder.appendingPathComponent("recording.json"))
        return recording
    }

    private init(folder: URL, manifest: Manifest) {
        self.folder = folder
        self.manifest = manifest
    }

    /// Runs a save loop to its end.
    private static func runLoop(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw SaveLoopError(
                "the save loop (\(arguments.joined(separator: " "))) failed with status \(process.terminationStatus): "
                    + message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
