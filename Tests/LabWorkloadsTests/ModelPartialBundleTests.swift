import Foundation
import LabWorkloads
import ObjectStack
import Testing

import struct TestSupport.TemporaryModelFile

/// A bundle with a version the reader skips (the pre-Xcode-4 layout, a binary contents, a compiled `.mom`) works in
/// the lab: its readable versions are chosen by name, and a migration step through a skipped one is unavailable.
@Suite("Model files with skipped versions in the lab")
struct ModelPartialBundleTests {
    @Test("version: names a readable version; naming a skipped one says why and lists the readable ones")
    func selection() throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let bundle = try files.partialBundle()
        let current = try ModelFileSelection(path: bundle.path, relativeTo: nil)
        #expect(current.version.name == "Notes 4" && current.versions.map(\.name) == ["Notes 2", "Notes 4"])
        #expect(current.list.skipped.map(\.name) == ["Notes", "Notes 3", "Notes 5"])
        #expect(current.entryIndex == 3)
        let named = try ModelFileSelection(path: bundle.path, relativeTo: nil, version: "Notes 2.xcdatamodel")
        #expect(named.model.entitiesByName["Note"]?.attributes.isEmpty == true)
        let skipped = try #require(throws: LabError.self) {
            try ModelFileSelection(path: bundle.path, relativeTo: nil, version: "Notes")
        }
        #expect(
            skipped.message.contains("pre-Xcode-4") && skipped.message.contains("'Notes 2', 'Notes 4'"), "\(skipped)")
        let description = try ModelDescription(contentsOf: bundle)
        #expect(description.text.contains("== Notes 5: skipped, a compiled model"))
        #expect(try description.json().contains("\"skipped\""))
    }

    @Test(
        "a history step to or from a skipped version is unavailable; the readable steps still run",
        arguments: [LabCore.StoreKind.sqlite, .lmdb])
    func history(store: LabCore.StoreKind) throws {
        let files = try TemporaryModelFile()
        defer { files.remove() }
        let list = try ManagedObjectModel.versionList(contentsOf: try files.partialBundle())
        let history = try ModelHistory.run(
            entries: list.entries, from: 0, to: 3, spec: PopulationSpec(rootCount: 3), seed: 1, store: store,
            directory: files.folder.appendingPathComponent("history"))
        #expect(history.versionNames == ["Notes", "Notes 2", "Notes 3", "Notes 4"])
        #expect(history.seededAt == "Notes 2")
        #expect(history.steps.map(\.verdict.name) == ["unavailable", "unavailable", "unavailable"])
        guard case .unavailable(let reason) = history.steps[0].verdict else { return }
        #expect(reason.contains("Notes is skipped") && reason.contains("pre-Xcode-4"))
        // The trip goes on: seeded afresh at the readable Notes 4 after the step into it.
        #expect(history.steps[2].reseeded != nil && history.steps[0].reseeded == nil)
        #expect(history.launchDuration == nil)
        #expect(history.text.contains("Notes 2 -> Notes 3: unavailable"))
    }
}
