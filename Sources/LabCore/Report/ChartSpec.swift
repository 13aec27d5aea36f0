/// A chart a workload declares for its results, which `stacklab report` draws from any result file of the
/// workload (inline in the HTML page, and as standalone SVG files with `--charts`).
///
/// Two kinds: lines of one value against a parameter (one line per series, a chart per panel), and stacked
/// bars of a metric group per cell (where a run's time went). Columns that do not vary in a file are dropped
/// from its series and panels; a lines chart whose axis is `.swept` and finds no swept number is drawn as bars
/// of its value per cell.
///
/// For example, the stall against the batch size, a line per concurrency strategy, a chart per store:
/// ```swift
/// ChartSpec.lines(
///     .metric("main_max_stall_ms"), against: .swept, series: ["strategy"], panels: ["store"], xLog: true,
///     yLog: true, yLabel: "longest main-thread stall (ms)")
/// ```
public struct ChartSpec: Sendable {
    /// The two kinds of chart.
    public enum Kind: Sendable, Equatable {
        /// Lines of `value` against `x`.
        case lines
        /// The metrics of `group` stacked per cell, in declaration order.
        case stack
    }

    /// What a chart's x axis shows.
    public enum Axis: Sendable, Equatable {
        /// This parameter column (numeric).
        case column(String)
        /// The one numeric parameter, other than the series and panel columns, that the file sweeps over three
        /// values or more; without one the chart is drawn as bars.
        case swept
    }

    /// What a lines chart shows on its y axis.
    public enum Value: Sendable, Equatable {
        /// A metric column.
        case metric(String)
        /// One metric over another, run by run (merge-cost's time per merge: `merge_total_ms` per `merges`),
        /// named `name`.
        case ratio(String, per: String, name: String)

        /// The name the value goes by in titles and hover text.
        public var name: String {
            switch self {
            case .metric(let metric): return metric
            case .ratio(_, _, let name): return name
            }
        }

        /// The metric columns it reads; the chart is left out when a file has none of them.
        var columns: [String] {
            switch self {
            case .metric(let metric): return [metric]
            case .ratio(let metric, let per, _): return [metric, per]
            }
        }
    }

    public var kind: Kind
    /// Lines: the value on the y axis.
    public var value: Value
    /// Stack: the group whose metrics are stacked (`Metric.group`).
    public var group: String
    /// Lines: the x axis.
    public var x: Axis
    /// Lines: the columns whose values make the lines: the first gives the colour, the second the dash.
    public var series: [String]
    /// A chart per combination of these columns' values (only those that vary and are not given by the series).
    public var panels: [String]
    public var xLog: Bool
    public var yLog: Bool
    /// The title after the panel's name; nil: the value's name.
    public var title: String?
    /// Axis labels; nil: the column's name, and the value's name with which way is better.
    public var xLabel: String?
    public var yLabel: String?
    /// A metric column whose values are drawn as dashed horizontal lines (the watchdog deadline).
    public var rule: String?
    /// A flag metric column: the runs where it is true are drawn as ✕ at the rule (launches the watchdog killed)
    /// and counted in hover text and legends.
    public var killed: String?
    /// Two values of the first series column: the chart says at which x the second is clearly lower than the
    /// first (every run of one below every run of the other), and where it is not.
    public var contrast: [String]
    /// The colour of a series value (a mode); concurrency strategies have theirs from their declarations.
    public var colors: [String: String]
    /// The report's own charts of an undeclared workload: every varying column but the x axis makes the series.
    var autoSeries = false

    /// Lines of `value` against `x`.
    public static func lines(
        _ value: Value, against x: Axis, series: [String] = [], panels: [String] = [], xLog: Bool = false,
        yLog: Bool = false, title: String? = nil, xLabel: String? = nil, yLabel: String? = nil, rule: String? = nil,
        killed: String? = nil, contrast: [String] = [], colors: [String: String] = [:]
    ) -> ChartSpec {
        ChartSpec(
            kind: .lines, value: value, group: "", x: x, series: series, panels: panels, xLog: xLog, yLog: yLog,
            title: title, xLabel: xLabel, yLabel: yLabel, rule: rule, killed: killed, contrast: contrast,
            colors: colors)
    }

    /// The metrics of `group` stacked per cell, a chart per value of the `panels` columns.
    public static func stack(group: String, panels: [String] = [], title: String? = nil) -> ChartSpec {
        ChartSpec(
            kind: .stack, value: .metric(""), group: group, x: .swept, series: [], panels: panels, xLog: false,
            yLog: false, title: title, xLabel: nil, yLabel: nil, rule: nil, killed: nil, contrast: [], colors: [:])
    }
}
