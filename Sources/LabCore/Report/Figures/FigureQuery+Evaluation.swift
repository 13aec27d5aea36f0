import Foundation

extension FigureQuery {
    /// The figure as prose writes it, read from `table` (the CSV the query's source names, with its sidecar).
    /// - Throws: `LabError.invalidResults` when the file cannot give it: no sidecar for `commit`, a column it does not
    ///   have, no cell that matches, or several where one was expected.
    public func text(from table: ResultTable) throws -> String {
        switch value {
        case .commit:
            let commit = try environment(of: table).gitCommit
            let dirty = commit.hasSuffix("+dirty")
            return String(commit.replacingOccurrences(of: "+dirty", with: "").prefix(7)) + (dirty ? "+dirty" : "")
        case .repetitions:
            // The runs each matching cell has: under a budget they differ from cell to cell (`4–6`).
            let runs = try matching(ReportData(table).cells, in: table).map(\.runs)
            guard let fewest = runs.min(), let most = runs.max() else { throw problem(in: table, "no cell matches") }
            return fewest == most ? String(fewest) : "\(fewest)\(rangeSeparator)\(most)"
        case .duration:
            let environment = try environment(of: table)
            return format.text(environment.finished.timeIntervalSince(environment.started))
        case .parameter(let name):
            if filters.isEmpty, let fixed = table.environment?.parameters[name] {
                return Double(fixed).map(format.text) ?? fixed
            }
            guard table.columns.contains(name) else { throw problem(in: table, "no parameter '\(name)'") }
            let cells = try matching(ReportData(table).cells, in: table)
            var seen: [String] = []
            for cell in cells where !seen.contains(cell.parameters[name] ?? "") {
                seen.append(cell.parameters[name] ?? "")
            }
            guard seen.allSatisfy({ Double($0) != nil }) else { return try folded(text: seen, in: table) }
            return try folded(seen.compactMap(Double.init), in: table)
        case .metric(let name):
            guard table.metricColumns.contains(name) else {
                throw problem(
                    in: table, "no metric column '\(name)'; it has \(table.metricColumns.joined(separator: ", "))")
            }
            let data = ReportData(table)
            if versus != nil { return try phrase(try comparisons(of: name, in: data, table: table), in: table) }
            return try folded(try numbers(of: name, in: data.cells, table: table), in: table)
        }
    }

    /// Each matching cell's number (or each ratio's), in the file's order of cells.
    private func numbers(of metric: String, in cells: [ReportData.Cell], table: ResultTable) throws -> [Double] {
        guard let ratio else {
            return try matching(cells, in: table).compactMap { statistic(of: metric, in: $0) }
        }
        return try twins(ratio, in: cells, table: table).compactMap { cell, twin -> Double? in
            guard let over = statistic(of: metric, in: cell), let under = statistic(of: metric, in: twin), under != 0
            else { return nil }
            return over / under
        }
    }

    /// Each matching cell whose `pair.column` is one of `pair.over`, with its twin (the cell with `pair.under` there
    /// and every other column the same), in the file's order of cells.
    func twins(_ pair: Ratio, in cells: [ReportData.Cell], table: ResultTable) throws
        -> [(cell: ReportData.Cell, twin: ReportData.Cell)]
    {
        let candidates = try matching(cells, in: table, ignoring: pair.column)
        return candidates.compactMap { cell in
            guard let side = cell.parameters[pair.column], pair.over.contains(side),
                let twin = candidates.first(where: { other in
                    other.parameters[pair.column] == pair.under
                        && other.parameters.allSatisfy { $0.key == pair.column || cell.parameters[$0.key] == $0.value }
                })
            else { return nil }
            return (cell, twin)
        }
    }

    /// The cells the filters keep (`ignoring` one column, the ratio's).
    func matching(_ cells: [ReportData.Cell], in table: ResultTable, ignoring: String? = nil) throws
        -> [ReportData.Cell]
    {
        for column in filters.keys where !table.columns.contains(column) {
            throw problem(in: table, "no column '\(column)' to filter on")
        }
        return cells.filter { cell in
            filters.allSatisfy { column, values in column == ignoring || values.contains(cell.parameters[column] ?? "")
            }
        }
    }

    /// The cell's number: its runs' values (each over `per`, when given) folded by the statistic; nil when no run
    /// has one.
    private func statistic(of metric: String, in cell: ReportData.Cell) -> Double? {
        let values = cell.finished.compactMap { run -> Double? in
            guard let value = run[metric] else { return nil }
            guard let per else { return value }
            return run[per].flatMap { $0 == 0 ? nil : value / $0 }
        }
        guard !values.isEmpty else { return nil }
        switch statistic {
        case .median: return values.median
        case .min: return values.min()
        case .max: return values.max()
        case .mean: return values.reduce(0, +) / Double(values.count)
        case .sum: return values.reduce(0, +)
        case .count: return Double(values.count)
        }
    }

    /// The numbers as the fold writes them.
    private func folded(_ numbers: [Double], in table: ResultTable) throws -> String {
        guard let low = numbers.min(), let high = numbers.max() else {
            throw problem(in: table, "no cell matches")
        }
        switch fold {
        case .one:
            guard numbers.count == 1 else {
                throw problem(
                    in: table, "\(numbers.count) cells match; expected one (add a filter, or fold: range, list)")
            }
            return format.text(numbers[0])
        case .range:
            let (from, to) = (format.text(low), format.text(high))
            return from == to ? from : from + rangeSeparator + to
        case .list: return Self.list(numbers.map(format.text))
        case .min: return format.text(low)
        case .max: return format.text(high)
        case .count: return format.text(Double(numbers.count))
        case .sum: return format.text(numbers.reduce(0, +))
        }
    }

    /// Words (a parameter's values that are not numbers) as the fold writes them.
    private func folded(text values: [String], in table: ResultTable) throws -> String {
        guard !values.isEmpty else { throw problem(in: table, "no cell matches") }
        if fold == .one, values.count > 1 {
            throw problem(in: table, "\(values.count) values; expected one (add a filter, or fold: list)")
        }
        return Self.list(values)
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    private func environment(of table: ResultTable) throws -> EnvironmentRecord {
        guard let environment = table.environment else { throw problem(in: table, "no .env.json sidecar") }
        return environment
    }

    private func problem(in table: ResultTable, _ message: String) -> LabError {
        LabError(.invalidResults, "\(table.source): \(message)")
    }
}
