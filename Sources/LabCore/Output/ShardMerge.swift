import Foundation

/// Joins the CSVs of `run --shard K/N` into the one a single machine would have written, after checking
/// that they belong together: one scenario, one commit, the same N, every shard once, no cell twice and
/// every cell of the matrix present. Each CSV's `.env.json` sidecar says its scenario, commit and shard.
public struct ShardMerge {
    /// One shard's CSV with its sidecar.
    public struct Part {
        public let file: String
        public let table: ResultTable
        public let environment: EnvironmentRecord
    }

    /// Why shards cannot be joined (exit status 2).
    public enum MergeError: Error, Equatable, CustomStringConvertible {
        case noFiles
        case noSidecar(String)
        case unreadableSidecar(String, reason: String)
        case mismatch(what: String, file: String, value: String, expected: String, first: String)
        case notAShard(String)
        case duplicateShard(String, file: String, other: String)
        case missingShards([Int], of: Int)
        case duplicateRun(cell: String, repetition: String, file: String, other: String)
        case missingCells(found: Int, expected: Int)

        public var description: String {
            switch self {
            case .noFiles: "no shard CSVs given"
            case .noSidecar(let file): "\(file): no sidecar \(Self.sidecarName(file)); it records the shard and commit"
            case .unreadableSidecar(let file, let reason): "\(file): cannot read: \(reason)"
            case .mismatch(let what, let file, let value, let expected, let first):
                "\(file): \(what) is \(value), but \(first) has \(expected); shards must come from one run"
            case .notAShard(let file): "\(file): not a shard (run without --shard)"
            case .duplicateShard(let shard, let file, let other): "\(file): shard \(shard) again (also \(other))"
            case .missingShards(let missing, let count):
                "shard(s) \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) missing"
            case .duplicateRun(let cell, let repetition, let file, let other):
                "\(file): cell \(cell) repetition \(repetition) is also in \(other)"
            case .missingCells(let found, let expected):
                "the shards hold \(found) cell(s), the matrix has \(expected)"
            }
        }

        static func sidecarName(_ file: String) -> String {
            URL(fileURLWithPath: file).deletingPathExtension().appendingPathExtension("env.json").lastPathComponent
        }
    }

    public let parts: [Part]

    /// Reads each CSV and its sidecar.
    public init(files: [String]) throws {
        parts = try files.map { file in
            let url = URL(fileURLWithPath: file)
            // The CSV first: a shard that is not there has no sidecar either, and its absence is the news.
            let table = try ResultTable(contentsOf: url)
            let sidecar = url.deletingPathExtension().appendingPathExtension("env.json")
            guard FileManager.default.fileExists(atPath: sidecar.path) else { throw MergeError.noSidecar(file) }
            let environment: EnvironmentRecord
            do {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                environment = try decoder.decode(EnvironmentRecord.self, from: Data(contentsOf: sidecar))
            } catch {
                throw MergeError.unreadableSidecar(sidecar.path, reason: "\(error)")
            }
            return Part(file: file, table: table, environment: environment)
        }
    }

    /// Checks the parts and returns the joined CSV and a sidecar for it (the first shard's, without the shard).
    public func merged() throws -> (csv: String, environment: EnvironmentRecord) {
        guard let first = parts.first else { throw MergeError.noFiles }
        var seenShards: [String: String] = [:]
        var count = 0
        for part in parts {
            let checks: [(String, String, String)] = [
                ("the scenario", part.environment.scenario, first.environment.scenario),
                ("the commit", part.environment.gitCommit, first.environment.gitCommit),
                ("the header", part.table.columns.joined(separator: ","), first.table.columns.joined(separator: ",")),
                ("the repetitions", String(part.environment.repetitions), String(first.environment.repetitions)),
            ]
            for (what, value, expected) in checks where value != expected {
                throw MergeError.mismatch(
                    what: what, file: part.file, value: value, expected: expected, first: first.file)
            }
            guard let text = part.environment.shard, let shard = Shard(text) else {
                throw MergeError.notAShard(part.file)
            }
            if part.file != first.file, let firstShard = first.environment.shard.flatMap(Shard.init),
                shard.count != firstShard.count
            {
                throw MergeError.mismatch(
                    what: "the shard count", file: part.file, value: String(shard.count),
                    expected: String(firstShard.count), first: first.file)
            }
            if let other = seenShards[text] { throw MergeError.duplicateShard(text, file: part.file, other: other) }
            seenShards[text] = part.file
            count = shard.count
        }
        let missing = (1...count).filter { seenShards["\($0)/\(count)"] == nil }
        guard missing.isEmpty else { throw MergeError.missingShards(missing, of: count) }

        let indexes = first.table.cellColumnIndexes
        let cellColumns = indexes.map { first.table.columns[$0] }
        var seenRuns: [[String]: String] = [:]
        var cells = Set<[String]>()
        var rows: [[String]] = []
        for part in parts {
            for row in part.table.rows {
                let cell = indexes.map { row[$0] }
                let repetition = part.table.value("repetition", in: row) ?? ""
                if let other = seenRuns[cell + [repetition]] {
                    let label = zip(cellColumns, cell).filter { !$1.isEmpty }.map { "\($0)=\($1)" }
                    throw MergeError.duplicateRun(
                        cell: label.joined(separator: " "), repetition: repetition, file: part.file, other: other)
                }
                seenRuns[cell + [repetition]] = part.file
                cells.insert(cell)
                rows.append(row)
            }
        }
        if let expected = first.environment.matrixCells, cells.count != expected {
            throw MergeError.missingCells(found: cells.count, expected: expected)
        }
        var environment = first.environment
        environment.shard = nil
        environment.started = parts.map(\.environment.started).min() ?? environment.started
        environment.finished = parts.map(\.environment.finished).max() ?? environment.finished
        return (ResultCSV.render([first.table.columns] + rows), environment)
    }
}
