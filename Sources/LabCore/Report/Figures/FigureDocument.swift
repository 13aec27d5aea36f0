import Foundation

/// A Markdown document whose figures come from result CSVs: each quoted number sits between marker comments that
/// say where it comes from, and `regenerated` writes what the CSVs say between them. Readers (GitHub, DocC) do not
/// show the comments.
///
/// An inline figure is `<!--fig QUERY-->0.74–2.3<!--/fig-->` (`FigureQuery`); a table is `<!--table QUERY-->`, the
/// table on the lines after it, then `<!--/table-->` (`FigureTable`).
///
/// For example, after the baselines are re-run:
/// ```swift
/// let document = FigureDocument(text: readme, path: "README.md")
/// let result = try document.regenerated { source in try ResultTable(contentsOf: url(of: source)) }
/// if !result.changes.isEmpty { try result.text.write(to: readmeURL, atomically: true, encoding: .utf8) }
/// ```
public struct FigureDocument: Sendable {
    /// A figure whose text the CSV changes.
    public struct Change: Sendable, Equatable, CustomStringConvertible {
        /// The document and the line of the figure's marker.
        public var path: String
        public var line: Int
        /// The marker's query.
        public var query: String
        /// What the document says, and what the CSV gives.
        public var was: String
        public var now: String

        /// `README.md:118: concurrency main_max_stall_ms …: says 0.74–2.3, the CSV gives 0.75–2.3`.
        public var description: String {
            "\(path):\(line): \(query): says \(Self.oneLine(was)), the CSV gives \(Self.oneLine(now))"
        }

        private static func oneLine(_ text: String) -> String {
            text.contains("\n") ? "a table (\(text.split(separator: "\n").count) lines) that differs" : "'\(text)'"
        }
    }

    /// The document's text.
    public let text: String
    /// Its path, for messages.
    public let path: String

    /// A document of `text`, read from `path`.
    public init(text: String, path: String) {
        self.text = text
        self.path = path
    }

    /// How many figures (inline and tables) the document has.
    public var figureCount: Int {
        text.matches(of: Self.inline).count + text.matches(of: Self.table).count
    }

    /// The document with every figure as `table` reads its source, and the figures that changed.
    /// - Parameter table: the result table of a source (`concurrency`, `results/charts/x.csv`).
    /// - Throws: `LabError.invalidResults` naming the document's line for a marker that cannot be read or answered.
    public func regenerated(_ table: (String) throws -> ResultTable) throws -> (text: String, changes: [Change]) {
        var changes: [Change] = []
        func line(of index: String.Index) -> Int { text[..<index].filter { $0 == "\n" }.count + 1 }
        func located(_ error: any Error, at index: String.Index) -> LabError {
            let message = (error as? LabError)?.message ?? "\(error)"
            return LabError(.invalidResults, "\(path):\(line(of: index)): \(message)")
        }
        var result = text
        // Replaced from the end, so the earlier matches' ranges stay valid.
        let inline = text.matches(of: Self.inline).map { ($0.range, String($0.output.1), String($0.output.2), false) }
        let tables = text.matches(of: Self.table).map { ($0.range, String($0.output.1), String($0.output.2), true) }
        for (range, query, was, isTable) in (inline + tables).sorted(by: { $0.0.lowerBound > $1.0.lowerBound }) {
            let now: String
            do {
                if isTable {
                    let spec = try FigureTable(query)
                    now = try spec.markdown(from: try table(spec.source))
                } else {
                    let spec = try FigureQuery(query)
                    now = try spec.text(from: try table(spec.source))
                }
            } catch {
                throw located(error, at: range.lowerBound)
            }
            let trimmed = was.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed != now {
                changes.append(
                    Change(path: path, line: line(of: range.lowerBound), query: query, was: trimmed, now: now))
            }
            result.replaceSubrange(
                range,
                with: isTable ? "<!--table \(query)-->\n\(now)\n<!--/table-->" : "<!--fig \(query)-->\(now)<!--/fig-->")
        }
        return (result, changes.reversed())
    }

    /// An inline figure: its query and its text. (Built when asked: a `Regex` is not `Sendable`.)
    static var inline: Regex<(Substring, Substring, Substring)> {
        #/<!--fig (.*?)-->(.*?)<!--/fig-->/#.dotMatchesNewlines()
    }
    /// A table of figures: its query and its lines.
    static var table: Regex<(Substring, Substring, Substring)> {
        #/<!--table (.*?)-->(.*?)<!--/table-->/#.dotMatchesNewlines()
    }
}
