import Foundation
import LabReliability
import LabWorkloads
import Testing

/// The readers of untrusted input survive mutated inputs; CI runs a few seconds per target from the committed
/// corpus (the long sessions are `stacklab fuzz TARGET --seconds 600 --corpus …`, see the README).
@Suite("Fuzzing")
struct FuzzTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/fuzz")

    @Test(
        "every corpus input and its mutants end in a result or a promised error",
        arguments: FuzzTarget.all(workloads: .stack).map(\.name))
    func target(name: String) throws {
        let target = try #require(FuzzTarget.all(workloads: .stack).first { $0.name == name })
        let corpus = try Fuzzer.corpus(at: Self.corpora.appendingPathComponent(name))
        #expect(corpus.count >= 20, "a committed corpus of real inputs")
        let report = try Fuzzer(
            target: target, seed: 2_026,
            lastInputFile: FileManager.default.temporaryDirectory.appendingPathComponent(
                "stacklab-fuzz-\(name)-last-input")
        ).run(corpus: corpus, seconds: 3)
        #expect(
            report.unexpected.isEmpty,
            "\(report.unexpected.prefix(3).map { "\($0.message) for \(String(decoding: $0.input, as: UTF8.self).debugDescription)" })"
        )
        #expect(
            report.accepted > 0 && report.rejected > 0, "the inputs reach both the accepting and the rejecting paths")
        #expect(report.executions > corpus.count)
    }

    @Test("a target's unexpected error is reported with its input, and a seed replays the same session")
    func reportsUnexpected() throws {
        struct Leak: Error {}
        let target = FuzzTarget(name: "toy", dictionary: ["boom"]) { data in
            let text = String(decoding: data, as: UTF8.self)
            if text.contains("boom") { return .unexpectedError("leaked \(Leak())") }
            return text.isEmpty ? .rejected("empty") : .accepted
        }
        let first = try Fuzzer(target: target, seed: 9).run(corpus: [Data("a".utf8)], seconds: 60, maxExecutions: 2_000)
        let second = try Fuzzer(target: target, seed: 9).run(
            corpus: [Data("a".utf8)], seconds: 60, maxExecutions: 2_000)
        #expect(!first.unexpected.isEmpty)
        #expect(first.unexpected.allSatisfy { String(decoding: $0.input, as: UTF8.self).contains("boom") })
        #expect(first.unexpected.count == second.unexpected.count && first.accepted == second.accepted)
    }
}
