import Foundation
import Yams

/// Reads scenario files (YAML) into validated `Scenario`s, with errors that name the file, the line and
/// what was expected.
///
/// For example:
/// ```swift
/// let scenario = try ScenarioFile.load(URL(fileURLWithPath: "Scenarios/concurrency.yaml"))
/// ```
public enum ScenarioFile {
    /// The keys a scenario file may have at its top level.
    public static let topLevelKeys = [
        "name", "workload", "model", "store_file", "version", "population", "first_screen", "import_key", "repetitions",
        "warmup",
        "budget", "max_repetitions", "reference", "parameters", "matrix", "cases",
    ]

    /// The document as written, before validation.
    struct Document: Decodable {
        var name: String
        var workload: String
        var model: String?
        var storeFile: String?
        var version: String?
        var population: [String: ScenarioValue]?
        var firstScreen: FirstScreenSpec?
        var importKey: [String: AttributeNames]?
        var repetitions: Int?
        var warmup: Int?
        var budget: ScenarioValue?
        var maxRepetitions: Int?
        var reference: String?
        var parameters: [String: ScenarioValue]?
        var matrix: [String: [ScenarioValue]]?
        var cases: [[String: ScenarioValue]]?

        private enum CodingKeys: String, CodingKey {
            case name, workload, model, version, population, repetitions, warmup, budget, reference, parameters, matrix
            case cases
            case firstScreen = "first_screen"
            case importKey = "import_key"
            case storeFile = "store_file"
            case maxRepetitions = "max_repetitions"
        }
    }

    /// Attribute names as written: one name (`Country: isoCode`) or a list (`Country: [isoCode, region]`).
    struct AttributeNames: Decodable {
        var names: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let names = try? container.decode([String].self) {
                self.names = names
            } else {
                names = [try container.decode(String.self)]
            }
        }
    }

    /// Reads and validates a scenario file.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE: what is wrong; expected …`.
    public static func load(_ url: URL, workloads: WorkloadRegistry) throws -> Scenario {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw LabError(.invalidScenario, "\(url.path): cannot read the scenario file: \(FileReadFailure(error))")
        }
        return try parse(text, file: url, workloads: workloads)
    }

    /// Validates scenario text; `file` names it in errors.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE: what is wrong; expected …`.
    public static func parse(_ text: String, file: URL, workloads: WorkloadRegistry) throws -> Scenario {
        let reader = Reader(text: text, path: file.path, workloads: workloads)
        let root = try reader.compose()
        let document = try reader.decode(root)
        return try reader.validate(document, root: root, file: file)
    }

    /// The header comment: the `#` lines before the first key, without the `#`.
    static func header(of text: String) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("#") || trimmed.isEmpty else { break }
            guard trimmed.hasPrefix("#") else { continue }
            lines.append(trimmed.dropFirst().trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}

extension ScenarioFile {
    /// One file's text and the errors that point into it.
    struct Reader {
        let text: String
        let path: String
        let workloads: WorkloadRegistry

        func error(line: Int?, _ message: String) -> LabError {
            LabError(.invalidScenario, "\(path):\(line.map(String.init) ?? "1"): \(message)")
        }

        // MARK: - Syntax

        func compose() throws -> Node {
            let node: Node?
            do {
                node = try Yams.compose(yaml: text)
            } catch let yaml as YamlError {
                throw error(line: Self.line(of: yaml), "not valid YAML: \(Self.problem(of: yaml))")
            }
            guard let node, case .mapping(let mapping) = node else {
                throw error(
                    line: node?.mark?.line,
                    "a scenario is a mapping of keys (name, workload, …); expected `key: value` lines")
            }
            for (key, _) in mapping {
                guard let name = key.string, ScenarioFile.topLevelKeys.contains(name) else {
                    throw error(
                        line: key.mark?.line,
                        "unknown key '\(key.string ?? "?")'; expected one of \(ScenarioFile.topLevelKeys.joined(separator: ", "))"
                    )
                }
            }
            return node
        }

        static func line(of error: YamlError) -> Int? {
            switch error {
            case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
            case .duplicatedKeysInMapping(_, let context): return context.mark.line
            default: return nil
            }
        }

        static func problem(of error: YamlError) -> String {
            switch error {
            case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
                return problem
            case .duplicatedKeysInMapping(let duplicates, _):
                return "duplicated key(s) \(duplicates.joined(separator: ", "))"
            default: return "\(error)"
            }
        }

