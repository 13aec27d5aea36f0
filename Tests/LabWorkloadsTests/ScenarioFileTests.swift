import Foundation
import LabWorkloads
import Testing

@Suite("Scenario files")
struct ScenarioFileTests {
    static let file = URL(fileURLWithPath: "/scenarios/test.yaml")

    func parse(_ text: String) throws -> Scenario {
        try ScenarioFile.parse(text, file: Self.file)
    }

    /// The message of the error parsing `text` throws.
    func message(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch let error as LabError {
            #expect(error.code == .invalidScenario)
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    static let valid = """
        # What this answers.
        # Second line.
        name: sample
        workload: import
        model: builtin:pods
        repetitions: 2
        warmup: 1
        parameters:
          objects: 300
          batch_size: 50
        matrix:
          store: [sqlite, lmdb, memory]
          strategy: [shared-coordinator, nested-contexts]
          page_size: [100, 200]
        """

    @Test("a valid file gives its fields, defaults, header and matrix in file order")
    func validFile() throws {
        let scenario = try parse(Self.valid)
        #expect(scenario.name == "sample")
        #expect(scenario.workload.name == "import")
        #expect(scenario.model == .builtin("pods"))
        #expect(scenario.repetitions == 2 && scenario.warmup == 1)
        #expect(scenario.about == "What this answers. Second line.")
        #expect(scenario.matrix.map(\.name) == ["store", "strategy", "page_size"])
        #expect(scenario.parameters["objects"] == .integer(300))
        #expect(scenario.parameters["seed"] == .integer(1), "defaults are filled in")
        #expect(scenario.parameters["catalog"] == nil, "optional parameters stay unset")
        #expect(scenario.cellCount == 12)
    }

    @Test("the matrix expands as a cartesian product, first axis slowest, each cell with every parameter")
    func matrixExpansion() throws {
        let cells = try parse(Self.valid).cells()
        #expect(cells.count == 12)
        #expect(cells.map(\.index) == Array(1...12))
        #expect(cells[0].label == "store=sqlite strategy=shared-coordinator page_size=100")
        #expect(cells[1].label == "store=sqlite strategy=shared-coordinator page_size=200")
        #expect(cells[2].label == "store=sqlite strategy=nested-contexts page_size=100")
        #expect(cells[11].label == "store=memory strategy=nested-contexts page_size=200")
        #expect(
            cells.allSatisfy {
                $0.parameters["objects"] == .integer(300) && $0.parameters["batch_size"] == .integer(50)
            })
        #expect(Set(cells.map(\.label)).count == 12)
    }

    @Test("a filter names a boolean parameter by the word the file shows: off and on, no and yes, false and true")
    func filterByBooleanWord() throws {
        let scenario = try parse(
            """
            name: words
            workload: import
            model: builtin:pods
            parameters:
              strategy: shared-coordinator
            matrix:
              store: [sqlite]
              reimport: [off, on]
            """)
        let all = scenario.cells()
        #expect(all.count == 2)
        func reimport(_ word: String) -> [ScenarioValue?] {
            scenario.cells(filters: ["reimport": [word]]).map { $0.parameters["reimport"] }
        }
        for word in ["off", "no", "false", "OFF"] { #expect(reimport(word) == [.boolean(false)]) }
        for word in ["on", "yes", "true"] { #expect(reimport(word) == [.boolean(true)]) }
        #expect(scenario.cells(filters: ["reimport": ["maybe"]]).isEmpty)
        #expect(scenario.cells(filters: ["store": ["on"]]).isEmpty, "a word names a boolean only")
    }

    @Test("filters keep matching cells and keep their numbers; quick shrinks counts and repetitions")
    func filtersAndQuick() throws {
        let scenario = try parse(Self.valid)
        let lmdb = scenario.cells(filters: ["store": ["lmdb"], "page_size": ["100", "200"]])
        #expect(lmdb.map(\.index) == [5, 6, 7, 8])
        #expect(scenario.cells(filters: ["store": ["lmdb", "memory"], "strategy": ["nested-contexts"]]).count == 4)
        #expect(throws: LabError.self) { try scenario.validate(filters: ["stroe": ["lmdb"]]) }

        var big = try parse(Self.valid.replacingOccurrences(of: "objects: 300", with: "objects: 90000"))
        big = big.quick()
        #expect(big.repetitions == 1 && big.warmup == 0)
        #expect(big.parameters["objects"] == .integer(1_500))
        #expect(big.cellCount == 12)
        let sweep = try parse(
            """
            name: sweep
            workload: merge-cost
            parameters: {store: sqlite, strategy: separate-stacks}
            matrix:
              registered: [500, 5000, 50000]
            """
        ).quick()
        #expect(
            sweep.matrix[0].values == [.integer(500), .integer(1_000)], "values that shrink to the same cap collapse")
    }

    @Test("an unknown top-level key names the file, its line and the keys expected")
    func unknownTopLevelKey() {
        let text = Self.valid.replacingOccurrences(of: "warmup: 1", with: "warmpu: 1")
        #expect(
            message(text) == "/scenarios/test.yaml:7: unknown key 'warmpu'; expected one of "
                + "name, workload, model, store_file, version, population, first_screen, import_key, repetitions, "
                + "warmup, budget, "
                + "max_repetitions, reference, parameters, matrix, cases"
        )
    }

    @Test("an unknown parameter names its line and the workload's parameters")
    func unknownParameter() {
        let text = Self.valid.replacingOccurrences(of: "batch_size: 50", with: "batchsize: 50")
        let text2 = message(text)
        #expect(
            text2.hasPrefix(
                "/scenarios/test.yaml:10: unknown parameter 'batchsize' in parameters for workload import; expected one of store, strategy, seed"
            ))
        let matrix = message(Self.valid.replacingOccurrences(of: "page_size: [100, 200]", with: "pages: [1]"))
        #expect(matrix.hasPrefix("/scenarios/test.yaml:14: unknown parameter 'pages' in matrix"))
    }

