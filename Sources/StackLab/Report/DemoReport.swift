import Foundation

/// Prints demo results as a table and writes them as CSV.
public enum DemoReport {
    static let columns = [
        "run", "store", "objects", "batch_size", "import_ms", "objects_per_s", "first_screen_ms", "first_screen_rows",
        "stored_count",
    ]

    static func cells(_ result: DemoRun.Result) -> [String] {
        [
            String(result.repetition), "memory", String(result.objects), String(result.batchSize),
            String(format: "%.2f", result.importMilliseconds), String(format: "%.0f", result.objectsPerSecond),
            String(format: "%.3f", result.firstScreenMilliseconds), String(result.firstScreenRows), String(result.storedCount),
        ]
    }

    /// The results as an aligned text table.
    public static func table(_ results: [DemoRun.Result]) -> String {
        TextTable.render(header: columns, rows: results.map(cells))
    }

    /// The results as CSV: a header row, then one row per run.
    public static func csv(_ results: [DemoRun.Result]) -> String {
        ([columns] + results.map(cells)).map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    /// Writes the CSV atomically (a half-written file never replaces a good one).
    public static func write(_ results: [DemoRun.Result], to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(csv(results).utf8).write(to: url, options: .atomic)
    }
}