        // MARK: - Types

        func decode(_ root: Node) throws -> Document {
            do {
                return try YAMLDecoder().decode(Document.self, from: root)
            } catch let decoding as DecodingError {
                throw describe(decoding, root: root)
            }
        }

        /// Maps a decoding error's coding path back to the node it names, for its line.
        func describe(_ decoding: DecodingError, root: Node) -> LabError {
            switch decoding {
            case .keyNotFound(let key, let context):
                let line = Self.node(at: context.codingPath, in: root)?.mark?.line
                let place = context.codingPath.isEmpty ? "the scenario" : Self.dotted(context.codingPath)
                return error(line: line, "missing key '\(key.stringValue)' in \(place)")
            case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
                let line = Self.node(at: context.codingPath, in: root)?.mark?.line
                return error(
                    line: line,
                    "\(Self.dotted(context.codingPath)) has the wrong type; expected \(Self.expected(type, at: context.codingPath))"
                )
            case .dataCorrupted(let context):
                let line = Self.node(at: context.codingPath, in: root)?.mark?.line
                return error(line: line, "\(Self.dotted(context.codingPath)): \(context.debugDescription)")
            @unknown default:
                return error(line: nil, "\(decoding)")
            }
        }

        static func expected(_ type: Any.Type, at path: [any CodingKey]) -> String {
            if path.first?.stringValue == "matrix", path.count == 2 {
                return "a list of values, such as [sqlite, lmdb]"
            }
            if path.first?.stringValue == "matrix", path.count == 1 { return "a mapping of parameter → list of values" }
            if path.first?.stringValue == "parameters", path.count == 1 { return "a mapping of parameter → value" }
            if type == Int.self { return "an integer" }
            if type == String.self {
                return path.first?.stringValue == "parameters" || path.count > 1 ? "a single value" : "text"
            }
            return "\(type)"
        }

        static func dotted(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }

        /// The node a coding path names (as far as it exists), so an error can name its line.
        static func node(at path: [any CodingKey], in root: Node) -> Node? {
            var current = root
            for key in path {
                switch current {
                case .mapping(let mapping):
                    guard let value = mapping.first(where: { $0.key.string == key.stringValue })?.value else {
                        return current
                    }
                    current = value
                case .sequence(let sequence):
                    guard let index = key.intValue, sequence.indices.contains(index) else { return current }
                    current = sequence[index]
                default:
                    return current
                }
            }
            return current
        }

        /// The line of the key `name` inside the mapping at `path`.
        func keyLine(_ name: String, under path: [String], in root: Node) -> Int? {
            var current = root
            for component in path {
                if let next = current.mapping?.first(where: { $0.key.string == component })?.value {
                    current = next
                } else if let index = Int(component), let sequence = current.sequence, sequence.indices.contains(index)
                {
                    current = sequence[index]
                } else {
                    return nil
                }
            }
            return current.mapping?.first(where: { $0.key.string == name })?.key.mark?.line
        }

        func valueLine(_ path: [String], in root: Node) -> Int? {
            var current = root
            for component in path {
                if let mapping = current.mapping, let next = mapping.first(where: { $0.key.string == component })?.value
                {
                    current = next
                } else if let index = Int(component), let sequence = current.sequence, sequence.indices.contains(index)
                {
                    current = sequence[index]
                } else {
                    return current.mark?.line
                }
            }
            return current.mark?.line
        }

        // MARK: - Values

