/// Short names for the cells of a comparison: a column with one value in every row (the scenario, the
/// workload, a parameter the matrix does not sweep) is said once, in a caption, and each row names its cell by
/// the columns that vary, one table column each.
public struct CellLabels: Sendable {
    /// The columns with the same value in every row, with that value (empty values left out).
    public let constant: [(column: String, value: String)]
    /// The columns whose value differs between rows, in the files' column order.
    public let varying: [String]

    /// Labels for `rows`; `columns` gives the cell columns' order (`ResultComparison.cellColumns`).
    public init(_ rows: [ResultComparison.Row], columns: [String]) {
        var constant: [(column: String, value: String)] = []
        var varying: [String] = []
        for column in columns {
            let values = Set(rows.map { $0.cell[column] ?? "" })
            if values.count > 1 {
                varying.append(column)
            } else if let value = values.first, !value.isEmpty {
                constant.append((column, value))
            }
        }
        self.constant = constant
        self.varying = varying
    }

    /// What every row shares, as `scenario startup, workload startup; in every row: objects=10000`.
    public var caption: String {
        let named = constant.filter { ["scenario", "workload"].contains($0.column) }
        let others = constant.filter { !["scenario", "workload"].contains($0.column) }
        var parts = named.map { "\($0.column) \($0.value)" }.joined(separator: ", ")
        if !others.isEmpty {
            parts +=
                (parts.isEmpty ? "" : "; ") + "in every row: "
                + others.map { "\($0.column)=\($0.value)" }.joined(separator: " ")
        }
        return parts
    }
}
