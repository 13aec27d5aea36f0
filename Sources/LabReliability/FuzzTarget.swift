import Foundation
import LabWorkloads

/// Something that reads untrusted input — a predicate, a model file, a scenario file — and must turn every
/// input into a result or an error: never a crash, never a hang.
public struct FuzzTarget: Sendable {
    /// What one input did.
    public enum Outcome: Sendable, Equatable {
        /// The input was read (and, where it applies, used) without error.
        case accepted
        /// The input was rejected with an error of the kind the reader promises; the text is its message.
        case rejected(String)
        /// The input was rejected with an error of another kind: a reader leaking an internal failure.
        case unexpectedError(String)
    }

    /// The target's name on the command line.
    public let name: String
    /// Words of the input language, spliced in by mutations so inputs stay near the grammar.
    public let dictionary: [String]
    /// Runs one input.
    public let execute: @Sendable (Data) -> Outcome
    /// The seeds `stacklab fuzz` starts from when given no `--corpus`.
    public let defaultCorpus: @Sendable () -> [Data]
    /// The longest input a mutation makes, in bytes: long enough to keep a real input whole.
    public let maxInputSize: Int

    /// A target called `name` that runs inputs with `execute`, seeded by `defaultCorpus` when given no corpus.
    public init(
        name: String, dictionary: [String], maxInputSize: Int = 4_096,
        defaultCorpus: @escaping @Sendable () -> [Data] = { [] },
        execute: @escaping @Sendable (Data) -> Outcome
    ) {
        self.name = name
        self.dictionary = dictionary
        self.maxInputSize = maxInputSize
        self.defaultCorpus = defaultCorpus
        self.execute = execute
    }

    /// The targets `stacklab fuzz` knows; the scenario reader knows the workloads of `workloads`.
    public static func all(workloads: WorkloadRegistry) -> [FuzzTarget] {
        [.predicate, .modelFile, .scenarioFile(workloads: workloads)]
    }
}