    @Test("a wrong type names the line through the coding path")
    func wrongType() {
        #expect(
            message(Self.valid.replacingOccurrences(of: "repetitions: 2", with: "repetitions: two"))
                == "/scenarios/test.yaml:6: repetitions has the wrong type; expected an integer")
        #expect(
            message(
                Self.valid.replacingOccurrences(
                    of: "strategy: [shared-coordinator, nested-contexts]", with: "strategy: nested-contexts"))
                == "/scenarios/test.yaml:13: matrix.strategy has the wrong type; expected a list of values, such as [sqlite, lmdb]"
        )
        #expect(
            message(Self.valid.replacingOccurrences(of: "objects: 300", with: "objects: [1, 2]"))
                .hasPrefix("/scenarios/test.yaml:9: parameters.objects has the wrong type"))
    }

    @Test("impossible values: a negative count, an unknown store, strategy or workload, with line and expectation")
    func impossibleValues() {
        #expect(
            message(Self.valid.replacingOccurrences(of: "objects: 300", with: "objects: -5"))
                == "/scenarios/test.yaml:9: objects is '-5'; expected an integer ≥ 1")
        #expect(
            message(Self.valid.replacingOccurrences(of: "[sqlite, lmdb, memory]", with: "[sqlite, postgres]"))
                == "/scenarios/test.yaml:12: store is 'postgres'; expected one of sqlite, lmdb, memory")
        #expect(
            message(Self.valid.replacingOccurrences(of: "[shared-coordinator, nested-contexts]", with: "[shared]"))
                == "/scenarios/test.yaml:13: strategy is 'shared'; expected one of main-only, shared-coordinator, "
                + "separate-stacks, nested-contexts, container, batch-history, pinned-generation, extension"
        )
        #expect(
            message(Self.valid.replacingOccurrences(of: "workload: import", with: "workload: bulk"))
                == "/scenarios/test.yaml:4: unknown workload 'bulk'; expected one of import, read-write-mix, merge-cost, save-chain, startup"
        )
        #expect(
            message(Self.valid.replacingOccurrences(of: "repetitions: 2", with: "repetitions: 0"))
                == "/scenarios/test.yaml:6: repetitions is 0; expected an integer ≥ 1")
        #expect(
            message(Self.valid.replacingOccurrences(of: "warmup: 1", with: "warmup: -1"))
                == "/scenarios/test.yaml:7: warmup is -1; expected an integer ≥ 0")
    }

    @Test("merge-cost refuses main-only; a missing store, a duplicate, a model file and bad YAML are explained")
    func otherErrors() {
        let mergeCost = """
            name: m
            workload: merge-cost
            parameters:
              store: sqlite
              strategy: main-only
            """
        #expect(
            message(mergeCost)
                == "/scenarios/test.yaml:5: strategy is 'main-only'; expected one of shared-coordinator, separate-stacks, "
                + "nested-contexts, container, batch-history, pinned-generation"
        )
        #expect(
            message("name: m\nworkload: import\nparameters:\n  strategy: main-only\n")
                .hasPrefix("/scenarios/test.yaml:1: store is not set; expected it under parameters or as a matrix list")
        )
        #expect(
            message(
                "name: m\nworkload: import\nparameters:\n  store: lmdb\nmatrix:\n  store: [sqlite]\n  strategy: [main-only]\n"
            )
                == "/scenarios/test.yaml:6: store is both a fixed parameter and a matrix list; expected it in one place"
        )
        #expect(
            message(Self.valid.replacingOccurrences(of: "builtin:pods", with: "Models/App.xcdatamodeld"))
                == "/scenarios/test.yaml:5: no model file at /scenarios/Models/App.xcdatamodeld (Models/App.xcdatamodeld, relative to /scenarios)"
        )
        #expect(
            message(Self.valid.replacingOccurrences(of: "builtin:pods", with: "builtin:cars")).hasPrefix(
                "/scenarios/test.yaml:5: unknown model 'builtin:cars'"))
        #expect(
            message("name: m\nworkload: import\nmatrix:\n  store: [sqlite\n").hasPrefix(
                "/scenarios/test.yaml:5: not valid YAML"))
        #expect(message("workload: import\n") == "/scenarios/test.yaml:1: missing key 'name' in the scenario")
    }

    @Test(
        "every shipped scenario file loads",
        arguments: [
            "quick", "concurrency", "import", "merge-cost", "save-chain", "read-write-mix", "merge-frc",
            "strategy-latency",
            "store-open", "startup", "startup-gate", "strategies",
        ])
    func shippedScenarios(name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios/\(name).yaml")
        let scenario = try ScenarioFile.load(url)
        #expect(scenario.name == name)
        #expect(!scenario.about.isEmpty, "each file says what it answers in its header")
    }

    static let withCases = """
        name: cased
        workload: import
        parameters: {page_size: 100}
        matrix:
          store: [sqlite, lmdb]
          strategy: [container]
        cases:
          - {objects: 90000, batch_size: 5000, write_rate: 0}
          - {objects: 400, batch_size: 20, write_rate: 1000}
        """

    @Test("cases vary several parameters together: each matrix combination runs with every case, cases fastest")
    func cases() throws {
        let scenario = try parse(Self.withCases)
        #expect(scenario.caseKeys == ["objects", "batch_size", "write_rate"], "in the file's order")
        #expect(scenario.cellCount == 4)
        #expect(scenario.axisNames == ["store", "strategy", "objects", "batch_size", "write_rate"])
        let cells = scenario.cells()
        #expect(
            cells.map { $0.parameters["objects"] } == [
                .integer(90_000), .integer(400), .integer(90_000), .integer(400),
            ])
        #expect(cells.map { $0.parameters["store"]?.description } == ["sqlite", "sqlite", "lmdb", "lmdb"])
        #expect(
            cells[1].parameters["write_rate"] == .integer(1_000) && cells[1].parameters["batch_size"] == .integer(20))
        #expect(cells[1].parameters["page_size"] == .integer(100), "the fixed parameters too")
        #expect(cells[3].matrixValues.map(\.name) == ["store", "strategy", "objects", "batch_size", "write_rate"])
        #expect(scenario.cells(filters: ["write_rate": ["1000"]]).map(\.index) == [2, 4])
        let quick = scenario.quick()
        #expect(quick.cases.map { $0["objects"] } == [.integer(1_500), .integer(400)], "each case shrunk on its own")
    }

    @Test("a case's mistake names its line: another case's parameters, an unknown one, a clash, a bad value, a repeat")
    func caseErrors() {
        #expect(
            message(
                Self.withCases.replacingOccurrences(
                    of: "{objects: 400, batch_size: 20, write_rate: 1000}", with: "{objects: 400, write_rate: 1000}"))
                == "/scenarios/test.yaml:9: case 2 sets objects, write_rate but case 1 sets batch_size, objects, "
                + "write_rate; expected every case to set the same parameters")
        #expect(
            message(Self.withCases.replacingOccurrences(of: "write_rate: 0}", with: "write_rat: 0}")).hasPrefix(
                "/scenarios/test.yaml:8: unknown parameter 'write_rat' in case 1 for workload import; expected one of"))
        #expect(
            message(
                Self.withCases.replacingOccurrences(
                    of: "parameters: {page_size: 100}", with: "parameters: {objects: 5}"))
                == "/scenarios/test.yaml:8: objects is set by the cases and also as a fixed parameter or a matrix list; "
                + "expected it in one place")
        #expect(
            message(Self.withCases.replacingOccurrences(of: "batch_size: 20,", with: "batch_size: -1,"))
                == "/scenarios/test.yaml:9: batch_size is '-1'; expected an integer ≥ 1")
        #expect(
            message(
                Self.withCases.replacingOccurrences(
                    of: "{objects: 400, batch_size: 20, write_rate: 1000}",
                    with: "{objects: 90000, batch_size: 5000, write_rate: 0}"))
                == "/scenarios/test.yaml:9: case 2 repeats an earlier case; expected distinct cases")
        #expect(
            message("name: m\nworkload: import\nparameters: {store: sqlite, strategy: container}\ncases: []\n")
                == "/scenarios/test.yaml:4: cases is empty; expected a list of mappings, each setting the same parameters"
        )
    }
}
