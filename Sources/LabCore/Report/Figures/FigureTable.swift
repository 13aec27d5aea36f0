/// A table of figures a document shows, as its marker spells it: the result CSV, the cells (filters), the columns
/// that name a row and the metric columns, each the median of the cell's runs.
///
/// A marker's words, after the source: filters (`write_rate=0`), `rows=store,strategy` (the columns that name a
/// row, in the file's order of cells) and one `col=METRIC` per column, with `:` and a format (`:dp=1`) or a label
/// (`:label=wall (ms)`, quoted when it has spaces). A cell without a value shows `–`.
///
/// For example:
/// ```swift
/// let table = try FigureTable("strategies write_rate=0 rows=store,strategy col=wall_ms:dp=0 col=fetch_p99_ms:dp=1")
/// print(try table.markdown(from: results))
/// ```
public struct FigureTable: Sendable {
    /// A metric column of the table.
    public struct Column: Sendable {
        public var metric: String
        public var label: String
        public var format: FigureFormat
    }

    /// The result CSV: a baseline's name or a path from the repository's root.
    public var source: String
    /// The filters and the number formats, as an inline figure takes them.
    public var filters: String
    /// The columns that name a row.
    public var rows: [String] = []
    public var columns: [Column] = []

    /// Parses a marker's words.
    /// - Throws: `LabError.invalidResults` naming the word it does not understand.
    public init(_ text: String) throws {
        var words = try FigureWords.split(text)[...]
        guard let source = words.popFirst() else {
            throw LabError(.invalidResults, "figure table '\(text)': expected a source, such as 'strategies'")
        }
        self.source = source
        var filters: [String] = []
        for word in words {
            guard let (key, argument) = FigureWords.pair(word) else {
                throw LabError(.invalidResults, "figure table '\(text)': '\(word)' is not a filter, rows= or col=")
            }
            switch key {
            case "rows": rows = argument.split(separator: ",").map(String.init)
            case "col":
                let parts = argument.split(separator: ":").map(String.init)
                var column = Column(metric: parts[0], label: parts[0], format: FigureFormat())
                for option in parts.dropFirst() {
                    guard let (name, value) = FigureWords.pair(option) else {
                        throw LabError(.invalidResults, "figure table '\(text)': '\(option)' in col= is not an option")
                    }
                    if name == "label" {
                        column.label = value
                    } else {
                        column.format = try FigureQuery("\(source) \(parts[0]) \(name)=\(value)").format
                    }
                }
                columns.append(column)
            default: filters.append(word)
            }
        }
        guard !rows.isEmpty, !columns.isEmpty else {
            throw LabError(.invalidResults, "figure table '\(text)': expected rows=COLUMNS and at least one col=METRIC")
        }
        self.filters = filters.joined(separator: " ")
    }

    /// The table in Markdown, read from `table`.
    /// - Throws: `LabError.invalidResults` for a column the file lacks or no cell that matches.
    public func markdown(from table: ResultTable) throws -> String {
        let filter = try FigureQuery("\(source) \(columns[0].metric) \(filters)")
        for column in rows + filter.filters.keys.sorted() where !table.columns.contains(column) {
            throw LabError(.invalidResults, "\(table.source): no column '\(column)'")
        }
        for column in columns where !table.metricColumns.contains(column.metric) {
            throw LabError(.invalidResults, "\(table.source): no metric column '\(column.metric)'")
        }
        let data = ReportData(table)
        let cells = data.cells.filter { cell in
            filter.filters.allSatisfy { column, values in values.contains(cell.parameters[column] ?? "") }
        }
        guard !cells.isEmpty else { throw LabError(.invalidResults, "\(table.source): no cell matches '\(filters)'") }
        var lines = [
            "| " + (rows + columns.map(\.label)).joined(separator: " | ") + " |",
            "|" + String(repeating: "---|", count: rows.count + columns.count),
        ]
        for cell in cells {
            let names = rows.map { cell.parameters[$0] ?? "" }
            let values = columns.map { column -> String in
                let runs = cell.finished.compactMap { $0[column.metric] }
                return runs.median.map(column.format.text) ?? "–"
            }
            lines.append("| " + (names + values).joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
