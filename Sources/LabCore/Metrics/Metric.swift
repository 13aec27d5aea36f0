import Foundation

/// A metric column of the lab's CSV, as the workload that measures it declares it: its name (with its unit,
/// `main_max_stall_ms`), what its numbers count, which way it gets better, the group it belongs to and how many
/// digits the CSV keeps.
///
/// The lab core declares only what every run has (`wallMilliseconds`, `cpuMilliseconds`,
/// `peakMemoryMegabytes`); every other metric is declared by its workload, in the workload's own module, as
/// package-benchmark's benchmarks declare theirs. The runner writes each declaration into the run's `.env.json`
/// sidecar, so `compare`, `report` and `gate` judge and label a CSV by what its workload said.
///
/// For example, in a workload's module:
/// ```swift
/// extension Metric {
///     static let changeToScreen = Metric(
///         "change_to_screen_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: "main thread",
///         about: "from a background save to the first frame that shows it")
/// }
/// ```
/// Two metrics are the same metric when their names are: a name is a CSV column.
public struct Metric: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The CSV column, named with its unit (`fetch_p99_ms`, `objects_per_s`).
    public let name: String
    /// What the numbers count.
    public let unit: MetricUnit
    /// Which way the metric gets better; `compare` judges a change by it and the charts label it.
    public let polarity: MetricPolarity
    /// What the metric belongs to (`"main thread"`, `"import phases"`): charts stack a group's metrics, and
    /// listings keep a group together.
    public let group: String
    /// Digits after the decimal point in the CSV.
    public let decimals: Int
    /// One line on what the metric measures, for listings and reports.
    public let about: String

    /// Declares a metric; `decimals` defaults to 3 for times and 0 for counts.
    public init(
        _ name: String, unit: MetricUnit, polarity: MetricPolarity, group: String = "", decimals: Int? = nil,
        about: String = ""
    ) {
        self.name = name
        self.unit = unit
        self.polarity = polarity
        self.group = group
        self.decimals = decimals ?? unit.defaultDecimals
        self.about = about
    }

    public static func == (lhs: Metric, rhs: Metric) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }

    /// Whether the metric is a yes/no fact, written `true`/`false`.
    public var isFlag: Bool { unit == .flag }

    /// The value as a CSV cell.
    public func format(_ value: Double) -> String {
        isFlag ? (value != 0 ? "true" : "false") : String(format: "%.\(decimals)f", value)
    }

    /// The same declaration under another name: a CSV's column for the metric when its own name is taken.
    func renamed(_ name: String) -> Metric {
        name == self.name
            ? self : Metric(name, unit: unit, polarity: polarity, group: group, decimals: decimals, about: about)
    }

    /// The label of a chart axis showing the metric: its name and which way is better.
    public var axisLabel: String {
        switch polarity {
        case .lowerIsBetter: return "\(name) — lower is better"
        case .higherIsBetter: return "\(name) — higher is better"
        case .neutral: return name
        }
    }

    enum CodingKeys: String, CodingKey {
        case name, unit, group, decimals, about
        case polarity = "better"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let unit = try container.decode(MetricUnit.self, forKey: .unit)
        self.init(
            try container.decode(String.self, forKey: .name), unit: unit,
            polarity: try container.decode(MetricPolarity.self, forKey: .polarity),
            group: try container.decodeIfPresent(String.self, forKey: .group) ?? "",
            decimals: try container.decodeIfPresent(Int.self, forKey: .decimals),
            about: try container.decodeIfPresent(String.self, forKey: .about) ?? "")
    }
}

// MARK: - What every run has

extension Metric {
    /// The group of the metrics every run has.
    public static let runGroup = "run"

    /// Wall time of the run's measured phase (the workload says where it starts and ends).
    public static let wallMilliseconds = Metric(
        "wall_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: runGroup, decimals: 1,
        about: "wall time of the measured phase")
    /// CPU time (user + system) over the run or its measured phase.
    public static let cpuMilliseconds = Metric(
        "cpu_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: runGroup, decimals: 1,
        about: "CPU time, user + system, of the measured work")
    /// Peak resident memory of the process during the run.
    public static let peakMemoryMegabytes = Metric(
        "peak_rss_mb", unit: .megabytes, polarity: .lowerIsBetter, group: runGroup, decimals: 1,
        about: "peak resident memory of the process during the run (VmHWM, reset before each run)")

    /// The columns of every lab CSV, before the workload's own: what the runner measures or every workload
    /// reports, empty where a run has none.
    public static let common: [Metric] = [.wallMilliseconds, .cpuMilliseconds, .peakMemoryMegabytes]
}
