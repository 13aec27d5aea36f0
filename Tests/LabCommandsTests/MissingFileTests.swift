import Foundation
import TestSupport
import Testing

/// A file that is not there is bad input: one line saying what was to be read, where, and why, and exit status 2
/// — never a crash, nor an error's whole debug description.
@Suite("Missing and unreadable files")
struct MissingFileTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "missing-\(UUID().uuidString)")

    @Test(
        "each verb names the file, what it is and why it cannot be read, on one line, and exits 2",
        arguments: [
            (["run", "nope.yaml"], "stacklab: ", "nope.yaml: cannot read the scenario file: no such file"),
            (["check", "nope.yaml"], "stacklab: ", "nope.yaml: cannot read the scenario file: no such file"),
            (
                ["compare", "nope.csv", "other.csv"], "stacklab compare: ",
                "nope.csv: cannot read the result file: no such file"
            ),
            (
                ["merge", "nope.csv", "other.csv", "--out", "merged.csv"], "stacklab merge: ",
                "nope.csv: cannot read the result file: no such file"
            ),
            (
                ["report", "nope.csv", "--html", "report.html"], "stacklab report: ",
                "nope.csv: cannot read the result file: no such file"
            ),
            (
                ["serve", "--catalog", "nope.tsv"], "stacklab serve: ",
                "nope.tsv: cannot read the catalogue: no such file"
            ),
        ])
    func missingFile(arguments: [String], prefix: String, suffix: String) throws {
        let paths = arguments.map { $0.contains(".") ? Self.folder.appendingPathComponent($0).path : $0 }
        let (status, output) = try StackLabBinary.run(paths)
        let lines = output.split(separator: "\n")
        #expect(status == 2)
        #expect(lines.count == 1, "one line: \(output)")
        #expect(lines.first?.hasPrefix(prefix + Self.folder.path) == true, "\(output)")
        #expect(lines.first?.hasSuffix(suffix) == true, "\(output)")
    }

    @Test("a folder given as a scenario file is named as a folder")
    func folder() throws {
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        let (status, output) = try StackLabBinary.run(["run", Self.folder.path])
        #expect(status == 2)
        #expect(output == "stacklab: \(Self.folder.path): cannot read the scenario file: a folder, not a file\n")
    }
}
