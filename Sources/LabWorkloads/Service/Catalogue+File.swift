import Foundation
import LabCore

extension Catalogue {
    /// The TSV columns a catalogue file may have; `name`, `version` and `authors` are required.
    public static let tsvColumns = [
        "name", "version", "authors", "homepage", "license", "summary", "downloads", "updated",
    ]

    /// Reads a catalogue file: JSON Lines (one spec object per line) when its first non-blank character is `{`,
    /// otherwise TSV with a header row naming the columns.
    /// - Throws: `LabError.invalidCatalogue` naming the file, the line and what is wrong.
    public static func load(_ url: URL) throws -> Catalogue {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw LabError(.invalidCatalogue, "\(url.path): cannot read the catalogue: \(FileReadFailure(error))")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let specs =
            first?.trimmingCharacters(in: .whitespaces).hasPrefix("{") == true
            ? try jsonLines(lines, path: url.path)
            : try tsv(lines, path: url.path)
        var seen = Set<PodKey>()
        for (index, spec) in specs.enumerated() where !seen.insert(spec.key).inserted {
            throw LabError(
                .invalidCatalogue,
                "\(url.path): spec \(index + 1) repeats \(spec.name) \(spec.version); expected each name and version once"
            )
        }
        return Catalogue(specs: specs)
    }

    private static func jsonLines(_ lines: [Substring], path: String) throws -> [PodSpec] {
        let decoder = JSONDecoder()
        return try lines.enumerated().compactMap { number, line in
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            do {
                return try decoder.decode(PodSpec.self, from: Data(line.utf8))
            } catch {
                throw LabError(
                    .invalidCatalogue,
                    "\(path):\(number + 1): not a pod spec; expected a JSON object with name, version and authors",
                    cause: error)
            }
        }
    }

    private static func tsv(_ lines: [Substring], path: String) throws -> [PodSpec] {
        guard let headerIndex = lines.firstIndex(where: { !$0.isEmpty }) else { return [] }
        let header = lines[headerIndex].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        for column in header where !tsvColumns.contains(column) {
            throw LabError(
                .invalidCatalogue,
                "\(path):\(headerIndex + 1): unknown column '\(column)'; expected a header row of \(tsvColumns.joined(separator: ", "))"
            )
        }
        for required in ["name", "version", "authors"] where !header.contains(required) {
            throw LabError(.invalidCatalogue, "\(path):\(headerIndex + 1): the header has no '\(required)' column")
        }
        var specs: [PodSpec] = []
        for lineIndex in lines.indices.dropFirst(headerIndex + 1) where !lines[lineIndex].isEmpty {
            let number = lineIndex
            let cells = lines[lineIndex].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == header.count else {
                throw LabError(
                    .invalidCatalogue,
                    "\(path):\(number + 1): \(cells.count) cells; expected \(header.count), one per header column")
            }
            let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
            func optional(_ key: String) -> String? { row[key].flatMap { $0.isEmpty ? nil : $0 } }
            func parse<T: LosslessStringConvertible>(_ key: String, _: T.Type) throws -> T? {
                guard let text = optional(key) else { return nil }
                guard let value = T(text) else {
                    throw LabError(.invalidCatalogue, "\(path):\(number + 1): \(key) is '\(text)'; expected a number")
                }
                return value
            }
            guard let name = optional("name"), let version = optional("version"), let authors = optional("authors")
            else {
                throw LabError(.invalidCatalogue, "\(path):\(number + 1): name, version and authors must not be empty")
            }
            specs.append(
                PodSpec(
                    name: name, version: version, authors: authors, homepage: optional("homepage"),
                    license: optional("license"),
                    summary: optional("summary"), downloads: try parse("downloads", Int64.self) ?? 0,
                    updated: try parse("updated", Double.self) ?? 0))
        }
        return specs
    }
}
