import Foundation

/// The scenario fuzzer's seeds when it is given no `--corpus`: the scenario files the lab's tests write (kept here as
/// text, so a session outside a checkout still has them), then the repository's own scenarios, `Scenarios/*.yaml`,
/// and the scenario inputs the fuzz tests keep (`Tests/LabReliabilityTests/Fixtures/fuzz/scenario`), from the
/// first folder at or above the working directory that holds a `Scenarios` folder (or `$STACKLAB_SCENARIOS`).
///
/// Without seeds every mutant of an empty input is rejected at its first line (a 60-second session rejected all of
/// its 1.4 million inputs): valid scenarios are what make mutations reach the matrix, parameter and workload checks.
enum ScenarioSeeds {
    /// The built-in seeds and the scenario files found, each a YAML file's bytes.
    static func all() -> [Data] {
        builtIn.map { Data($0.utf8) } + found()
    }

    /// The repository's scenarios, then the fuzz tests' inputs, each folder in name order.
    static func found(from start: URL? = nil) -> [Data] {
        guard let root = root(from: start) else { return [] }
        let folders = [
            root.appendingPathComponent("Scenarios"),
            root.appendingPathComponent("Tests/LabReliabilityTests/Fixtures/fuzz/scenario"),
        ]
        return folders.flatMap { folder in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".yaml") }.sorted().compactMap {
                FileManager.default.contents(atPath: folder.appendingPathComponent($0).path)
            }
        }
    }

    /// `$STACKLAB_SCENARIOS` (a `Scenarios` folder; its parent is the root), else the first folder at or above
    /// `start` (the working directory) that holds a `Scenarios` folder.
    static func root(from start: URL? = nil) -> URL? {
        if let variable = ProcessInfo.processInfo.environment["STACKLAB_SCENARIOS"], !variable.isEmpty {
            return URL(fileURLWithPath: variable, isDirectory: true).deletingLastPathComponent()
        }
        var folder = (start ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        while true {
            var isFolder: ObjCBool = false
            let scenarios = folder.appendingPathComponent("Scenarios").path
            if FileManager.default.fileExists(atPath: scenarios, isDirectory: &isFolder), isFolder.boolValue {
                return folder
            }
            guard folder.path != "/" else { return nil }
            folder.deleteLastPathComponent()
        }
    }

    /// Scenario files as the lab's tests write them: a matrix over stores and designs, a startup sweep with a
    /// deadline, a merge-cost grid in flow style, a read/write mix with comments and quoting.
    static let builtIn: [String] = [
        """
        name: tiny
        workload: import
        repetitions: 1
        parameters: {store: sqlite, strategy: nested-contexts, objects: 230, page_size: 100, batch_size: 40, ui_fetch_hz: 60}
        """,
        """
        # A tiny startup sweep for the test.
        name: startup-test
        workload: startup
        model: builtin:pods
        repetitions: 1
        parameters:
          objects: 3000
          deadline_s: 0.03
        matrix:
          store: [sqlite]
          app_version: [1, 2]
          mode: [sync]
        """,
        """
        name: merge-grid
        workload: merge-cost
        model: builtin:pods
        repetitions: 2
        warmup: 1
        matrix: {store: [sqlite, lmdb, memory], strategy: [shared-coordinator, nested-contexts], registered: [100, 1000], changes: [10, 100]}
        """,
        """
        name: "mix"   # quoted, with a comment
        workload: read-write-mix
        model: builtin:pods
        repetitions: 3
        parameters:
          objects: 2000
          duration_s: 0.5
        matrix:
          store: [lmdb, memory]
          strategy: [shared-coordinator, separate-stacks]
        """,
    ]
}
