import Foundation

/// One figure a document quotes, as its marker spells it: the result CSV it comes from, which value of which cells,
/// how each cell's runs and then the cells are folded into one number or a range, and how it is written.
///
/// A marker's words, after the source (a baseline's name, `concurrency`, or a CSV's path from the repository's root):
/// - the value: a metric column (`main_max_stall_ms`), `repetitions` (the runs each matching cell has, `4–6` when they
///   differ, as under a budget), `commit` or `duration` (the sidecar's, the
///   last in seconds), or `param:NAME` (a fixed parameter from the sidecar, or a matrix column's values);
/// - filters, `column=value` or `column=a,b`, keeping the cells that match;
/// - per cell: `stat=median` (the default; `min`, `max`, `mean`, `sum`, `count` of runs), `per=METRIC` (each
///   run's value over another metric of the run), `ratio=COLUMN:A/B` (each cell with COLUMN=A over its twin with B,
///   medians), `vs=COLUMN:A/B` (the same two cells compared from their runs: the ratio's 95% interval and its verdict
///   as a phrase, `FigureQuery+Versus.swift`; `threshold=10` sets the band in percent, `words=less,more` the words);
/// - over the cells: nothing (exactly one cell), `range` (`5.2–18`), `list` (`18, 36 and 135`), `min`, `max`,
///   `count` (how many cells have a number) or `sum`;
///   `to` writes a range as `1,000 to 100,000`;
/// - the number: `sig=N`, `dp=N`, `div=N`, `round=N`, `nosep` (`FigureFormat`).
///
/// For example, the main-only strategy's longest stall over every store and batch size, in seconds:
/// ```swift
/// let query = try FigureQuery("concurrency main_max_stall_ms strategy=main-only range div=1000")
/// query.text(from: table)  // "0.74–2.3"
/// ```
public struct FigureQuery: Sendable, Equatable {
    /// What the figure reads.
    public enum Value: Sendable, Equatable {
        /// A metric column's values.
        case metric(String)
        /// The commit the sidecar records, shortened (`6d90a59`, `+dirty` when the tree had changes).
        case commit
        /// The runs each matching cell has in the CSV, from the fewest to the most.
        case repetitions
        /// How long the run took, in seconds, from the sidecar's start and finish.
        case duration
        /// A parameter: fixed (from the sidecar) or a matrix column's values.
        case parameter(String)
    }

    /// How a cell's runs make one number.
    public enum Statistic: String, Sendable, CaseIterable {
        case median, min, max, mean, sum, count
    }

    /// Each cell with `column` equal to one of `over`, divided by its twin with `column` equal to `under` (every
    /// other column the same).
    public struct Ratio: Sendable, Equatable {
        public var column: String
        public var over: [String]
        public var under: String
    }

    /// How the cells' numbers make the figure.
    public enum Fold: String, Sendable, CaseIterable {
        /// Exactly one cell's number.
        case one
        /// The smallest and the largest, `5.2–18`.
        case range
        /// Every number in the file's order, `18, 36 and 135`.
        case list
        /// The smallest, or the largest.
        case min, max
        /// How many cells have a number.
        case count
        /// The numbers added up (`stat=count sum`: every run of the cells).
        case sum
    }

    /// The result CSV: a baseline's name or a path from the repository's root.
    public var source: String
    public var value: Value
    /// Column → the values a cell may have.
    public var filters: [String: [String]] = [:]
    public var statistic = Statistic.median
    /// A metric each run's value is divided by.
    public var per: String?
    /// Cells over their twins, when the figure is a ratio of medians.
    public var ratio: Ratio?
    /// Cells against their twins, when the figure is a comparison: the ratio's interval and verdict, as a phrase.
    public var versus: Ratio?
    /// The band of a comparison: within ±threshold is the same (0.10).
    public var threshold = 0.10
    /// The words a comparison's phrase says a ratio below and above 1 with (`less`, `more`).
    public var words = ["less", "more"]
    public var fold = Fold.one
    /// Between the ends of a range.
    public var rangeSeparator = "–"
    public var format = FigureFormat()

    /// Parses a marker's words.
    /// - Throws: `LabError.invalidResults` naming the word it does not understand.
    public init(_ text: String) throws {
        var words = try FigureWords.split(text)[...]
        guard let source = words.popFirst(), let value = words.popFirst() else {
            throw LabError(
                .invalidResults, "figure '\(text)': expected a source and a value, such as 'concurrency wall_ms'")
        }
        self.source = source
        switch value {
        case "commit": self.value = .commit
        case "repetitions": self.value = .repetitions
        case "duration": self.value = .duration
        case _ where value.hasPrefix("param:"): self.value = .parameter(String(value.dropFirst("param:".count)))
        default: self.value = .metric(value)
        }
        for word in words {
            if let fold = Fold(rawValue: word) {
                self.fold = fold
            } else if word == "to" {
                rangeSeparator = " to "
            } else if word == "nosep" {
                format.separatesThousands = false
            } else if let (key, argument) = FigureWords.pair(word) {
                try apply(key, argument, in: text)
            } else {
                throw LabError(.invalidResults, "figure '\(text)': '\(word)' is not a filter, a fold or an option")
            }
        }
    }

    private mutating func apply(_ key: String, _ argument: String, in text: String) throws {
        func number() throws -> Double {
            guard let number = Double(argument.replacingOccurrences(of: "_", with: "")) else {
                throw LabError(.invalidResults, "figure '\(text)': \(key)=\(argument) is not a number")
            }
            return number
        }
        switch key {
        case "stat":
            guard let statistic = Statistic(rawValue: argument) else {
                throw LabError(
                    .invalidResults,
                    "figure '\(text)': stat=\(argument); expected \(Statistic.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            self.statistic = statistic
        case "per": per = argument
        case "ratio", "vs":
            let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
            let sides = parts.count == 2 ? parts[1].split(separator: "/").map(String.init) : []
            guard sides.count == 2 else {
                throw LabError(.invalidResults, "figure '\(text)': \(key)=\(argument); expected \(key)=COLUMN:A/B")
            }
            let pair = Ratio(column: parts[0], over: sides[0].split(separator: ",").map(String.init), under: sides[1])
            if key == "vs" { versus = pair } else { ratio = pair }
        case "threshold": threshold = try number() / 100
        case "words":
            let both = argument.split(separator: ",").map(String.init)
            guard both.count == 2 else {
                throw LabError(.invalidResults, "figure '\(text)': words=\(argument); expected words=LESS,MORE")
            }
            words = both
        case "sig": format.significantDigits = Int(try number())
        case "dp": format.decimals = Int(try number())
        case "div": format.divisor = try number()
        case "round": format.multiple = try number()
        default: filters[key] = argument.split(separator: ",").map(String.init)
        }
    }
}