        func validate(_ document: Document, root: Node, file: URL) throws -> Scenario {
            guard let workload = workloads[document.workload] else {
                if let program = workloads.elsewhere[document.workload] {
                    let line = valueLine(["workload"], in: root).map(String.init) ?? "1"
                    throw LabError(
                        .otherProgram,
                        "\(path):\(line): workload '\(document.workload)' is run by \(program), not by this program: "
                            + "swift run -c release \(program) run \(file.relativePath)")
                }
                throw error(
                    line: valueLine(["workload"], in: root),
                    "unknown workload '\(document.workload)'; expected one of \(workloads.names.joined(separator: ", "))"
                )
            }
            guard !document.name.isEmpty, document.name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
            else {
                throw error(
                    line: valueLine(["name"], in: root),
                    "name '\(document.name)' cannot name a CSV file; expected letters, digits, '-', '_' or '.'")
            }
            let modelText = document.model ?? workloads.defaultModel.description
            guard let model = ModelReference(modelText, builtins: workloads.builtinModels) else {
                let builtins = workloads.builtinModels.map { "builtin:\($0)" }.joined(separator: ", ")
                throw error(
                    line: valueLine(["model"], in: root),
                    "unknown model '\(modelText)'; expected \(builtins) or a path to an .xcdatamodel or .xcdatamodeld")
            }
            let modelFile = try loadModelFile(model, document, root: root, file: file)
            if modelFile != nil, document.importKey != nil, !workload.readsImportKeys {
                throw error(
                    line: keyLine("import_key", under: [], in: root),
                    "import_key names what an import finds objects by; workload \(workload.name) imports nothing, "
                        + "expected it only with workload: import")
            }
            if document.storeFile != nil, !workload.readsStoreFiles {
                throw error(
                    line: keyLine("store_file", under: [], in: root),
                    "store_file names a store to run on; workload \(workload.name) seeds its own store, expected it "
                        + "only with a workload that reads one ("
                        + workloads.names.filter { workloads[$0]?.readsStoreFiles == true }.joined(separator: ", ")
                        + ")")
            }
            try checkFirstScreen(document.firstScreen, model: model, root: root)
            let repetitions = document.repetitions ?? 3
            guard repetitions >= 1 else {
                throw error(
                    line: valueLine(["repetitions"], in: root), "repetitions is \(repetitions); expected an integer ≥ 1"
                )
            }
            let warmup = document.warmup ?? 0
            guard warmup >= 0 else {
                throw error(line: valueLine(["warmup"], in: root), "warmup is \(warmup); expected an integer ≥ 0")
            }

            let specs = Dictionary(uniqueKeysWithValues: workload.parameters.map { ($0.name, $0) })
            let known = workload.parameters.map(\.name).joined(separator: ", ")
            func spec(_ name: String, under section: String) throws -> ParameterSpec {
                guard let spec = specs[name] else {
                    throw error(
                        line: keyLine(name, under: [section], in: root),
                        "unknown parameter '\(name)' in \(section) for workload \(workload.name); expected one of \(known)"
                    )
                }
                return spec
            }
            func accept(_ value: ScenarioValue, _ spec: ParameterSpec, path: [String]) throws -> ScenarioValue {
                guard let accepted = spec.accept(value) else {
                    throw error(
                        line: valueLine(path, in: root),
                        "\(spec.name) is '\(value)'; expected \(spec.expected)")
                }
                return accepted
            }

            var parameters: [String: ScenarioValue] = [:]
            for (name, value) in document.parameters ?? [:] {
                parameters[name] = try accept(value, try spec(name, under: "parameters"), path: ["parameters", name])
            }
            // Axes in file order: the decoded dictionary has lost it, the node keeps it.
            let axisNames =
                root.mapping?.first { $0.key.string == "matrix" }?.value.mapping?.compactMap(\.key.string) ?? []
            var matrix: [Scenario.Axis] = []
            for name in axisNames {
                let spec = try spec(name, under: "matrix")
                if parameters[name] != nil {
                    throw error(
                        line: keyLine(name, under: ["matrix"], in: root),
                        "\(name) is both a fixed parameter and a matrix list; expected it in one place")
                }
                let values = document.matrix?[name] ?? []
                guard !values.isEmpty else {
                    throw error(
                        line: keyLine(name, under: ["matrix"], in: root),
                        "matrix list \(name) is empty; expected at least one value")
                }
                let accepted = try values.enumerated().map { index, value in
                    try accept(value, spec, path: ["matrix", name, String(index)])
                }
                guard Set(accepted).count == accepted.count else {
                    throw error(
                        line: keyLine(name, under: ["matrix"], in: root),
                        "matrix list \(name) repeats a value; expected distinct values")
                }
                matrix.append(Scenario.Axis(name: name, values: accepted))
            }
            let (cases, caseKeys) = try readCases(
                document.cases, root: root, taken: Set(parameters.keys).union(axisNames), accept: accept,
                spec: { name, index in
                    guard let spec = specs[name] else {
                        throw error(
                            line: keyLine(name, under: ["cases", String(index)], in: root),
                            "unknown parameter '\(name)' in case \(index + 1) for workload \(workload.name); "
                                + "expected one of \(known)")
                    }
                    return spec
                })
            for spec in workload.parameters
            where parameters[spec.name] == nil && !axisNames.contains(spec.name) && !caseKeys.contains(spec.name) {
                if let value = spec.defaultValue {
                    parameters[spec.name] = value
                } else if spec.name == "store" || spec.name == "strategy" {
                    throw error(
                        line: 1,
                        "\(spec.name) is not set; expected it under parameters or as a matrix list (\(spec.expected))")
                }
            }
            var scenario = Scenario(
                name: document.name, file: file, about: ScenarioFile.header(of: text), workload: workload, model: model,
                repetitions: repetitions, warmup: warmup, parameters: parameters, matrix: matrix, cases: cases,
                caseKeys: caseKeys, loadedModelFile: modelFile, firstScreen: document.firstScreen)
            try readBudget(document, into: &scenario, root: root)
            return scenario
        }

