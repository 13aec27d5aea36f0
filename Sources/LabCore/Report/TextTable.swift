/// Right-aligned text tables for terminal summaries: a header, a rule, then rows.
public enum TextTable {
    /// Renders `rows` under `header`, each column as wide as its widest cell; columns in `leftAligned`
    /// (text such as names) start at the left edge, the others (numbers) end at the right.
    public static func render(header: [String], rows: [[String]], leftAligned: Set<Int> = []) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in
            all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        return all.enumerated().map { index, row in
            let line = widths.indices.map { column in
                let cell = row.indices.contains(column) ? row[column] : ""
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return leftAligned.contains(column) ? cell + padding : padding + cell
            }.joined(separator: "  ")
            return index == 0 ? line + "\n" + String(repeating: "-", count: line.count) : line
        }.joined(separator: "\n")
    }
}
