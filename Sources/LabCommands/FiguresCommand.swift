import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab figures`: the numbers Markdown documents quote, regenerated from the result CSVs their markers name,
/// or checked against them (`--check`, as CI runs it).
struct FiguresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "figures",
        abstract: "Regenerate the figures Markdown documents quote from the result CSVs they name, or check them.",
        discussion: """
            A figure is a marker comment around its text: <!--fig SOURCE VALUE [column=value…] [range|list] \
            [div=N dp=N …]-->0.74–2.3<!--/fig-->, or a table: <!--table SOURCE rows=A,B col=METRIC…--> …table… \
            <!--/table-->. SOURCE is a committed baseline's name (results/baselines/NAME.csv) or a CSV's path from \
            --root; the figure is the median of each matching cell's runs, folded over the cells. With \
            vs=COLUMN:A/B it is a verdict from the runs instead: each cell with COLUMN=A against its twin with B, \
            as the 95% interval of the ratio (`3.1–4.6× less`, `1.2–1.5× more`), `the same within 10%` \
            (threshold=N sets the band) or `unresolved (…)`; words=LESS,MORE changes the words. Without --check \
            the documents are rewritten in place. Exit status: 0 every figure matches (or was rewritten), 1 --check \
            found a figure that differs from its CSV, 2 bad input (a marker that cannot be read or answered).
            """)

    @Argument(help: "Markdown documents (README.md, DocC articles).") var documents: [String]
    @Flag(help: "Change nothing: list each figure that differs from its CSV and exit 1 if any does.") var check = false
    @Option(help: "The repository's root, where sources' paths start.") var root = "."

    func run() throws {
        let root = URL(fileURLWithPath: root, isDirectory: true)
        var tables: [String: ResultTable] = [:]
        func table(_ source: String) throws -> ResultTable {
            if let table = tables[source] { return table }
            let path = source.contains("/") || source.hasSuffix(".csv") ? source : "results/baselines/\(source).csv"
            let table = try ResultTable(contentsOf: root.appendingPathComponent(path))
            tables[source] = table
            return table
        }
        var changes: [FigureDocument.Change] = []
        for path in documents {
            let text: String
            do {
                text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
            } catch {
                throw failure(verb: "figures", "\(path): cannot read the document: \(FileReadFailure(error))")
            }
            let document = FigureDocument(text: text, path: path)
            let result: (text: String, changes: [FigureDocument.Change])
            do {
                result = try document.regenerated(table)
            } catch {
                throw failure(verb: "figures", "\(error)")
            }
            changes += result.changes
            if !check, !result.changes.isEmpty {
                try Data(result.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
            print("\(path): \(document.figureCount) figures, \(result.changes.count) \(check ? "differ" : "rewritten")")
        }
        if check, !changes.isEmpty {
            for change in changes { FileHandle.standardError.write(Data("\(change)\n".utf8)) }
            throw failure(
                verb: "figures", "\(changes.count) figure(s) differ from their CSVs; scripts/figures.sh rewrites them",
                status: .regression)
        }
    }
}