        /// `budget`, `max_repetitions` and `reference`: how long a run may go on adding rounds, and which cells
        /// the others are compared with.
        func readBudget(_ document: Document, into scenario: inout Scenario, root: Node) throws {
            if let written = document.budget {
                guard let seconds = Scenario.budgetSeconds(written.description) else {
                    throw error(
                        line: valueLine(["budget"], in: root),
                        "budget is '\(written)'; expected a time such as 10m, 90s, 1h or 1m30s")
                }
                scenario.budget = seconds
            }
            if let most = document.maxRepetitions {
                guard scenario.budget != nil else {
                    throw error(
                        line: keyLine("max_repetitions", under: [], in: root),
                        "max_repetitions caps the rounds a budget adds; expected it only with budget")
                }
                guard most >= scenario.repetitions else {
                    throw error(
                        line: valueLine(["max_repetitions"], in: root),
                        "max_repetitions is \(most); expected an integer ≥ repetitions (\(scenario.repetitions))")
                }
                scenario.maxRepetitions = most
            }
            if let written = document.reference {
                guard let reference = Scenario.Reference(written) else {
                    throw error(
                        line: valueLine(["reference"], in: root),
                        "reference is '\(written)'; expected a matrix list and one of its values, such as "
                            + "strategy=shared-coordinator")
                }
                if let problem = scenario.problem(with: reference) {
                    throw error(line: valueLine(["reference"], in: root), problem)
                }
                scenario.reference = reference
            }
        }

        /// The `cases` list: mappings of the same parameters, each a combination the matrix runs with (a large
        /// import and a trickle differ in size and rate together, which no product of lists can say).
        /// - Returns: the cases' values, and their parameters in the first case's file order.
        func readCases(
            _ written: [[String: ScenarioValue]]?, root: Node, taken: Set<String>,
            accept: (ScenarioValue, ParameterSpec, [String]) throws -> ScenarioValue,
            spec: (String, Int) throws -> ParameterSpec
        ) throws -> (cases: [[String: ScenarioValue]], keys: [String]) {
            guard let written else { return ([], []) }
            let nodes = root.mapping?.first { $0.key.string == "cases" }?.value.sequence
            guard !written.isEmpty else {
                throw error(
                    line: keyLine("cases", under: [], in: root),
                    "cases is empty; expected a list of mappings, each setting the same parameters")
            }
            var cases: [[String: ScenarioValue]] = []
            var keys: [String] = []
            for (index, values) in written.enumerated() {
                let line = valueLine(["cases", String(index)], in: root)
                let names =
                    nodes.flatMap { $0.count > index ? $0[index].mapping?.compactMap(\.key.string) : nil }
                    ?? values.keys.sorted()
                guard !names.isEmpty else {
                    throw error(line: line, "case \(index + 1) is empty; expected parameters and their values")
                }
                if index == 0 {
                    keys = names
                } else if Set(names) != Set(keys) {
                    throw error(
                        line: line,
                        "case \(index + 1) sets \(names.sorted().joined(separator: ", ")) but case 1 sets "
                            + "\(keys.sorted().joined(separator: ", ")); expected every case to set the same parameters"
                    )
                }
                var accepted: [String: ScenarioValue] = [:]
                for name in names {
                    let parameter = try spec(name, index)
                    if taken.contains(name) {
                        throw error(
                            line: keyLine(name, under: ["cases", String(index)], in: root),
                            "\(name) is set by the cases and also as a fixed parameter or a matrix list; "
                                + "expected it in one place")
                    }
                    accepted[name] = try accept(values[name]!, parameter, ["cases", String(index), name])
                }
                guard !cases.contains(accepted) else {
                    throw error(line: line, "case \(index + 1) repeats an earlier case; expected distinct cases")
                }
                cases.append(accepted)
            }
            return (cases, keys)
        }
    }
}
