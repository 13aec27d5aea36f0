import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab fuzz`: seeded mutations of a corpus against a reader of untrusted input.
struct FuzzCommand<Tool: LabTool>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fuzz",
            abstract:
                "Fuzz a reader of untrusted input (predicate, model-file, scenario) with seeded mutations of a corpus.",
            discussion: "Exit status: 0 nothing found, 1 an input failed with an unexpected error, 3 a hang; "
                + "a crash leaves its input in --last-input.")
    }
    @Argument(help: "The target: \(FuzzTarget.all(workloads: Tool.workloads).map(\.name).joined(separator: ", ")).")
    var target: String
    @Option(
        help:
            "A folder of seed inputs (default: the target's own seeds; for model-file, built-in models and the real models of shared/model-corpus and shared/models; for scenario, built-in scenarios, Scenarios/*.yaml and the fuzz tests' scenarios)."
    )
    var corpus: String?
    @Option(help: "How long to fuzz, in seconds.") var seconds = 60.0
    @Option(help: "Seed of the mutations.") var seed: UInt64 = 1
    @Option(help: "Where each input is written before it runs.") var lastInput = "fuzz-last-input"

    func run() throws {
        let targets = FuzzTarget.all(workloads: Tool.workloads)
        guard let fuzzTarget = targets.first(where: { $0.name == target }) else {
            throw ValidationError("no fuzz target '\(target)'; targets: \(targets.map(\.name).joined(separator: ", "))")
        }
        let seeds = try corpus.map { try Fuzzer.corpus(at: URL(fileURLWithPath: $0)) } ?? fuzzTarget.defaultCorpus()
        let fuzzer = Fuzzer(target: fuzzTarget, seed: seed, lastInputFile: URL(fileURLWithPath: lastInput))
        let report = try fuzzer.run(corpus: seeds, seconds: seconds)
        print(report.summary(target: target, corpusCount: seeds.count, seed: seed))
        if !report.unexpected.isEmpty { throw ExitStatus.regression.code }
    }
}
