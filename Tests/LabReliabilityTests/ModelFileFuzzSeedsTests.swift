import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import Testing

/// The model-file fuzzer starts from the built-in models and every real model the lab finds (`ModelCorpus`).
@Suite("Model-file fuzzer seeds")
struct ModelFileFuzzSeedsTests {
    /// The corpora beside the repository (or `$STACKLAB_MODEL_CORPUS`).
    static let entries: [ModelCorpus.Entry] = ModelCorpus.locations(
        from: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    ).flatMap { (try? ModelCorpus(root: $0))?.entries ?? [] }

    @Test("the model-file fuzzer's default seeds are the built-in models and every readable version found; all load")
    func fuzzerSeeds() throws {
        let seeds = FuzzTarget.modelFile.defaultCorpus()
        let versions = try Self.entries.map { entry in
            try ManagedObjectModel.versionList(contentsOf: try #require(entry.url), options: .strict).loaded.count
        }.reduce(0, +)
        #expect(seeds.count == 3 + versions, "\(seeds.count) seeds, \(versions) versions")
        // Every seed loads (the corpus run first, one execution each).
        let seeded = try Fuzzer(target: .modelFile, seed: 7).run(corpus: seeds, seconds: 60, maxExecutions: seeds.count)
        #expect(seeded.accepted == seeds.count && seeded.unexpected.isEmpty)
        // Mutants of the small built-in seeds still load now and then: the seeds reach past the XML parser.
        let builtIn = Array(seeds.prefix(3))
        let mutated = try Fuzzer(target: .modelFile, seed: 7).run(corpus: builtIn, seconds: 60, maxExecutions: 150)
        #expect(mutated.unexpected.isEmpty && mutated.accepted > builtIn.count, "\(mutated.accepted) accepted")
    }
}
