import Foundation

/// Checks a scenario's CSV against its matrix: one row for every cell and repetition, and no error cell; under a
/// budget, each cell's rows are its repetitions 1…k for a k from the scenario's repetitions to its most.
/// CI runs it after `stacklab run --quick`.
public enum ResultCheck {
    /// The problems found in `url` for `scenario` (already shrunk and filtered as the run was); empty when good.
    public static func problems(in url: URL, scenario: Scenario, filters: [String: Set<String>] = [:]) -> [String] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            return ["\(url.path): cannot read the file"]
        }
        let rows = ResultCSV.parse(text)
        guard let header = rows.first else { return ["\(url.path): empty file"] }
        let expectedHeader = ResultCSV.columns(for: scenario)
        guard header == expectedHeader else {
            return [
                "\(url.path): header is \(header.joined(separator: ",")); expected \(expectedHeader.joined(separator: ","))"
            ]
        }
        // The header is the expected one, which has one column per name.
        let column = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
        var problems: [String] = []
        var seen: [String: Int] = [:]
        for (number, row) in rows.dropFirst().enumerated() {
            guard row.count == header.count else {
                problems.append("\(url.path):\(number + 2): \(row.count) cells; expected \(header.count)")
                continue
            }
            seen[row[column["run_id"]!], default: 0] += 1
            let error = row[column["error"]!]
            if !error.isEmpty {
                problems.append("\(url.path):\(number + 2): run \(row[column["run_id"]!]) failed: \(error)")
            }
        }
        for cell in scenario.cells(filters: filters) {
            // Under a budget a cell may have had more rounds than the fewest, each once.
            let rounds =
                (1...scenario.mostRepetitions).last { seen[RunResult.runID(cell: cell.index, repetition: $0)] != nil }
                ?? 0
            for repetition in 1...max(scenario.repetitions, rounds) {
                let id = RunResult.runID(cell: cell.index, repetition: repetition)
                switch seen[id] ?? 0 {
                case 0: problems.append("\(url.path): no row for run \(id) (\(cell.label), repetition \(repetition))")
                case 1: break
                case let count: problems.append("\(url.path): \(count) rows for run \(id); expected one")
                }
                seen[id] = nil
            }
        }
        for id in seen.keys.sorted() {
            problems.append("\(url.path): row for run \(id), which the scenario does not have")
        }
        return problems
    }
}
